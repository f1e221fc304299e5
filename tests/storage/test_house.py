"""The house: a bot's chips at a table of the server's economy come from the house's wallet,
floated (minted) when it runs short and within the circulation cap, and go back to it, never
refused; what the house won or lost; the settings that govern it; and no wallet, statistic or
leaderboard of a bot or of the house."""

from __future__ import annotations

import asyncio
from typing import Any
from unittest import mock

import pytest

from bot.storage import (
    Database,
    StorageError,
    economy,
    hands,
    stats,
    tables,
    tournaments,
)
from bot.storage.economy import DEFAULT_HOUSE_LOSS_CAP
from bot.storage.hands import PlayerResult
from engine.bots.ids import HOUSE_ID, bot_id
from engine.limits import MAX_CHIPS

from .conftest import GUILD, HOST, assert_invariant, make_table, snapshot, start_simple_hand

ALICE, BOB = 101, 102
BOT, BOT2 = bot_id(0, "beginner"), bot_id(1, "strong")
HOUSE = f"wallet:{HOUSE_ID}"


async def allow_bots(db: Database) -> None:
    await economy.update_settings(db, GUILD, bots_allowed=True)


async def house_balance(db: Database) -> int | None:
    value = await db.fetchone(
        "SELECT balance FROM wallets WHERE guild_id = ? AND user_id = ?", (GUILD, HOUSE_ID)
    )
    return None if value is None else int(value[0])


async def circulation(db: Database) -> int:
    row = await db.fetchone("SELECT circulation FROM guilds WHERE guild_id = ?", (GUILD,))
    assert row is not None
    return int(row[0])


async def moves(db: Database) -> list[tuple[int, str, str, str, int | None]]:
    rows = await db.fetchall(
        "SELECT amount, source, dest, reason, user_id FROM ledger ORDER BY entry_id"
    )
    return [tuple(r) for r in rows]  # type: ignore[misc]


async def refused(db: Database, code: str, call: Any) -> StorageError:
    before = await snapshot(db)
    with pytest.raises(StorageError) as info:
        await call
    assert info.value.code == code, info.value
    assert await snapshot(db) == before
    return info.value


def result(player: int, final: int, won: int = 0) -> PlayerResult:
    return PlayerResult(player, final, 0, won, vpip=True, pfr=False)


async def heads_up(db: Database, table_id: int, bot_final: int, *, now: int) -> None:
    """A hand between Alice (seat 1) and BOT (seat 2), who ends it with ``bot_final``."""
    table = await tables.get_table(db, table_id)
    alice, bot = table.seat_of(ALICE), table.seat_of(BOT)
    assert alice is not None and bot is not None
    hand_id = await start_simple_hand(
        db, table_id, [(alice.seat_no, ALICE, alice.stack), (bot.seat_no, BOT, bot.stack)]
    )
    total = alice.stack + bot.stack
    await hands.record_hand_result(
        db, hand_id, {}, [result(0, total - bot_final), result(1, bot_final)], now=now
    )


async def test_a_bot_buy_in_floats_what_the_house_lacks_and_no_more(db: Database) -> None:
    await allow_bots(db)
    table_id = await make_table(db)
    minted = await circulation(db)
    seat = await tables.buy_in(db, table_id, BOT, 1_000, now=5)
    assert (seat.user_id, seat.stack) == (BOT, 1_000)
    # The house was opened empty: no starting balance, the whole buy-in floated.
    assert await house_balance(db) == 0
    assert await circulation(db) == minted + 1_000
    assert await moves(db) == [
        (1_000, "mint", HOUSE, "house_float", HOUSE_ID),
        (1_000, HOUSE, f"seat:{table_id}:1", "buy_in", BOT),
    ]
    # No wallet for the bot, ever.
    assert await db.fetchall("SELECT 1 FROM wallets WHERE user_id = ?", (BOT,)) == []
    await assert_invariant(db)
    # The bot leaves: his stack goes back to the house, which holds it for the next bot.
    assert await tables.leave_table(db, table_id, BOT) == 1_000
    assert await house_balance(db) == 1_000
    await tables.buy_in(db, table_id, BOT2, 1_500)
    assert await house_balance(db) == 0
    assert await circulation(db) == minted + 1_500
    await tables.top_up(db, table_id, BOT2, 200)
    assert (await moves(db))[2:] == [
        (1_000, f"seat:{table_id}:1", HOUSE, "leave", BOT),
        (500, "mint", HOUSE, "house_float", HOUSE_ID),
        (1_500, HOUSE, f"seat:{table_id}:1", "buy_in", BOT2),
        (200, "mint", HOUSE, "house_float", HOUSE_ID),
        (200, HOUSE, f"seat:{table_id}:1", "top_up", BOT2),
    ]
    report = await economy.house_report(db, GUILD)
    assert (report.balance, report.at_tables, report.floated, report.net) == (0, 1_700, 1_700, 0)
    await assert_invariant(db)


