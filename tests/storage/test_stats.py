"""Statistics and leaderboards over periods (``bot.storage.stats``): worked examples, hands
stored before the 3-bet and showdown flags existed, and random hands spread over two months
(hypothesis) recounted by brute force from what the test itself recorded."""

from __future__ import annotations

import asyncio
import itertools
import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.runtime.results import player_results, result_summary
from bot.storage import Database, StorageError, economy, hands, stats, tables
from bot.storage.hands import HandSeat, PlayerResult
from bot.storage.stats import DAY, Period, Ratio
from engine.cards import FULL_DECK
from engine.hand import Hand, HandConfig
from tests.engine.test_hand_properties import random_action
from tests.pgserver import PostgresServer
from tests.storage.conftest import GUILD, HOST, deck_and_commitment, make_table

ALICE, BOB, CAROL = 101, 102, 103
NOW = 100 * DAY


def result(player: int, final: int, won: int = 0, **flags: bool) -> PlayerResult:
    return PlayerResult(player, final, 0, won, vpip=flags.pop("vpip", False),
                        pfr=flags.pop("pfr", False), **flags)


async def hand(db: Database, table_id: int, stacks: dict[int, int],
               results: list[PlayerResult], *, ended: int) -> None:
    """A hand between the seated players of ``stacks`` (user -> stack, in player order)."""
    seats = {s.user_id: s.seat_no for s in (await tables.get_table(db, table_id)).seats}
    players = [HandSeat(i, seats[u], u, chips) for i, (u, chips) in enumerate(stacks.items())]
    hand_id = await hands.start_hand(db, table_id, config={"stacks": list(stacks.values())},
                                     players=players, **deck_and_commitment())  # type: ignore
    await hands.record_hand_result(db, hand_id, {}, results, pot=0, now=ended)


async def test_every_percentage_comes_with_its_count(db: Database) -> None:
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, ALICE, 1_000)
    await tables.buy_in(db, table_id, BOB, 1_000)
    # An old hand (no flags: stored before migration 0006), a month and a half ago.
    await hand(db, table_id, {ALICE: 1_000, BOB: 1_000},
               [result(0, 1_100, 200, vpip=True, pfr=True), result(1, 900, vpip=True)],
               ended=NOW - 45 * DAY)
    # Alice 3-bets and takes it down before the flop, three weeks ago.
    flags = dict(saw_flop=False, went_to_showdown=False, won_at_showdown=False)
    await hand(db, table_id, {ALICE: 1_100, BOB: 900},
               [result(0, 1_130, 60, vpip=True, pfr=True, three_bet_chance=True,
                       three_bet=True, **flags),
                result(1, 870, vpip=True, pfr=True, three_bet_chance=False, three_bet=False,
                       **flags)],
               ended=NOW - 21 * DAY)
    # A showdown Bob wins, yesterday; Alice had a 3-bet chance and only called.
    await hand(db, table_id, {ALICE: 1_130, BOB: 870},
               [result(0, 1_030, vpip=True, three_bet_chance=True, three_bet=False,
                       saw_flop=True, went_to_showdown=True, won_at_showdown=False),
                result(1, 970, 200, vpip=True, pfr=True, three_bet_chance=False,
                       three_bet=False, saw_flop=True, went_to_showdown=True,
                       won_at_showdown=True)],
               ended=NOW - DAY)
    alice = await stats.player_stats(db, GUILD, ALICE, now=NOW, series=True)
    assert (alice.hands_played, alice.hands_won, alice.net, alice.biggest_pot) == (3, 2, 30, 200)
    assert (alice.vpip, alice.pfr) == (Ratio(3, 3), Ratio(2, 3))
    # The old hand is unknown for the new figures: out of every denominator.
    assert alice.tracked == 2
    assert (alice.three_bet, alice.wtsd, alice.wsd) == (Ratio(1, 2), Ratio(1, 1), Ratio(0, 1))
    assert alice.three_bet.pct == 50.0 and alice.wsd.pct == 0.0
    assert alice.net_series == ((NOW - 45 * DAY, 100), (NOW - 21 * DAY, 130), (NOW - DAY, 30))
    month = await stats.player_stats(db, GUILD, ALICE, period="month", now=NOW)
    assert (month.hands_played, month.net, month.period) == (2, -70, Period.MONTH)
    week = await stats.player_stats(db, GUILD, BOB, period=Period.WEEK, now=NOW)
    assert (week.hands_played, week.net, week.wsd, week.three_bet) == (
        1, 100, Ratio(1, 1), Ratio(0, 0))
    assert week.three_bet.pct is None  # no chance at all: no percentage, not 0 %
    # Leaderboards: all time from the running totals, periods from the hands.
    assert [(r.user_id, r.value) for r in await stats.leaderboard(db, GUILD, now=NOW)] == [
        (ALICE, 30), (BOB, -30)]
    assert [(r.user_id, r.value) for r in
            await stats.leaderboard(db, GUILD, period="month", now=NOW)] == [
        (BOB, 70), (ALICE, -70)]
    by_pot = await stats.leaderboard(db, GUILD, by="biggest_pot", period="week", now=NOW)
    assert [(r.rank, r.user_id, r.value, r.hands_played) for r in by_pot] == [
        (1, BOB, 200, 1), (2, ALICE, 0, 1)]
    assert await stats.leaderboard(db, GUILD, period="week", now=NOW + 30 * DAY) == []


