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
``economy.HouseReport.net``; ``economy.house_net`` gives the right-hand side over the hands that
ended since a time, for the server's daily loss cap (``GuildSettings.house_loss_cap``), which
the runtime applies. Practice tables never involve the house: their chips are play chips.
"""

from __future__ import annotations

from bot.storage.db import Tx
from bot.storage.errors import StorageError
from bot.storage.ledger import (
    MINT,
    Reason,
    credit_wallet,
    debit_wallet,
    mint,
    record,
    wallet_account,
)
from engine.bots.ids import HOUSE_ID

HOUSE_WALLET = wallet_account(HOUSE_ID)


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
