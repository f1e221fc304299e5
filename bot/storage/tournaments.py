"""Tournaments: registration, the prize pool, the engine's saved state, places and prizes.

A buy-in moves from the player's wallet into the tournament's prize pool (ledger account
``tournament:<id>``) when he registers; unregistering before the start gives it back; cancelling,
at any stage, gives every buy-in back in one transaction (chips in play are not prizes); finishing
pays every prize into the wallets in one transaction, and the prizes must add up to the pool to
the chip. So no chip is created or destroyed, and the pool is empty once the tournament is over.

Tournament chips at the tables are the engine's and never touch a wallet: storage keeps them only
inside ``state``, the engine's JSON (``Tournament.to_json()``: clock, levels, tables, standings),
saved with every transition that goes with it and whenever the runtime checkpoints the clock, so
a restart resumes where the tournament was.

The engine decides and storage records: the runtime asks the engine (``Tournament.register``,
``start``, ...), then calls the function here with the state after it, which checks what it can
enforce itself (status, seats left, the wallet) in the same transaction that moves the chips. If
storage refuses, nothing was written and the runtime goes back to the state it had.

Statuses: ``registering`` -> ``running`` -> ``finished``, and ``cancelled`` from either of the
first two.

Limits. Tournaments count against the server's table limits (``max_tables``,
``max_tables_per_host``; see ``bot.storage.tables.TableUsage``), checked in the transaction
that creates, starts or grows one: an open tournament is one table of its host; against the
server's total, a tournament still registering counts as one table and a running one as the
tables it has open. Creating needs room for one more table and one more of the host's; starting
needs room for every table of the seat draw (its own place as a registering tournament given
up); a late registration that opens a table needs room for it. A registration nobody started
within the server's idle time can be closed with every buy-in back
(:func:`stale_registrations`, :func:`close_stale_registration`).

Tables and hands. Each table of a running tournament is a row of ``poker_tables`` (with
``tournament_id`` and ``table_no``): its channel, its table message and its hand numbers, like a
cash table, but no seats. Its hands are stored like cash hands (``bot.storage.hands``: deck,
commitment, actions, result) and labelled with the tournament and the level, but they move no
chip through the ledger. Every transition of a running tournament stores a
:class:`TournamentSave` in the same transaction: the engine's state, the tables it opened
(late registration), the tables it broke, and, when it ended, the places and prizes paid.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage import leagues, recaps
from bot.storage.db import Database, Row, Tx, unix_now
from bot.storage.errors import (
    StorageError,
    check_id,
    check_setting,
    from_json_text,
    to_json_text,
)
from bot.storage.ledger import (
    Reason,
    credit_wallet,
    debit_wallet,
    ensure_wallet,
    record,
    require_guild,
    tournament_account,
    wallet_account,
    wallet_balance,
)
from bot.storage.tables import check_table_limits, table_usage
from engine.bots.ids import is_house_or_bot
from engine.limits import MAX_CHIPS, MAX_SEATS, MAX_TOURNAMENT_PLAYERS

KINDS = ("freeze_out", "time_limited")
OPEN = ("registering", "running")
MAX_NAME = 100
MAX_TABLE_NO = 1_000


@dataclass(frozen=True, slots=True)
class Entry:
    user_id: int
    paid: int  # the buy-in taken from his wallet
    late: bool
    registered_at: int
    place: int | None  # once finished
    tied: int | None
    prize: int | None


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    tournament_id: int
    guild_id: int
    channel_id: int
    host_id: int
    name: str
    kind: str
    buy_in: int
    max_players: int
    entrants: int
    pool: int  # chips held by the prize pool
    config: Any
    state: Any  # the engine's JSON, None until first saved
    status: str
    starts_at: int | None
    created_at: int
    started_at: int | None
    ended_at: int | None
    entries: tuple[Entry, ...]  # by registration; by place once finished
    alive_at: int | None = None  # Unix ms its process was last seen running it (heartbeat)

    @property
    def is_open(self) -> bool:
        return self.status in OPEN

    def entry_of(self, user_id: int) -> Entry | None:
        return next((e for e in self.entries if e.user_id == user_id), None)


@dataclass(frozen=True, slots=True)
class LeagueEntry:
    """The league a new tournament counts toward, and its first level's big blind."""

    league_id: int
    big_blind: int


@dataclass(frozen=True, slots=True)
class Placing:
    """One entrant's result, as the engine's ``Standing`` gives it."""

    user_id: int
    place: int
    tied: int
    prize: int


@dataclass(frozen=True, slots=True)
class Registration:
    balance: int  # his wallet afterwards
    entrants: int
    pool: int


@dataclass(frozen=True, slots=True)
class TableOpening:
    """A table the tournament opens (at the start, or for late registrants): its number in
    the engine, the channel it plays in, its seats, and what its row keeps for the runtime."""

    table_no: int
    channel_id: int
    seats: int
    config: object = None


@dataclass(frozen=True, slots=True)
class TournamentTable:
    """One of a tournament's tables as stored (its row of ``poker_tables``)."""

    table_id: int
    table_no: int
    channel_id: int
    message_id: int | None
    hand_count: int
    status: str
    config: Any


# Why a running tournament's transition moves money (``Payment.reason``).
PAYMENT_REASONS = ("rebuy", "add_on", "bounty")


