"""Practice tables: play chips at the same seats, buy-in range and hands as a cash table, but no
wallet pays or receives them, no ledger row records them, the chip invariant leaves them out and
no statistic counts their hands."""

from __future__ import annotations

from typing import Any

import pytest

from bot.storage import Database, StorageError, economy, hands, invariant, stats, tables
from bot.storage.hands import PlayerResult
from engine.bots.ids import bot_id

from .conftest import GUILD, HOST, assert_invariant, make_table, start_simple_hand

PRACTICE_CHANNEL = 9_100
ALICE, BOB, CAROL = 101, 102, 103
BOT = bot_id(0, "regular")


async def practice_table(db: Database, **options: Any) -> int:
    table = await tables.create_table(
        db,
        GUILD,
        PRACTICE_CHANNEL,
        HOST,
        config={},
        min_buy_in=100,
        max_buy_in=5_000,
        practice=True,
        **options,
    )
    assert table.practice
    return table.table_id


async def economy_rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """What a practice table must never touch: wallets, the ledger, the circulation count and
    the running totals of the statistics."""
    return {
        name: sorted(tuple(r) for r in await db.fetchall(sql))
        for name, sql in (
            ("wallets", "SELECT * FROM wallets"),
            ("ledger", "SELECT * FROM ledger"),
            ("guilds", "SELECT guild_id, circulation FROM guilds"),
            ("player_totals", "SELECT * FROM player_totals"),
        )
    }


def result(player: int, final: int, won: int = 0) -> PlayerResult:
    return PlayerResult(player, final, 0, won, vpip=True, pfr=False)


async def test_a_practice_table_says_so_and_takes_only_a_bool(db: Database) -> None:
    table_id = await practice_table(db)
    assert (await tables.get_table(db, table_id)).practice
    assert not (await tables.get_table(db, await make_table(db))).practice
    assert [t.practice for t in await tables.open_tables(db, GUILD)] == [True, False]
    for odd in (1, "yes", None):
        with pytest.raises(StorageError) as info:
            await tables.create_table(
                db, GUILD, 9_200, HOST, config={}, min_buy_in=1, max_buy_in=10, practice=odd
            )  # type: ignore[arg-type]
        assert (info.value.code, info.value.params["name"]) == ("bad_setting", "practice")
    assert await tables.table_in_channel(db, 9_200) is None


async def test_buy_in_hand_top_up_and_leave_touch_no_wallet_and_no_ledger(db: Database) -> None:
    # A cash table with real chips beside it: the invariant must hold for both at once.
    cash = await make_table(db)
    await tables.buy_in(db, cash, CAROL, 2_000)
    before = await economy_rows(db)
    table_id = await practice_table(db)
    # Alice never had a wallet: a practice table does not open one.
    await tables.buy_in(db, table_id, ALICE, 5_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    await tables.buy_in(db, table_id, BOT, 2_000)
    await assert_invariant(db)
    hand_id = await start_simple_hand(
        db, table_id, [(1, ALICE, 5_000), (2, BOB, 1_000), (3, BOT, 2_000)]
    )
    stored = await hands.load_hand(db, hand_id)
    assert stored.practice and stored.chips == 0 and stored.status == "running"
    seat = (await tables.get_table(db, table_id)).seat_of(ALICE)
    assert seat is not None and (seat.stack, seat.hand_id, seat.chips) == (0, hand_id, 5_000)
    with pytest.raises(StorageError) as info:
        await tables.leave_table(db, table_id, ALICE)
    assert info.value.code == "seat_in_hand"
    await assert_invariant(db)
    await hands.record_hand_result(
        db, hand_id, {}, [result(0, 4_000), result(1, 0), result(2, 4_000, won=3_000)]
    )
    await assert_invariant(db)
    await tables.top_up(db, table_id, BOB, 500)  # a rebuy after losing it all
    assert await tables.leave_table(db, table_id, ALICE) == 4_000
    table = await tables.get_table(db, table_id)
    assert [(s.user_id, s.stack) for s in table.seats] == [(BOB, 500), (BOT, 4_000)]
    assert await tables.close_table(db, table_id, actor_id=HOST) == {BOB: 500, BOT: 4_000}
    assert await economy_rows(db) == before
    await assert_invariant(db)
    with pytest.raises(StorageError) as info:
        await economy.balance(db, GUILD, ALICE, create=False)
    assert info.value.code == "unknown_user"


async def test_the_invariant_leaves_out_every_practice_seat(db: Database) -> None:
    table_id = await practice_table(db)
    await tables.buy_in(db, table_id, ALICE, 3_000)
    report = await invariant.check_invariant(db)
    assert report.ok and report.guilds[0].seats == 0
    assert await invariant.circulation_mismatches(db) == []
    # But a ledger row naming a practice seat (a bug writing one) is seen.
    async with db.write() as tx:
        await tx.execute(
            "INSERT INTO ledger (guild_id, amount, source, dest, reason, user_id, created_at)"
            " VALUES (?, 3000, 'mint', ?, 'grant', ?, 0)",
            (GUILD, f"seat:{table_id}:1", ALICE),
        )
        await tx.execute("UPDATE guilds SET circulation = circulation + 3000")
    report = await invariant.check_invariant(db)
    assert not report.ok
    assert [a.account for a in report.accounts] == [f"seat:{table_id}:1"]


async def test_the_buy_in_range_and_the_chip_unit_still_rule(db: Database) -> None:
    table_id = await practice_table(db, chip_unit=100)
    before = await economy_rows(db)
    for amount, code in (
        (50, "buy_in_out_of_range"),
        (5_100, "buy_in_out_of_range"),
        (150, "amount_not_multiple"),
        (0, "amount_not_positive"),
    ):
        with pytest.raises(StorageError) as info:
            await tables.buy_in(db, table_id, ALICE, amount)
        assert info.value.code == code
    await tables.buy_in(db, table_id, ALICE, 4_000)
    with pytest.raises(StorageError) as info:
        await tables.top_up(db, table_id, ALICE, 1_100)
    assert info.value.code == "buy_in_out_of_range"
    await tables.top_up(db, table_id, ALICE, 1_000)
    with pytest.raises(StorageError) as info:
        await tables.top_up(db, table_id, ALICE, 100)
    assert info.value.code == "stack_above_max"
    assert await economy_rows(db) == before


async def test_a_practice_hand_must_end_with_the_chips_it_started_with(db: Database) -> None:
    table_id = await practice_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    for finals in ((1_500, 499), (1_500, 501), (0, 0)):
        with pytest.raises(StorageError) as info:
            await hands.record_hand_result(
                db, hand_id, {}, [result(0, finals[0]), result(1, finals[1])]
            )
        assert info.value.code == "hand_chips_mismatch"
        assert info.value.params["expected"] == 2_000
    # Voided: every starting stack back at its seat, and still nothing in the ledger.
    assert await hands.void_hand(db, hand_id, reason="test") == {ALICE: 1_000, BOB: 1_000}
    table = await tables.get_table(db, table_id)
    assert [(s.user_id, s.stack, s.hand_id) for s in table.seats] == [
        (ALICE, 1_000, None),
        (BOB, 1_000, None),
    ]
    assert await db.fetchall("SELECT * FROM ledger") == []
    await assert_invariant(db)


async def test_closing_mid_hand_voids_it_and_moves_nothing(db: Database) -> None:
    table_id = await practice_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOT, 2_000)
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 1_000), (2, BOT, 2_000)])
    returned = await hands.close_table(db, table_id, hand_id=hand_id, actor_id=HOST)
    assert returned == {ALICE: 1_000, BOT: 2_000}
    assert (await hands.load_hand(db, hand_id)).status == "voided"
    assert await db.fetchall("SELECT * FROM ledger") == []
    assert await db.fetchall("SELECT * FROM wallets") == []
    await assert_invariant(db)


