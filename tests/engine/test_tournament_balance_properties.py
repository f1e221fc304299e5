"""Balancing and breaking tables under random play (hypothesis).

Drawn fields (2 to 46 players, 2 to 10 seats a table), blind schedules, time limits and late
registrants play whole tournaments with hands overlapping across tables. After every settled
hand the moves it caused are replayed against the tables as they were, and checked:

- a balancing move takes, from a table between hands, the player the big blind reaches first
  among those moved the fewest times there, and seats him in the free seat the big blind reaches
  first at a shortest table (the same position relative to the blinds); only a longest table
  gives players;
- a broken table was the shortest, and its players go, one by one, to the shortest tables;
- when the tables fall still, no two differ by more than one player and no table could be
  broken; while some are in a hand, the longest tables of a field still out of balance (or the
  table waiting to be broken) are all in a hand.

At the end every entrant has exactly one place and the prizes add up to the pool.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.seating import PlayerId, clockwise
from engine.table import PlayerLeft, Table, TableEvent
from engine.tournament import (
    BlindLevel,
    PlayerMoved,
    PlayerRegistered,
    TableBroken,
    Tournament,
    TournamentConfig,
)
from tests.engine.tournament_sim import play_tables

Seating = dict[int, dict[int, PlayerId]]


def seating(t: Tournament) -> Seating:
    return {n: {v.seat: v.player_id for v in table.seats()} for n, table in t.tables.items()}


def reference_big_blind(table: Table) -> int | None:
    """Where the tournament counts "the big blind reaches first" from at this table."""
    if table.hand is not None and table.plan is not None:
        return table.plan.rotation.big_blind_seat
    return table.rotation.big_blind_seat if table.rotation else None


class Checker:
    def __init__(self, t: Tournament) -> None:
        self.seats = seating(t)
        self.moves: dict[PlayerId, int] = defaultdict(int)
        self.balanced = 0
        self.broken = 0

    def settled(self, t: Tournament, number: int, events: list[TableEvent]) -> None:
        seats = self.seats
        capacity = t.config.seats
        for e in events:
            if isinstance(e, PlayerLeft):
                assert e.reason == "eliminated"
                assert seats[number].pop(e.seat) == e.player_id
            elif isinstance(e, PlayerMoved):
                source, target = seats[e.from_table], seats[e.to_table]
                assert source[e.from_seat] == e.player_id and e.to_seat not in target
                assert 1 <= e.to_seat <= capacity
                others = {n: len(s) for n, s in seats.items() if n != e.from_table}
                if e.reason == "balance":
                    self.check_balance_move(t, e, source, target)
                    self.balanced += 1
                else:
                    # Broken tables fill the shortest tables that have room.
                    room = [size for n, size in others.items() if size < capacity]
                    assert len(target) == min(room)
                del source[e.from_seat]
                target[e.to_seat] = e.player_id
                self.moves[e.player_id] += 1
            elif isinstance(e, TableBroken):
                assert not seats.pop(e.table)
                self.broken += 1
        # The replay must end where the tournament is.
        assert seats == seating(t)
        if t.is_over or t.time_up:
            return
        self.check_sizes(t)

    def check_balance_move(
        self,
        t: Tournament,
        e: PlayerMoved,
        source: dict[int, PlayerId],
        target: dict[int, PlayerId],
    ) -> None:
        sizes = {n: len(s) for n, s in self.seats.items()}
        assert len(source) == max(sizes.values()) and len(target) == min(sizes.values())
        assert len(source) >= len(target) + 2
        table = t.tables[e.from_table]
        # The order in which the big blind reaches the source table's players.
        rotation = table.rotation
        if rotation is None:
            order = [source[s] for s in sorted(source)]
        else:
            ring = clockwise(rotation.big_blind_seat, t.config.seats)
            order = [source[s] for s in ring if s in source]
        fewest = min(self.moves[p] for p in order)
        expected = next(p for p in order if self.moves[p] == fewest)
        assert e.player_id == expected
        if self.moves[e.player_id]:
            event("a player moved before was moved again (nobody else could go)")
        reference = reference_big_blind(t.tables[e.to_table])
        if reference is not None:
            free = [s for s in clockwise(reference, t.config.seats) if s not in target]
            assert e.to_seat == free[0]

    def check_sizes(self, t: Tournament) -> None:
        sizes = {n: len(table.seats()) for n, table in t.tables.items()}
        busy = {n for n, table in t.tables.items() if table.hand is not None}
        total, low, high = sum(sizes.values()), min(sizes.values()), max(sizes.values())
        fits_fewer = len(sizes) > 1 and total <= (len(sizes) - 1) * t.config.seats
        if not busy:
            assert not fits_fewer
            assert max(sizes.values()) - low <= 1
        elif fits_fewer:
            assert all(n in busy for n, size in sizes.items() if size == low)
        elif high >= low + 2:
            assert all(n in busy for n, size in sizes.items() if size == high)


@st.composite
def fields(draw: st.DrawFn) -> tuple[TournamentConfig, int, int, int]:
    """(config, players at the start, late registrants, seed)."""
    seats = draw(st.integers(2, 10))
    start = draw(st.integers(2, 40))
    late = draw(st.integers(0, 6))
    levels = tuple(
        BlindLevel(5 * 2**k, 10 * 2**k, 10 * 2**k, minutes=draw(st.sampled_from([1, 3, 10])),
                   break_minutes=draw(st.sampled_from([0, 0, 0, 2])) if k < 11 else 0)
        for k in range(12)
    )
    config = TournamentConfig(
        buy_in=draw(st.integers(0, 500)),
        starting_stack=draw(st.sampled_from([200, 500, 1000])),
        levels=levels,
        time_limit=draw(st.one_of(st.none(), st.integers(60, 4000))),
        late_registration_level=draw(st.sampled_from([0, 1, 3])),
        max_players=start + late,
        seats=seats,
    )
    return config, start, late, draw(st.integers(0, 2**32 - 1))


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(fields())
def test_tables_stay_balanced_and_every_move_is_the_one_tda_asks_for(
    drawn: tuple[TournamentConfig, int, int, int],
) -> None:
    config, start, late, seed = drawn
    rng = random.Random(seed)
    t = Tournament(config, rng=seed)
    for k in range(start):
        t.register(f"p{k}", now=0)
    t.start(now=0)
    checker = Checker(t)
    checker.check_sizes(t)
    events: list[TableEvent] = []
    now = 0.0
    # Late registrants arrive while the first hands are played.
    for k in range(late):
        played, _, now = play_tables(t, rng, now, settled=checker.settled, stop_after=3)
        events += played
        if not t.registration_open or t.is_over:
            break
        joined = t.register(f"late{k}", now)
        events += joined
        (registered,) = (e for e in joined if isinstance(e, PlayerRegistered))
        # Balancing after a late entry is checked by the sizes it leaves.
        checker.seats = seating(t)
        for e in joined:
            if isinstance(e, PlayerMoved):
                checker.moves[e.player_id] += 1
        checker.check_sizes(t)
        assert registered.table is not None
    if not t.is_over:
        played, _, now = play_tables(t, rng, now, settled=checker.settled)
        events += played
    if checker.balanced:
        event("balancing moves")
    if checker.broken:
        event("tables broken")

    standings = t.standings
    assert len(standings) == t.entrants == len({s.player_id for s in standings})
    covered: list[int] = []
    for place, group in itertools.groupby(standings, key=lambda s: s.place):
        size = len(list(group))
        covered += range(place, place + size)
    assert covered == list(range(1, t.entrants + 1))
    assert sum(s.prize for s in standings) == t.prize_pool
    assert sum(s.chips for s in standings) == config.starting_stack * t.entrants
