"""The house: where a computer player's chips come from at a table of the server's economy, and
where they go back.

Each server's house owns one ordinary wallet (``wallet:<HOUSE_ID>``, ``engine.bots.ids``), so
the chip invariant checks it like any other account. It is opened on first use with nothing in
it: the house gets no starting balance. When a bot buys in or tops up and the house holds less
than the amount, the shortfall is minted into the house's wallet first (one ``house_float``
ledger row, ``user_id`` the house), within the server's circulation cap (``circulation_full``
refuses it, like any chip entering the economy); then the chips move as an ordinary buy-in or
top-up from the house's wallet, the ledger row's ``user_id`` being the bot. A bot's cash-out
goes back to the house's wallet and, like every chip coming back, is never refused. No wallet
is ever opened for a bot.

So what the house has won or lost is exact at every committed instant::

    balance + chips its bots hold at the server's tables - chips ever floated
        == sum over finished economy hands of (final stack - starting stack) of its bots

(a voided hand changes nothing; a running hand counts at the stacks it was dealt with). That is
``HouseReport.net``; ``house_net`` gives the right-hand side over the hands that ended since a
time, for the server's daily loss cap (``GuildSettings.house_loss_cap``), which the runtime
applies. Practice tables never involve the house: their chips are play chips.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Database, Tx
from bot.storage.errors import MAX_ID, StorageError, check_id, check_setting
from bot.storage.ledger import (
    MINT,
    Reason,
    credit_wallet,
    debit_wallet,
    mint,
    record,
    require_guild,
    wallet_account,
)
from engine.bots.ids import BOT_FLOOR, HOUSE_ID

HOUSE_WALLET = wallet_account(HOUSE_ID)
# The hands the house's result counts: finished hands of the economy (not a tournament's, whose
# stacks are tournament chips; not a practice table's, whose are play chips).
_ECONOMY_FINISHED = "h.status = 'finished' AND h.tournament_id IS NULL AND h.practice = 0"


async def open_house_wallet(tx: Tx, guild_id: int, now: int) -> None:
    """The house's wallet of the guild, opened at 0 unless it exists (the guild must exist)."""
    await tx.execute(
        "INSERT INTO wallets (guild_id, user_id, balance, created_at) VALUES (?, ?, 0, ?)"
        " ON CONFLICT DO NOTHING",
        (guild_id, HOUSE_ID, now),
    )


async def check_bots_allowed(tx: Tx, guild_id: int) -> None:
    """Refuse a bot's chips at the economy's tables unless a server manager allowed bots."""
    allowed = await tx.scalar("SELECT bots_allowed FROM guilds WHERE guild_id = ?", (guild_id,))
    if allowed is None:
        raise StorageError("unknown_guild", guild_id=guild_id)
    if not allowed:
        raise StorageError("bots_not_allowed", guild_id=guild_id)


async def stake(tx: Tx, guild_id: int, table_id: int, amount: int, *, now: int) -> int:
    """In the open transaction ``tx``: take ``amount`` from the house's wallet for a bot at
    ``table_id``, first minting what it lacks (``circulation_full`` when the server cannot
    mint it); the chips floated (0 when the house had enough). The caller puts them on the
    bot's seat and writes that move's ledger row."""
    await open_house_wallet(tx, guild_id, now)
    # The no-op update locks the house's row (PostgreSQL): the balance read is what is debited.
    row = await tx.fetchone(
        "UPDATE wallets SET balance = balance WHERE guild_id = ? AND user_id = ? RETURNING balance",
        (guild_id, HOUSE_ID),
    )
    assert row is not None  # opened just above
    shortfall = amount - int(row[0])
    if shortfall > 0:
        await mint(tx, guild_id, shortfall)
        await credit_wallet(tx, guild_id, HOUSE_ID, shortfall, now=now, create=False)
        await record(
            tx,
            guild_id=guild_id,
            amount=shortfall,
            source=MINT,
            dest=HOUSE_WALLET,
            reason=Reason.HOUSE_FLOAT,
            user_id=HOUSE_ID,
            table_id=table_id,
            now=now,
        )
    await debit_wallet(tx, guild_id, HOUSE_ID, amount, now=now, create=False)
    return max(0, shortfall)


async def take_back(tx: Tx, guild_id: int, amount: int, *, now: int) -> None:
    """In the open transaction ``tx``: a bot's chips back into the house's wallet (never
    refused: they come from an account of the same server). The caller writes the move's
    ledger row."""
    await open_house_wallet(tx, guild_id, now)
    await credit_wallet(tx, guild_id, HOUSE_ID, amount, now=now, create=False)


@dataclass(frozen=True, slots=True)
class HouseReport:
    """The house of a server, from one snapshot.

    ``balance``: its wallet now (0 before its first bot sat down). ``at_tables``: chips its bots
    hold at the server's economy tables, at their seats plus what they were dealt into a
    running hand with. ``floated``: every chip ever minted into its wallet. ``net``: what the
    house has won (positive) or lost since its first bot sat down, see the module.
    """

    guild_id: int
    balance: int
    at_tables: int
    floated: int

    @property
    def net(self) -> int:
        """
        >>> HouseReport(1, balance=300, at_tables=1_000, floated=2_000).net
        -700
        """
        return self.balance + self.at_tables - self.floated


def _int(value: object) -> int:
    # PostgreSQL sums BIGINTs into NUMERIC (asyncpg: Decimal); an empty sum is NULL.
    return 0 if value is None else int(value)  # type: ignore[call-overload]


async def house_net(db: Database, guild_id: int, *, since: int) -> int:
    """The bots' net result in the guild's economy hands that ended at or after ``since`` (Unix
    seconds): the sum of their finishing minus starting stacks; negative when the house lost."""
    check_id(guild_id, "guild_id")
    check_setting(since, "since", 0, MAX_ID)
    async with db.read() as tx:
        await require_guild(tx, guild_id)
        value = await tx.scalar(
            "SELECT SUM(hp.final_stack - hp.starting_stack)"
            " FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id"
            f" WHERE hp.guild_id = ? AND hp.user_id >= ? AND {_ECONOMY_FINISHED}"
            " AND h.ended_at >= ?",
            (guild_id, BOT_FLOOR, since),
        )
    return _int(value)


async def house_report(db: Database, guild_id: int) -> HouseReport:
    """The house's wallet, its bots' chips at the tables and what was floated (see
    :class:`HouseReport`), for ``/chips`` to show."""
    check_id(guild_id, "guild_id")
    async with db.read() as tx:
        await require_guild(tx, guild_id)
        balance = await tx.scalar(
            "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?",
            (guild_id, HOUSE_ID),
        )
        at_tables = await tx.scalar(
            "SELECT SUM(s.stack + COALESCE(hp.starting_stack, 0))"
            " FROM seats s JOIN poker_tables t ON t.table_id = s.table_id"
            " LEFT JOIN hand_players hp ON hp.hand_id = s.hand_id AND hp.user_id = s.user_id"
            " WHERE t.guild_id = ? AND t.practice = 0 AND s.user_id >= ?",
            (guild_id, BOT_FLOOR),
        )
        floated = await tx.scalar(
            "SELECT SUM(amount) FROM ledger WHERE guild_id = ? AND user_id = ? AND source = ?"
            " AND reason = ?",
            (guild_id, HOUSE_ID, MINT, Reason.HOUSE_FLOAT.value),
        )
    return HouseReport(guild_id, _int(balance), _int(at_tables), _int(floated))