@dataclass(frozen=True, slots=True)
class Payment:
    """Money a running tournament's transition moves, in its transaction. A ``rebuy`` or an
    ``add_on``: ``amount`` from the player's wallet into the pool (refused whole when the wallet
    is short). A ``bounty``: ``amount`` out of the pool into his wallet, off ``head_of``'s head
    (his own at the end), with ``onto_head`` more moved onto his own head (a progressive
    knockout). Each entrant's ``paid`` stays what a cancel would give back: his buy-ins, rebuys
    and add-ons, less the bounties won off his head, plus those moved onto it."""

    user_id: int
    amount: int
    reason: str
    head_of: int | None = None
    onto_head: int = 0


@dataclass(frozen=True, slots=True)
class TournamentSave:
    """What a transition of a running tournament stores with it, in the same transaction: the
    engine's state, the runtime's settings (None: unchanged), the tables opened and broken, the
    money it moves (``payments``, in order), and ``placings`` when the tournament ended (its
    prizes are paid then)."""

    state: object
    config: object = None
    opened: tuple[TableOpening, ...] = ()
    closed: tuple[int, ...] = ()
    placings: tuple[Placing, ...] | None = None
    payments: tuple[Payment, ...] = ()
    deal: bool = False  # the placings are those of a deal the players left agreed


@dataclass(frozen=True, slots=True)
class _CheckedSave:
    state_text: str
    config_text: str | None
    opened: tuple[tuple[int, int, int, str], ...]
    closed: tuple[int, ...]
    placings: tuple[Placing, ...] | None
    payments: tuple[Payment, ...] = ()
    deal: bool = False


def _check_payments(payments: Sequence[Payment]) -> tuple[Payment, ...]:
    for p in payments:
        if not isinstance(p, Payment) or p.reason not in PAYMENT_REASONS:
            raise StorageError("bad_json", field="payments", detail=repr(p)[:50])
        check_id(p.user_id, "user_id")
        check_setting(p.amount, "amount", 0 if p.reason == "bounty" else 1, MAX_CHIPS)
        check_setting(p.onto_head, "onto_head", 0, MAX_CHIPS)
        if p.reason == "bounty":
            check_id(p.head_of, "head_of")
        elif p.head_of is not None or p.onto_head:
            raise StorageError("bad_json", field="payments", detail=repr(p)[:50])
    return tuple(payments)


def _check_openings(openings: Sequence[TableOpening]) -> tuple[tuple[int, int, int, str], ...]:
    out = []
    for opening in openings:
        if not isinstance(opening, TableOpening):
            raise StorageError("bad_json", field="opened", detail=repr(opening)[:50])
        check_setting(opening.table_no, "table_no", 1, MAX_TABLE_NO)
        check_id(opening.channel_id, "channel_id")
        check_setting(opening.seats, "seats", 2, MAX_SEATS)
        config = {} if opening.config is None else opening.config
        out.append((opening.table_no, opening.channel_id, opening.seats,
                    to_json_text(config, "config")))
    numbers = [o[0] for o in out]
    channels = [o[1] for o in out]
    if len(set(numbers)) != len(numbers) or len(set(channels)) != len(channels):
        raise StorageError("bad_json", field="opened", detail="a table or channel twice")
    return tuple(out)


def _check_placings(placings: Sequence[Placing]) -> tuple[Placing, ...]:
    checked: list[Placing] = []
    for p in placings:
        if not isinstance(p, Placing):
            raise StorageError("results_mismatch", value=repr(p)[:50])
        check_id(p.user_id, "user_id")
        check_setting(p.place, "place", 1, MAX_TOURNAMENT_PLAYERS)
        check_setting(p.tied, "tied", 1, MAX_TOURNAMENT_PLAYERS)
        check_setting(p.prize, "prize", 0, MAX_CHIPS)
        checked.append(p)
    return tuple(checked)


def check_save(save: TournamentSave | None) -> _CheckedSave | None:
    """Validate a save before its transaction opens."""
    if save is None:
        return None
    if not isinstance(save, TournamentSave):
        raise StorageError("bad_json", field="save", detail=repr(save)[:50])
    closed = tuple(check_setting(n, "table_no", 1, MAX_TABLE_NO) for n in save.closed)
    if len(set(closed)) != len(closed):
        raise StorageError("bad_json", field="closed", detail="a table twice")
    return _CheckedSave(
        to_json_text(save.state, "state"),
        None if save.config is None else to_json_text(save.config, "config"),
        _check_openings(save.opened),
        closed,
        None if save.placings is None else _check_placings(save.placings),
        _check_payments(save.payments),
        save.deal is True,
    )


async def write_save(tx: Tx, tournament_id: int, save: _CheckedSave, now: int) -> None:
    """Store a checked save in the open transaction ``tx``: the tournament must be running."""
    row = await _row(tx, tournament_id)
    if row["status"] != "running":
        if row["status"] == "registering":
            raise StorageError("not_running", tournament_id=tournament_id)
        raise _over(row)
    await _save(tx, tournament_id, save.state_text)
    if save.config_text is not None:
        await _save_config(tx, tournament_id, save.config_text)
    await _open_tables(tx, row, save.opened, now)
    for table_no in save.closed:
        await _close_table(tx, tournament_id, table_no, now)
    for payment in save.payments:
        await _pay(tx, row, payment, now)
    if save.payments:
        row = await _row(tx, tournament_id)  # the pool they changed
    if save.placings is not None:
        await _finish_in(tx, row, save.placings, save.state_text, now, deal=save.deal)


