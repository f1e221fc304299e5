"""``/poker``: open a table in a channel, sit down, play, and (for the host) run the table.

Thin adapters: every option is checked again here (Discord enforces ranges and choices in its
client only), then the table's table does the work; refusals become ephemeral sentences
through the command tree's error handler.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
from collections.abc import Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.amounts import read_chips, read_count, read_optional_chips
from bot.client import PokerBot
from bot.errors import BotError, locale_of
from bot.i18n import t
from bot.interact import (
    BOT_LEVEL_CHOICES,
    GAME_CHOICES,
    bot_level_of,
    command_text,
    defer,
    game_of,
    guild_id_of,
    live_here,
    reply,
    require_channel_access,
    require_host,
    runtime_of,
    show_my_cards,
    table_here,
)
from bot.presenter import (
    chips,
    game_name,
    mention,
)
from bot.render import render_chart
from bot.runtime.cash import CashTable
from bot.runtime.kinds import Extra
from bot.runtime.messenger import image_file
from bot.runtime.rendering import render
from bot.runtime.reports import chart_labels, ledger_report, settlement, stored_names
from bot.storage import economy, sessions
from engine.games import NLHE
from engine.hand import AnteKind, ReopenMode, RunItTwice, StraddleMode
from engine.limits import MAX_TABLE_SEATS
from engine.seating import NewPlayerPolicy
from engine.table import TableOptions

Interaction = discord.Interaction[PokerBot]

ANTE_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.ante.{kind.value}"), value=kind.value)
    for kind in AnteKind
]
REOPEN_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.reopen.{mode.value}"), value=mode.value)
    for mode in ReopenMode
]
RUN_TWICE_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.run_it_twice.{mode.value}"), value=mode.value)
    for mode in RunItTwice
]
STRADDLE_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.straddle.{mode.value}"), value=mode.value)
    for mode in StraddleMode
]
# Cash tables offer the two ways in; dealing in without posting is for tournaments.
NEW_PLAYER_POLICIES = (NewPlayerPolicy.WAIT_FOR_BB, NewPlayerPolicy.POST_BB)
NEW_PLAYER_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.new_players.{p.value}"), value=p.value)
    for p in NEW_PLAYER_POLICIES
]
MAX_BOMB_EVERY = 1000
# A practice table seats the caller and up to eight bots: a full ring of nine.
MAX_PRACTICE_BOTS = 8
PRACTICE_SEATS = 9

# ``/poker rules [topic]``: the short rules, one topic per choice (``rules.<topic>``).
RULE_TOPICS = ("hand_ranks", "blinds", "side_pots", "short_all_in", "showdown", "omaha")
RULE_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.rules.{topic}"), value=topic)
    for topic in RULE_TOPICS
]


def _choice(value: object, kinds: Any, option: str) -> Any:
    try:
        return kinds(value)
    except ValueError:
        raise BotError("bad_option", option=option) from None


def _ante(kind: object, amount: int | None, option: str = "ante_amount") -> tuple[AnteKind, int]:
    ante_kind = _choice(kind, AnteKind, "ante")
    ante = 0 if amount is None else read_chips(amount, option, allow_zero=True)
    if ante_kind is AnteKind.NONE and ante:
        raise BotError("ante_without_kind")
    if ante_kind is not AnteKind.NONE and not ante:
        raise BotError("ante_missing")
    return ante_kind, ante


# A ledger is drawn on the render thread every table shares: a member may ask for a few in a
# row, not keep it busy.
LEDGER_RATE, LEDGER_PER = 5, 60.0

def _new_players(value: object) -> NewPlayerPolicy:
    policy = _choice(value, NewPlayerPolicy, "new_players")
    if policy not in NEW_PLAYER_POLICIES:
        raise BotError("bad_option", option="new_players")
    return policy  # type: ignore[no-any-return]


def _bombs(every: int | None, amount: int | None, big_blind: int) -> tuple[int, int] | None:
    """Every how many hands a bomb pot comes and for how much (two big blinds unless said);
    None when neither was given."""
    if every is None and amount is None:
        return None
    count = 0 if every is None else read_count(every, "bomb_every", 0, MAX_BOMB_EVERY)
    chips_in = 2 * big_blind if amount is None else read_chips(amount, "bomb_amount")
    return count, chips_in


# /poker create and /poker settings describe the same table options.
TABLE_OPTION_TEXT = {
    name: command_text(f"option.{name}")
    for name in (
        "small_blind", "big_blind", "min_buy_in", "max_buy_in", "timer", "ante", "ante_amount",
        "reopen", "run_it_twice", "straddle", "new_players", "bomb_every", "bomb_amount",
        "game",
    )
}
TABLE_OPTION_CHOICES: dict[str, Any] = {
    "ante": ANTE_CHOICES,
    "reopen": REOPEN_CHOICES,
    "run_it_twice": RUN_TWICE_CHOICES,
    "straddle": STRADDLE_CHOICES,
    "new_players": NEW_PLAYER_CHOICES,
    "game": GAME_CHOICES,
}


class Poker(commands.Cog):
    poker = app_commands.Group(
        name="poker", description=command_text("command.poker"), guild_only=True
    )
    bots = app_commands.Group(
        name="bots", description=command_text("command.poker.bots"), parent=poker
    )

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    # -- a table ---------------------------------------------------------------------------

    @poker.command(name="create", description=command_text("command.poker.create"))
    @app_commands.describe(seats=command_text("option.seats"), **TABLE_OPTION_TEXT)
    @app_commands.choices(**TABLE_OPTION_CHOICES)
    async def create(
        self,
        interaction: Interaction,
        small_blind: app_commands.Range[int, 1] = 5,
        big_blind: app_commands.Range[int, 1] = 10,
        min_buy_in: app_commands.Range[int, 1] | None = None,
        max_buy_in: app_commands.Range[int, 1] | None = None,
        seats: app_commands.Range[int, 2, MAX_TABLE_SEATS] = 9,
        timer: app_commands.Range[int, 1, 3600] | None = None,
        ante: str = AnteKind.NONE.value,
        ante_amount: app_commands.Range[int, 0] | None = None,
        reopen: str = ReopenMode.TDA.value,
        run_it_twice: str = RunItTwice.OFF.value,
        straddle: str = StraddleMode.OFF.value,
        new_players: str = NewPlayerPolicy.WAIT_FOR_BB.value,
        bomb_every: app_commands.Range[int, 0, MAX_BOMB_EVERY] | None = None,
        bomb_amount: app_commands.Range[int, 1] | None = None,
        game: str = NLHE.code,
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        require_channel_access(interaction)
        ante_kind, ante_chips = _ante(ante, ante_amount)
        limits = runtime.options
        options = TableOptions(
            small_blind=read_chips(small_blind, "small_blind"),
            big_blind=read_chips(big_blind, "big_blind"),
            ante=ante_chips,
            ante_kind=ante_kind,
            reopen=_choice(reopen, ReopenMode, "reopen"),
            min_buy_in=read_optional_chips(min_buy_in, "min_buy_in"),
            max_buy_in=read_optional_chips(max_buy_in, "max_buy_in"),
            seats=read_count(seats, "seats", 2, MAX_TABLE_SEATS),
            run_it_twice=_choice(run_it_twice, RunItTwice, "run_it_twice"),
            straddle=_choice(straddle, StraddleMode, "straddle"),
            new_player=_new_players(new_players),
            game=game_of(game),
        )
        bombs = _bombs(bomb_every, bomb_amount, options.big_blind)
        clock = read_count(
            limits.default_timer if timer is None else timer,
            "timer",
            limits.min_timer,
            limits.max_timer,
        )
        # The table speaks the server's language, whoever opened it.
        channel_locale = await runtime.channel_locale(guild_id, interaction.guild_locale)
        await runtime.create_table(
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            options=options,
            timer=clock,
            locale=channel_locale,
            bombs=bombs,
        )
        low, high = options.buy_in_range
        loc = locale_of(interaction)
        await reply(
            interaction,
            t(
                "reply.created",
                loc,
                game=game_name(options.game, loc),
                small_blind=chips(options.small_blind, loc),
                big_blind=chips(options.big_blind, loc),
                minimum=chips(low, loc),
                maximum=chips(high, loc),
            ),
        )

    @poker.command(name="join", description=command_text("command.poker.join"))
    @app_commands.describe(
        buy_in=command_text("option.buy_in"), seat=command_text("option.seat")
    )
    async def join(
        self,
        interaction: Interaction,
        buy_in: app_commands.Range[int, 1] | None = None,
        seat: app_commands.Range[int, 1, MAX_TABLE_SEATS] | None = None,
    ) -> None:
        table = table_here(interaction)
        runtime = runtime_of(interaction)
        guild_id = guild_id_of(interaction)
        await runtime.ensure_guild(guild_id)
        options = table.table.options
        if buy_in is None:
            # The largest buy-in, or the whole wallet when it holds less (but enough).
            low, high = options.buy_in_range
            wallet = await economy.balance(runtime.db, guild_id, interaction.user.id)
            amount = min(high, wallet) if wallet >= low else high
        else:
            amount = read_chips(buy_in, "buy_in")
        chosen = None if seat is None else read_count(seat, "seat", 1, options.seats)
        taken = await table.join(
            interaction.user.id, interaction.user.display_name, amount, chosen
        )
        loc = locale_of(interaction)
        await reply(interaction, t(table.kind.word("reply.joined"), loc, seat=taken,
                                   amount=chips(amount, loc)))

    @poker.command(name="leave", description=command_text("command.poker.leave"))
    async def leave(self, interaction: Interaction) -> None:
        table = table_here(interaction)
        returned = await table.leave(interaction.user.id)
        loc = locale_of(interaction)
        words = table.kind.word
        if returned is None:
            await reply(interaction, t(words("reply.leaving_after_hand"), loc))
        else:
            await reply(interaction, t(words("reply.left"), loc, amount=chips(returned, loc)))

    @poker.command(name="start", description=command_text("command.poker.start"))
    async def start(self, interaction: Interaction) -> None:
        table = table_here(interaction)
        require_channel_access(interaction)
        await table.start_dealing(interaction.user.id)
        await reply(interaction, t("reply.started", locale_of(interaction)))

    @poker.command(name="sitout", description=command_text("command.poker.sitout"))
    @app_commands.describe(next_big_blind=command_text("option.next_big_blind"))
    async def sitout(self, interaction: Interaction, next_big_blind: bool = False) -> None:
        table = table_here(interaction, needs=Extra.SIT_OUT)
        loc = locale_of(interaction)
        if next_big_blind:
            will = await table.skip_next_big_blind(interaction.user.id)
            await reply(interaction, t(f"reply.skip_big_blind_{'on' if will else 'off'}", loc))
            return
        await table.sit_out(interaction.user.id)
        await reply(interaction, t("reply.sat_out", loc))

    @poker.command(name="bomb", description=command_text("command.poker.bomb"))
    @app_commands.describe(amount=command_text("option.bomb_pot_amount"))
    async def bomb(self, interaction: Interaction, amount: app_commands.Range[int, 1]) -> None:
        table = self._hosted(interaction, needs=Extra.BOMB)
        chips_in = read_chips(amount, "amount")
        await table.order_bomb(chips_in)
        loc = locale_of(interaction)
        await reply(interaction, t("reply.bomb_ordered", loc, amount=chips(chips_in, loc)))

    @poker.command(name="sitin", description=command_text("command.poker.sitin"))
    async def sitin(self, interaction: Interaction) -> None:
        # At a tournament's table too: a player marked away is back.
        table = live_here(interaction)
        await table.sit_in(interaction.user.id)
        await reply(interaction, t("reply.sat_in", locale_of(interaction)))

    @poker.command(name="rebuy", description=command_text("command.poker.rebuy"))
    @app_commands.describe(amount=command_text("option.rebuy_amount"))
    async def rebuy(self, interaction: Interaction, amount: app_commands.Range[int, 1]) -> None:
        table = table_here(interaction)
        stack = await table.rebuy(interaction.user.id, read_chips(amount, "amount"))
        loc = locale_of(interaction)
        await reply(interaction, t(table.kind.word("reply.rebought"), loc,
                                   stack=chips(stack, loc)))

    @poker.command(name="cards", description=command_text("command.poker.cards"))
    async def cards(self, interaction: Interaction) -> None:
        await show_my_cards(interaction, live_here(interaction))

    @poker.command(name="table", description=command_text("command.poker.table"))
    async def table(self, interaction: Interaction) -> None:
        table = live_here(interaction)
        posted = await table.repost(interaction.user.id)
        key = "reply.reposted" if posted else "reply.repost_pending"
        await reply(interaction, t(key, locale_of(interaction)))

    # -- computer players ------------------------------------------------------------------

    @poker.command(name="practice", description=command_text("command.poker.practice"))
    @app_commands.describe(
        bots=command_text("option.bots"),
        level=command_text("option.bot_level"),
        blinds=command_text("option.blinds"),
        stack=command_text("option.stack"),
        game=command_text("option.game"),
    )
    @app_commands.choices(level=BOT_LEVEL_CHOICES, game=GAME_CHOICES)
    async def practice(
        self,
        interaction: Interaction,
        bots: app_commands.Range[int, 1, MAX_PRACTICE_BOTS] = 5,
        level: str = "regular",
        blinds: str = "5/10",
        stack: app_commands.Range[int, 1] | None = None,
        game: str = NLHE.code,
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        require_channel_access(interaction)
        count = read_count(bots, "bots", 1, MAX_PRACTICE_BOTS)
        level = bot_level_of(level)
        small, big = _blinds(blinds)
        amount = read_chips(100 * big if stack is None else stack, "stack")
        # Everybody, bots too, sits with the same stack: the buy-in range is that one figure.
        options = TableOptions(
            small_blind=small, big_blind=big, min_buy_in=amount, max_buy_in=amount,
            seats=PRACTICE_SEATS, game=game_of(game),
        )
        channel_locale = await runtime.channel_locale(guild_id, interaction.guild_locale)
        user = interaction.user
        await defer(interaction)  # a table, a seat and every bot's seat are stored one by one
        table = await runtime.create_table(
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=user.id,
            options=options,
            timer=runtime.options.default_timer,
            locale=channel_locale,
            practice=True,
        )
        try:
            await table.join(user.id, user.display_name, amount, None)
            await table.add_bots(count, level, None)
            await table.start_dealing(user.id)
        except BaseException:
            # Half a practice table is no table: nothing is left open.
            if not table.closed:
                await table.close(None, idle=True)
            raise
        loc = locale_of(interaction)
        await reply(
            interaction,
            t(
                "reply.practice",
                loc,
                bots=count,
                level=t(f"bot_level.{level}", loc),
                small_blind=chips(small, loc),
                big_blind=chips(big, loc),
                stack=chips(amount, loc),
            ),
        )

    @bots.command(name="add", description=command_text("command.poker.bots.add"))
    @app_commands.describe(
        count=command_text("option.bots"),
        level=command_text("option.bot_level"),
        seat=command_text("option.bot_seat"),
    )
    @app_commands.choices(level=BOT_LEVEL_CHOICES)
    async def bots_add(
        self,
        interaction: Interaction,
        count: app_commands.Range[int, 1, MAX_TABLE_SEATS] = 1,
        level: str = "regular",
        seat: app_commands.Range[int, 1, MAX_TABLE_SEATS] | None = None,
    ) -> None:
        table = self._hosted(interaction, needs=Extra.BOTS)
        seats = await table.add_bots(
            read_count(count, "count", 1, MAX_TABLE_SEATS), bot_level_of(level), seat
        )
        loc = locale_of(interaction)
        await reply(interaction, t("reply.bots_added", loc, seats=_seat_list(seats)))

    @bots.command(name="remove", description=command_text("command.poker.bots.remove"))
    @app_commands.describe(seat=command_text("option.bot_seat"))
    async def bots_remove(
        self,
        interaction: Interaction,
        seat: app_commands.Range[int, 1, MAX_TABLE_SEATS] | None = None,
    ) -> None:
        table = self._hosted(interaction, needs=Extra.BOTS)
        now, later = await table.remove_bots(seat)
        loc = locale_of(interaction)
        lines = []
        if now:
            lines.append(t("reply.bots_removed", loc, seats=_seat_list(now)))
        if later:
            lines.append(t("reply.bots_removed_later", loc, seats=_seat_list(later)))
        await reply(interaction, "\n".join(lines))

    @poker.command(name="rules", description=command_text("command.poker.rules"))
    @app_commands.describe(topic=command_text("option.rules_topic"))
    @app_commands.choices(topic=RULE_CHOICES)
    async def rules(self, interaction: Interaction, topic: str | None = None) -> None:
        loc = locale_of(interaction)
        if topic is None:
            await reply(interaction, t("rules.overview", loc))
            return
        if topic not in RULE_TOPICS:
            raise BotError("bad_option", option="topic")
        await reply(interaction, t(f"rules.{topic}", loc))

    @poker.command(name="ledger", description=command_text("command.poker.ledger"))
    @app_commands.describe(reset=command_text("option.ledger_reset"))
    @app_commands.checks.cooldown(LEDGER_RATE, LEDGER_PER)
    async def ledger(self, interaction: Interaction, reset: bool = False) -> None:
        """The session's ledger as a message, a CSV file and a chart of the stacks.

        Anyone who can see the channel may read it: it is what everybody at the table saw
        happen. The reply is private all the same, so that asking for it cannot flood the
        table's channel with images; resetting it, which changes what everyone will read, is
        the host's, and the channel is told. With no open table here, the ledger of the last
        one that closed in this channel is shown (a closed table's last session is final).
        """
        loc = locale_of(interaction)
        intro = ""
        table: CashTable | None
        if reset:
            table = table_here(interaction, needs=Extra.LEDGER)
            require_host(interaction, table)
            await defer(interaction)
            session, start = await table.reset_ledger(interaction.user.id)
            intro = t("ledger.reset_done", loc, hand=start.first_hand)
        else:
            table, table_id = await _ledger_table(interaction)
            await defer(interaction)
            session = await sessions.session_ledger(runtime_of(interaction).db, table_id)
        # The running table's names are the freshest; a closed table's are as it stored them.
        names = {**stored_names(session.config), **(table.config.names if table else {})}
        channel = getattr(interaction.channel, "name", None)
        report = ledger_report(
            session, names, loc,
            table_name=f"#{channel}" if channel else t("ledger.this_table", loc),
            intro=intro,
            transfers=await asyncio.to_thread(settlement, session.players),
        )
        image = await render(render_chart, report.chart, chart_labels(loc))
        csv_file = discord.File(io.BytesIO(report.csv), filename=report.csv_name)
        await reply(interaction, report.text, files=[csv_file, image_file(image)])

    # -- the host's commands ---------------------------------------------------------------

    def _hosted(
        self, interaction: Interaction, *, needs: Extra | None = None
    ) -> CashTable:
        table = table_here(interaction, needs=needs)
        require_host(interaction, table)
        return table

    @poker.command(name="pause", description=command_text("command.poker.pause"))
    async def pause(self, interaction: Interaction) -> None:
        await self._hosted(interaction).pause(interaction.user.id)
        await reply(interaction, t("reply.paused", locale_of(interaction)))

    @poker.command(name="resume", description=command_text("command.poker.resume"))
    async def resume(self, interaction: Interaction) -> None:
        await self._hosted(interaction).resume(interaction.user.id)
        await reply(interaction, t("reply.resumed", locale_of(interaction)))

    @poker.command(name="settings", description=command_text("command.poker.settings"))
    @app_commands.describe(**TABLE_OPTION_TEXT, recap=command_text("option.recap"))
    @app_commands.choices(**TABLE_OPTION_CHOICES)
    async def settings(
        self,
        interaction: Interaction,
        small_blind: app_commands.Range[int, 1] | None = None,
        big_blind: app_commands.Range[int, 1] | None = None,
        min_buy_in: app_commands.Range[int, 1] | None = None,
        max_buy_in: app_commands.Range[int, 1] | None = None,
        timer: app_commands.Range[int, 1, 3600] | None = None,
        ante: str | None = None,
        ante_amount: app_commands.Range[int, 0] | None = None,
        reopen: str | None = None,
        run_it_twice: str | None = None,
        straddle: str | None = None,
        new_players: str | None = None,
        bomb_every: app_commands.Range[int, 0, MAX_BOMB_EVERY] | None = None,
        bomb_amount: app_commands.Range[int, 1] | None = None,
        game: str | None = None,
        recap: bool | None = None,
    ) -> None:
        extras = ((run_it_twice, Extra.RUN_TWICE), (straddle, Extra.STRADDLE),
                  (bomb_every, Extra.BOMB), (bomb_amount, Extra.BOMB), (recap, Extra.LEDGER))
        table = self._hosted(interaction, needs=next(
            (extra for value, extra in extras if value is not None), None))
        base = table.config.pending or table.table.options
        changes: dict[str, Any] = {}
        for name, value in (
            ("small_blind", small_blind),
            ("big_blind", big_blind),
            ("min_buy_in", min_buy_in),
            ("max_buy_in", max_buy_in),
        ):
            if value is not None:
                changes[name] = read_chips(value, name)
        if ante is not None or ante_amount is not None:
            kind = base.ante_kind.value if ante is None else ante
            amount = base.ante if ante_amount is None else ante_amount
            changes["ante_kind"], changes["ante"] = _ante(kind, amount)
        if reopen is not None:
            changes["reopen"] = _choice(reopen, ReopenMode, "reopen")
        if run_it_twice is not None:
            changes["run_it_twice"] = _choice(run_it_twice, RunItTwice, "run_it_twice")
        if straddle is not None:
            changes["straddle"] = _choice(straddle, StraddleMode, "straddle")
        if new_players is not None:
            changes["new_player"] = _new_players(new_players)
        if game is not None:
            changes["game"] = game_of(game)
        bombs = None
        if bomb_every is not None or bomb_amount is not None:
            every = table.config.bomb_every if bomb_every is None else bomb_every
            kept: int | None = table.config.bomb_amount or None
            bombs = _bombs(
                every,
                kept if bomb_amount is None else bomb_amount,
                changes.get("big_blind", base.big_blind),
            )
        limits = runtime_of(interaction).options
        clock = (
            None
            if timer is None
            else read_count(timer, "timer", limits.min_timer, limits.max_timer)
        )
        if not changes and clock is None and bombs is None and recap is None:
            raise BotError("nothing_to_change")
        options = dataclasses.replace(base, **changes) if changes else None
        waits = False
        if changes or clock is not None or bombs is not None:
            waits = await table.change_settings(options, clock, bombs)
        if recap is not None:
            # A recap is the session's: it may be turned on or off at any moment.
            await table.set_recap(bool(recap))
        loc = locale_of(interaction)
        await reply(interaction, t("reply.settings_next_hand" if waits else "reply.settings", loc))

    @poker.command(name="kick", description=command_text("command.poker.kick"))
    @app_commands.describe(user=command_text("option.user"))
    async def kick(self, interaction: Interaction, user: discord.User) -> None:
        table = self._hosted(interaction)
        returned = await table.kick(user.id, interaction.user.id)
        loc = locale_of(interaction)
        if returned is None:
            await reply(interaction, t("reply.kicked_after_hand", loc, player=mention(user.id)))
        else:
            await reply(
                interaction,
                t(table.kind.word("reply.kicked"), loc, player=mention(user.id),
                  amount=chips(returned, loc)),
            )

    @poker.command(name="void", description=command_text("command.poker.void"))
    async def void(self, interaction: Interaction) -> None:
        await self._hosted(interaction).void(interaction.user.id)
        await reply(interaction, t("reply.voided", locale_of(interaction)))

    @poker.command(name="close", description=command_text("command.poker.close"))
    async def close(self, interaction: Interaction) -> None:
        table = self._hosted(interaction)
        returned = await table.close(interaction.user.id)
        loc = locale_of(interaction)
        total = sum(returned.values())
        await reply(interaction, t(table.kind.word("reply.closed"), loc, players=len(returned),
                                   amount=chips(total, loc)))


async def _ledger_table(interaction: Interaction) -> tuple[CashTable | None, int]:
    """The table whose ledger this channel shows: its open table, else its last closed one
    (of this server: a channel's id never names another server's table here)."""
    guild_id = guild_id_of(interaction)
    runtime = runtime_of(interaction)
    channel_id = interaction.channel_id
    if channel_id is None:
        raise BotError("no_table")
    try:
        table = runtime.registry.cash_table_in(channel_id, needs=Extra.LEDGER)
    except BotError as refused:
        if refused.code != "no_table":
            raise  # a table plays here that keeps no ledger
        table_id = await sessions.latest_table_in_channel(runtime.db, guild_id, channel_id)
        if table_id is None:
            raise
        return None, table_id
    return table, table.table_id


def _blinds(text: str) -> tuple[int, int]:
    """"5/10" as (5, 10): whole chips, the big blind at least the small one."""
    text = str(text)
    small, slash, big = text[:64].strip().partition("/")
    small, big = small.strip(), big.strip()
    if len(text) > 64 or not slash or not small.isdecimal() or not big.isdecimal():
        raise BotError("bad_blinds")
    low = read_chips(int(small), "small_blind")
    high = read_chips(int(big), "big_blind")
    if high < low:
        raise BotError("bad_blinds")
    return low, high


def _seat_list(seats: Sequence[int]) -> str:
    return ", ".join(f"#{seat}" for seat in seats)


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Poker(bot))

