"""``/chips``: wallets, the daily bonus, the leaderboard and statistics; grants and economy
settings for members with Manage Server."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.amounts import read_chips, read_count, read_optional_chips
from bot.client import PokerBot
from bot.errors import BotError, locale_of
from bot.i18n import number, t
from bot.interact import command_text, defer, guild_id_of, reply, runtime_of
from bot.presenter import chips, mention
from bot.render import render_chart
from bot.runtime.manager import language_of
from bot.runtime.messenger import image_file
from bot.runtime.rendering import render
from bot.runtime.reports import chart_labels, period_name, stats_report
from bot.storage import StorageError, economy, stats
from bot.storage.economy import MAX_COOLDOWN, MAX_TABLES
from bot.storage.stats import LeaderboardKey, Period

Interaction = discord.Interaction[PokerBot]

BOARD_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.leaderboard.{key.value}"), value=key.value)
    for key in LeaderboardKey
]
# The server's language for channel messages; "auto" follows the server's preferred locale.
LANGUAGE_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.language.{code}"), value=code)
    for code in economy.LANGUAGES
]
PERIOD_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.period.{period.value}"), value=period.value)
    for period in Period
]
# The chart is drawn on the render thread every table shares: a few in a row, not a stream.
STATS_RATE, STATS_PER = 5, 60.0
MAX_COOLDOWN_HOURS = MAX_COOLDOWN // 3600
MAX_IDLE_MINUTES = economy.MAX_IDLE_CLOSE // 60


class Chips(commands.Cog):
    group = app_commands.Group(
        name="chips", description=command_text("command.chips"), guild_only=True
    )

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    async def _guild(self, interaction: Interaction) -> int:
        guild_id = guild_id_of(interaction)
        await runtime_of(interaction).ensure_guild(guild_id)
        return guild_id

    @group.command(name="balance", description=command_text("command.chips.balance"))
    @app_commands.describe(user=command_text("option.user"))
    async def balance(self, interaction: Interaction, user: discord.User | None = None) -> None:
        guild_id = await self._guild(interaction)
        db = runtime_of(interaction).db
        loc = locale_of(interaction)
        if user is None or user.id == interaction.user.id:
            amount = await economy.balance(db, guild_id, interaction.user.id)
            await reply(interaction, t("reply.balance_own", loc, amount=chips(amount, loc)))
            return
        try:
            amount = await economy.balance(db, guild_id, user.id, create=False)
        except StorageError as exc:
            if exc.code == "unknown_user":
                raise BotError("no_wallet", user=mention(user.id)) from None
            raise
        await reply(
            interaction,
            t("reply.balance_other", loc, user=mention(user.id), amount=chips(amount, loc)),
        )

    @group.command(name="daily", description=command_text("command.chips.daily"))
    async def daily(self, interaction: Interaction) -> None:
        guild_id = await self._guild(interaction)
        claim = await economy.claim_daily(runtime_of(interaction).db, guild_id, interaction.user.id)
        loc = locale_of(interaction)
        await reply(
            interaction,
            t(
                "reply.daily",
                loc,
                amount=chips(claim.amount, loc),
                balance=chips(claim.balance, loc),
                next=f"<t:{claim.next_claim_at}:R>",
            ),
        )

    @group.command(name="leaderboard", description=command_text("command.chips.leaderboard"))
    @app_commands.describe(
        by=command_text("option.leaderboard_by"), period=command_text("option.period")
    )
    @app_commands.choices(by=BOARD_CHOICES, period=PERIOD_CHOICES)
    async def leaderboard(
        self,
        interaction: Interaction,
        by: str = LeaderboardKey.NET.value,
        period: str = Period.ALL.value,
    ) -> None:
        guild_id = await self._guild(interaction)
        try:
            key = LeaderboardKey(by)
        except ValueError:
            raise BotError("bad_option", option="by") from None
        chosen = _period(period)
        rows = await stats.leaderboard(
            runtime_of(interaction).db, guild_id, by=key, limit=10, period=chosen
        )
        loc = locale_of(interaction)
        if not rows:
            if chosen is Period.ALL:
                await reply(interaction, t("reply.leaderboard_empty", loc))
            else:
                await reply(interaction, t("reply.leaderboard_empty_period", loc,
                                           period=period_name(chosen, loc)))
            return
        title = t(f"leaderboard.title.{key.value}", loc)
        if chosen is not Period.ALL:
            title = t("leaderboard.period", loc, title=title, period=period_name(chosen, loc))
        lines = [title]
        lines += [
            t(
                "leaderboard.row",
                loc,
                rank=row.rank,
                player=mention(row.user_id),
                value=chips(row.value, loc) if row.value >= 0 else "-" + chips(-row.value, loc),
                hands=number(row.hands_played, loc),
            )
            for row in rows
        ]
        await reply(interaction, "\n".join(lines))

    @group.command(name="stats", description=command_text("command.chips.stats"))
    @app_commands.describe(user=command_text("option.user"), period=command_text("option.period"))
    @app_commands.choices(period=PERIOD_CHOICES)
    @app_commands.checks.cooldown(STATS_RATE, STATS_PER)
    async def stats(
        self,
        interaction: Interaction,
        user: discord.User | None = None,
        period: str = Period.ALL.value,
    ) -> None:
        """Every figure with what it counts, and a chart of his net after each hand (drawn,
        so the reply is deferred first)."""
        guild_id = await self._guild(interaction)
        target = user or interaction.user
        chosen = _period(period)
        await defer(interaction)
        try:
            found = await stats.player_stats(
                runtime_of(interaction).db, guild_id, target.id, period=chosen, series=True
            )
        except StorageError as exc:
            if exc.code == "unknown_user":
                raise BotError("no_wallet", user=mention(target.id)) from None
            raise
        loc = locale_of(interaction)
        report = stats_report(found, mention(target.id), target.display_name, loc)
        image = await render(render_chart, report.chart, chart_labels(loc))
        await reply(interaction, report.text, file=image_file(image))

    @group.command(name="grant", description=command_text("command.chips.grant"))
    @app_commands.describe(
        user=command_text("option.user"), amount=command_text("option.grant_amount")
    )
    @app_commands.checks.has_permissions(manage_guild=True)
    async def grant(
        self, interaction: Interaction, user: discord.User, amount: app_commands.Range[int, 1]
    ) -> None:
        guild_id = await self._guild(interaction)
        chips_granted = read_chips(amount, "amount")
        balance = await economy.grant(
            runtime_of(interaction).db,
            guild_id,
            user.id,
            chips_granted,
            actor_id=interaction.user.id,
        )
        loc = locale_of(interaction)
        await reply(
            interaction,
            t(
                "reply.granted",
                loc,
                user=mention(user.id),
                amount=chips(chips_granted, loc),
                balance=chips(balance, loc),
            ),
        )

    @group.command(name="settings", description=command_text("command.chips.settings"))
    @app_commands.describe(
        starting_balance=command_text("option.starting_balance"),
        daily_amount=command_text("option.daily_amount"),
        daily_hours=command_text("option.daily_hours"),
        max_tables=command_text("option.max_tables"),
        max_tables_per_host=command_text("option.max_tables_per_host"),
        idle_minutes=command_text("option.idle_minutes"),
        language=command_text("option.language"),
        bots_allowed=command_text("option.bots_allowed"),
        house_loss_cap=command_text("option.house_loss_cap"),
    )
    @app_commands.choices(language=LANGUAGE_CHOICES)
    @app_commands.checks.has_permissions(manage_guild=True)
    async def settings(
        self,
        interaction: Interaction,
        starting_balance: app_commands.Range[int, 0] | None = None,
        daily_amount: app_commands.Range[int, 0] | None = None,
        daily_hours: app_commands.Range[int, 0, MAX_COOLDOWN_HOURS] | None = None,
        max_tables: app_commands.Range[int, 1, MAX_TABLES] | None = None,
        max_tables_per_host: app_commands.Range[int, 1, MAX_TABLES] | None = None,
        idle_minutes: app_commands.Range[int, 0, MAX_IDLE_MINUTES] | None = None,
        language: str | None = None,
        bots_allowed: bool | None = None,
        house_loss_cap: app_commands.Range[int, 0] | None = None,
    ) -> None:
        guild_id = await self._guild(interaction)
        runtime = runtime_of(interaction)
        db = runtime.db
        if language is not None and language not in economy.LANGUAGES:
            raise BotError("bad_option", option="language")
        changes = {
            "starting_balance": read_optional_chips(
                starting_balance, "starting_balance", allow_zero=True
            ),
            "daily_amount": read_optional_chips(daily_amount, "daily_amount", allow_zero=True),
            "daily_cooldown": _optional_count(daily_hours, "daily_hours", 0, MAX_COOLDOWN_HOURS,
                                              3600),
            "max_tables": _optional_count(max_tables, "max_tables", 1, MAX_TABLES),
            "max_tables_per_host": _optional_count(
                max_tables_per_host, "max_tables_per_host", 1, MAX_TABLES
            ),
            "idle_close": _optional_count(idle_minutes, "idle_minutes", 0, MAX_IDLE_MINUTES, 60),
            "bots_allowed": None if bots_allowed is None else bool(bots_allowed),
            "house_loss_cap": read_optional_chips(
                house_loss_cap, "house_loss_cap", allow_zero=True
            ),
        }
        given: dict[str, Any] = {
            name: value for name, value in changes.items() if value is not None
        }
        if given:
            current = await economy.update_settings(db, guild_id, **given)
        else:
            current = await economy.get_settings(db, guild_id)
        if language is not None:
            # Stored, and the server's open tables switch at their next message.
            await runtime.set_language(guild_id, language, interaction.guild_locale)
            current = await economy.get_settings(db, guild_id)
        house = await economy.house_report(db, guild_id)
        loc = locale_of(interaction)
        spoken = language_of(current.language, interaction.guild_locale)
        await reply(
            interaction,
            t(
                "reply.economy",
                loc,
                starting=chips(current.starting_balance, loc),
                daily=chips(current.daily_amount, loc),
                hours=current.daily_cooldown // 3600,
            )
            + "\n"
            + t(
                "reply.table_limits",
                loc,
                tables=current.max_tables,
                per_host=current.max_tables_per_host,
                idle=t("reply.idle_never", loc)
                if not current.idle_close
                else t("reply.idle_minutes", loc, minutes=current.idle_close // 60),
            )
            + "\n"
            + t(
                "reply.language_auto" if current.language == "auto" else "reply.language",
                loc,
                language=t(f"language.{spoken}", loc),
            )
            + "\n"
            + t(
                "reply.bots_setting",
                loc,
                allowed=t("reply.yes" if current.bots_allowed else "reply.no", loc),
                cap=chips(current.house_loss_cap, loc),
            )
            + "\n"
            + t(
                "reply.house",
                loc,
                balance=chips(house.balance, loc),
                floated=chips(house.floated, loc),
                net=chips(house.net, loc),
            ),
        )


def _period(value: str) -> Period:
    try:
        return Period(value)
    except ValueError:
        raise BotError("bad_option", option="period") from None


def _optional_count(
    value: int | None, option: str, low: int, high: int, unit: int = 1
) -> int | None:
    return None if value is None else read_count(value, option, low, high) * unit


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Chips(bot))