_PAYMENT_LEDGER = {"rebuy": Reason.TOURNAMENT_REBUY, "add_on": Reason.TOURNAMENT_ADD_ON,
                   "bounty": Reason.TOURNAMENT_BOUNTY}


async def _shift_paid(tx: Tx, tournament_id: int, user_id: int, change: int) -> None:
    """An entrant's refundable share moves by ``change`` (never below nothing)."""
    changed = await tx.execute(
        "UPDATE tournament_entries SET paid = paid + ? WHERE tournament_id = ? AND user_id = ?"
        " AND paid + ? >= 0",
        (change, tournament_id, user_id, change),
    )
    if not changed:
        raise StorageError("pool_mismatch", tournament_id=tournament_id)


async def _pay(tx: Tx, row: Row, payment: Payment, now: int) -> None:
    """One :class:`Payment`: the pool, the wallet, the entrants' shares and a ledger row."""
    tournament_id = row["tournament_id"]
    user, amount = payment.user_id, payment.amount
    if payment.reason == "bounty":
        assert payment.head_of is not None
        await _shift_paid(tx, tournament_id, payment.head_of, -(amount + payment.onto_head))
        if payment.onto_head:
            await _shift_paid(tx, tournament_id, user, payment.onto_head)
        if not amount:
            return
        taken = await tx.fetchone(
            "UPDATE tournaments SET pool = pool - ? WHERE tournament_id = ? AND pool >= ?"
            " RETURNING pool",
            (amount, tournament_id, amount),
        )
        if taken is None:
            raise StorageError("pool_mismatch", tournament_id=tournament_id)
        await credit_wallet(tx, row["guild_id"], user, amount, now=now, create=True)
        source, dest = tournament_account(tournament_id), wallet_account(user)
    else:
        if is_house_or_bot(user):
            raise StorageError("bots_pay_nothing", tournament_id=tournament_id)
        await debit_wallet(tx, row["guild_id"], user, amount, now=now, create=True)
        await tx.execute(
            "UPDATE tournaments SET pool = pool + ? WHERE tournament_id = ?",
            (amount, tournament_id),
        )
        await _shift_paid(tx, tournament_id, user, amount)
        source, dest = wallet_account(user), tournament_account(tournament_id)
    await record(
        tx,
        guild_id=row["guild_id"],
        amount=amount,
        source=source,
        dest=dest,
        reason=_PAYMENT_LEDGER[payment.reason],
        user_id=user,
        now=now,
    )


async def _open_tables(
    tx: Tx, row: Row, openings: Sequence[tuple[int, int, int, str]], now: int
) -> None:
    for table_no, channel_id, seats, config_text in openings:
        taken = await tx.scalar(
            "SELECT table_id FROM poker_tables WHERE channel_id = ? AND status = 'open'",
            (channel_id,),
        )
        if taken is not None:
            raise StorageError("channel_has_table", channel_id=channel_id, table_id=taken)
        # The buy-in columns mean nothing here (no seat, no chip): the smallest legal values.
        await tx.insert(
            "INSERT INTO poker_tables (guild_id, channel_id, host_id, config, min_buy_in,"
            " max_buy_in, chip_unit, max_seats, created_at, tournament_id, table_no)"
            " VALUES (?, ?, ?, ?, 1, 1, 1, ?, ?, ?, ?) RETURNING table_id",
            (row["guild_id"], channel_id, row["host_id"], config_text, seats, now,
             row["tournament_id"], table_no),
        )


async def _close_table(tx: Tx, tournament_id: int, table_no: int, now: int) -> None:
    found = await tx.fetchone(
        "SELECT table_id FROM poker_tables WHERE tournament_id = ? AND table_no = ?"
        " AND status = 'open'",
        (tournament_id, table_no),
    )
    if found is None:
        raise StorageError("unknown_table", tournament_id=tournament_id, table_no=table_no)
    running = await tx.scalar(
        "SELECT hand_id FROM hands WHERE table_id = ? AND status = 'running'", (found[0],)
    )
    if running is not None:
        raise StorageError("hand_in_progress", table_id=found[0], hand_id=running)
    await tx.execute(
        "UPDATE poker_tables SET status = 'closed', closed_at = ? WHERE table_id = ?",
        (now, found[0]),
    )


async def _close_all_tables(tx: Tx, tournament_id: int, now: int) -> None:
    await tx.execute(
        "UPDATE poker_tables SET status = 'closed', closed_at = ?"
        " WHERE tournament_id = ? AND status = 'open'",
        (now, tournament_id),
    )


_COLUMNS = (
    "tournament_id, guild_id, channel_id, host_id, name, kind, buy_in, max_players, entrants,"
    " pool, config, state, status, starts_at, created_at, started_at, ended_at, alive_at"
)


