"""Tournaments over several tables: the seat draw, balancing and breaking tables as a TDA
tournament director does, the final table, late registrants, the shared clock with breaks, a
crash that costs the players no time, and time running out at several tables."""

from __future__ import annotations

import json
import random

import pytest

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import Hand
from engine.seating import PlayerId, clockwise
from engine.table import Table, TableEvent
from engine.tournament import (
    BlindLevel,
    BreakStarted,
    FinalTable,
    LevelStarted,
    PlayerEliminated,
    PlayerMoved,
    PlayerRegistered,
    TableBroken,
    TableOpened,
    TimeUp,
    Tournament,
    TournamentFinished,
    TournamentStarted,
)
from tests.engine.test_table import of_type
from tests.engine.test_tournament import config, fold_round, shootout
from tests.engine.tournament_sim import play_tables

LEVELS = (BlindLevel(10, 20, 0, minutes=10),)


def started(players: int, seats: int, seed: int = 1, **kwargs: object) -> Tournament:
    base: dict[str, object] = dict(max_players=players, seats=seats, levels=LEVELS)
    base.update(kwargs)
    t = Tournament(config(**base), rng=seed)
    for k in range(players):
        t.register(f"p{k:02}", now=0)
    t.start(now=0)
    return t


def sizes(t: Tournament) -> dict[int, int]:
    return {n: len(table.seats()) for n, table in t.tables.items()}


def players_at(t: Tournament, table: int) -> list[PlayerId]:
    return [v.player_id for v in t.tables[table].seats()]


def next_big_blind(table: Table) -> PlayerId:
    seat = table.seat(table.next_plan().big_blind_seat)
    assert seat is not None
    return seat.player_id


def first_free_after_big_blind(table: Table) -> int:
    rotation = table.rotation
    assert rotation is not None
    free = table.free_seats()
    return next(s for s in clockwise(rotation.big_blind_seat, table.options.seats) if s in free)


def bust(t: Tournament, table: int, count: int, now: float = 1) -> list[TableEvent]:
    """A hand at ``table`` where ``count`` players go all-in against the biggest stack's aces
    and lose."""
    at = t.tables[table]
    button = None if at.rotation is not None else at.seats()[0].seat  # the first hand's
    dealt = set(at.next_plan(button).seats)
    views = sorted((v for v in at.seats() if v.seat in dealt), key=lambda v: -v.stack)
    winner, losers = views[0].player_id, [v.player_id for v in views[1 : 1 + count]]
    return shootout(t, now, winner, losers, button=button, table=table)


# --- the draw -----------------------------------------------------------------------------


def test_players_are_drawn_over_tables_of_even_sizes() -> None:
    def draw(seed: int) -> tuple[tuple[int, int, PlayerId], ...]:
        t = Tournament(config(max_players=30, seats=9), rng=seed)
        for k in range(30):
            t.register(k, now=0)
        (start, *_) = t.start(now=0)
        assert isinstance(start, TournamentStarted) and start.tables == 4
        assert sorted(sizes(t).values()) == [7, 7, 8, 8]
        where = {(n, v.seat, v.player_id) for n, table in t.tables.items() for v in table.seats()}
        assert where == set(start.seats)
        assert sorted(p for _, _, p in start.seats) == list(range(30))
        return start.seats

    draws = [draw(seed) for seed in range(10)]
    assert draws[4] == draw(4) and len(set(draws)) == 10
    with pytest.raises(EngineError, match="which_table"):
        started(12, 6).start_hand(FULL_DECK, now=1)


# --- balancing ----------------------------------------------------------------------------


def test_the_next_big_blind_moves_to_the_seat_that_gets_the_big_blind_soonest() -> None:
    t = started(12, 6)
    assert sizes(t) == {1: 6, 2: 6}
    for table in (1, 2):
        fold_round(t, now=1, table=table)
    mover = next_big_blind(t.tables[1])
    events = bust(t, table=2, count=2)
    assert len(of_type(events, PlayerEliminated)) == 2
    (moved,) = of_type(events, PlayerMoved)
    assert (moved.player_id, moved.from_table, moved.to_table, moved.reason) == (
        mover, 1, 2, "balance"
    )
    assert sizes(t) == {1: 5, 2: 5} and t.moves_of(mover) == 1
    # He sits where the big blind comes first and is dealt in at once.
    table2 = t.tables[2]
    seats_before = {v.seat for v in table2.seats()} - {moved.to_seat}
    rotation = table2.rotation
    assert rotation is not None
    ring = list(clockwise(rotation.big_blind_seat, table2.options.seats))
    free_then = [s for s in ring if s not in seats_before]
    assert moved.to_seat == free_then[0]
    assert moved.to_seat in table2.next_plan().seats
    assert moved.stack == 1000 and table2.player(mover).stack == 1000  # type: ignore[union-attr]


