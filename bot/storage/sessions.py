"""A table's session ledger: what each player brought to the table, took away and holds now,
since the table opened or since its host last reset the ledger.

Everything is read from the chip ledger (``bot.storage.ledger``), never from what the bot
displayed: a player's buy-ins (``buy_in``), top-ups and rebuys (``top_up``) and cash-outs
(``leave``, ``table_close``) are the rows of this table with his user id, and his chips when a
session begins are his seat account's balance then. Chips reach a table only from its
players' wallets and leave it only to them, and a hand only moves chips between the players
dealt in, so for every session::

    sum(carried + buy-ins + top-ups) == sum(cash-outs + current stacks)

that is, the players' nets add up to exactly zero (there is no rake). A player in the running
hand counts the stack he started it with, so the ledger mid-hand reads as it did when the hand
was dealt.

A reset stores where the new session begins (``poker_tables.session_entry`` and
``session_hand``, migration 0006): the last ledger entry and hand number before it. Reset while a
hand runs, the session begins with that hand (its stacks are carried as they were dealt), so a
hand is never split between two sessions.

The transaction that ends a session (a reset, or the table closing: ``tables.close_in``) also
stores its end for the recap (:func:`end_session_in`, ``bot.storage.recaps``): its hands and each
player's figures as the ledger reads them then, so the recap says exactly what the ledger said,
and is posted once whatever moment a crash picks.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bot.storage import recaps
from bot.storage.db import Database, Tx, unix_now
from bot.storage.errors import StorageError, check_id, from_json_text
from bot.storage.ledger import Reason
from bot.storage.scopes import SessionHands

_IN = {Reason.BUY_IN.value: "buy_ins", Reason.TOP_UP.value: "top_ups"}
_OUT = frozenset({Reason.LEAVE.value, Reason.TABLE_CLOSE.value})
_HAND_ENDS = (Reason.HAND_END.value, Reason.HAND_VOID.value)


@dataclass(frozen=True, slots=True)
class SessionPlayer:
    """One player's figures in a session."""

    user_id: int
    carried: int  # chips at the table when the session began (a reset carries stacks over)
    buy_ins: int
    top_ups: int
    cash_outs: int
    stack: int  # at the table now: at the seat plus what he started the running hand with
    seated: bool

    @property
    def brought(self) -> int:
        return self.carried + self.buy_ins + self.top_ups

    @property
    def net(self) -> int:
        """Won (positive) or lost in the session.

        >>> SessionPlayer(7, 0, 1000, 500, 0, 1800, True).net
        300
        """
        return self.cash_outs + self.stack - self.brought