async def _load(tx: Tx, row: Row) -> TournamentInfo:
    order = "COALESCE(place, 2147483647), registered_at, user_id"
    entries = tuple(
        Entry(r[0], r[1], bool(r[2]), r[3], r[4], r[5], r[6])
        for r in await tx.fetchall(
            "SELECT user_id, paid, late, registered_at, place, tied, prize"
            f" FROM tournament_entries WHERE tournament_id = ? ORDER BY {order}",
            (row[0],),
        )
    )
    return TournamentInfo(
        tournament_id=row[0],
        guild_id=row[1],
        channel_id=row[2],
        host_id=row[3],
        name=row[4],
        kind=row[5],
        buy_in=row[6],
        max_players=row[7],
        entrants=row[8],
        pool=row[9],
        config=from_json_text(row[10]),
        state=None if row[11] is None else from_json_text(row[11]),
        status=row[12],
        starts_at=row[13],
        created_at=row[14],
        started_at=row[15],
        ended_at=row[16],
        entries=entries,
        alive_at=row[17],
    )


async def _row(tx: Tx, tournament_id: int) -> Row:
    row = await tx.fetchone(
        f"SELECT {_COLUMNS} FROM tournaments WHERE tournament_id = ?", (tournament_id,)
    )
    if row is None:
        raise StorageError("unknown_tournament", tournament_id=tournament_id)
    return row


def _over(row: Row) -> StorageError:
    return StorageError("tournament_over", tournament_id=row["tournament_id"],
                        status=row["status"])


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise StorageError("bad_setting", name="name", value=repr(name)[:50], minimum=1,
                           maximum=MAX_NAME)
    return name


def _state_text(state: object) -> str | None:
    return None if state is None else to_json_text(state, "state")


async def create_tournament(
    db: Database,
    guild_id: int,
    channel_id: int,
    host_id: int,
    *,
    name: str,
    kind: str,
    buy_in: int,
    max_players: int,
    config: object,
    state: object = None,
    starts_at: int | None = None,
    enforce_limits: bool = True,
    league: LeagueEntry | None = None,
    now: int | None = None,
) -> TournamentInfo:
    """Open registration in a channel: one open tournament per channel and per name in a
    server, and never in a channel with an open cash table. ``enforce_limits``: within the
    server's table limits (``too_many_tables``, ``too_many_hosted``; see the module).
    ``league``: it counts toward that league of the server (``bot.storage.leagues``)."""
    check_id(guild_id, "guild_id")
    check_id(channel_id, "channel_id")
    check_id(host_id, "host_id")
    name = _check_name(name)
    if kind not in KINDS:
        raise StorageError("bad_setting", name="kind", value=repr(kind)[:50])
    check_setting(buy_in, "buy_in", 0, MAX_CHIPS)
    check_setting(max_players, "max_players", 2, MAX_TOURNAMENT_PLAYERS)
    if starts_at is not None:
        check_setting(starts_at, "starts_at", 0, 2**62)
    config_text = to_json_text(config, "config")
    state_text = _state_text(state)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        await require_guild(tx, guild_id)
        table = await tx.scalar(
            "SELECT table_id FROM poker_tables WHERE channel_id = ? AND status = 'open'",
            (channel_id,),
        )
        if table is not None:
            raise StorageError("channel_has_table", channel_id=channel_id, table_id=table)
        found = await tx.scalar(
            "SELECT tournament_id FROM tournaments WHERE channel_id = ? AND status IN (?, ?)",
            (channel_id, *OPEN),
        )
        if found is not None:
            raise StorageError("channel_has_tournament", channel_id=channel_id,
                               tournament_id=found)
        if await tx.scalar(
            "SELECT 1 FROM tournaments WHERE guild_id = ? AND name = ? AND status IN (?, ?)",
            (guild_id, name, *OPEN),
        ):
            raise StorageError("tournament_name_taken", name=name)
        if enforce_limits:
            await check_table_limits(tx, guild_id, host_id)
        tournament_id = await tx.insert(
            "INSERT INTO tournaments (guild_id, channel_id, host_id, name, kind, buy_in,"
            " max_players, config, state, starts_at, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING tournament_id",
            (guild_id, channel_id, host_id, name, kind, buy_in, max_players, config_text,
             state_text, starts_at, now),
        )
        if league is not None:
            await leagues.join_league(tx, guild_id, tournament_id, league.league_id,
                                      league.big_blind, now if starts_at is None else starts_at)
        return await _load(tx, await _row(tx, tournament_id))


async def get_tournament(db: Database, tournament_id: int) -> TournamentInfo:
    check_id(tournament_id, "tournament_id")
    async with db.read() as tx:
        return await _load(tx, await _row(tx, tournament_id))


async def tournament_in_channel(db: Database, channel_id: int) -> TournamentInfo | None:
    """The open tournament of a channel, if any."""
    check_id(channel_id, "channel_id")
    async with db.read() as tx:
        row = await tx.fetchone(
            f"SELECT {_COLUMNS} FROM tournaments WHERE channel_id = ? AND status IN (?, ?)",
            (channel_id, *OPEN),
        )
        return None if row is None else await _load(tx, row)


