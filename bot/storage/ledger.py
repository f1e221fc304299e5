"""The ledger and the only statements that move chips.

Every chip lives in exactly one *account*: a wallet (``wallet:<user>``, per guild), a seat at
a table (``seat:<table>:<seat>``), a hand in progress (``hand:<hand>``) or a tournament's prize
pool (``tournament:<tournament>``, the buy-ins until they are paid out). Chips enter a
guild's economy from ``mint`` (a new wallet's starting balance, the daily bonus, an admin's
grant) and leave it to ``burn`` (an admin's removal). A movement is one ledger row written in
the same transaction as the balance changes it describes, so for every guild, at every
committed instant::

    sum(wallets) + sum(seat stacks) + sum(chips held by running hands)
        + sum(tournament prize pools) == minted - burned

and each account's balance equals what the ledger says flowed in minus what flowed out
(``bot.storage.invariant`` checks both).

A balance only changes through a conditional ``UPDATE ... WHERE balance >= ? RETURNING``:
if the condition fails no row comes back and the caller raises, rolling back the transaction.
Nothing reads a balance, awaits, and writes it back.

No limit is checked where chips come back (a cash-out, a refund, a prize): the limit is where
chips enter. Each guild counts its chips in circulation (``guilds.circulation``, minted minus
burned) and ``mint`` refuses to take it past ``MAX_CIRCULATION``, the wallet column's maximum;
since every chip of a guild is in one of its accounts, no account can hold more than that.

The house (``engine.bots.ids.HOUSE_ID``) owns an ordinary wallet, so every check above covers
it, but only ``bot.storage.house`` opens it and moves its chips: ``ensure_wallet`` refuses the
house and its bots (a bot has no wallet; the house gets no starting balance).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.storage.db import Tx
from bot.storage.errors import MAX_CIRCULATION, StorageError, check_id
from engine.bots.ids import is_house_or_bot

MINT = "mint"
BURN = "burn"


class Reason(StrEnum):
    """Why chips moved; stored in the ledger, stable."""

    WALLET_OPEN = "wallet_open"
    DAILY = "daily"
    GRANT = "grant"
    REMOVAL = "removal"
    TRANSFER = "transfer"
    BUY_IN = "buy_in"
    TOP_UP = "top_up"
    LEAVE = "leave"
    TABLE_CLOSE = "table_close"
    HAND_START = "hand_start"
    HAND_END = "hand_end"
    HAND_VOID = "hand_void"
    TOURNAMENT_BUY_IN = "tournament_buy_in"
    TOURNAMENT_REFUND = "tournament_refund"
    TOURNAMENT_PRIZE = "tournament_prize"
    TOURNAMENT_REBUY = "tournament_rebuy"
    TOURNAMENT_ADD_ON = "tournament_add_on"
    TOURNAMENT_BOUNTY = "tournament_bounty"
    HOUSE_FLOAT = "house_float"  # minted into the house's wallet to stake a bot


def wallet_account(user_id: int) -> str:
    return f"wallet:{user_id}"


def seat_account(table_id: int, seat_no: int) -> str:
    return f"seat:{table_id}:{seat_no}"


def hand_account(hand_id: int) -> str:
    return f"hand:{hand_id}"


def tournament_account(tournament_id: int) -> str:
    return f"tournament:{tournament_id}"


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    entry_id: int
    guild_id: int
    amount: int
    source: str
    dest: str
    reason: str
    user_id: int | None
    table_id: int | None
    hand_id: int | None
    counterparty_id: int | None
    actor_id: int | None
    note: str | None
    created_at: int


LEDGER_COLUMNS = (
    "entry_id, guild_id, amount, source, dest, reason, user_id, table_id, hand_id, "
    "counterparty_id, actor_id, note, created_at"
)


async def record(
    tx: Tx,
    *,
    guild_id: int,
    amount: int,
    source: str,
    dest: str,
    reason: Reason,
    now: int,
    user_id: int | None = None,
    table_id: int | None = None,
    hand_id: int | None = None,
    counterparty_id: int | None = None,
    actor_id: int | None = None,
    note: str | None = None,
) -> int:
    """Write one movement; the entry id. Callers skip zero amounts (nothing moved)."""
    return await tx.insert(
        "INSERT INTO ledger (guild_id, amount, source, dest, reason, user_id, table_id, hand_id,"
        " counterparty_id, actor_id, note, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING entry_id",
        (
            guild_id,
            amount,
            source,
            dest,
            reason.value,
            user_id,
            table_id,
            hand_id,
            counterparty_id,
            actor_id,
            note,
            now,
        ),
    )


def check_person(value: object, field: str) -> int:
    """``check_id`` for someone who owns a wallet of his own: the house and its bots are refused
    (``bad_id``), since their chips move only through ``bot.storage.house``."""
    user_id = check_id(value, field)
    if is_house_or_bot(user_id):
        raise StorageError("bad_id", field=field, value=repr(value), reason="house_or_bot")
    return user_id


async def require_guild(tx: Tx, guild_id: int) -> None:
    if await tx.scalar("SELECT 1 FROM guilds WHERE guild_id = ?", (guild_id,)) is None:
        raise StorageError("unknown_guild", guild_id=guild_id)


async def mint(tx: Tx, guild_id: int, amount: int) -> int:
    """Count ``amount`` new chips into the guild's circulation, or raise ``circulation_full``
    when it would pass ``MAX_CIRCULATION``; the new circulation. The caller writes the ledger
    row (source ``mint``) and credits the chips in the same transaction."""
    row = await tx.fetchone(
        "UPDATE guilds SET circulation = circulation + ?"
        " WHERE guild_id = ? AND circulation <= ? RETURNING circulation",
        (amount, guild_id, MAX_CIRCULATION - amount),
    )
    if row is not None:
        return int(row[0])
    circulation = await tx.scalar(
        "SELECT circulation FROM guilds WHERE guild_id = ?", (guild_id,)
    )
    if circulation is None:
        raise StorageError("unknown_guild", guild_id=guild_id)
    raise StorageError(
        "circulation_full",
        amount=amount,
        circulation=int(circulation),
        maximum=MAX_CIRCULATION,
        room=max(0, MAX_CIRCULATION - int(circulation)),
    )


async def burn(tx: Tx, guild_id: int, amount: int) -> None:
    """Count ``amount`` chips out of the guild's circulation (they were just destroyed)."""
    await tx.execute(
        "UPDATE guilds SET circulation = circulation - ? WHERE guild_id = ?", (amount, guild_id)
    )


