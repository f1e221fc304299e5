"""Bad input gives a specific error code and changes nothing in the file."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest

from bot.storage import Database, StorageError, economy, stats, tables
from bot.storage.hands import append_action, record_hand_result, void_hand
from engine.limits import MAX_CHIPS

from .conftest import CHANNEL, GUILD, HOST, make_table, snapshot, start_simple_hand


@dataclass
class World:
    db: Database
    table_id: int  # open table: 101 seated (1,000), 102 and 103 in a running hand
    # Wallets: 101 has 10 chips, 104 has 10,000, 105 has 50.
    closed_table_id: int
    hand_id: int


@pytest.fixture
async def world(db: Database) -> World:
    table_id = await make_table(db, min_buy_in=100, max_buy_in=5_000)
    await tables.buy_in(db, table_id, 101, 1_000)
    await tables.buy_in(db, table_id, 102, 1_000)
    await tables.buy_in(db, table_id, 103, 1_000)
    hand_id = await start_simple_hand(db, table_id, [(2, 102, 1_000), (3, 103, 1_000)])
    closed = await make_table(db, channel=CHANNEL + 1)
    await tables.close_table(db, closed)
    await economy.open_wallet(db, GUILD, 104)
    await economy.open_wallet(db, GUILD, 105)
    await economy.remove(db, GUILD, 105, 9_950, actor_id=HOST)
    # 101 keeps 9,000 - 8,990 = 10 chips in his wallet.
    await economy.remove(db, GUILD, 101, 8_990, actor_id=HOST)
    return World(db, table_id, closed, hand_id)


Case = Callable[[World], Awaitable[object]]

CASES: list[tuple[str, Case, str]] = [
    # Amounts.
    (
        "negative amount",
        lambda w: economy.transfer(w.db, GUILD, 104, 105, -5),
        "amount_not_positive",
    ),
    (
        "zero amount",
        lambda w: economy.grant(w.db, GUILD, 104, 0, actor_id=HOST),
        "amount_not_positive",
    ),
    (
        "huge amount",
        lambda w: economy.grant(w.db, GUILD, 104, MAX_CHIPS + 1, actor_id=HOST),
        "amount_too_large",
    ),
    ("float amount", lambda w: economy.transfer(w.db, GUILD, 104, 105, 10.0), "bad_amount"),  # type: ignore[arg-type]
    ("bool amount", lambda w: economy.transfer(w.db, GUILD, 104, 105, True), "bad_amount"),
    ("string amount", lambda w: tables.buy_in(w.db, w.table_id, 104, "100"), "bad_amount"),  # type: ignore[arg-type]
    (
        "more than balance",
        lambda w: economy.transfer(w.db, GUILD, 104, 105, 10_001),
        "insufficient_funds",
    ),
    (
        "remove more than balance",
        lambda w: economy.remove(w.db, GUILD, 104, 10_001, actor_id=HOST),
        "insufficient_funds",
    ),
    ("self transfer", lambda w: economy.transfer(w.db, GUILD, 104, 104, 1), "self_transfer"),
    # Unknown guild or user, bad ids.
    ("unknown guild transfer", lambda w: economy.transfer(w.db, 77, 104, 105, 1), "unknown_guild"),
    (
        "unknown guild grant",
        lambda w: economy.grant(w.db, 77, 104, 1, actor_id=HOST),
        "unknown_guild",
    ),
    ("unknown guild daily", lambda w: economy.claim_daily(w.db, 77, 104), "unknown_guild"),
    ("unknown guild balance", lambda w: economy.balance(w.db, 77, 104), "unknown_guild"),
    (
        "unknown guild settings",
        lambda w: economy.update_settings(w.db, 77, daily_amount=1),
        "unknown_guild",
    ),
    (
        "unknown guild table",
        lambda w: tables.create_table(w.db, 77, 5, HOST, config={}, min_buy_in=1, max_buy_in=2),
        "unknown_guild",
    ),
    ("unknown guild stats", lambda w: stats.player_stats(w.db, 77, 104), "unknown_guild"),
    (
        "unknown user removal",
        lambda w: economy.remove(w.db, GUILD, 999, 1, actor_id=HOST),
        "unknown_user",
    ),
    ("unknown user stats", lambda w: stats.player_stats(w.db, GUILD, 999), "unknown_user"),
    (
        "unknown user balance",
        lambda w: economy.balance(w.db, GUILD, 999, create=False),
        "unknown_user",
    ),
    ("zero user id", lambda w: economy.balance(w.db, GUILD, 0), "bad_id"),
    ("negative guild id", lambda w: economy.balance(w.db, -1, 104), "bad_id"),
    ("bool user id", lambda w: economy.transfer(w.db, GUILD, True, 104, 1), "bad_id"),
    ("string user id", lambda w: economy.balance(w.db, GUILD, "104"), "bad_id"),  # type: ignore[arg-type]
    ("huge user id", lambda w: economy.balance(w.db, GUILD, 2**64), "bad_id"),
    # Settings.
    (
        "negative starting balance",
        lambda w: economy.update_settings(w.db, GUILD, starting_balance=-1),
        "bad_setting",
    ),
    (
        "huge daily",
        lambda w: economy.update_settings(w.db, GUILD, daily_amount=MAX_CHIPS + 1),
        "bad_setting",
    ),
    (
        "bad leaderboard key",
        lambda w: stats.leaderboard(w.db, GUILD, by="balance; DROP TABLE wallets"),
        "bad_setting",
    ),
    (
        "long note",
        lambda w: economy.grant(w.db, GUILD, 104, 1, actor_id=HOST, note="x" * 201),
        "bad_setting",
    ),
    # Tables and seats.
    (
        "buy-in above balance",
        lambda w: tables.buy_in(w.db, w.table_id, 105, 100),
        "insufficient_funds",
    ),
    (
        "top-up above balance",
        lambda w: tables.top_up(w.db, w.table_id, 101, 4_000),
        "insufficient_funds",
    ),
    (
        "buy-in below minimum",
        lambda w: tables.buy_in(w.db, w.table_id, 104, 99),
        "buy_in_out_of_range",
    ),
    (
        "buy-in above maximum",
        lambda w: tables.buy_in(w.db, w.table_id, 104, 5_001),
        "buy_in_out_of_range",
    ),
    ("buy-in twice", lambda w: tables.buy_in(w.db, w.table_id, 101, 100), "already_seated"),
    (
        "buy-in taken seat",
        lambda w: tables.buy_in(w.db, w.table_id, 104, 100, seat_no=1),
        "seat_taken",
    ),
    (
        "buy-in seat out of range",
        lambda w: tables.buy_in(w.db, w.table_id, 104, 100, seat_no=11),
        "bad_seat",
    ),
    (
        "buy-in seat zero",
        lambda w: tables.buy_in(w.db, w.table_id, 104, 100, seat_no=0),
        "bad_seat",
    ),
    (
        "buy-in closed table",
        lambda w: tables.buy_in(w.db, w.closed_table_id, 104, 100),
        "table_closed",
    ),
    ("buy-in unknown table", lambda w: tables.buy_in(w.db, 999, 104, 100), "unknown_table"),
    ("double leave", lambda w: tables.leave_table(w.db, w.table_id, 104), "not_seated"),
    ("leave during hand", lambda w: tables.leave_table(w.db, w.table_id, 102), "seat_in_hand"),
    ("top-up during hand", lambda w: tables.top_up(w.db, w.table_id, 102, 100), "seat_in_hand"),
    ("top-up not seated", lambda w: tables.top_up(w.db, w.table_id, 104, 100), "not_seated"),
    (
        "top-up past maximum",
        lambda w: tables.top_up(w.db, w.table_id, 101, 4_001),
        "buy_in_out_of_range",
    ),
    ("close with hand running", lambda w: tables.close_table(w.db, w.table_id), "hand_in_progress"),
    ("close twice", lambda w: tables.close_table(w.db, w.closed_table_id), "table_closed"),
    (
        "min above max",
        lambda w: tables.create_table(w.db, GUILD, 6, HOST, config={}, min_buy_in=10, max_buy_in=5),
        "bad_setting",
    ),
    (
        "one seat",
        lambda w: tables.create_table(
            w.db, GUILD, 6, HOST, config={}, min_buy_in=1, max_buy_in=5, max_seats=1
        ),
        "bad_setting",
    ),
    (
        "buy-in not multiple of unit",
        lambda w: tables.create_table(
            w.db, GUILD, 6, HOST, config={}, min_buy_in=15, max_buy_in=100, chip_unit=10
        ),
        "amount_not_multiple",
    ),
    (
        "config not JSON",
        lambda w: tables.create_table(
            w.db, GUILD, 6, HOST, config={1, 2}, min_buy_in=1, max_buy_in=5
        ),
        "bad_json",
    ),
    (
        "seat state too long",
        lambda w: tables.set_seat_state(w.db, w.table_id, 101, "x" * 33),
        "bad_state",
    ),
    # Hands.
    (
        "action out of order",
        lambda w: append_action(w.db, w.hand_id, 3, {"kind": "fold"}),
        "action_out_of_order",
    ),
    (
        "negative seq",
        lambda w: append_action(w.db, w.hand_id, -1, {"kind": "fold"}),
        "action_out_of_order",
    ),
    (
        "action to unknown hand",
        lambda w: append_action(w.db, 999, 0, {"kind": "fold"}),
        "unknown_hand",
    ),
    ("result creating chips", lambda w: _result_creating_chips(w), "hand_chips_mismatch"),
    ("void without reason", lambda w: void_hand(w.db, w.hand_id, reason=""), "bad_setting"),
]


async def _result_creating_chips(w: World) -> object:
    from bot.storage.hands import PlayerResult

    results = [
        PlayerResult(0, 2_000, 0, 1_000, vpip=False, pfr=False),
        PlayerResult(1, 1, 1_000, 0, vpip=True, pfr=False),
    ]
    await record_hand_result(w.db, w.hand_id, {}, results)
    return None


@pytest.mark.parametrize(("name", "case", "code"), CASES, ids=[c[0] for c in CASES])
async def test_bad_input_changes_nothing(
    world: World, name: str, case: Case, code: str
) -> None:
    before = await snapshot(world.db)
    with pytest.raises(StorageError) as info:
        await case(world)
    assert info.value.code == code, (name, info.value)
    assert await snapshot(world.db) == before