async def find_tournament(db: Database, guild_id: int, name: str) -> TournamentInfo:
    """A server's tournament by name: the open one, else the latest that had that name."""
    check_id(guild_id, "guild_id")
    _check_name(name)
    async with db.read() as tx:
        row = await tx.fetchone(
            f"SELECT {_COLUMNS} FROM tournaments WHERE guild_id = ? AND name = ?"
            " ORDER BY CASE WHEN status IN (?, ?) THEN 0 ELSE 1 END, tournament_id DESC",
            (guild_id, name, *OPEN),
        )
        if row is None:
            raise StorageError("unknown_tournament", name=name)
        return await _load(tx, row)


async def list_tournaments(
    db: Database, guild_id: int, *, open_only: bool = False, limit: int = 25
) -> list[TournamentInfo]:
    """A server's tournaments, open ones first, then the latest (``/tournament list``)."""
    check_id(guild_id, "guild_id")
    check_setting(limit, "limit", 1, 100)
    where = " AND status IN (?, ?)" if open_only else ""
    async with db.read() as tx:
        rows = await tx.fetchall(
            f"SELECT {_COLUMNS} FROM tournaments WHERE guild_id = ?{where}"
            " ORDER BY CASE WHEN status IN (?, ?) THEN 0 ELSE 1 END, tournament_id DESC"
            " LIMIT ?",
            (guild_id, *(OPEN if open_only else ()), *OPEN, limit),
        )
        return [await _load(tx, row) for row in rows]


async def open_tournaments(db: Database) -> list[TournamentInfo]:
    """Every tournament registering or running, in any server: what a restart resumes."""
    async with db.read() as tx:
        rows = await tx.fetchall(
            f"SELECT {_COLUMNS} FROM tournaments WHERE status IN (?, ?) ORDER BY tournament_id",
            OPEN,
        )
        return [await _load(tx, row) for row in rows]


async def register(
    db: Database,
    tournament_id: int,
    user_id: int,
    *,
    late: bool = False,
    state: object = None,
    tables: Sequence[TableOpening] = (),
    config: object = None,
    enforce_limits: bool = True,
    reentry: bool = False,
    start: bool = False,
    home: int | None = None,
    now: int | None = None,
) -> Registration:
    """Take the buy-in from his wallet (opened if needed) into the prize pool and enter him.

    Before the start; or ``late`` (the engine accepted a late registration) while running.
    ``state``: the engine's state after it, saved in the same transaction, with the ``tables``
    opened for him (every seat was taken): within the server's ``max_tables``
    (``too_many_tables``) unless ``enforce_limits`` is off. ``reentry``: he entered before and
    was knocked out (the engine accepted his new entry); the buy-in adds to what he paid.
    ``start``: his entry filled a sit-and-go, which starts in the same transaction (as
    :func:`start_tournament`, the ``tables`` being the seat draw's); ``home``: the channel
    it moves to as it starts (a repeating sit-and-go leaves its own to the next one).
    """
    check_id(tournament_id, "tournament_id")
    check_id(user_id, "user_id")
    state_text = _state_text(state)
    openings = _check_openings(tables)
    config_text = None if config is None else to_json_text(config, "config")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        allowed = OPEN if late else ("registering", "registering")
        if row["status"] not in allowed:
            raise StorageError("registration_closed", tournament_id=tournament_id,
                               status=row["status"])
        entered = await tx.scalar(
            "SELECT 1 FROM tournament_entries WHERE tournament_id = ? AND user_id = ?",
            (tournament_id, user_id),
        )
        if entered and not reentry:
            raise StorageError("already_registered", user_id=user_id)
        if reentry and not entered:
            raise StorageError("not_registered", user_id=user_id)
        buy_in = int(row["buy_in"])
        # The seat count and the pool in one conditional statement: two registrations at once
        # cannot both take the last place.
        updated = await tx.fetchone(
            "UPDATE tournaments SET entrants = entrants + 1, pool = pool + ?"
            " WHERE tournament_id = ? AND status IN (?, ?) AND entrants < max_players"
            " RETURNING entrants, pool",
            (buy_in, tournament_id, *allowed),
        )
        if updated is None:
            raise StorageError("tournament_full", max_players=row["max_players"])
        if buy_in and is_house_or_bot(user_id):
            raise StorageError("bots_pay_nothing", tournament_id=tournament_id)
        if buy_in:
            balance = await debit_wallet(tx, row["guild_id"], user_id, buy_in, now=now,
                                         create=True)
        elif is_house_or_bot(user_id):  # a computer player has no wallet, and pays nothing
            balance = 0
        else:  # a freeroll takes nothing, but the player still gets his wallet
            await ensure_wallet(tx, row["guild_id"], user_id, now)
            balance = await wallet_balance(tx, row["guild_id"], user_id) or 0
        if reentry:
            await _shift_paid(tx, tournament_id, user_id, buy_in)
        else:
            await tx.execute(
                "INSERT INTO tournament_entries (tournament_id, user_id, paid, late,"
                " registered_at) VALUES (?, ?, ?, ?, ?)",
                (tournament_id, user_id, buy_in, int(row["status"] == "running"), now),
            )
        if buy_in:
            await record(
                tx,
                guild_id=row["guild_id"],
                amount=buy_in,
                source=wallet_account(user_id),
                dest=tournament_account(tournament_id),
                reason=Reason.TOURNAMENT_BUY_IN,
                user_id=user_id,
                now=now,
            )
        if state_text is not None:
            await _save(tx, tournament_id, state_text)
        if config_text is not None:
            await _save_config(tx, tournament_id, config_text)
        if start:
            if row["status"] != "registering":
                raise StorageError("already_started", tournament_id=tournament_id)
            if enforce_limits:
                await _room_to_start(tx, row, len(openings))
            if home is not None:
                check_id(home, "home")
            await tx.execute(
                "UPDATE tournaments SET status = 'running', started_at = ?,"
                " channel_id = COALESCE(?, channel_id) WHERE tournament_id = ?",
                (now, home, tournament_id),
            )
        elif openings and enforce_limits:
            usage = await table_usage(tx, row["guild_id"], row["host_id"])
            if usage.open + len(openings) > usage.max_tables:
                raise StorageError("too_many_tables", maximum=usage.max_tables)
        await _open_tables(tx, row, openings, now)
        return Registration(balance, int(updated[0]), int(updated[1]))