async def test_a_house_with_enough_floats_nothing(db: Database) -> None:
    await allow_bots(db)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 2_000)
    await tables.buy_in(db, table_id, BOT, 1_000)
    await heads_up(db, table_id, 2_500, now=10)  # the bot wins 1,500
    await tables.leave_table(db, table_id, BOT)
    minted = await circulation(db)
    await tables.buy_in(db, table_id, BOT2, 2_000)
    assert await house_balance(db) == 500
    assert await circulation(db) == minted
    assert (await moves(db))[-1] == (2_000, HOUSE, f"seat:{table_id}:2", "buy_in", BOT2)


async def test_the_house_net_after_a_bot_wins_and_loses(db: Database) -> None:
    await allow_bots(db)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 3_000)
    await tables.buy_in(db, table_id, BOT, 2_000)
    assert await economy.house_net(db, GUILD, since=0) == 0
    await heads_up(db, table_id, 2_600, now=100)  # +600
    assert await economy.house_net(db, GUILD, since=0) == 600
    await heads_up(db, table_id, 1_100, now=200)  # -1,500
    assert await economy.house_net(db, GUILD, since=0) == -900
    assert await economy.house_net(db, GUILD, since=101) == -1_500
    assert await economy.house_net(db, GUILD, since=201) == 0
    report = await economy.house_report(db, GUILD)
    assert (report.balance, report.at_tables, report.floated) == (0, 1_100, 2_000)
    assert report.net == -900
    # A running hand counts at the stacks it was dealt with; a voided one changes nothing.
    hand_id = await start_simple_hand(db, table_id, [(1, ALICE, 3_900), (2, BOT, 1_100)])
    assert (await economy.house_report(db, GUILD)).net == -900
    await hands.void_hand(db, hand_id, reason="test")
    assert await economy.house_net(db, GUILD, since=0) == -900
    # Cashed out, the house holds what is left; nothing is floated back.
    await tables.leave_table(db, table_id, BOT)
    report = await economy.house_report(db, GUILD)
    assert (report.balance, report.at_tables, report.floated, report.net) == (
        1_100,
        0,
        2_000,
        -900,
    )
    await assert_invariant(db)


async def test_practice_hands_and_other_servers_never_count_for_the_house(
    db: Database,
) -> None:
    await allow_bots(db)
    practice = await tables.create_table(
        db, GUILD, 9_400, HOST, config={}, min_buy_in=100, max_buy_in=5_000, practice=True
    )
    await tables.buy_in(db, practice.table_id, ALICE, 1_000)
    await tables.buy_in(db, practice.table_id, BOT, 1_000)
    await heads_up(db, practice.table_id, 2_000, now=100)
    assert await economy.house_net(db, GUILD, since=0) == 0
    assert await economy.house_report(db, GUILD) == economy.HouseReport(GUILD, 0, 0, 0)
    assert await house_balance(db) is None
    other = GUILD + 1
    await economy.ensure_guild(db, other)
    assert await economy.house_report(db, other) == economy.HouseReport(other, 0, 0, 0)
    for call, code in (
        (economy.house_net(db, 42, since=0), "unknown_guild"),
        (economy.house_report(db, 42), "unknown_guild"),
        (economy.house_net(db, GUILD, since=-1), "bad_setting"),
        (economy.house_net(db, GUILD, since=True), "bad_setting"),  # type: ignore[arg-type]
        (economy.house_report(db, 0), "bad_id"),
    ):
        with pytest.raises(StorageError) as info:
            await call
        assert info.value.code == code


