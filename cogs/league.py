"""``/league``: a server's season. Open a league, follow its standings, list and close leagues.

A tournament counts toward a league when ``/tournament create … league:`` names it; its points
are stored with its results (``bot.storage.leagues``). Thin adapters: names and times are read
again here, storage judges the rest in its transactions. Refusals are one ephemeral sentence.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.ui.dynamic import DynamicItem

from bot.amounts import read_time
from bot.client import PokerBot
from bot.errors import BotError, locale_of
from bot.guards import GuardedItem
from bot.i18n import t
from bot.interact import command_text, defer, guild_id_of, reply, runtime_of
from bot.leagues import (
    league_labels,
    league_name,
    league_view,
    may_run,
    rule_text,
    standings_text,
)
from bot.presenter import chips, safe_text
from bot.render import render_league
from bot.runtime.messenger import image_file
from bot.runtime.rendering import render
from bot.runtime.tourney import TournamentSettings, now
from bot.storage import leagues
from bot.storage.leagues import MAX_LEAGUE_NAME
from engine.errors import EngineError
from engine.league import MAX_POINTS_TEXT, read_points

Interaction = discord.Interaction[PokerBot]


class Leagues(commands.Cog):
    league = app_commands.Group(
        name="league", description=command_text("command.league"), guild_only=True
    )

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    @league.command(name="create", description=command_text("command.league.create"))
    @app_commands.describe(
        name=command_text("option.league_name"),
        starts=command_text("option.league_starts"),
        ends=command_text("option.league_ends"),
        points=command_text("option.league_points"),
    )
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, MAX_LEAGUE_NAME],
        starts: app_commands.Range[str, 1, 40] | None = None,
        ends: app_commands.Range[str, 1, 40] | None = None,
        points: app_commands.Range[str, 1, MAX_POINTS_TEXT] | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        title = league_name(name)
        rule = read_points("standard" if points is None else points)
        moment = now()
        start = None if starts is None else int(read_time(starts, "starts_at", moment))
        end = None if ends is None else int(read_time(ends, "ends_at", moment))
        if end is not None and end <= moment:
            raise EngineError("ends_at_past", ends_at=end)
        await runtime.ensure_guild(guild_id)
        created = await leagues.create_league(
            runtime.db, guild_id, interaction.user.id, name=title, points=rule.text,
            starts_at=start, ends_at=end, now=int(moment),
        )
        loc = locale_of(interaction)
        await reply(interaction, t("reply.league_created", loc, league=safe_text(created.name),
                                   points=rule_text(rule, loc)))

    @league.command(name="standings", description=command_text("command.league.standings"))
    @app_commands.describe(name=command_text("option.league_name"))
    async def standings(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, MAX_LEAGUE_NAME] | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        if name is None:
            # The league most likely meant: the latest open one, else the latest.
            found = await leagues.list_leagues(runtime.db, guild_id, limit=1)
            if not found:
                raise BotError("unknown_league")
            league = found[0]
        else:
            league = await leagues.find_league(runtime.db, guild_id, league_name(name))
        table = await leagues.league_standings(runtime.db, league.league_id)
        await defer(interaction)
        names: dict[int, str] = {}
        for config in reversed(await leagues.league_configs(runtime.db, league.league_id)):
            names.update(TournamentSettings.from_json(config).names)
        guild = interaction.guild
        for row in table.rows:
            member = guild.get_member(row.user_id) if guild is not None else None
            if member is not None:
                names[row.user_id] = member.display_name
        loc = locale_of(interaction)
        image = await render(render_league, league_view(table, names, loc), league_labels(loc))
        await reply(interaction, standings_text(table, loc), file=image_file(image))

    @league.command(name="list", description=command_text("command.league.list"))
    async def list_(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        loc = locale_of(interaction)
        found = await leagues.list_leagues(runtime.db, guild_id)
        if not found:
            await reply(interaction, t("reply.league_list_empty", loc))
            return
        lines = [t("reply.league_list_title", loc)]
        for league in found:
            status = "closed" if league.closed else "open"
            lines.append(t("reply.league_list_line", loc, league=safe_text(league.name),
                           status=t(f"league.status.{status}", loc),
                           points=rule_text(league.points, loc)))
        await reply(interaction, "\n".join(lines)[:2000])

    @league.command(name="close", description=command_text("command.league.close"))
    @app_commands.describe(name=command_text("option.league_name"))
    async def close(
        self, interaction: Interaction, name: app_commands.Range[str, 1, MAX_LEAGUE_NAME]
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        league = await leagues.find_league(runtime.db, guild_id, league_name(name))
        if not may_run(interaction, league):
            raise BotError("not_league_host")
        closed = await leagues.close_league(runtime.db, guild_id, league.league_id)
        await reply(interaction, t("reply.league_closed", locale_of(interaction),
                                   league=safe_text(closed.name)))


class EventRegister(GuardedItem, DynamicItem[discord.ui.Button[Any]],
                    template=r"event:register:(?P<tournament>\d+)"):
    """The Register button of a tournament's reminder (a DM): registers the presser as
    ``/tournament register`` would, in the tournament's own server."""

    def __init__(self, tournament_id: int, label: str = "Register") -> None:
        super().__init__(discord.ui.Button(label=label, style=discord.ButtonStyle.success,
                                           custom_id=f"event:register:{tournament_id}"))
        self.tournament_id = tournament_id

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> EventRegister:
        return cls(int(match["tournament"]))

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        runtime = runtime_of(interaction)
        live = next((v for v in runtime.registry.tournaments()
                     if v.tournament_id == self.tournament_id), None)
        if live is None:
            raise BotError("tournament_over")
        await runtime.ensure_guild(live.guild_id)
        entered = await live.register(interaction.user.id, interaction.user.display_name)
        loc = locale_of(interaction)
        await reply(interaction, t("event.registered", loc, name=safe_text(live.name),
                                   buy_in=chips(live.state.config.buy_in, loc),
                                   balance=chips(entered.balance, loc)))


def register_view(tournament_id: int, locale: str) -> discord.ui.View:
    """The reminder's one button."""
    view = discord.ui.View(timeout=None)
    view.add_item(EventRegister(tournament_id, t("button.event_register", locale)))
    return view


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Leagues(bot))
    bot.add_dynamic_items(EventRegister)
    if bot.runtime is not None:
        bot.runtime.calendar.register_view = register_view