@dataclass(frozen=True, slots=True)
class StackSeries:
    """Every player's chips at the table at the session's start and after each of its hands.

    ``hands[0]`` stands for the start (it is the last hand number before the session): the
    stacks the session's first hand was played with, or, before any hand ended, the stacks
    now. Each later entry is a hand that ended (voided ones too: they changed nothing).
    ``stacks`` holds one value per entry of ``hands``, None while the player was not at the
    table.
    """

    hands: tuple[int, ...]
    stacks: dict[int, tuple[int | None, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Session:
    table_id: int
    guild_id: int
    channel_id: int
    host_id: int
    is_open: bool
    config: Any  # the table's stored config (the runtime keeps players' names in it)
    started_at: int  # when the table opened, or when the ledger was reset
    reset_by: int | None  # who reset it (None: the session runs since the table opened)
    first_hand: int  # the session's hands are numbered from this one
    hands: int  # hands finished in the session
    voided: int  # hands voided in it
    players: tuple[SessionPlayer, ...]  # biggest winner first
    series: StackSeries

    @property
    def total_net(self) -> int:
        """Always 0 (see the module's docstring); a test, not the code, relies on it."""
        return sum(p.net for p in self.players)


@dataclass(frozen=True, slots=True)
class SessionStart:
    """Where a reset made the new session begin."""

    first_hand: int
    started_at: int
    hand_running: bool  # the session begins with the hand being played


async def _table(tx: Tx, table_id: int) -> Any:
    row = await tx.fetchone(
        "SELECT guild_id, channel_id, host_id, status, config, created_at, hand_count,"
        " session_entry, session_hand, session_started_at, session_reset_by"
        " FROM poker_tables WHERE table_id = ?",
        (table_id,),
    )
    if row is None:
        raise StorageError("unknown_table", table_id=table_id)
    return row


async def latest_table_in_channel(db: Database, guild_id: int, channel_id: int) -> int | None:
    """The channel's open cash table, else the one that closed last (its final ledger is still
    worth reading); None if the channel never had one. Only tables of ``guild_id`` count."""
    check_id(guild_id, "guild_id")
    check_id(channel_id, "channel_id")
    # A tournament's tables move no wallet chips: they have no session to read.
    value = await db.fetchone(
        "SELECT table_id FROM poker_tables WHERE guild_id = ? AND channel_id = ?"
        " AND tournament_id IS NULL"
        " ORDER BY CASE WHEN status = 'open' THEN 0 ELSE 1 END, table_id DESC LIMIT 1",
        (guild_id, channel_id),
    )
    return None if value is None else int(value[0])


async def reset_session(
    db: Database, table_id: int, *, actor_id: int, recap: bool = True, now: int | None = None
) -> SessionStart:
    """Begin a new session of an open table's ledger now, or with the running hand; the one
    that ends is stored for its recap (posted unless ``recap`` is off)."""
    check_id(table_id, "table_id")
    check_id(actor_id, "actor_id")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        table = await _table(tx, table_id)
        if table["status"] != "open":
            raise StorageError("table_closed", table_id=table_id)
        running = await tx.fetchone(
            "SELECT hand_id, hand_no FROM hands WHERE table_id = ? AND status = 'running'",
            (table_id,),
        )
        first = None
        if running is not None:
            first = await tx.scalar(
                "SELECT MIN(entry_id) FROM ledger WHERE table_id = ? AND hand_id = ?"
                " AND reason = ?",
                (table_id, running["hand_id"], Reason.HAND_START.value),
            )
        if running is not None and first is not None:
            # Just before the running hand took the stacks: they are carried as dealt.
            entry = int(first) - 1
            last_hand = int(running["hand_no"]) - 1
        else:
            entry = int(
                await tx.scalar(
                    "SELECT COALESCE(MAX(entry_id), 0) FROM ledger WHERE table_id = ?",
                    (table_id,),
                )
            )
            last_hand = int(table["hand_count"])
        await end_session_in(tx, table_id, last_hand=last_hand, recap=recap, now=now)
        await tx.execute(
            "UPDATE poker_tables SET session_entry = ?, session_hand = ?,"
            " session_started_at = ?, session_reset_by = ? WHERE table_id = ?",
            (entry, last_hand, now, actor_id, table_id),
        )
    return SessionStart(last_hand + 1, now, first is not None)


async def session_ledger(db: Database, table_id: int) -> Session:
    """The table's current session (its last one, for a closed table), from one snapshot."""
    check_id(table_id, "table_id")
    async with db.read() as tx:
        return await read_session(tx, table_id)


async def end_session_in(
    tx: Tx, table_id: int, *, last_hand: int, recap: bool, now: int
) -> int | None:
    """In the transaction that ends the table's current session (its hands up to
    ``last_hand``): store it for its recap; the recap's id (None at a practice table, whose
    chips are play chips: no ledger, no recap)."""
    practice = await tx.scalar("SELECT practice FROM poker_tables WHERE table_id = ?",
                               (table_id,))
    if practice:
        return None
    session = await read_session(tx, table_id)
    return await recaps.insert_recap(
        tx,
        guild_id=session.guild_id,
        channel_id=session.channel_id,
        table_id=table_id,
        hands=(session.first_hand, last_hand, session.hands),
        figures=session_figures(session),
        post=recap,
        now=now,
    )


# The figures a recap keeps of a session's players, in this order.
_FIGURES = ("user_id", "carried", "buy_ins", "top_ups", "cash_outs", "stack", "seated")


def session_figures(session: Session) -> dict[str, Any]:
    """The session as its recap stores it: each player's ledger figures, and what else the
    ledger says of it (JSON)."""
    return {
        "players": [[int(getattr(p, name)) for name in _FIGURES] for p in session.players],
        "voided": session.voided,
        "started_at": session.started_at,
        "reset_by": session.reset_by,
    }


def figures_players(figures: object) -> tuple[SessionPlayer, ...]:
    """The players a recap stored (:func:`session_figures`), biggest winner first."""
    rows = figures.get("players") if isinstance(figures, dict) else None
    if not isinstance(rows, list):
        raise StorageError("bad_json", field="figures", detail="no players")
    try:
        players = [
            SessionPlayer(
                user_id=int(user_id), carried=int(carried), buy_ins=int(buy_ins),
                top_ups=int(top_ups), cash_outs=int(cash_outs), stack=int(stack),
                seated=bool(seated),
            )
            for user_id, carried, buy_ins, top_ups, cash_outs, stack, seated in rows
        ]
    except (TypeError, ValueError) as exc:
        raise StorageError("bad_json", field="figures", detail=str(exc)[:50]) from None
    players.sort(key=lambda p: (-p.net, p.user_id))
    return tuple(players)


async def read_session(tx: Tx, table_id: int) -> Session:
    """:func:`session_ledger` in an open transaction."""
    table = await _table(tx, table_id)
    entry, last_hand = int(table["session_entry"]), int(table["session_hand"])
    carried: dict[int, int] = {}
    if entry:
        for user_id, into, out in await tx.fetchall(
            "SELECT user_id, SUM(CASE WHEN dest LIKE 'seat:%' THEN amount ELSE 0 END),"
            " SUM(CASE WHEN source LIKE 'seat:%' THEN amount ELSE 0 END)"
            " FROM ledger WHERE table_id = ? AND entry_id <= ? AND user_id IS NOT NULL"
            " GROUP BY user_id",
            (table_id, entry),
        ):
            balance = int(into) - int(out)
            if balance:
                carried[int(user_id)] = balance
    moves = await tx.fetchall(
        "SELECT entry_id, reason, user_id, amount FROM ledger"
        " WHERE table_id = ? AND entry_id > ? AND reason IN (?, ?, ?, ?)"
        " ORDER BY entry_id",
        (table_id, entry, *_IN, *sorted(_OUT)),
    )
    ends = await tx.fetchall(
        "SELECT hand_id, MIN(entry_id) FROM ledger"
        " WHERE table_id = ? AND entry_id > ? AND reason IN (?, ?) GROUP BY hand_id",
        (table_id, entry, *_HAND_ENDS),
    )
    played = await tx.fetchall(
        "SELECT h.hand_id, h.hand_no, h.status, hp.user_id, hp.starting_stack,"
        " hp.final_stack FROM hands h JOIN hand_players hp ON hp.hand_id = h.hand_id"
        " WHERE h.table_id = ? AND h.hand_no > ? AND h.status <> 'running'",
        (table_id, last_hand),
    )
    seats = await tx.fetchall(
        "SELECT s.user_id, s.stack + COALESCE(hp.starting_stack, 0) FROM seats s"
        " LEFT JOIN hand_players hp ON hp.hand_id = s.hand_id AND hp.user_id = s.user_id"
        " WHERE s.table_id = ?",
        (table_id,),
    )
    stacks = {int(user_id): int(chips) for user_id, chips in seats}
    hands: dict[int, tuple[int, str, list[tuple[int, int]]]] = {}
    for hand_id, hand_no, status, user_id, start, final in played:
        _, _, deltas = hands.setdefault(int(hand_id), (int(hand_no), str(status), []))
        if status == "finished":
            deltas.append((int(user_id), int(final) - int(start)))
    sums: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for _, reason, user_id, amount in moves:
        sums[int(user_id)][_IN.get(reason, "cash_outs")] += int(amount)
    players = [
        SessionPlayer(
            user_id=user_id,
            carried=carried.get(user_id, 0),
            buy_ins=sums[user_id]["buy_ins"],
            top_ups=sums[user_id]["top_ups"],
            cash_outs=sums[user_id]["cash_outs"],
            stack=stacks.get(user_id, 0),
            seated=user_id in stacks,
        )
        for user_id in sorted({*carried, *sums, *stacks})
    ]
    players.sort(key=lambda p: (-p.net, p.user_id))
    return Session(
        table_id=table_id,
        guild_id=int(table["guild_id"]),
        channel_id=int(table["channel_id"]),
        host_id=int(table["host_id"]),
        is_open=table["status"] == "open",
        config=from_json_text(table["config"]),
        started_at=int(table["session_started_at"] or table["created_at"]),
        reset_by=None if table["session_reset_by"] is None else int(table["session_reset_by"]),
        first_hand=last_hand + 1,
        hands=sum(1 for _, status, _ in hands.values() if status == "finished"),
        voided=sum(1 for _, status, _ in hands.values() if status == "voided"),
        players=tuple(players),
        series=_series(last_hand, carried, moves, ends, hands),
    )


def _series(
    last_hand: int,
    carried: dict[int, int],
    moves: list[Any],
    ends: list[Any],
    hands: dict[int, tuple[int, str, list[tuple[int, int]]]],
) -> StackSeries:
    """Replay the session in ledger order: chips arrive and leave with the moves, and each
    hand's end (its first ``hand_end``/``hand_void`` row) applies its players' results and
    takes a picture. A player is at the table from a buy-in (or a carried stack) until he
    leaves or is left with nothing; his departure after a hand is written after the hand's end,
    so the picture still shows what he left with."""
    events: list[tuple[int, int, Any]] = [(int(e), 0, m) for e, *m in moves]
    events += [(int(first), 1, int(hand_id)) for hand_id, first in ends if int(hand_id) in hands]
    events.sort(key=lambda event: event[0])
    chips = dict(carried)
    present = {user_id for user_id, amount in carried.items() if amount > 0}
    pictures: list[dict[int, int]] = []
    numbers = [last_hand]
    for _, kind, payload in events:
        if kind == 1 and not pictures:
            # The start: the stacks the session's first hand was played with.
            pictures.append({u: chips[u] for u in present})
        if kind == 0:
            reason, user_id, amount = payload
            user_id, amount = int(user_id), int(amount)
            if reason in _OUT:
                chips[user_id] = chips.get(user_id, 0) - amount
                present.discard(user_id)
            else:
                chips[user_id] = chips.get(user_id, 0) + amount
                present.add(user_id)
            continue
        hand_no, _, deltas = hands[payload]
        for user_id, delta in deltas:
            chips[user_id] = chips.get(user_id, 0) + delta
        numbers.append(hand_no)
        pictures.append({u: chips[u] for u in present})
        # A player who lost everything ends his line at zero; chips brought again restart it.
        # (He may stand up with nothing, which the ledger cannot see: no chips moved.)
        present = {u for u in present if chips[u] > 0}
    if not pictures:
        pictures.append({u: chips[u] for u in present})
    everyone = sorted({u for picture in pictures for u in picture})
    return StackSeries(
        tuple(numbers),
        {u: tuple(picture.get(u) for picture in pictures) for u in everyone},
    )


# --- a session's hands, for an export ------------------------------------------------------


def _check_range(low: int | None, high: int | None) -> None:
    for bound in (low, high):
        if bound is not None:
            check_id(bound, "hand")


async def table_session(
    db: Database, table_id: int, *, low: int | None = None, high: int | None = None
) -> SessionHands:
    """The session of table ``table_id``: its current one (a closed table's last), or its
    tournament's when it is a tournament's table; ``low``/``high`` as :class:`SessionHands`."""
    check_id(table_id, "table_id")
    _check_range(low, high)
    row = await db.fetchone(
        "SELECT guild_id, tournament_id, practice, session_hand FROM poker_tables"
        " WHERE table_id = ?",
        (table_id,),
    )
    if row is None:
        raise StorageError("unknown_table", table_id=table_id)
    if row[1] is not None:
        return await tournament_session(db, int(row[1]), low=low, high=high)
    return SessionHands(
        guild_id=int(row[0]),
        table_id=table_id,
        tournament_id=None,
        practice=bool(row[2]),
        first_hand=int(row[3]) + 1,
        low=low,
        high=high,
    )


async def tournament_session(
    db: Database, tournament_id: int, *, low: int | None = None, high: int | None = None
) -> SessionHands:
    """Every hand of a tournament, as one session."""
    check_id(tournament_id, "tournament_id")
    _check_range(low, high)
    guild_id = await db.fetchone(
        "SELECT guild_id FROM tournaments WHERE tournament_id = ?", (tournament_id,)
    )
    if guild_id is None:
        raise StorageError("unknown_tournament", tournament_id=tournament_id)
    return SessionHands(
        guild_id=int(guild_id[0]),
        table_id=None,
        tournament_id=tournament_id,
        practice=False,
        first_hand=1,
        low=low,
        high=high,
    )


@dataclass(frozen=True, slots=True)
class SessionTable:
    table_id: int
    channel_id: int
    max_seats: int
    config: Any  # as stored: a cash table's options and players' names


async def session_tables(db: Database, scope: SessionHands) -> list[SessionTable]:
    """The tables the session's hands were dealt at (every table of a tournament)."""
    params: tuple[int | None]
    if scope.tournament_id is not None:
        sql, params = "tournament_id = ?", (scope.tournament_id,)
    else:
        sql, params = "table_id = ?", (scope.table_id,)
    rows = await db.fetchall(
        f"SELECT table_id, channel_id, max_seats, config FROM poker_tables WHERE {sql}"
        " ORDER BY table_id",
        params,
    )
    return [
        SessionTable(int(row[0]), int(row[1]), int(row[2]), from_json_text(row[3]))
        for row in rows
    ]


@dataclass(frozen=True, slots=True)
class SessionCount:
    """How many finished hands a session holds, of them how many ``user_id`` was dealt in,
    and the range of their numbers."""

    hands: int
    played: int
    first: int | None
    last: int | None


async def count_session(db: Database, scope: SessionHands, user_id: int) -> SessionCount:
    check_id(user_id, "user_id")
    where, params = scope.where()
    row = await db.fetchone(
        "SELECT COUNT(*), MIN(h.hand_no), MAX(h.hand_no),"
        " SUM(CASE WHEN EXISTS (SELECT 1 FROM hand_players hp WHERE hp.hand_id = h.hand_id"
        " AND hp.user_id = ?) THEN 1 ELSE 0 END)"
        f" FROM hands h WHERE {where}",
        (user_id, *params),
    )
    assert row is not None  # an aggregate always gives its row
    return SessionCount(
        hands=int(row[0] or 0),
        played=int(row[3] or 0),
        first=None if row[1] is None else int(row[1]),
        last=None if row[2] is None else int(row[2]),
    )


async def session_roster(db: Database, scope: SessionHands) -> list[int]:
    """Everybody dealt into the session's hands, by the first hand each played (then by id):
    the order names are made safe in, so a player's name is the same in every hand of a file."""
    where, params = scope.where()
    rows = await db.fetchall(
        "SELECT hp.user_id, MIN(h.hand_id) AS first FROM hands h"
        f" JOIN hand_players hp ON hp.hand_id = h.hand_id WHERE {where}"
        " GROUP BY hp.user_id ORDER BY first, hp.user_id",
        params,
    )
    return [int(row[0]) for row in rows]


@dataclass(frozen=True, slots=True)
class Page:
    """Where a page of a session's hands ends: the next page starts after it."""

    hand_id: int = 0
    hand_no: int = 0


async def session_page(
    db: Database, scope: SessionHands, after: Page = Page(), *, limit: int = 200
) -> list[Page]:
    """The next ``limit`` hands of the session after ``after``, in the order they were dealt:
    a page, so that no reader ever holds a whole session. A cash table's hands go by their
    number (its index), a tournament's by their id (the tournament's index keeps it)."""
    where, params = scope.where()
    if scope.tournament_id is not None:
        where += " AND h.hand_id > ? ORDER BY h.hand_id"
        params += (after.hand_id,)
    else:
        where += " AND h.hand_no > ? ORDER BY h.hand_no"
        params += (after.hand_no,)
    rows = await db.fetchall(
        f"SELECT h.hand_id, h.hand_no FROM hands h WHERE {where} LIMIT ?", (*params, limit)
    )
    return [Page(int(row[0]), int(row[1])) for row in rows]
