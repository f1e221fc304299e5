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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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
from engine.limits import MAX_CHIPS

KINDS = ("freeze_out", "time_limited")
OPEN = ("registering", "running")
MAX_NAME = 100
MAX_PLAYERS = 1_000


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

    @property
    def is_open(self) -> bool:
        return self.status in OPEN

    def entry_of(self, user_id: int) -> Entry | None:
        return next((e for e in self.entries if e.user_id == user_id), None)


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


_COLUMNS = (
    "tournament_id, guild_id, channel_id, host_id, name, kind, buy_in, max_players, entrants,"
    " pool, config, state, status, starts_at, created_at, started_at, ended_at"
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
    now: int | None = None,
) -> TournamentInfo:
    """Open registration in a channel: one open tournament per channel and per name in a
    server, and never in a channel with an open cash table."""
    check_id(guild_id, "guild_id")
    check_id(channel_id, "channel_id")
    check_id(host_id, "host_id")
    name = _check_name(name)
    if kind not in KINDS:
        raise StorageError("bad_setting", name="kind", value=repr(kind)[:50])
    check_setting(buy_in, "buy_in", 0, MAX_CHIPS)
    check_setting(max_players, "max_players", 2, MAX_PLAYERS)
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
        tournament_id = await tx.insert(
            "INSERT INTO tournaments (guild_id, channel_id, host_id, name, kind, buy_in,"
            " max_players, config, state, starts_at, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING tournament_id",
            (guild_id, channel_id, host_id, name, kind, buy_in, max_players, config_text,
             state_text, starts_at, now),
        )
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
    now: int | None = None,
) -> Registration:
    """Take the buy-in from his wallet (opened if needed) into the prize pool and enter him.

    Before the start; or ``late`` (the engine accepted a late registration) while running.
    ``state``: the engine's state after it, saved in the same transaction.
    """
    check_id(tournament_id, "tournament_id")
    check_id(user_id, "user_id")
    state_text = _state_text(state)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        allowed = OPEN if late else ("registering", "registering")
        if row["status"] not in allowed:
            raise StorageError("registration_closed", tournament_id=tournament_id,
                               status=row["status"])
        if await tx.scalar(
            "SELECT 1 FROM tournament_entries WHERE tournament_id = ? AND user_id = ?",
            (tournament_id, user_id),
        ):
            raise StorageError("already_registered", user_id=user_id)
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
        if buy_in:
            balance = await debit_wallet(tx, row["guild_id"], user_id, buy_in, now=now,
                                         create=True)
        else:  # a freeroll takes nothing, but the player still gets his wallet
            await ensure_wallet(tx, row["guild_id"], user_id, now)
            balance = await wallet_balance(tx, row["guild_id"], user_id) or 0
        await tx.execute(
            "INSERT INTO tournament_entries (tournament_id, user_id, paid, late, registered_at)"
            " VALUES (?, ?, ?, ?, ?)",
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
    now: int | None = None,
) -> int:
    """Before the start only: his buy-in back to his wallet; his new balance."""
    check_id(tournament_id, "tournament_id")
    check_id(user_id, "user_id")
    state_text = _state_text(state)
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
        return await wallet_balance(tx, row["guild_id"], user_id) or 0


async def start_tournament(
    db: Database, tournament_id: int, *, state: object, now: int | None = None
) -> TournamentInfo:
    """Registration (if no late one) closes and play begins: at least two entrants."""
    check_id(tournament_id, "tournament_id")
    state_text = to_json_text(state, "state")
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        if row["status"] != "registering":
            if row["status"] == "running":
                raise StorageError("already_started", tournament_id=tournament_id)
            raise _over(row)
        if row["entrants"] < 2:
            raise StorageError("not_enough_players", registered=row["entrants"])
        await tx.execute(
            "UPDATE tournaments SET status = 'running', started_at = ?, state = ?"
            " WHERE tournament_id = ?",
            (now, state_text, tournament_id),
        )
        return await _load(tx, await _row(tx, tournament_id))


async def _save(tx: Tx, tournament_id: int, state_text: str) -> None:
    changed = await tx.execute(
        "UPDATE tournaments SET state = ? WHERE tournament_id = ? AND status IN (?, ?)",
        (state_text, tournament_id, *OPEN),
    )
    if not changed:
        raise _over(await _row(tx, tournament_id))


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
        await tx.execute(
            "UPDATE tournaments SET status = 'cancelled', ended_at = ? WHERE tournament_id = ?",
            (now, tournament_id),
        )
        return refunds


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
    """
    check_id(tournament_id, "tournament_id")
    state_text = to_json_text(state, "state")
    checked: list[Placing] = []
    for p in placings:
        if not isinstance(p, Placing):
            raise StorageError("results_mismatch", value=repr(p)[:50])
        check_id(p.user_id, "user_id")
        check_setting(p.place, "place", 1, MAX_PLAYERS)
        check_setting(p.tied, "tied", 1, MAX_PLAYERS)
        check_setting(p.prize, "prize", 0, MAX_CHIPS)
        checked.append(p)
    now = unix_now() if now is None else now
    async with db.write() as tx:
        row = await _row(tx, tournament_id)
        if row["status"] != "running":
            if row["status"] == "registering":
                raise StorageError("not_running", tournament_id=tournament_id)
            raise _over(row)
        users = {int(r[0]) for r in await tx.fetchall(
            "SELECT user_id FROM tournament_entries WHERE tournament_id = ?", (tournament_id,)
        )}
        given = [p.user_id for p in checked]
        if len(set(given)) != len(given) or set(given) != users:
            raise StorageError("results_mismatch", tournament_id=tournament_id,
                               entrants=len(users), placings=len(given))
        total = sum(p.prize for p in checked)
        if total != row["pool"]:
            raise StorageError("prizes_mismatch", tournament_id=tournament_id, prizes=total,
                               pool=row["pool"])
        for p in checked:
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
        await tx.execute(
            "UPDATE tournaments SET pool = 0, status = 'finished', ended_at = ?, state = ?"
            " WHERE tournament_id = ?",
            (now, state_text, tournament_id),
        )
        return await _load(tx, await _row(tx, tournament_id))
