"""A table's past hands: finding one by number, telling it, replaying it, exporting a session,
and what verifying a hand may reveal.

``/history hand``, ``/history replay`` and ``/history export`` are built here
(:func:`history_of`, :func:`replay_of`, :func:`export_of`), not in the cog, so tests reach
them: each shows what was shown at the table and the asker's own cards, never anyone else's
folded or mucked hand. A hand is told at the stakes it was played at (a tournament's blinds
rise).

Verification opens the deck commitment posted before the deal only at the positions everybody
saw — the board dealt and the hands shown at showdown — and, for the player asking, at his own
hole cards (he gets those privately). A folded or mucked hand is never opened. Hands stored
before position-by-position commitments existed cannot be opened partially, so nothing of their
deck is revealed either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import chips, display_name, mention, safe_text
from bot.replay import PlayedHand
from bot.runtime.export import (
    LARGEST_ZIP,
    ExportFile,
    SessionFacts,
    TableFacts,
    build_export,
    floor_size,
    too_large_error,
)
from bot.runtime.recaps import session_named
from bot.runtime.reports import stored_names, stored_stakes
from bot.runtime.table import LiveTable
from bot.runtime.tourney import LiveTournament
from bot.storage import Database, hands, recaps, sessions, stats, tournaments
from bot.storage.hands import StoredHand
from bot.storage.scopes import SessionHands
from engine.commitment import Opening, hole_positions, seen_positions
from engine.pokerstars import safe_names

HISTORY_DEPTH = 100  # hands a table looks back through for /history hand and verify


async def stored_hand(db: Database, table_id: int, number: int | None) -> StoredHand:
    """Hand ``number`` of the table (the last finished one when None)."""
    for summary in await stats.recent_hands(db, table_id, limit=HISTORY_DEPTH):
        if number is None and summary.status != "finished":
            continue
        if number is None or summary.hand_no == number:
            return await hands.load_hand(db, summary.hand_id)
    raise BotError("no_such_hand", hand=number if number is not None else "")


def require_finished(stored: StoredHand, *, voided: str) -> StoredHand:
    """``stored`` if it was played to its end. A voided hand is refused with ``voided`` (the
    command's own words: ``history_voided``, ``replay_voided``), a hand still running as not
    finished, so no command calls a voided hand unfinished."""
    if stored.status == "voided":
        raise BotError(voided, hand=stored.hand_no)
    if stored.status != "finished":
        raise BotError("hand_not_finished", hand=stored.hand_no)
    return stored


@dataclass(frozen=True, slots=True)
class Verification:
    hand_no: int
    root: str
    matches: bool  # the stored deck is the one committed to before the deal
    public: tuple[Opening, ...]  # the board and the hands shown: anyone may see these
    own: tuple[Opening, ...]  # the asking player's hole cards: for him only


def verification(stored: StoredHand, viewer_id: int) -> Verification:
    """What verifying ``stored`` shows ``viewer_id``; refused for hands committed the old way."""
    if stored.status == "running":
        raise BotError("hand_not_finished", hand=stored.hand_no)
    commitment = stored.commitment
    if commitment is None:
        raise BotError("verify_legacy", hand=stored.hand_no)
    if not stored.deck_matches():
        return Verification(stored.hand_no, commitment.root_hex, False, (), ())
    hand = hands.rebuild_hand(stored)
    players = hand.config.players
    holes = hand.game.hole_count  # an Omaha player's four or five cards, each proven
    shown = hand.result.shown if hand.result is not None and hand.result.showdown else ()
    # After a rabbit hunt everybody saw the whole board; a board run twice shows both runs.
    hunted = isinstance(stored.result, dict) and bool(stored.result.get("rabbit"))
    board_count = 5 if hunted else len(hand.board)
    public = commitment.open_many(
        stored.deck,
        seen_positions(players, board_count, shown, second_run_from=hand.second_run_from,
                       hole_count=holes),
    )
    own: tuple[Opening, ...] = ()
    for player in stored.players:
        if player.user_id == viewer_id and player.player not in shown:
            own = commitment.open_many(stored.deck,
                                       hole_positions(players, player.player, holes))
    return Verification(stored.hand_no, commitment.root_hex, True, public, own)


class HistoryFormat(StrEnum):
    """The files ``/history hand`` gives: PHH, or the text PokerStars writes."""

    PHH = "phh"
    POKERSTARS = "pokerstars"


@dataclass(frozen=True, slots=True)
class HandHistory:
    """A finished hand in words (each player's result) and as a file in the format asked for
    (the cards shown and the asker's own only)."""

    hand_no: int
    text: str
    file: str
    filename: str


async def history_of(
    table: LiveTable[Any],
    number: int | None,
    locale: object,
    *,
    viewer_id: int | None = None,
    fmt: HistoryFormat = HistoryFormat.PHH,
    table_name: str = "",
) -> HandHistory:
    """Hand ``number`` of ``table`` (the last finished one when None), for ``/history hand``:
    its file shows the hands shown and ``viewer_id``'s own cards. ``table_name``: the
    channel's, for the PokerStars text."""
    stored = require_finished(await stored_hand(table.db, table.table_id, number),
                              voided="history_voided")
    names = [display_name(table.names, p.user_id, locale) for p in stored.players]
    # A tournament's hand says which tournament (PHH's event) and level it was played at.
    event = table.event_name
    if fmt is HistoryFormat.POKERSTARS:
        buy_in = 0
        if stored.tournament_id is not None:
            buy_in = (await tournaments.get_tournament(table.db, stored.tournament_id)).buy_in
        file = await hands.export_pokerstars(
            table.db, stored.hand_id, names=safe_names(names), table_name=table_name,
            max_seats=table.table.options.seats, small_blind=table.small_blind_at(stored.level),
            viewer_id=viewer_id, buy_in=buy_in)
        filename = f"hand-{stored.hand_no}.txt"
    else:
        file = await hands.export_phh(table.db, stored.hand_id, players=names, event=event,
                                      viewer_id=viewer_id)
        filename = f"hand-{stored.hand_no}.phh"
    lines = [t("history.title", locale, hand=stored.hand_no,
               pot=chips(stored.pot or 0, locale))]
    if stored.level is not None:
        lines.append(t("history.tournament", locale, name=safe_text(event or ""),
                       level=stored.level))
    for player in stored.players:
        net = (player.final_stack or 0) - player.starting_stack
        key = "history.won" if net > 0 else "history.lost" if net < 0 else "history.even"
        lines.append(t(key, locale, player=mention(player.user_id),
                       amount=chips(abs(net), locale)))
    return HandHistory(stored.hand_no, "\n".join(lines), file, filename)


async def replay_of(
    table: LiveTable[Any], guild_id: int, number: int | None, locale: object
) -> PlayedHand:
    """Hand ``number`` of ``table`` (the last finished one when None) as the replay draws it.
    A tournament's hands are stored as a cash table's are, and replayed the same way, at the
    blinds of the level they were dealt at."""
    stored = await stored_hand(table.db, table.table_id, number)
    # The table is this channel's; a hand stored under another server is not its hand.
    if stored.guild_id != guild_id:
        raise BotError("no_such_hand", hand=stored.hand_no)
    require_finished(stored, voided="replay_voided")
    players = sorted(stored.players, key=lambda p: p.player)
    return PlayedHand(
        hands.rebuild_hand(stored),
        stored.hand_no,
        seats=tuple(p.seat_no for p in players),
        names=tuple(display_name(table.names, p.user_id, locale) for p in players),
        seat_count=table.table.options.seats,
        button_seat=stored.button_seat,
        small_blind=table.small_blind_at(stored.level),
    )


# --- a session's export -------------------------------------------------------------------

EXPORTS_AT_ONCE = 2
"""Exports built at the same time in one process: each replays up to a file's worth of hands
in a worker thread, and they share the CPU with every table."""


class _Slots:
    """How many exports are being built; one over :data:`EXPORTS_AT_ONCE` is refused, not
    queued, so that a crowd of askers cannot stack minutes of work behind each other."""

    def __init__(self) -> None:
        self.busy = 0

    def take(self) -> None:
        if self.busy >= EXPORTS_AT_ONCE:
            raise BotError("export_busy")
        self.busy += 1

    def give_back(self) -> None:
        self.busy -= 1


_SLOTS = _Slots()


class LiveTables(Protocol):
    """What an export asks of the live tables (``bot.runtime.registry.Registry``): which
    table plays in a channel, and which open tournament."""

    def find_in(self, channel_id: int | None) -> LiveTable[Any] | None: ...

    def tournament_in(self, channel_id: int | None) -> LiveTournament | None: ...


@dataclass(frozen=True, slots=True)
class ExportAsk:
    """Who asks for an export, from where, and of what: ``session`` the number of the recap
    a session ended with (a cash session's or a tournament's), None for this channel's;
    ``low``/``high`` the hand numbers to keep; ``limit`` the most bytes the reply's
    file may take (the interaction's ``attachment_size_limit``)."""

    guild_id: int
    channel_id: int | None
    user_id: int
    session: int | None
    low: int | None
    high: int | None
    limit: int


@dataclass(frozen=True, slots=True)
class SessionExport:
    """A built export and what its reply says of it."""

    file: ExportFile
    first: int
    last: int
    tournament: bool


async def export_of(
    db: Database,
    registry: LiveTables,
    ask: ExportAsk,
    locale: object,
    channel_name: Callable[[int], str | None],
) -> SessionExport:
    """The zip of a session's hands for ``ask.user_id``: every PHH file and the PokerStars
    text, each showing the hands shown and his own cards only (``bot.runtime.export``).

    Refused, each with its reason: a session of another server (said as no such session: this
    server has none of that number), a practice table's (play chips), one with no finished
    hand (in the range asked), one he was dealt no hand of, a range upside down, one whose zip
    would pass ``ask.limit`` or :data:`~bot.runtime.export.LARGEST_ZIP` (with how many hands
    would fit), and an export while
    :data:`EXPORTS_AT_ONCE` others are being built."""
    if ask.low is not None and ask.high is not None and ask.low > ask.high:
        raise BotError("export_bad_range", low=ask.low, high=ask.high)
    scope = await _session_asked(db, registry, ask)
    if scope.practice:
        raise BotError("export_practice")
    count = await sessions.count_session(db, scope, ask.user_id)
    if count.hands == 0 or count.first is None or count.last is None:
        raise BotError("export_empty")
    if count.played == 0:
        raise BotError("export_not_played")
    kind = "tournament" if scope.tournament_id is not None else "table"
    number = scope.tournament_id if scope.tournament_id is not None else scope.table_id
    stem = f"{kind}-{number}-hands-{count.first}-{count.last}"
    limit = min(ask.limit, LARGEST_ZIP)
    fixed, each = floor_size(stem)
    if fixed + count.hands * each > limit:
        raise too_large_error(limit, (limit - fixed) // each)
    _SLOTS.take()
    try:
        roster = await sessions.session_roster(db, scope)
        facts = await _session_facts(db, registry, scope, ask.user_id, roster, locale,
                                     channel_name, stem, limit)
        built = await build_export(db, scope, roster, facts)
    finally:
        _SLOTS.give_back()
    return SessionExport(built, count.first, count.last, scope.tournament_id is not None)


async def _session_asked(db: Database, registry: LiveTables, ask: ExportAsk) -> SessionHands:
    """The session named (the number of the recap it ended with), else this channel's: its
    live table's current session, its open tournament, the last session that ended here, else
    the last cash table that closed here (before recaps were kept)."""
    range_ = {"low": ask.low, "high": ask.high}
    if ask.session is not None:
        return recaps.session_of(await session_named(db, ask.guild_id, ask.session), **range_)
    if (live := registry.find_in(ask.channel_id)) is not None:
        return await sessions.table_session(db, live.table_id, **range_)
    if (tournament := registry.tournament_in(ask.channel_id)) is not None:
        return await sessions.tournament_session(db, tournament.tournament_id, **range_)
    if ask.channel_id is not None:
        ended = await recaps.latest_in_channel(db, ask.guild_id, ask.channel_id)
        if ended is not None:
            return recaps.session_of(await recaps.get_recap(db, ended), **range_)
        closed = await sessions.latest_table_in_channel(db, ask.guild_id, ask.channel_id)
        if closed is not None:
            return await sessions.table_session(db, closed, **range_)
    raise BotError("no_table")


async def _session_facts(
    db: Database,
    registry: LiveTables,
    scope: SessionHands,
    viewer_id: int,
    roster: Sequence[int],
    locale: object,
    channel_name: Callable[[int], str | None],
    stem: str,
    limit: int,
) -> SessionFacts:
    """Names, tables, stakes and buy-in of the session, from storage and, for the freshest
    names, its live tables."""
    names: dict[int, str] = {}
    tables: dict[int, TableFacts] = {}
    config: object = None
    for table in await sessions.session_tables(db, scope):
        names.update(stored_names(table.config))
        tables[table.table_id] = TableFacts(
            channel_name(table.channel_id) or f"Table {table.table_id}", table.max_seats)
        live = registry.find_in(table.channel_id)
        if live is not None and live.table_id == table.table_id:
            names.update(live.names)
        config = table.config
    event, buy_in, state = None, 0, None
    if scope.tournament_id is not None:
        info = await tournaments.get_tournament(db, scope.tournament_id)
        names = {**stored_names(info.config), **names}
        event, buy_in, state = info.name, info.buy_in, info.state
        if not isinstance(state, Mapping):  # not started: it has dealt no hand
            raise BotError("export_empty")
    small_blind_at = stored_stakes(config, state)
    return SessionFacts(
        viewer_id=viewer_id,
        names={user_id: display_name(names, user_id, locale) for user_id in roster},
        tables=tables,
        small_blind_at=small_blind_at,
        limit=limit,
        stem=stem,
        buy_in=buy_in,
        event=event,
    )
