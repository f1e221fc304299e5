"""Tables and seats: buy-in, top-up, leave and close move chips atomically with the ledger."""

from __future__ import annotations

import pytest

from bot.storage import Database, StorageError, economy, tables
from bot.storage.tables import TableSave

from .conftest import CHANNEL, GUILD, HOST, assert_invariant, make_table, start_simple_hand


async def test_create_and_find_table(db: Database) -> None:
    table_id = await make_table(db)
    table = await tables.get_table(db, table_id)
    assert (table.guild_id, table.channel_id, table.host_id) == (GUILD, CHANNEL, HOST)
    assert table.config == {"small_blind": 5, "big_blind": 10}
    assert table.status == "open" and table.seats == ()
    found = await tables.table_in_channel(db, CHANNEL)
    assert found is not None and found.table_id == table_id
    assert [t.table_id for t in await tables.open_tables(db)] == [table_id]
    assert [t.table_id for t in await tables.open_tables(db, GUILD)] == [table_id]
    with pytest.raises(StorageError) as info:
        await make_table(db)
    assert info.value.code == "channel_has_table"


async def test_table_message_and_options(db: Database) -> None:
    table_id = await make_table(db)
    await tables.set_table_message(db, table_id, 777)
    assert (await tables.get_table(db, table_id)).message_id == 777
    await tables.set_table_message(db, table_id, None)
    assert (await tables.get_table(db, table_id)).message_id is None
    updated = await tables.update_table(
        db, table_id, TableSave({"small_blind": 10}, 100, 8000), host_id=42
    )
    assert (updated.config, updated.max_buy_in, updated.host_id) == ({"small_blind": 10}, 8000, 42)
    with pytest.raises(StorageError) as info:
        await tables.update_table(db, table_id, TableSave({}, 9000, 8000))
    assert info.value.code == "bad_setting"
    assert (await tables.get_table(db, table_id)).config == {"small_blind": 10}


async def test_buy_in_top_up_leave(db: Database) -> None:
    table_id = await make_table(db)
    seat = await tables.buy_in(db, table_id, 101, 1_000)
    assert (seat.seat_no, seat.stack) == (1, 1_000)
    assert await economy.balance(db, GUILD, 101) == 9_000
    seat = await tables.buy_in(db, table_id, 102, 2_000, seat_no=5)
    assert seat.seat_no == 5
    topped = await tables.top_up(db, table_id, 101, 500)
    assert topped.stack == 1_500
    assert await economy.balance(db, GUILD, 101) == 8_500
    await tables.set_seat_state(db, table_id, 101, "sitting_out")
    table = await tables.get_table(db, table_id)
    assert [(s.seat_no, s.user_id, s.stack, s.state) for s in table.seats] == [
        (1, 101, 1_500, "sitting_out"),
        (5, 102, 2_000, "active"),
    ]
    await assert_invariant(db)
    assert await tables.leave_table(db, table_id, 101) == 1_500
    assert await economy.balance(db, GUILD, 101) == 10_000
    reasons = [e.reason for e in await economy.ledger_entries(db, GUILD, user_id=101)]
    assert reasons == ["leave", "top_up", "buy_in", "wallet_open"]
    await assert_invariant(db)


async def test_lowest_free_seat_and_full_table(db: Database) -> None:
    table = await tables.create_table(
        db, GUILD, 1234, HOST, config={}, min_buy_in=100, max_buy_in=1000, max_seats=2
    )
    await tables.buy_in(db, table.table_id, 101, 100, seat_no=2)
    assert (await tables.buy_in(db, table.table_id, 102, 100)).seat_no == 1
    with pytest.raises(StorageError) as info:
        await tables.buy_in(db, table.table_id, 103, 100)
    assert info.value.code == "table_full"


async def test_rebuy_must_reach_minimum(db: Database) -> None:
    table_id = await make_table(db, min_buy_in=200, max_buy_in=1000)
    await tables.buy_in(db, table_id, 101, 200)
    with pytest.raises(StorageError) as info:
        await tables.top_up(db, table_id, 101, 900)
    assert info.value.code == "buy_in_out_of_range"
    assert info.value.params["maximum"] == 800
    await tables.top_up(db, table_id, 101, 800)
    with pytest.raises(StorageError) as info:
        await tables.top_up(db, table_id, 101, 1)
    assert info.value.code == "stack_above_max"


async def test_close_table_returns_every_stack(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, 101, 1_000)
    await tables.buy_in(db, table_id, 102, 300)
    returned = await tables.close_table(db, table_id, actor_id=HOST)
    assert returned == {101: 1_000, 102: 300}
    assert await economy.balance(db, GUILD, 101) == 10_000
    table = await tables.get_table(db, table_id)
    assert table.status == "closed" and table.seats == ()
    assert await tables.table_in_channel(db, CHANNEL) is None
    # The channel can host a new table now.
    await make_table(db)
    await assert_invariant(db)


async def test_seat_in_hand_is_locked(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, 101, 1_000)
    await tables.buy_in(db, table_id, 102, 1_000)
    await tables.buy_in(db, table_id, 103, 1_000)  # not dealt in: free to go
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 1_000)])
    table = await tables.get_table(db, table_id)
    seat = table.seat_of(101)
    assert seat is not None
    assert (seat.stack, seat.hand_id, seat.in_hand, seat.chips) == (0, hand_id, 1_000, 1_000)
    for attempt in (
        tables.leave_table(db, table_id, 101),
        tables.top_up(db, table_id, 101, 100),
    ):
        with pytest.raises(StorageError) as info:
            await attempt
        assert info.value.code == "seat_in_hand"
    with pytest.raises(StorageError) as info:
        await tables.close_table(db, table_id)
    assert info.value.code == "hand_in_progress"
    assert await tables.leave_table(db, table_id, 103) == 1_000
    await assert_invariant(db)