async def _refund(tx: Tx, row: Row, user_id: int, paid: int, now: int,
                  actor_id: int | None) -> None:
    tournament_id = row["tournament_id"]
    if not paid:
        return
    taken = await tx.fetchone(
        "UPDATE tournaments SET pool = pool - ? WHERE tournament_id = ? AND pool >= ?"
        " RETURNING pool",
        (paid, tournament_id, paid),
    )
    if taken is None:
        raise StorageError("pool_mismatch", tournament_id=tournament_id)
    await credit_wallet(tx, row["guild_id"], user_id, paid, now=now, create=True)
    await record(
        tx,
        guild_id=row["guild_id"],
        amount=paid,
        source=tournament_account(tournament_id),
        dest=wallet_account(user_id),
        reason=Reason.TOURNAMENT_REFUND,
        user_id=user_id,
        actor_id=actor_id,
        now=now,
    )


async def unregister(
    db: Database,
    tournament_id: int,
    user_id: int,
    *,
    state: object = None,
    config: object = None,
    now: int | None = None,
) -> int:
    """Before the start only: his buy-in back to his wallet; his new balance."""
    check_id(tournament_id, "tournament_id")
    check_id(user_id, "user_id")
    state_text = _state_text(state)
    config_text = None if config is None else to_json_text(config, "config")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        if row["status"] != "registering":
            raise StorageError("registration_closed", tournament_id=tournament_id,
                               status=row["status"])
        paid = await tx.scalar(
            "DELETE FROM tournament_entries WHERE tournament_id = ? AND user_id = ?"
            " RETURNING paid",
            (tournament_id, user_id),
        )
        if paid is None:
            raise StorageError("not_registered", user_id=user_id)
        await tx.execute(
            "UPDATE tournaments SET entrants = entrants - 1 WHERE tournament_id = ?",
            (tournament_id,),
        )
        await _refund(tx, row, user_id, int(paid), now, None)
        if state_text is not None:
            await _save(tx, tournament_id, state_text)
        if config_text is not None:
            await _save_config(tx, tournament_id, config_text)
        return await wallet_balance(tx, row["guild_id"], user_id) or 0


async def _room_to_start(tx: Tx, row: Any, tables: int) -> None:
    """Refuse a start whose seat draw needs more tables than the server has room for."""
    usage = await table_usage(tx, row["guild_id"], row["host_id"])
    taken = usage.open - 1  # its own place while registering, given up now
    needed = max(1, tables)
    if taken + needed > usage.max_tables:
        raise StorageError("tournament_needs_tables", tables=needed,
                           maximum=usage.max_tables, taken=taken)


async def check_room_to_start(db: Database, tournament_id: int, tables: int) -> None:
    """The start's table check, before anything is made for it (the runtime makes a thread per
    table first): :func:`start_tournament` checks again in its transaction."""
    check_id(tournament_id, "tournament_id")
    async with db.read() as tx:
        await _room_to_start(tx, await _row(tx, tournament_id), tables)


async def start_tournament(
    db: Database,
    tournament_id: int,
    *,
    state: object,
    tables: Sequence[TableOpening] = (),
    config: object = None,
    enforce_limits: bool = True,
    now: int | None = None,
) -> TournamentInfo:
    """Registration (if no late one) closes and play begins: at least two entrants. The
    tables of the seat draw open in the same transaction (``config``: the runtime's settings
    as the start left them), within the server's ``max_tables`` (``tournament_needs_tables``)
    unless ``enforce_limits`` is off."""
    check_id(tournament_id, "tournament_id")
    state_text = to_json_text(state, "state")
    openings = _check_openings(tables)
    config_text = None if config is None else to_json_text(config, "config")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        if row["status"] != "registering":
            if row["status"] == "running":
                raise StorageError("already_started", tournament_id=tournament_id)
            raise _over(row)
        if row["entrants"] < 2:
            raise StorageError("not_enough_players", registered=row["entrants"])
        if enforce_limits:
            await _room_to_start(tx, row, len(openings))
        await tx.execute(
            "UPDATE tournaments SET status = 'running', started_at = ?, state = ?"
            " WHERE tournament_id = ?",
            (now, state_text, tournament_id),
        )
        if config_text is not None:
            await _save_config(tx, tournament_id, config_text)
        await _open_tables(tx, row, openings, now)
        return await _load(tx, await _row(tx, tournament_id))