async def test_a_bot_cash_out_reaches_the_house_even_at_the_circulation_ceiling(
    db: Database,
) -> None:
    await allow_bots(db)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 2_000)
    await tables.buy_in(db, table_id, BOT, 1_000)
    await tables.buy_in(db, table_id, BOT2, 1_000)
    await heads_up(db, table_id, 3_000, now=10)  # the bot takes all of Alice's chips
    cap = await circulation(db)
    with mock.patch("bot.storage.ledger.MAX_CIRCULATION", cap):
        await refused(db, "circulation_full", economy.grant(db, GUILD, BOB, 1, actor_id=HOST))
        assert await tables.leave_table(db, table_id, BOT) == 3_000
        assert await tables.close_table(db, table_id, actor_id=HOST) == {ALICE: 0, BOT2: 1_000}
    assert await house_balance(db) == 4_000
    report = await economy.house_report(db, GUILD)
    assert (report.net, report.floated) == (2_000, 2_000)
    await assert_invariant(db)


async def test_the_circulation_cap_refuses_a_float(db: Database) -> None:
    await allow_bots(db)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, BOT, 1_000)
    await tables.leave_table(db, table_id, BOT)  # the house holds 1,000
    cap = await circulation(db) + 499
    with mock.patch("bot.storage.ledger.MAX_CIRCULATION", cap):
        error = await refused(db, "circulation_full", tables.buy_in(db, table_id, BOT, 1_500))
        assert (error.params["amount"], error.params["room"]) == (500, 499)
        await tables.buy_in(db, table_id, BOT, 1_000)  # what the house holds: no float
        await refused(db, "circulation_full", tables.top_up(db, table_id, BOT, 500))
        await tables.top_up(db, table_id, BOT, 499)
    assert await circulation(db) == cap
    await assert_invariant(db)


async def test_bots_sit_at_the_economy_tables_only_where_allowed(db: Database) -> None:
    settings = await economy.get_settings(db, GUILD)
    assert (settings.bots_allowed, settings.house_loss_cap) == (False, DEFAULT_HOUSE_LOSS_CAP)
    table_id = await make_table(db)
    await refused(db, "bots_not_allowed", tables.buy_in(db, table_id, BOT, 1_000))
    await allow_bots(db)
    await tables.buy_in(db, table_id, BOT, 1_000)
    await economy.update_settings(db, GUILD, bots_allowed=False)
    # A bot already seated tops up no more, but always gets up with his chips.
    await refused(db, "bots_not_allowed", tables.top_up(db, table_id, BOT, 100))
    assert await tables.leave_table(db, table_id, BOT) == 1_000
    assert await house_balance(db) == 1_000
    await assert_invariant(db)


async def test_the_house_never_sits_and_owns_no_ordinary_wallet(db: Database) -> None:
    await allow_bots(db)
    table_id = await make_table(db)
    await refused(db, "bad_id", tables.buy_in(db, table_id, HOUSE_ID, 1_000))
    await tables.buy_in(db, table_id, BOT, 1_000)  # the house's wallet exists now
    await economy.open_wallet(db, GUILD, ALICE)
    for who in (HOUSE_ID, BOT):
        for call in (
            economy.grant(db, GUILD, who, 100, actor_id=HOST),
            economy.remove(db, GUILD, who, 100, actor_id=HOST),
            economy.transfer(db, GUILD, ALICE, who, 100),
            economy.transfer(db, GUILD, who, ALICE, 100),
            economy.claim_daily(db, GUILD, who),
            economy.open_wallet(db, GUILD, who),
            economy.balance(db, GUILD, who),
        ):
            error = await refused(db, "bad_id", call)
            assert error.params["reason"] == "house_or_bot"
    assert await db.fetchall("SELECT 1 FROM wallets WHERE user_id = ?", (BOT,)) == []


async def test_a_bot_enters_a_freeroll_without_a_wallet_and_no_paid_tournament(
    db: Database,
) -> None:
    async def tournament(channel: int, buy_in: int) -> int:
        info = await tournaments.create_tournament(
            db,
            GUILD,
            channel,
            HOST,
            name=f"T{channel}",
            kind="freeze_out",
            buy_in=buy_in,
            max_players=4,
            config={},
            enforce_limits=False,
        )
        return info.tournament_id

    free, paid = await tournament(9_501, 0), await tournament(9_502, 100)
    rows = await moves(db)
    assert (await tournaments.register(db, free, BOT)).balance == 0
    assert await tournaments.unregister(db, free, BOT) == 0
    await tournaments.register(db, free, BOT)
    await refused(db, "bots_pay_nothing", tournaments.register(db, paid, BOT2))
    assert await db.fetchall("SELECT 1 FROM wallets WHERE user_id >= ?", (HOUSE_ID,)) == []
    assert await moves(db) == rows
    await assert_invariant(db)