async def test_a_player_with_a_wallet_and_no_hands_has_empty_ratios(db: Database) -> None:
    await economy.balance(db, GUILD, CAROL)
    found = await stats.player_stats(db, GUILD, CAROL, series=True)
    assert found.hands_played == 0 and found.vpip == Ratio(0, 0) and found.net_series == ()
    assert found.vpip_pct == 0.0


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda db: stats.leaderboard(db, GUILD, period="year"), "bad_setting"),
        (lambda db: stats.player_stats(db, GUILD, ALICE, period="day"), "bad_setting"),
        (lambda db: stats.player_stats(db, GUILD, 999), "unknown_user"),
        (lambda db: stats.player_stats(db, 77, ALICE), "unknown_guild"),
    ],
)
async def test_bad_periods_and_unknown_players_are_refused(db: Database, call, code) -> None:
    with pytest.raises(StorageError) as refused:
        await call(db)
    assert refused.value.code == code


# -- random hands over two months ---------------------------------------------------------

USERS = (ALICE, BOB, CAROL, 104)


@dataclass
class Recorded:
    ended: int
    user: int
    start: int
    result: PlayerResult


async def play(db: Database, data: st.DataObject) -> list[Recorded]:
    """Hands at two tables, each finished (new or old-style flags) or voided, at random times
    over the last two months; what was recorded, as the test saw it."""
    for user in USERS:
        await economy.grant(db, GUILD, user, 10**9, actor_id=HOST)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    table_ids = [await make_table(db, channel=9_000 + k, max_buy_in=5_000) for k in range(2)]
    players = {table_ids[0]: list(USERS[:3]), table_ids[1]: [USERS[0], USERS[3]]}
    for table_id, users in players.items():
        for user in users:
            await tables.buy_in(db, table_id, user, 2_000)
    recorded: list[Recorded] = []
    ended = NOW - 60 * DAY
    for _ in range(data.draw(st.integers(1, 25), label="hands")):
        ended += data.draw(st.sampled_from([0, 3_600, DAY, 5 * DAY]), label="gap")
        table_id = data.draw(st.sampled_from(table_ids), label="table")
        table = await tables.get_table(db, table_id)
        for seat in table.seats:
            if seat.stack < 100:
                await tables.top_up(db, table_id, seat.user_id, 2_000 - seat.stack)
        table = await tables.get_table(db, table_id)
        seated = list(table.seats)
        config = HandConfig.standard([s.stack for s in seated], 5, 10)
        deck = tuple(rng.sample(FULL_DECK, 52))
        hand_id = await hands.start_hand(
            db, table_id, config=config,
            players=[HandSeat(i, s.seat_no, s.user_id, s.stack) for i, s in enumerate(seated)],
            **deck_and_commitment(deck),  # type: ignore[arg-type]
        )
        engine = Hand(config, deck)
        while not engine.is_over:
            engine.apply(random_action(engine, rng))
        outcome = data.draw(st.sampled_from(["new", "new", "old", "void"]), label="outcome")
        if outcome == "void":
            await hands.void_hand(db, hand_id, reason="test", now=ended)
            continue
        results = player_results(engine)
        if outcome == "old":
            results = [PlayerResult(r.player, r.final_stack, r.contributed, r.won, r.vpip, r.pfr,
                                    r.showdown) for r in results]
        await hands.record_hand_result(db, hand_id, result_summary(engine), results, now=ended)
        recorded += [Recorded(ended, s.user_id, s.stack, r)
                     for s, r in zip(seated, results, strict=True)]
    return recorded


