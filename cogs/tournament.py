"""``/tournament``: open a tournament in a channel, register, run it as its host, and follow it.

Thin adapters like ``/poker``: every option is read again here (Discord enforces ranges and
choices in its client only), the engine judges the structure, the payouts and the settings as a
whole, and the live tournament does the rest. Refusals are one ephemeral sentence each.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.amounts import read_chips, read_count, read_optional_chips, read_time
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
    is_admin,
    reply,
    require_channel_access,
    runtime_of,
)
from bot.leagues import league_name, may_run
from bot.presenter import (
    chips,
    deal_buttons,
    deal_figures_text,
    game_name,
    results_text,
    safe_text,
    tournament_labels,
)
from bot.presenter import tournament_view as board_view
from bot.render import render_tournament
from bot.render.tournament import TournamentView
from bot.runtime.dealvote import KINDS as DEAL_KINDS
from bot.runtime.formats import format_lines, format_tags
from bot.runtime.messenger import image_file
from bot.runtime.rendering import render
from bot.runtime.tourney import KINDS, LiveTournament, TournamentSettings, now
from bot.storage import economy, leagues, tournaments
from bot.storage.leagues import MAX_LEAGUE_NAME
from bot.storage.tournaments import MAX_NAME, LeagueEntry, TournamentInfo
from bot.ui import build_view
from engine.bots.ids import bot_id
from engine.bounty import BountyKind
from engine.errors import EngineError
from engine.games import NLHE
from engine.hand import AnteKind
from engine.limits import MAX_LEVELS, MAX_TABLE_SEATS, MAX_TOURNAMENT_PLAYERS
from engine.structures import MAX_MINUTES
from engine.structures import payouts as read_payouts
from engine.structures import structure as read_structure
from engine.tournament import MAX_REBUYS, MAX_REENTRIES, Tournament, TournamentConfig

Interaction = discord.Interaction[PokerBot]

KIND_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.kind.{kind}"), value=kind) for kind in KINDS
]
BOUNTY_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.bounty_kind.{kind.value}"), value=kind.value)
    for kind in BountyKind
]
ANTE_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.ante.{kind.value}"), value=kind.value)
    for kind in AnteKind
]
DEAL_CHOICES = [
    app_commands.Choice(name=command_text(f"choice.deal.{kind}"), value=kind)
    for kind in DEAL_KINDS
]
DEFAULT_MAX_PLAYERS = 100
DEFAULT_SEATS = 9
MAX_TEXT = 1000  # a structure typed out
# The level_minutes option, as Discord's client offers it and as the refusal states it.
MIN_LEVEL_MINUTES = 0.1
MAX_LEVEL_MINUTES = MAX_MINUTES


def _tournament_here(interaction: Interaction) -> LiveTournament:
    """The tournament of this channel (its own, or one of its tables' threads)."""
    guild_id_of(interaction)
    tournament = runtime_of(interaction).registry.tournament_in(interaction.channel_id)
    if tournament is None:
        raise BotError("no_tournament")
    tournament.remember(interaction.user.id, interaction.user.display_name)
    return tournament


def _hosted(interaction: Interaction) -> LiveTournament:
    tournament = _tournament_here(interaction)
    if not tournament.is_host(interaction.user.id, admin=is_admin(interaction)):
        raise BotError("not_tournament_host")
    return tournament


def _name(value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        raise BotError("bad_tournament_name", maximum=MAX_NAME)
    # One line, no surrounding spaces: it heads messages and threads.
    return " ".join(value.split())


def _choice(value: object, allowed: tuple[str, ...], option: str) -> str:
    if value not in allowed:
        raise BotError("bad_option", option=option)
    return str(value)


def _text(value: object, option: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise BotError("bad_option", option=option)
    if len(value) > limit:
        raise BotError("text_too_long", option=option, maximum=limit)
    return value


def _minutes(value: object) -> float | None:
    """``level_minutes``: from 0.1 to 240, the range Discord's client offers (and the refusal
    states), for a crafted request too."""
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not MIN_LEVEL_MINUTES <= value <= MAX_LEVEL_MINUTES):
        raise BotError("out_of_range", option="level_minutes", minimum=MIN_LEVEL_MINUTES,
                       maximum=f"{MAX_LEVEL_MINUTES:g}")
    return float(value)


def _stored_engine(info: TournamentInfo, rng: Any) -> Tournament | None:
    """A tournament's engine as storage last saw it, for a board or results (hands called off
    by a cancel are left out: their chips went back where they were)."""
    if info.state is None:
        return None
    state = dict(info.state)
    state["tables"] = [[n, {**data, "in_hand": False}] for n, data in state.get("tables", [])]
    try:
        return Tournament.from_json(state, rng)
    except EngineError:
        return None


async def _league_entry(interaction: Interaction, league: object, robots: int,
                        big_blind: int) -> tuple[LeagueEntry, str] | None:
    """The league a new tournament counts toward (its host's or a manager's choice), and its
    name; refused for a practice tournament, which never counts."""
    if league is None:
        return None
    title = league_name(league)
    if robots:
        raise BotError("league_practice")
    found = await leagues.find_league(runtime_of(interaction).db, guild_id_of(interaction), title)
    if not may_run(interaction, found):
        raise BotError("not_league_host")
    return LeagueEntry(found.league_id, big_blind), found.name
def _format_of(config: TournamentConfig, settings: TournamentSettings, loc: object) -> list[str]:
    return format_lines(config, loc, sit_and_go=settings.kind == "sit_and_go",
                        repeat=settings.repeat)


def _tags_of(config: TournamentConfig, settings: TournamentSettings, loc: object) -> list[str]:
    return format_tags(config, loc, sit_and_go=settings.kind == "sit_and_go")


def _bought(key: str, tournament: LiveTournament, user_id: int, loc: object) -> str:
    """A rebuy's or an add-on's answer: his stack now and the prize pool."""
    engine = tournament.state
    number = engine.table_of(user_id)
    seat = engine.tables[number].player(user_id) if number is not None else None
    return t(key, loc, stack=chips(seat.stack if seat is not None else 0, loc),
             pool=chips(engine.prize_pool, loc))


# A practice tournament's bots enter one by one as anyone does: a hundred is plenty.
MAX_TOURNAMENT_BOTS = 99

class Tournaments(commands.Cog):
    tournament = app_commands.Group(
        name="tournament", description=command_text("command.tournament"), guild_only=True
    )

    def __init__(self, bot: PokerBot) -> None:
        self.bot = bot

    # -- opening -------------------------------------------------------------------------------

    @tournament.command(name="create", description=command_text("command.tournament.create"))
    @app_commands.describe(
        name=command_text("option.tournament_name"),
        kind=command_text("option.kind"),
        buy_in=command_text("option.tournament_buy_in"),
        starting_stack=command_text("option.starting_stack"),
        level_minutes=command_text("option.level_minutes"),
        structure=command_text("option.structure"),
        ante=command_text("option.ante"),
        max_players=command_text("option.max_players"),
        seats_per_table=command_text("option.seats_per_table"),
        late_levels=command_text("option.late_levels"),
        ends_at=command_text("option.ends_at"),
        payouts=command_text("option.payouts"),
        starts_at=command_text("option.starts_at"),
        timer=command_text("option.timer"),
        bots=command_text("option.tournament_bots"),
        bot_level=command_text("option.bot_level"),
        game=command_text("option.game"),
        league=command_text("option.league"),
        repeat=command_text("option.repeat"),
    )
    @app_commands.choices(kind=KIND_CHOICES, ante=ANTE_CHOICES, bot_level=BOT_LEVEL_CHOICES,
                          game=GAME_CHOICES)
    async def create(
        self,
        interaction: Interaction,
        name: app_commands.Range[str, 1, MAX_NAME],
        kind: str,
        buy_in: app_commands.Range[int, 0],
        starting_stack: app_commands.Range[int, 1],
        level_minutes: app_commands.Range[float, MIN_LEVEL_MINUTES, MAX_LEVEL_MINUTES]
        | None = None,
        structure: app_commands.Range[str, 1, MAX_TEXT] | None = None,
        ante: str = AnteKind.BIG_BLIND.value,
        max_players: app_commands.Range[int, 2, MAX_TOURNAMENT_PLAYERS] = DEFAULT_MAX_PLAYERS,
        seats_per_table: app_commands.Range[int, 2, MAX_TABLE_SEATS] = DEFAULT_SEATS,
        late_levels: app_commands.Range[int, 0, MAX_LEVELS] = 0,
        ends_at: app_commands.Range[str, 1, 40] | None = None,
        payouts: app_commands.Range[str, 1, 300] | None = None,
        starts_at: app_commands.Range[str, 1, 40] | None = None,
        timer: app_commands.Range[int, 1, 3600] | None = None,
        bots: app_commands.Range[int, 0, MAX_TOURNAMENT_BOTS] = 0,
        bot_level: str = "regular",
        game: str = NLHE.code,
        league: app_commands.Range[str, 1, MAX_LEAGUE_NAME] | None = None,
        repeat: bool = False,
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        require_channel_access(interaction)
        if isinstance(interaction.channel, discord.Thread):
            raise BotError("tournament_in_thread")
        title = _name(name)
        chosen = _choice(kind, KINDS, "kind")
        entry = read_chips(buy_in, "buy_in", allow_zero=True)
        stack = read_chips(starting_stack, "starting_stack")
        ante_kind = AnteKind(_choice(ante, tuple(k.value for k in AnteKind), "ante"))
        players = read_count(max_players, "max_players", 2, MAX_TOURNAMENT_PLAYERS)
        seats = read_count(seats_per_table, "seats_per_table", 2, MAX_TABLE_SEATS)
        late = read_count(late_levels, "late_levels", 0, MAX_LEVELS)
        robots = read_count(bots, "bots", 0, min(players - 1, MAX_TOURNAMENT_BOTS))
        level = bot_level_of(bot_level)
        dealt = game_of(game)
        if robots and entry:
            # Bots bring no chips: a tournament they play is a practice one, for nothing.
            raise BotError("bots_freeroll")
        sit_and_go = chosen == "sit_and_go"
        if not isinstance(repeat, bool) or (repeat and not sit_and_go):
            raise BotError("repeat_sit_and_go_only")
        if sit_and_go and (starts_at is not None or late):
            # It starts the moment it fills, with nobody to come later.
            raise BotError("sit_and_go_starts_when_full")
        limits = runtime.options
        clock = read_count(limits.default_timer if timer is None else timer, "timer",
                           limits.min_timer, limits.max_timer)
        spec = _text(structure, "structure", MAX_TEXT) or "regular"
        paid = _text(payouts, "payouts", 300) or "standard"
        moment = now()
        start = None if starts_at is None else read_time(starts_at, "starts_at", moment)
        if start is not None and start <= moment:
            raise BotError("starts_at_past", starts_at=int(start))
        end = None if ends_at is None else read_time(ends_at, "ends_at", moment)
        if chosen == "time_limited":
            if end is None:
                raise BotError("ends_at_missing")
            if end <= moment:
                raise EngineError("ends_at_past", ends_at=int(end))
            if start is not None and end <= start:
                raise BotError("ends_at_before_start", ends_at=int(end), starts_at=int(start))
        elif end is not None:
            raise BotError("ends_at_freeze_out")
        levels = read_structure(spec, starting_stack=stack, ante_kind=ante_kind,
                                level_minutes=_minutes(level_minutes))
        if stack < levels[0].big_blind:
            # Everyone all-in from the first hand is a lottery, not a tournament.
            raise BotError("starting_stack_below_big_blind", stack=stack,
                           minimum=levels[0].big_blind)
        config = TournamentConfig(
            buy_in=entry,
            starting_stack=stack,
            levels=levels,
            ante_kind=ante_kind,
            # Counted from the start (set then); a placeholder keeps the config whole meanwhile.
            time_limit=None if end is None else max(1.0, end - moment),
            payouts=read_payouts(paid, max_players=players),
            late_registration_level=late,
            max_players=players,
            seats=seats,
            game=dealt,
            start_when_full=sit_and_go,
        )
        if sit_and_go:
            # Its seat draw must fit the server's tables (each repeat is counted anew).
            await runtime.ensure_guild(guild_id)
            most = (await economy.get_settings(runtime.db, guild_id)).max_tables
            if config.tables_for(players) > most:
                raise BotError("sit_and_go_tables", players=players,
                               tables=config.tables_for(players), maximum=most)
        if (players > seats or repeat) and not interaction.app_permissions.create_public_threads:
            # Several tables play in threads under this channel, as a repeating sit-and-go
            # does once it starts (the channel is the next one's).
            raise BotError("bot_missing_permissions", permissions=("create_public_threads",))
        settings = TournamentSettings(
            kind=chosen,
            timer=clock,
            locale=await runtime.channel_locale(guild_id, interaction.guild_locale),
            structure=spec,
            payouts=paid,
            ends_at=end,
            starts_at=start,
            repeat=repeat,
        )
        await runtime.ensure_guild(guild_id)
        season = await _league_entry(interaction, league, robots, levels[0].big_blind)
        tournament = await runtime.create_tournament(
            guild_id=guild_id,
            channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id,
            name=title,
            config=config,
            settings=settings,
            league=None if season is None else season[0],
        )
        if robots:
            await defer(interaction)  # each bot's entry is stored like anyone's
        for serial in range(robots):
            await tournament.register(bot_id(serial, level), "")
        loc = locale_of(interaction)
        await reply(interaction, t("reply.tournament_created", loc, name=safe_text(tournament.name),
                                   game=game_name(dealt, loc),
                                   levels=len(levels), buy_in=chips(entry, loc),
                                   stack=chips(stack, loc))
                    + ("\n" + t("reply.tournament_bots", loc, bots=robots) if robots else "")
                    + ("" if season is None else "\n" + t("reply.tournament_league", loc,
                                                          league=safe_text(season[1]))))

    # -- players -------------------------------------------------------------------------------

    @tournament.command(name="register", description=command_text("command.tournament.register"))
    async def register(self, interaction: Interaction) -> None:
        tournament = _tournament_here(interaction)
        await runtime_of(interaction).ensure_guild(tournament.guild_id)
        entered = await tournament.register(interaction.user.id, interaction.user.display_name)
        loc = locale_of(interaction)
        text = t("reply.tournament_registered", loc, name=safe_text(tournament.name),
                 buy_in=chips(tournament.state.config.buy_in, loc),
                 balance=chips(entered.balance, loc))
        if entered.table is not None:
            table = tournament.tables.get(entered.table)
            where = f"<#{table.channel_id}>" if table is not None else ""
            text += "\n" + t("reply.tournament_seated", loc, table=entered.table,
                             seat=entered.seat or 0, channel=where)
        await reply(interaction, text)

    @tournament.command(name="unregister",
                        description=command_text("command.tournament.unregister"))
    async def unregister(self, interaction: Interaction) -> None:
        tournament = _tournament_here(interaction)
        balance = await tournament.unregister(interaction.user.id)
        loc = locale_of(interaction)
        await reply(interaction, t("reply.tournament_unregistered", loc,
                                   name=safe_text(tournament.name),
                                   amount=chips(tournament.state.config.buy_in, loc),
                                   balance=chips(balance, loc)))

    @tournament.command(name="rebuy", description=command_text("command.tournament.rebuy"))
    async def rebuy(self, interaction: Interaction) -> None:
        tournament = _tournament_here(interaction)
        await tournament.rebuy(interaction.user.id)
        await reply(interaction, _bought("reply.tournament_rebought", tournament,
                                         interaction.user.id, locale_of(interaction)))

    @tournament.command(name="addon", description=command_text("command.tournament.addon"))
    async def addon(self, interaction: Interaction) -> None:
        tournament = _tournament_here(interaction)
        await tournament.add_on(interaction.user.id)
        await reply(interaction, _bought("reply.tournament_added_on", tournament,
                                         interaction.user.id, locale_of(interaction)))
    @tournament.command(name="deal", description=command_text("command.tournament.deal"))
    @app_commands.describe(kind=command_text("option.deal_kind"))
    @app_commands.choices(kind=DEAL_CHOICES)
    async def deal(self, interaction: Interaction, kind: str) -> None:
        tournament = _tournament_here(interaction)
        chosen = _choice(kind, DEAL_KINDS, "kind")
        offer = await tournament.propose_deal(interaction.user.id, chosen)
        loc = locale_of(interaction)
        if offer is None:
            await reply(interaction, t("reply.deal_held", loc))
            return
        text = deal_figures_text(offer.kind, offer.stacks, offer.prizes,
                                 tournament.deals.accepted(), loc)
        await reply(interaction, (t("reply.deal_proposed", loc) + "\n" + text)[:2000],
                    view=build_view(tournament.tables[min(tournament.tables)].table_id,
                                    deal_buttons(offer.number, loc, show=False)))

    # -- the host ------------------------------------------------------------------------------

    @tournament.command(name="format", description=command_text("command.tournament.format"))
    @app_commands.describe(
        rebuys=command_text("option.rebuys"),
        rebuy_levels=command_text("option.rebuy_levels"),
        rebuy_chips=command_text("option.rebuy_chips"),
        rebuy_price=command_text("option.rebuy_price"),
        add_on=command_text("option.add_on"),
        add_on_price=command_text("option.add_on_price"),
        reentries=command_text("option.reentries"),
        bounty=command_text("option.bounty"),
        bounty_kind=command_text("option.bounty_kind"),
    )
    @app_commands.choices(bounty_kind=BOUNTY_CHOICES)
    async def format_(
        self,
        interaction: Interaction,
        rebuys: app_commands.Range[int, 0, MAX_REBUYS] = 0,
        rebuy_levels: app_commands.Range[int, 0, MAX_LEVELS] = 0,
        rebuy_chips: app_commands.Range[int, 1] | None = None,
        rebuy_price: app_commands.Range[int, 0] | None = None,
        add_on: app_commands.Range[int, 0] = 0,
        add_on_price: app_commands.Range[int, 0] | None = None,
        reentries: app_commands.Range[int, 0, MAX_REENTRIES] = 0,
        bounty: app_commands.Range[int, 0] = 0,
        bounty_kind: str = BountyKind.KNOCKOUT.value,
    ) -> None:
        tournament = _hosted(interaction)
        changes: dict[str, Any] = {
            "rebuys": read_count(rebuys, "rebuys", 0, MAX_REBUYS),
            "rebuy_levels": read_count(rebuy_levels, "rebuy_levels", 0, MAX_LEVELS),
            "rebuy_chips": read_optional_chips(rebuy_chips, "rebuy_chips"),
            "rebuy_price": read_optional_chips(rebuy_price, "rebuy_price", allow_zero=True),
            "add_on": read_chips(add_on, "add_on", allow_zero=True),
            "add_on_price": read_optional_chips(add_on_price, "add_on_price", allow_zero=True),
            "reentries": read_count(reentries, "reentries", 0, MAX_REENTRIES),
            "bounty": read_chips(bounty, "bounty", allow_zero=True),
            "bounty_kind": _choice(bounty_kind, tuple(k.value for k in BountyKind),
                                   "bounty_kind"),
        }
        await tournament.set_format(changes)
        loc = locale_of(interaction)
        lines = _format_of(tournament.state.config, tournament.settings, loc)
        await reply(interaction, t("reply.tournament_format", loc,
                                   name=safe_text(tournament.name))
                    + "\n" + "\n".join(lines or [t("format.freeze_out", loc)]))

    @tournament.command(name="start", description=command_text("command.tournament.start"))
    async def start(self, interaction: Interaction) -> None:
        tournament = _hosted(interaction)
        # Several tables need threads made first: more than a look-up.
        await defer(interaction)
        await tournament.begin(interaction.user.id)
        await reply(interaction, t("reply.tournament_started", locale_of(interaction)))

    @tournament.command(name="pause", description=command_text("command.tournament.pause"))
    async def pause(self, interaction: Interaction) -> None:
        await _hosted(interaction).pause(interaction.user.id)
        await reply(interaction, t("reply.tournament_paused", locale_of(interaction)))

    @tournament.command(name="resume", description=command_text("command.tournament.resume"))
    async def resume(self, interaction: Interaction) -> None:
        await _hosted(interaction).resume(interaction.user.id)
        await reply(interaction, t("reply.tournament_resumed", locale_of(interaction)))

    @tournament.command(name="cancel", description=command_text("command.tournament.cancel"))
    async def cancel(self, interaction: Interaction) -> None:
        refunds = await _hosted(interaction).cancel(interaction.user.id)
        loc = locale_of(interaction)
        await reply(interaction, t("reply.tournament_cancelled", loc, players=len(refunds),
                                   amount=chips(sum(refunds.values()), loc)))

    # -- following it ----------------------------------------------------------------------------

    @tournament.command(name="status", description=command_text("command.tournament.status"))
    @app_commands.describe(name=command_text("option.tournament_name"))
    async def status(
        self, interaction: Interaction, name: app_commands.Range[str, 1, MAX_NAME] | None = None
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        loc = locale_of(interaction)
        live: LiveTournament | None
        deal = None
        if name is None:
            live = _tournament_here(interaction)
        else:
            title = _name(name)
            live = next((r for r in runtime.registry.tournaments(guild_id) if r.name == title),
                        None)
        if live is not None:
            view = self._live_view(live, loc)
            formats = _format_of(live.state.config, live.settings, loc)
            offer = live.deals.offer
            if offer is not None:
                deal = t("tournament.deal_status_open", loc,
                         kind=t(f"choice.deal.{offer.kind}", loc),
                         accepted=len(live.deals.accepted()), players=len(offer.prizes),
                         until=f"<t:{int(offer.deadline)}:R>")
        else:
            info = await tournaments.find_tournament(runtime.db, guild_id, title)
            view = self._stored_view(info, runtime.rng, loc)
            engine = _stored_engine(info, runtime.rng)
            stored = TournamentSettings.from_json(info.config)
            formats = [] if engine is None else _format_of(engine.config, stored, loc)
            if stored.deal is not None and info.status == "finished":
                deal = t("tournament.deal_status_made", loc,
                         kind=t(f"choice.deal.{stored.deal}", loc))
        await defer(interaction)
        image = await render(render_tournament, view, tournament_labels(loc))
        lines = [image.alt_text, *formats] if deal is None else [deal, image.alt_text, *formats]
        await reply(interaction, "\n".join(lines)[:2000], file=image_file(image))

    @staticmethod
    def _live_view(tournament: LiveTournament, loc: object) -> TournamentView:
        engine = tournament.state
        away = [p for p in engine.players_left() if engine.is_absent(p)]
        return board_view(engine.status(now()), tournament.settings.names, name=tournament.name,
                          config=engine.config, away=away,
                          format_tags=_tags_of(engine.config, tournament.settings, loc))

    @staticmethod
    def _stored_view(info: TournamentInfo, rng: Any, loc: object) -> TournamentView:
        engine = _stored_engine(info, rng)
        if engine is None:
            raise BotError("unknown_tournament")
        settings = TournamentSettings.from_json(info.config)
        phase = "cancelled" if info.status == "cancelled" else None
        return board_view(engine.status(now()), settings.names, name=info.name,
                          config=engine.config, phase=phase,
                          format_tags=_tags_of(engine.config, settings, loc))

    @tournament.command(name="list", description=command_text("command.tournament.list"))
    async def list_(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        loc = locale_of(interaction)
        found = await tournaments.list_tournaments(runtime.db, guild_id)
        if not found:
            await reply(interaction, t("reply.tournament_list_empty", loc))
            return
        lines = [t("reply.tournament_list_title", loc)]
        for info in found:
            lines.append(t("reply.tournament_list_line", loc, name=safe_text(info.name),
                           status=t(f"tournament.status.{info.status}", loc),
                           entrants=info.entrants, most=info.max_players,
                           buy_in=chips(info.buy_in, loc), channel=f"<#{info.channel_id}>"))
        await reply(interaction, "\n".join(lines)[:2000])

    @tournament.command(name="results", description=command_text("command.tournament.results"))
    @app_commands.describe(name=command_text("option.tournament_name"))
    async def results(
        self, interaction: Interaction, name: app_commands.Range[str, 1, MAX_NAME]
    ) -> None:
        guild_id = guild_id_of(interaction)
        runtime = runtime_of(interaction)
        info = await tournaments.find_tournament(runtime.db, guild_id, _name(name))
        if info.status == "cancelled":
            raise BotError("tournament_cancelled")
        if info.status != "finished":
            raise BotError("tournament_not_over")
        engine = _stored_engine(info, runtime.rng)
        if engine is None:
            raise BotError("unknown_tournament")
        settings = TournamentSettings.from_json(info.config)
        loc = locale_of(interaction)
        text = results_text(info.name, engine.standings, loc,
                            winning_hand=settings.winning_hand, reason=engine.finish_reason)
        head, _, rest = text.partition("\n")
        text = "\n".join([head, *_format_of(engine.config, settings, loc), rest])
        await reply(interaction, text[:2000])


async def setup(bot: PokerBot) -> None:
    await bot.add_cog(Tournaments(bot))