async def test_settings_refuse_bad_values_and_keep_good_ones(db: Database) -> None:
    for given in (
        {"bots_allowed": 1},
        {"bots_allowed": "yes"},
        {"house_loss_cap": -1},
        {"house_loss_cap": MAX_CHIPS + 1},
        {"house_loss_cap": True},
        {"house_loss_cap": 2.5},
        {"house_loss_cap": "100"},
        # All or nothing: a good value beside a bad one is not stored either.
        {"bots_allowed": True, "house_loss_cap": -5},
    ):
        error = await refused(db, "bad_setting", economy.update_settings(db, GUILD, **given))
        assert error.params["name"] in given
    settings = await economy.update_settings(db, GUILD, bots_allowed=True, house_loss_cap=0)
    assert (settings.bots_allowed, settings.house_loss_cap) == (True, 0)
    settings = await economy.update_settings(db, GUILD, house_loss_cap=MAX_CHIPS)
    assert (settings.bots_allowed, settings.house_loss_cap) == (True, MAX_CHIPS)
    assert await economy.get_settings(db, GUILD) == settings


async def test_no_statistic_or_leaderboard_shows_a_bot_or_the_house(db: Database) -> None:
    """Alice beats a bot and Bob loses to one: their figures count those hands, the bots'
    never appear, in any period or ranking, and neither does the house."""
    now = 1_000_000
    await allow_bots(db)
    first, second = await make_table(db), await make_table(db, channel=9_600)
    await tables.buy_in(db, first, ALICE, 1_000)
    await tables.buy_in(db, first, BOT, 5_000)
    await heads_up(db, first, 4_000, now=now)  # Alice +1,000
    await tables.buy_in(db, second, BOB, 1_000)
    await tables.buy_in(db, second, BOT2, 1_000)
    hand_id = await start_simple_hand(db, second, [(1, BOB, 1_000), (2, BOT2, 1_000)])
    await hands.record_hand_result(
        db, hand_id, {}, [result(0, 700), result(1, 1_300, won=600)], now=now
    )
    for period in ("week", "month", "all"):
        for by in ("net", "biggest_pot", "hands_won"):
            board = await stats.leaderboard(db, GUILD, by=by, period=period, now=now)
            assert {r.user_id for r in board} == {ALICE, BOB}, (period, by)
        board = await stats.leaderboard(db, GUILD, period=period, now=now)
        assert [(r.user_id, r.value, r.hands_played) for r in board] == [
            (ALICE, 1_000, 1),
            (BOB, -300, 1),
        ]
        for who in (BOT, BOT2, HOUSE_ID):
            with pytest.raises(StorageError) as info:
                await stats.player_stats(db, GUILD, who, period=period, now=now)
            assert info.value.code == "unknown_user"
    totals = await db.fetchall("SELECT user_id FROM player_totals")
    assert sorted(int(r[0]) for r in totals) == [ALICE, BOB]
    # The tables' own history names everyone who played.
    (summary,) = await stats.recent_hands(db, second)
    assert summary.players == (BOB, BOT2) and summary.winners == (BOT2,)
    assert await economy.house_net(db, GUILD, since=0) == -1_000 + 300


async def test_two_processes_staking_bots_at_once_float_exactly_the_shortfall(
    db: Database, db_url: str
) -> None:
    """The house's balance read for a float is the one debited, even when another process
    stakes a bot of the same server at the same moment: each round the house holds one buy-in
    and two bots buy in at once, so exactly one buy-in is floated."""
    await allow_bots(db)
    first = await make_table(db, min_buy_in=1, max_buy_in=10**7)
    second = await make_table(db, min_buy_in=1, max_buy_in=10**7, channel=9_700)
    await tables.buy_in(db, first, BOT, 1_000)
    await tables.leave_table(db, first, BOT)
    other = await Database.open(db_url)
    try:
        for _ in range(8):
            amount = await house_balance(db)
            assert amount is not None
            minted = await circulation(db)
            await asyncio.gather(
                tables.buy_in(db, first, BOT, amount),
                tables.buy_in(other, second, BOT2, amount),
            )
            assert await house_balance(db) == 0
            assert await circulation(db) == minted + amount
            await tables.leave_table(db, first, BOT)
            await tables.leave_table(other, second, BOT2)
    finally:
        await other.close()
    report = await economy.house_report(db, GUILD)
    assert (report.balance, report.floated, report.net) == (2**8 * 1_000, 2**8 * 1_000, 0)
    await assert_invariant(db)