async def _save_config(tx: Tx, tournament_id: int, config_text: str) -> None:
    await tx.execute(
        "UPDATE tournaments SET config = ? WHERE tournament_id = ?", (config_text, tournament_id)
    )


async def _save(tx: Tx, tournament_id: int, state_text: str) -> None:
    changed = await tx.execute(
        "UPDATE tournaments SET state = ? WHERE tournament_id = ? AND status IN (?, ?)",
        (state_text, tournament_id, *OPEN),
    )
    if not changed:
        raise _over(await _row(tx, tournament_id))


async def store(
    db: Database, tournament_id: int, save: TournamentSave, *, now: int | None = None
) -> None:
    """Store a running tournament's transition that involves no hand (the clock moved on, a
    player marked away or back, a pause): with the places and prizes if it ended."""
    check_id(tournament_id, "tournament_id")
    checked = check_save(save)
    assert checked is not None
    now = unix_now() if now is None else now
    async with db.write() as tx:
        await write_save(tx, tournament_id, checked, now)


async def save_state(db: Database, tournament_id: int, state: object) -> None:
    """Store the engine's state (after a hand, a move, a level, or a clock checkpoint)."""
    check_id(tournament_id, "tournament_id")
    state_text = to_json_text(state, "state")
    async with db.write() as tx:
        await _row(tx, tournament_id)
        await _save(tx, tournament_id, state_text)


async def cancel_tournament(
    db: Database, tournament_id: int, *, actor_id: int, now: int | None = None
) -> dict[int, int]:
    """Every buy-in back, whatever the stage, in one transaction; {user id: refund}."""
    check_id(tournament_id, "tournament_id")
    check_id(actor_id, "actor_id")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        if row["status"] not in OPEN:
            raise _over(row)
        return await _cancel_in(tx, row, actor_id, now)


async def _cancel_in(tx: Tx, row: Row, actor_id: int | None, now: int) -> dict[int, int]:
    tournament_id = row["tournament_id"]
    entries = await tx.fetchall(
        "SELECT user_id, paid FROM tournament_entries WHERE tournament_id = ?"
        " ORDER BY user_id",
        (tournament_id,),
    )
    refunds = {int(user): int(paid) for user, paid in entries}
    if sum(refunds.values()) != row["pool"]:
        raise StorageError("pool_mismatch", tournament_id=tournament_id)
    for user, paid in refunds.items():
        await _refund(tx, row, user, paid, now, actor_id)
    # Hands in play end with it: tournament chips are not prizes, nothing moves.
    await tx.execute(
        "UPDATE hands SET status = 'voided', void_reason = 'tournament cancelled',"
        " ended_at = ? WHERE tournament_id = ? AND status = 'running'",
        (now, tournament_id),
    )
    await _close_all_tables(tx, tournament_id, now)
    await tx.execute(
        "UPDATE tournaments SET status = 'cancelled', ended_at = ? WHERE tournament_id = ?",
        (now, tournament_id),
    )
    return refunds


# Idle since before the time given (three times): not created, scheduled to start, or joined
# since (written without a many-argument MAX, which the two databases spell differently).
_IDLE_SINCE = (
    "t.created_at < ? AND COALESCE(t.starts_at, 0) < ? AND NOT EXISTS (SELECT 1"
    " FROM tournament_entries e WHERE e.tournament_id = t.tournament_id"
    " AND e.registered_at >= ?)"
)


async def stale_registrations(db: Database, guild_id: int, older_than: int) -> list[int]:
    """A server's tournaments still registering whose last sign of life (created, the start
    it was scheduled for, the latest registration) is before ``older_than`` (Unix seconds):
    what the idle sweep closes with :func:`close_stale_registration`, oldest first. The
    caller passes ``now - idle_close`` (and sweeps nothing when ``idle_close`` is 0)."""
    check_id(guild_id, "guild_id")
    check_setting(older_than, "older_than", 0, 2**62)
    rows = await db.fetchall(
        "SELECT t.tournament_id FROM tournaments t WHERE t.guild_id = ?"
        f" AND t.status = 'registering' AND {_IDLE_SINCE} ORDER BY t.tournament_id",
        (guild_id, older_than, older_than, older_than),
    )
    return [int(r[0]) for r in rows]


async def close_stale_registration(
    db: Database, tournament_id: int, older_than: int, *, now: int | None = None
) -> dict[int, int] | None:
    """Cancel a registration that never started, every buy-in back (the ledger's refunds name
    no actor: the bot closed it), if it is still registering and still idle since before
    ``older_than`` when the transaction runs (someone may have registered, or the host
    started it, since :func:`stale_registrations` found it). {user id: refund}, or None when
    it is not stale any more."""
    check_id(tournament_id, "tournament_id")
    check_setting(older_than, "older_than", 0, 2**62)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        stale = await tx.scalar(
            "SELECT 1 FROM tournaments t WHERE t.tournament_id = ? AND t.status = 'registering'"
            f" AND {_IDLE_SINCE}",
            (tournament_id, older_than, older_than, older_than),
        )
        if not stale:
            return None
        return await _cancel_in(tx, row, None, now)


