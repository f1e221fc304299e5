"""100 concurrent withdrawals and transfers from one wallet: no lost update, no negative
balance, and the ledger agrees with the balances, on one connection and across two."""

from __future__ import annotations

import asyncio
import random

from bot.storage import Database, StorageError, economy, tables

from .conftest import GUILD, HOST, assert_invariant

SOURCE = 7


async def _spend(db: Database, table_ids: list[int], k: int, amount: int) -> str:
    """One of three kinds of withdrawal from SOURCE's wallet; "ok" or the refusal code."""
    try:
        if k % 3 == 0:
            await economy.transfer(db, GUILD, SOURCE, 1_000 + k, amount)
        elif k % 3 == 1:
            await economy.remove(db, GUILD, SOURCE, amount, actor_id=HOST)
        else:
            # A buy-in at a table of its own, so seats never collide.
            await tables.buy_in(db, table_ids[k], SOURCE, amount)
    except StorageError as exc:
        return exc.code
    return "ok"


async def _tables(db: Database, count: int) -> list[int]:
    ids = []
    for k in range(count):
        table = await tables.create_table(
            db, GUILD, 50_000 + k, HOST, config={}, min_buy_in=1, max_buy_in=10_000
        )
        ids.append(table.table_id)
    return ids


async def test_100_concurrent_withdrawals_from_one_wallet(db: Database) -> None:
    await economy.update_settings(db, GUILD, starting_balance=5_000)
    assert await economy.open_wallet(db, GUILD, SOURCE) == 5_000
    table_ids = await _tables(db, 100)
    # 100 withdrawals of 100 from 5,000: exactly 50 can succeed, whatever the interleaving.
    outcomes = await asyncio.gather(*(_spend(db, table_ids, k, 100) for k in range(100)))
    assert outcomes.count("ok") == 50
    assert outcomes.count("insufficient_funds") == 50
    assert await economy.balance(db, GUILD, SOURCE) == 0
    # The ledger holds exactly the 50 successful moves out of the wallet.
    out = [
        e
        for e in await economy.ledger_entries(db, GUILD, user_id=SOURCE, limit=1000)
        if e.source == f"wallet:{SOURCE}"
    ]
    assert len(out) == 50 and sum(e.amount for e in out) == 5_000
    await assert_invariant(db)


async def test_random_amounts_never_overdraw(db: Database) -> None:
    await economy.update_settings(db, GUILD, starting_balance=3_333)
    await economy.open_wallet(db, GUILD, SOURCE)
    table_ids = await _tables(db, 100)
    rng = random.Random(5)
    amounts = [rng.randint(1, 200) for _ in range(100)]
    outcomes = await asyncio.gather(*(_spend(db, table_ids, k, amounts[k]) for k in range(100)))
    spent = sum(a for a, o in zip(amounts, outcomes, strict=True) if o == "ok")
    balance = await economy.balance(db, GUILD, SOURCE)
    assert balance >= 0 and balance + spent == 3_333
    assert set(outcomes) <= {"ok", "insufficient_funds"}
    await assert_invariant(db)


async def test_two_connections_on_one_database(db: Database, db_url: str) -> None:
    """Two Database objects (as two processes would) racing on the same wallet."""
    await economy.update_settings(db, GUILD, starting_balance=2_000)
    await economy.open_wallet(db, GUILD, SOURCE)
    other = await Database.open(db_url)
    try:
        table_ids = await _tables(db, 100)
        outcomes = await asyncio.gather(
            *(_spend(db if k % 2 else other, table_ids, k, 50) for k in range(100))
        )
        assert outcomes.count("ok") == 40
        assert await economy.balance(other, GUILD, SOURCE) == 0
        await assert_invariant(other)
    finally:
        await other.close()


async def test_transfers_in_a_ring_keep_the_total(db: Database) -> None:
    users = list(range(200, 210))
    for user in users:
        await economy.open_wallet(db, GUILD, user)
    rng = random.Random(9)

    async def move() -> None:
        a, b = rng.sample(users, 2)
        try:
            await economy.transfer(db, GUILD, a, b, rng.randint(1, 3_000))
        except StorageError as exc:
            assert exc.code == "insufficient_funds"

    await asyncio.gather(*(move() for _ in range(300)))
    total = 0
    for user in users:
        balance = await economy.balance(db, GUILD, user)
        assert balance >= 0
        total += balance
    assert total == 10 * 10_000
    await assert_invariant(db)