async def test_no_statistic_counts_a_practice_hand(db: Database) -> None:
    """Alice and Bob play one hand at a cash table and one at a practice table: only the cash
    one shows, in every period, in the running totals and in their statistics."""
    now = 1_000_000
    cash = await make_table(db)
    practice = await practice_table(db)
    for table_id in (cash, practice):
        await tables.buy_in(db, table_id, ALICE, 1_000)
        await tables.buy_in(db, table_id, BOB, 1_000)
    hand_id = await start_simple_hand(db, cash, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    await hands.record_hand_result(
        db, hand_id, {}, [result(0, 1_100, won=200), result(1, 900)], now=now
    )
    hand_id = await start_simple_hand(db, practice, [(1, ALICE, 1_000), (2, BOB, 1_000)])
    await hands.record_hand_result(
        db, hand_id, {}, [result(0, 0), result(1, 2_000, won=2_000)], now=now
    )
    for period in ("week", "month", "all"):
        for by in ("net", "biggest_pot", "hands_won"):
            board = await stats.leaderboard(db, GUILD, by=by, period=period, now=now)
            assert {(r.user_id, r.hands_played) for r in board} == {(ALICE, 1), (BOB, 1)}
        board = await stats.leaderboard(db, GUILD, period=period, now=now)
        assert [(r.user_id, r.value) for r in board] == [(ALICE, 100), (BOB, -100)]
        bob = await stats.player_stats(db, GUILD, BOB, period=period, now=now)
        assert (bob.hands_played, bob.net, bob.biggest_pot, bob.hands_won) == (1, -100, 0, 0)
    totals = await db.fetchall("SELECT user_id, hands_played, net FROM player_totals")
    assert sorted(tuple(r) for r in totals) == [(ALICE, 1, 100), (BOB, 1, -100)]
    # The table's own history still shows its hands.
    assert [h.hand_id for h in await stats.recent_hands(db, practice)] == [hand_id]


async def test_a_practice_table_counts_against_the_table_limits(db: Database) -> None:
    await economy.update_settings(db, GUILD, max_tables=1)
    await practice_table(db, enforce_limits=True)
    with pytest.raises(StorageError) as info:
        await tables.create_table(
            db, GUILD, 9_300, HOST, config={}, min_buy_in=1, max_buy_in=10, enforce_limits=True
        )
    assert info.value.code == "too_many_tables"