async def finish_tournament(
    db: Database,
    tournament_id: int,
    placings: Sequence[Placing],
    *,
    state: object,
    now: int | None = None,
) -> TournamentInfo:
    """Record every entrant's place and pay every prize into the wallets, in one transaction.

    Exactly one placing per entrant, and prizes adding up to the pool to the chip: anything
    else is a bug in the caller (``results_mismatch``, ``prizes_mismatch``) and pays nothing.
    A transition that ends the tournament (a hand's result) does the same through its
    :class:`TournamentSave` instead.
    """
    check_id(tournament_id, "tournament_id")
    state_text = to_json_text(state, "state")
    checked = _check_placings(placings)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        if row["status"] != "running":
            if row["status"] == "registering":
                raise StorageError("not_running", tournament_id=tournament_id)
            raise _over(row)
        await _finish_in(tx, row, checked, state_text, now)
        return await _load(tx, await _row(tx, tournament_id))


async def _finish_in(
    tx: Tx, row: Row, placings: Sequence[Placing], state_text: str, now: int,
    *, deal: bool = False,
) -> None:
    tournament_id = row["tournament_id"]
    running = await tx.scalar(
        "SELECT hand_id FROM hands WHERE tournament_id = ? AND status = 'running'",
        (tournament_id,),
    )
    if running is not None:
        raise StorageError("hand_in_progress", tournament_id=tournament_id, hand_id=running)
    users = {int(r[0]) for r in await tx.fetchall(
        "SELECT user_id FROM tournament_entries WHERE tournament_id = ?", (tournament_id,)
    )}
    given = [p.user_id for p in placings]
    if len(set(given)) != len(given) or set(given) != users:
        raise StorageError("results_mismatch", tournament_id=tournament_id,
                           entrants=len(users), placings=len(given))
    total = sum(p.prize for p in placings)
    if total != row["pool"]:
        raise StorageError("prizes_mismatch", tournament_id=tournament_id, prizes=total,
                           pool=row["pool"])
    for p in placings:
        await tx.execute(
            "UPDATE tournament_entries SET place = ?, tied = ?, prize = ?"
            " WHERE tournament_id = ? AND user_id = ?",
            (p.place, p.tied, p.prize, tournament_id, p.user_id),
        )
        if not p.prize:
            continue
        await credit_wallet(tx, row["guild_id"], p.user_id, p.prize, now=now, create=True)
        await record(
            tx,
            guild_id=row["guild_id"],
            amount=p.prize,
            source=tournament_account(tournament_id),
            dest=wallet_account(p.user_id),
            reason=Reason.TOURNAMENT_PRIZE,
            user_id=p.user_id,
            note=f"place {p.place}",
            now=now,
        )
    await leagues.award_points(tx, tournament_id, int(row["buy_in"]),
                               [(p.user_id, p.place, p.tied) for p in placings], now, deal=deal,
                               entries=int(row["entrants"]))
    await tx.execute(
        "UPDATE tournaments SET pool = 0, status = 'finished', ended_at = ?, state = ?"
        " WHERE tournament_id = ?",
        (now, state_text, tournament_id),
    )
    await _close_all_tables(tx, tournament_id, now)
    # Its recap is owed from the moment it is over (posted in its own channel, the lobby).
    paid = {int(r[0]): int(r[1]) for r in await tx.fetchall(
        "SELECT user_id, paid FROM tournament_entries WHERE tournament_id = ?", (tournament_id,)
    )}
    await recaps.insert_recap(
        tx,
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        tournament_id=int(tournament_id),
        played=await recaps.finished_tournament_hands(tx, int(tournament_id)),
        figures={"players": [[p.user_id, p.place, p.tied, p.prize, paid.get(p.user_id, 0)]
                             for p in sorted(placings, key=lambda p: (p.place, p.user_id))]},
        post=True,
        now=now,
    )


async def tournament_tables(
    db: Database, tournament_id: int, *, open_only: bool = True
) -> list[TournamentTable]:
    """A tournament's tables by number (the open ones, or all it ever had)."""
    check_id(tournament_id, "tournament_id")
    where = " AND status = 'open'" if open_only else ""
    rows = await db.fetchall(
        "SELECT table_id, table_no, channel_id, message_id, hand_count, status, config"
        f" FROM poker_tables WHERE tournament_id = ?{where} ORDER BY table_no",
        (tournament_id,),
    )
    return [
        TournamentTable(r[0], r[1], r[2], r[3], r[4], r[5], from_json_text(r[6])) for r in rows
    ]


async def open_tournament_guilds(db: Database) -> dict[int, int]:
    """Every open tournament's server (tournament id -> guild id), for the process that
    should run it."""
    rows = await db.fetchall(
        "SELECT tournament_id, guild_id FROM tournaments WHERE status IN (?, ?)"
        " ORDER BY tournament_id",
        OPEN,
    )
    return {int(tid): int(guild) for tid, guild in rows}


async def heartbeat(db: Database, tournament_id: int, alive_at: int) -> bool:
    """Note that the running tournament's clock was alive at ``alive_at`` (Unix ms): one
    small statement every few seconds, so a crash costs the players no time. False when the
    tournament is not running any more."""
    check_id(tournament_id, "tournament_id")
    check_setting(alive_at, "alive_at", 0, 2**62)
    rows = await db.write_one(
        "UPDATE tournaments SET alive_at = ? WHERE tournament_id = ? AND status = 'running'"
        " RETURNING tournament_id",
        (alive_at, tournament_id),
    )
    return bool(rows)