def test_a_table_in_a_hand_gives_up_its_player_when_the_hand_ends() -> None:
    t = started(12, 6)
    for table in (1, 2):
        fold_round(t, now=1, table=table)
    t.start_hand(FULL_DECK, now=2, table=1)
    events = bust(t, table=2, count=2, now=3)
    assert not of_type(events, PlayerMoved) and sizes(t) == {1: 6, 2: 4}
    hand = t.hand_at(1)
    assert hand is not None
    while not hand.is_over:
        assert hand.to_act is not None
        hand.timeout(hand.to_act)
    events = t.finish_hand(now=4, table=1)
    (moved,) = of_type(events, PlayerMoved)
    assert moved.from_table == 1 and sizes(t) == {1: 5, 2: 5}
    assert moved.player_id == t.tables[2].seat(moved.to_seat).player_id  # type: ignore[union-attr]


def test_a_player_moved_before_is_passed_over_for_one_who_was_not() -> None:
    t = started(12, 6)
    for table in (1, 2):
        fold_round(t, now=1, table=table)
    table1 = t.tables[1]
    rotation = table1.rotation
    assert rotation is not None
    order = [
        v.player_id
        for s in clockwise(rotation.big_blind_seat, 6)
        if (v := table1.seat(s)) is not None
    ]
    # The next big blind has been moved already (as if by an earlier balance).
    data = json.loads(json.dumps(t.to_json()))
    for entry in data["entries"]:
        if entry[0] == order[0]:
            entry[6] = 1
    t = Tournament.from_json(data, rng=2)
    (moved,) = of_type(bust(t, table=2, count=2), PlayerMoved)
    assert moved.player_id == order[1]


def test_a_short_table_is_filled_from_the_longest_one() -> None:
    t = started(18, 6, seed=4)
    assert sizes(t) == {1: 6, 2: 6, 3: 6}
    events = bust(t, table=3, count=2)
    (moved,) = of_type(events, PlayerMoved)
    assert moved.from_table == 2 and sizes(t) == {1: 6, 2: 5, 3: 5}  # the highest number first
    events = bust(t, table=3, count=1)
    (moved,) = of_type(events, PlayerMoved)
    assert moved.from_table == 1 and sorted(sizes(t).values()) == [5, 5, 5]


def test_the_shortest_table_breaks_when_everyone_fits_at_one_fewer() -> None:
    t = started(12, 4, seed=3)
    assert sizes(t) == {1: 4, 2: 4, 3: 4}
    bust(t, table=3, count=1)
    events = bust(t, table=3, count=1)
    assert of_type(events, PlayerMoved) and sorted(sizes(t).values()) == [3, 3, 4]
    long_table = max(sizes(t), key=lambda n: sizes(t)[n])
    events = bust(t, table=long_table, count=2)
    # 8 players fit at two tables of four: the shortest table, the one that just lost two, is
    # broken and its players drawn into the free seats.
    (broken,) = of_type(events, TableBroken)
    assert broken.table == long_table and broken.tables_left == 2
    moved = of_type(events, PlayerMoved)
    assert {m.reason for m in moved} == {"table_broken"} and len(moved) == 2
    assert sorted(sizes(t).values()) == [4, 4] and long_table not in t.tables
    # Down to four: the final table.
    final: list[FinalTable] = []
    now = 10.0
    while len(t.tables) > 1:
        now += 1
        table = max(sizes(t), key=lambda n: sizes(t)[n])
        events = bust(t, table=table, count=1, now=now)
        final += of_type(events, FinalTable)
    (last,) = final
    assert len(last.players) == 4 and list(t.tables) == [last.table]


def test_a_late_registrant_opens_a_table_when_every_seat_is_taken() -> None:
    t = started(6, 3, late_registration_level=1, max_players=7)
    for table in (1, 2):
        fold_round(t, now=1, table=table)
    events = t.register("late", now=5)
    (opened,) = of_type(events, TableOpened)
    (registered,) = of_type(events, PlayerRegistered)
    assert registered.table == opened.table == 3 and registered.late
    moved = of_type(events, PlayerMoved)
    assert len(moved) == 1 and sorted(sizes(t).values()) == [2, 2, 3]
    assert t.prize_pool == 700
    t.start_hand(FULL_DECK, now=6, table=3)
    assert t.hand_at(3) is not None


# --- the clock ----------------------------------------------------------------------------


def test_a_break_between_levels_stops_the_deal_everywhere() -> None:
    levels = (BlindLevel(10, 20, 0, 10, break_minutes=5), BlindLevel(20, 40, 40, 10))
    t = started(12, 6, levels=levels)
    t.start_hand(FULL_DECK, now=590, table=1)
    events = t.tick(now=601)
    (pause,) = of_type(events, BreakStarted)
    assert (pause.after_level, pause.seconds) == (1, 299)
    assert t.on_break and not t.can_start(2) and t.level == 1
    with pytest.raises(EngineError, match="tournament_on_break"):
        t.start_hand(FULL_DECK, now=602, table=2)
    fold_round(t, now=610, table=1)  # the hand in progress is played out
    assert t.seconds_to_next_level(700) == 200
    events = t.tick(now=901)
    (level,) = of_type(events, LevelStarted)
    assert (level.level, level.big_blind, level.from_hands) == (2, 40, ((1, 2), (2, 1)))
    assert not t.on_break and t.can_start(2)
    t.start_hand(FULL_DECK, now=902, table=2)
    hand = t.hand_at(2)
    assert hand is not None and hand.config.big_blind == 40


