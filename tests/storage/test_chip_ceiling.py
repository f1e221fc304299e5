"""One wallet at the chip ceiling must not lock anybody's chips.

The limit is where chips enter a server (a grant, a daily bonus, a new wallet's starting
chips): its chips in circulation, minted minus burned, never pass ``MAX_CIRCULATION``, the
wallet column's own maximum. So chips going back to their owner (a cash-out, a table closing,
a refund, a prize) are never refused. The first tests reach the real ceiling, as a manager's
``/chips grant`` can in a few seconds; the others lower the cap to see the rule at work.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.storage import (
    Database,
    StorageError,
    economy,
    hands,
    invariant,
    tables,
    tournaments,
)
from bot.storage.errors import MAX_BALANCE, MAX_CIRCULATION
from bot.storage.tournaments import Placing
from engine.limits import MAX_CHIPS

from .conftest import GUILD, HOST, USERS, assert_invariant, make_table, snapshot
from .test_tournament_hands import running

A, B = USERS[0], USERS[1]


async def circulation(db: Database) -> int:
    row = await db.fetchone("SELECT circulation FROM guilds WHERE guild_id = ?", (GUILD,))
    assert row is not None
    return int(row[0])


async def fill(db: Database, user: int) -> int:
    """Grant ``user`` every chip the server lets him have, up to the wallet's ceiling; his
    balance then."""
    while True:
        balance = await economy.balance(db, GUILD, user)
        amount = min(MAX_CHIPS, MAX_BALANCE - balance)
        if amount <= 0:
            return balance
        try:
            await economy.grant(db, GUILD, user, amount, actor_id=HOST)
        except StorageError as exc:
            assert exc.code == "circulation_full", exc
            if exc.params["room"] == 0:
                return balance
            await economy.grant(db, GUILD, user, exc.params["room"], actor_id=HOST)


async def assert_within_the_ceiling(db: Database) -> None:
    await assert_invariant(db)
    assert await circulation(db) <= MAX_CIRCULATION
    top = (await db.fetchone("SELECT MAX(balance) FROM wallets"))[0]  # type: ignore[index]
    assert top <= MAX_BALANCE


async def test_a_cash_out_and_a_close_are_never_refused_at_the_ceiling(db: Database) -> None:
    table_id = await make_table(db)
    other = await make_table(db, channel=9_001)
    await tables.buy_in(db, table_id, A, 1_000)
    await tables.buy_in(db, other, A, 1_000)
    await tables.buy_in(db, other, B, 1_000)
    await fill(db, A)
    assert await circulation(db) == MAX_CIRCULATION  # every chip the server may have
    # His /poker leave, and the host's /poker close of the table he and B sit at.
    assert await tables.leave_table(db, table_id, A) == 1_000
    assert await tables.close_table(db, other, actor_id=HOST) == {A: 1_000, B: 1_000}
    await assert_within_the_ceiling(db)


async def test_a_refund_is_never_refused_at_the_ceiling(db: Database) -> None:
    info = await tournaments.create_tournament(
        db, GUILD, 9_100, HOST, name="Cancelled", kind="freeze_out", buy_in=1_000,
        max_players=4, config={},
    )
    tid = info.tournament_id
    for user in (A, B, USERS[2]):
        await tournaments.register(db, tid, user)
    await fill(db, A)
    assert await tournaments.unregister(db, tid, USERS[2]) == economy.DEFAULT_STARTING_BALANCE
    # /tournament cancel: every buy-in back, his included, none left in the pool.
    assert await tournaments.cancel_tournament(db, tid, actor_id=HOST) == {A: 1_000, B: 1_000}
    assert (await tournaments.get_tournament(db, tid)).pool == 0
    await assert_within_the_ceiling(db)


async def test_a_prize_is_never_refused_at_the_ceiling(db: Database) -> None:
    info = await tournaments.create_tournament(
        db, GUILD, 9_100, HOST, name="Finished", kind="freeze_out", buy_in=1_000,
        max_players=2, config={},
    )
    tid = info.tournament_id
    for user in (A, B):
        await tournaments.register(db, tid, user)
    await tournaments.start_tournament(db, tid, state={})
    await fill(db, A)
    finished = await tournaments.finish_tournament(
        db, tid, [Placing(A, 1, 1, 2_000), Placing(B, 2, 1, 0)], state={}
    )
    assert (finished.status, finished.pool) == ("finished", 0)
    await assert_within_the_ceiling(db)


async def test_the_hand_that_ends_a_tournament_is_stored_at_the_ceiling(db: Database) -> None:
    """The all-in that ended the tournament pays the winner in its own transaction: with his
    wallet as full as the server allows, the hand is stored ("could not settle hand #1" was
    the symptom)."""
    r = await running(db, seats=4)
    filled = False
    while not r.engine.is_over:
        hand_id, results, summary, placings = await r.all_in_hand(1)
        if placings is not None:
            winner = next(p.user_id for p in placings if p.prize)
            await fill(db, winner)
            filled = True
        await hands.record_tournament_hand(db, hand_id, summary, results,
                                           save=r.save(placings=placings))
    assert filled
    assert (await tournaments.get_tournament(db, r.tid)).status == "finished"
    await assert_within_the_ceiling(db)


# -- the cap, lowered so that a few grants reach it -------------------------------------------

CAP = 100_000


@pytest.fixture
def cap(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("bot.storage.ledger.MAX_CIRCULATION", CAP)
    return CAP


async def refused(db: Database, code: str, call: Any) -> StorageError:
    before = await snapshot(db)
    with pytest.raises(StorageError) as caught:
        await call
    assert caught.value.code == code, caught.value
    assert await snapshot(db) == before
    return caught.value


async def test_a_grant_past_the_cap_is_refused_and_says_how_much_room_is_left(
    db: Database, cap: int
) -> None:
    await economy.open_wallet(db, GUILD, B)  # 10,000 in circulation
    room = cap - 2 * economy.DEFAULT_STARTING_BALANCE
    error = await refused(
        db, "circulation_full", economy.grant(db, GUILD, A, room + 1, actor_id=HOST)
    )
    assert error.params == {"amount": room + 1, "circulation": 20_000, "maximum": cap,
                            "room": room}
    assert await economy.grant(db, GUILD, A, room, actor_id=HOST) == cap - 10_000
    assert await circulation(db) == cap
    error = await refused(db, "circulation_full", economy.grant(db, GUILD, A, 1, actor_id=HOST))
    assert error.params["room"] == 0
    # A removal frees exactly that much room again.
    await economy.remove(db, GUILD, B, 5, actor_id=HOST)
    assert await economy.grant(db, GUILD, A, 5, actor_id=HOST) == cap - 10_000 + 5
    await assert_invariant(db)


async def test_a_daily_bonus_past_the_cap_is_refused_but_the_cooldown_comes_first(
    db: Database, cap: int
) -> None:
    await economy.update_settings(db, GUILD, daily_amount=1_000, daily_cooldown=100)
    await economy.claim_daily(db, GUILD, A, now=1_000)
    await economy.grant(db, GUILD, B, cap - 21_000 - 500, actor_id=HOST)  # 500 of room
    await refused(db, "daily_cooldown", economy.claim_daily(db, GUILD, A, now=1_050))
    error = await refused(db, "circulation_full", economy.claim_daily(db, GUILD, A, now=1_100))
    assert (error.params["amount"], error.params["room"]) == (1_000, 500)
    await economy.update_settings(db, GUILD, daily_amount=500)
    assert (await economy.claim_daily(db, GUILD, A, now=1_100)).balance == 11_500
    await assert_invariant(db)


async def test_a_new_wallet_at_the_cap_opens_with_the_room_left(db: Database, cap: int) -> None:
    await economy.grant(db, GUILD, A, cap - 10_000 - 300, actor_id=HOST)
    assert await economy.balance(db, GUILD, B) == 300  # the room left, not 10,000
    assert await economy.balance(db, GUILD, USERS[2]) == 0  # none left: an empty wallet
    assert await economy.ledger_entries(db, GUILD, user_id=USERS[2]) == []
    assert await circulation(db) == cap
    # A grant that opens the wallet counts its starting chips first.
    await economy.remove(db, GUILD, A, 10_000, actor_id=HOST)
    await refused(db, "circulation_full", economy.grant(db, GUILD, USERS[3], 1, actor_id=HOST))
    await economy.remove(db, GUILD, A, 1, actor_id=HOST)
    assert await economy.grant(db, GUILD, USERS[3], 1, actor_id=HOST) == 10_001
    await assert_invariant(db)


async def test_the_circulation_counter_is_part_of_the_invariant(db: Database) -> None:
    await economy.grant(db, GUILD, A, 500, actor_id=HOST)
    await assert_invariant(db)
    async with db.write() as tx:
        await tx.execute("UPDATE guilds SET circulation = circulation + 1")
    report = await invariant.check_invariant(db)
    assert not report.ok
    (guild,) = report.guilds
    assert (guild.circulation, guild.ledger_total) == (10_501, 10_500)