async def ensure_wallet(tx: Tx, guild_id: int, user_id: int, now: int) -> bool:
    """Create the wallet with the guild's starting balance (minted) unless it exists.

    A guild whose circulation is at its cap opens a wallet with what room is left (0 when
    none): a new member is never refused a wallet. True if it was created. Raises
    ``unknown_guild`` for a guild never registered, and ``bad_id`` for the house or a bot.
    """
    check_person(user_id, "user_id")
    if await tx.scalar(
        "SELECT 1 FROM wallets WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    ) is not None:
        return False
    # The no-op update locks the guild's row (PostgreSQL): the room read is the room minted into.
    guild = await tx.fetchone(
        "UPDATE guilds SET circulation = circulation WHERE guild_id = ?"
        " RETURNING starting_balance, circulation",
        (guild_id,),
    )
    if guild is None:
        raise StorageError("unknown_guild", guild_id=guild_id)
    amount = max(0, min(int(guild[0]), MAX_CIRCULATION - int(guild[1])))
    row = await tx.fetchone(
        "INSERT INTO wallets (guild_id, user_id, balance, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT DO NOTHING RETURNING balance",
        (guild_id, user_id, amount, now),
    )
    if row is None:  # opened by another process meanwhile
        return False
    if amount > 0:
        await mint(tx, guild_id, amount)
        await record(
            tx,
            guild_id=guild_id,
            amount=amount,
            source=MINT,
            dest=wallet_account(user_id),
            reason=Reason.WALLET_OPEN,
            user_id=user_id,
            now=now,
        )
    return True


async def wallet_balance(tx: Tx, guild_id: int, user_id: int) -> int | None:
    value = await tx.scalar(
        "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?", (guild_id, user_id)
    )
    return None if value is None else int(value)


async def debit_wallet(
    tx: Tx, guild_id: int, user_id: int, amount: int, *, now: int, create: bool
) -> int:
    """Take ``amount`` from the wallet or raise; the new balance.

    ``create``: a missing wallet is opened first (first use), else ``unknown_user``.
    """
    sql = (
        "UPDATE wallets SET balance = balance - ?"
        " WHERE guild_id = ? AND user_id = ? AND balance >= ? RETURNING balance"
    )
    params = (amount, guild_id, user_id, amount)
    row = await tx.fetchone(sql, params)
    if row is not None:
        return int(row[0])
    balance = await wallet_balance(tx, guild_id, user_id)
    if balance is None:
        if not create:
            await require_guild(tx, guild_id)
            raise StorageError("unknown_user", guild_id=guild_id, user_id=user_id)
        await ensure_wallet(tx, guild_id, user_id, now)
        row = await tx.fetchone(sql, params)
        if row is not None:
            return int(row[0])
        balance = await wallet_balance(tx, guild_id, user_id)
    raise StorageError("insufficient_funds", balance=balance, amount=amount)


async def credit_wallet(
    tx: Tx, guild_id: int, user_id: int, amount: int, *, now: int, create: bool
) -> int:
    """Add ``amount`` to the wallet; the new balance. No limit: the chips come from an account
    of the same guild, whose circulation (``mint``) bounds every balance."""
    sql = (
        "UPDATE wallets SET balance = balance + ?"
        " WHERE guild_id = ? AND user_id = ? RETURNING balance"
    )
    params = (amount, guild_id, user_id)
    row = await tx.fetchone(sql, params)
    if row is not None:
        return int(row[0])
    if not create:
        await require_guild(tx, guild_id)
        raise StorageError("unknown_user", guild_id=guild_id, user_id=user_id)
    await ensure_wallet(tx, guild_id, user_id, now)
    row = await tx.fetchone(sql, params)
    assert row is not None  # ensure_wallet just opened it
    return int(row[0])