def test_after_a_crash_the_clock_resumes_with_the_time_left_at_the_crash() -> None:
    t = started(12, 6, levels=(*LEVELS, BlindLevel(20, 40, 0, minutes=10)))
    fold_round(t, now=100, table=1)
    t.start_hand(FULL_DECK, now=390, table=2)
    t.checkpoint(400)
    saved = json.loads(json.dumps(t.to_json()))
    hand = t.hand_at(2)
    assert hand is not None
    # The process dies at about 400 and comes back at 5,000.
    back = Tournament.from_json(
        saved, rng=5, hands={2: Hand.replay(hand.config, hand.deck, hand.actions)}
    )
    assert back.recover(now=5_000) == []
    assert back.elapsed(5_000) == 400 and back.seconds_to_next_level(5_000) == 200
    assert back.level == 1 and back.hand_at(2) is not None
    assert of_type(back.tick(5_201), LevelStarted)
    # Paused when it died: it stays paused, and the pause covers the downtime.
    t = started(4, 6)
    t.pause(now=300)
    t.checkpoint(350)
    back = Tournament.from_json(json.loads(json.dumps(t.to_json())), rng=5)
    back.recover(now=9_000)
    assert back.paused and back.elapsed(9_000) == 300
    back.resume(now=9_500)
    assert back.elapsed(9_600) == 400


def test_time_up_lets_each_table_finish_its_hand_then_ranks_survivors_by_chips() -> None:
    t = started(12, 6, time_limit=600)
    for table in (1, 2):
        fold_round(t, now=1, table=table)
    bust(t, table=1, count=1, now=2)  # one eliminated before the end
    t.start_hand(FULL_DECK, now=590, table=2)
    events = t.tick(now=601)
    (up,) = of_type(events, TimeUp)
    assert up.hands_in_progress == ((2, t.tables[2].hand_number),) and not t.is_over
    assert t.start_hand(FULL_DECK, now=602, table=1) == [] and t.hand_at(1) is None
    events = fold_round(t, now=650, table=2)
    (finished,) = of_type(events, TournamentFinished)
    assert finished.reason == "time" and t.is_over
    standings = t.standings
    assert len(standings) == 12 and sum(s.prize for s in standings) == t.prize_pool
    survivors = [s for s in standings if s.eliminated_in_hand is None]
    assert len(survivors) == 11
    assert [s.chips for s in survivors] == sorted((s.chips for s in survivors), reverse=True)
    assert standings[-1].eliminated_at_table == 1 and standings[-1].place == 12


def test_status_reports_the_clock_the_field_and_every_table() -> None:
    levels = (BlindLevel(10, 20, 20, 10), BlindLevel(20, 40, 40, 10))
    t = Tournament(config(max_players=12, seats=6, levels=levels, time_limit=3600), rng=1)
    for k in range(11):
        t.register(k, now=0)
    before = t.status(now=0)
    assert before.state.value == "registering" and before.players_left == 11
    assert before.tables == () and before.prize_pool == 1100 and sum(before.prizes) == 1100
    t.start(now=0)
    bust(t, table=1, count=1)
    status = t.status(now=120)
    assert (status.level, status.small_blind, status.big_blind, status.ante) == (1, 10, 20, 20)
    assert status.next_level == levels[1]
    assert status.seconds_to_next_level == 480 and status.seconds_left == 3480
    assert (status.entrants, status.players_left) == (11, 10)
    assert status.chips_in_play == 11_000 and status.average_stack == 1100
    stacks = {player: stack for table in status.tables for _, player, stack in table.seats}
    assert status.chip_leader is not None
    assert status.largest_stack == stacks[status.chip_leader] == max(stacks.values()) > 2000
    assert [table.number for table in status.tables] == [1, 2]
    assert sum(len(table.seats) for table in status.tables) == 10
    assert sum(status.prizes) == status.prize_pool


# --- whole tournaments --------------------------------------------------------------------


def test_a_hundred_players_play_down_to_one() -> None:
    t = started(100, 9, seed=7, levels=tuple(
        BlindLevel(5 * 2**k, 10 * 2**k, 10 * 2**k, minutes=4) for k in range(16)
    ), starting_stack=1000)
    assert len(t.tables) == 12
    events, hands, _ = play_tables(t, random.Random(7))
    assert t.finish_reason == "last_player" and hands > 100
    assert len(t.standings) == 100 and sum(s.prize for s in t.standings) == t.prize_pool
    assert [s.place for s in t.standings] == [
        s.place for s in sorted(t.standings, key=lambda s: s.place)
    ]
    assert {s.player_id for s in t.standings} == {f"p{k:02}" for k in range(100)}
    assert len(of_type(events, FinalTable)) == 1
    assert len(of_type(events, TableBroken)) == 11