def recount(recorded: list[Recorded], user: int, since: int) -> dict[str, object]:
    mine = [r for r in recorded if r.user == user and r.ended >= since]
    known = [r.result for r in mine if r.result.three_bet_chance is not None]

    def count(rows: list[PlayerResult], name: str) -> int:
        return sum(1 for r in rows if getattr(r, name))

    return {
        "hands": len(mine),
        "won": sum(1 for r in mine if r.result.won > 0),
        "net": sum(r.result.final_stack - r.start for r in mine),
        "biggest": max((r.result.won for r in mine), default=0),
        "vpip": Ratio(count([r.result for r in mine], "vpip"), len(mine)),
        "pfr": Ratio(count([r.result for r in mine], "pfr"), len(mine)),
        "tracked": len(known),
        "three_bet": Ratio(count(known, "three_bet"), count(known, "three_bet_chance")),
        "wtsd": Ratio(count(known, "went_to_showdown"), count(known, "saw_flop")),
        "wsd": Ratio(count(known, "won_at_showdown"), count(known, "went_to_showdown")),
    }


async def check(db: Database, recorded: list[Recorded]) -> None:
    for period in Period:
        since = period.since(NOW) or 0
        for user in USERS:
            found = await stats.player_stats(db, GUILD, user, period=period, now=NOW,
                                             series=True)
            got = {
                "hands": found.hands_played, "won": found.hands_won, "net": found.net,
                "biggest": found.biggest_pot, "vpip": found.vpip, "pfr": found.pfr,
                "tracked": found.tracked, "three_bet": found.three_bet, "wtsd": found.wtsd,
                "wsd": found.wsd,
            }
            assert got == recount(recorded, user, since), (period, user)
            nets = [r.result.final_stack - r.start for r in recorded
                    if r.user == user and r.ended >= since]
            assert [net for _, net in found.net_series] == [
                sum(nets[: k + 1]) for k in range(len(nets))]
        for key in stats.LeaderboardKey:
            board = await stats.leaderboard(db, GUILD, by=key, period=period, now=NOW, limit=100)
            field = {"net": "net", "biggest_pot": "biggest", "hands_won": "won"}[key.value]
            expected = {}
            for user in USERS:
                counted = recount(recorded, user, since)
                if counted["hands"]:
                    expected[user] = (counted[field], counted["hands"])
            assert {r.user_id: (r.value, r.hands_played) for r in board} == expected
            order = [(-r.value, -r.hands_played, r.user_id) for r in board]
            assert order == sorted(order)
            for before, after in itertools.pairwise(board):
                assert after.rank == (before.rank if after.value == before.value
                                      else board.index(after) + 1)


async def run(data: st.DataObject, url: str) -> None:
    db = await Database.open(url)
    try:
        await economy.ensure_guild(db, GUILD, now=1_000)
        await check(db, await play(db, data))
    finally:
        await db.close()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_random_hands_recounted_by_brute_force(data: st.DataObject) -> None:
    asyncio.run(run(data, "sqlite:///:memory:"))


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_random_hands_recounted_by_brute_force_on_postgresql(
    postgres_server: PostgresServer, data: st.DataObject
) -> None:
    postgres_server.run_on_a_new_database(lambda url: run(data, url))
