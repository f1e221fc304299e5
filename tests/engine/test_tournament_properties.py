"""Invariants of tournament places and prizes (hypothesis).

Payout tables are checked on their own over any pool, field size and prize unit; then whole
tournaments, freeze-out and time-limited, with late registration, are played by random players
over drawn field sizes, payout tables, prize units, starting stacks, blind schedules and time
limits, and their final standings are checked: every entrant placed once, tied players taking
consecutive places, prizes adding up to the pool to the chip, odd chips going to the higher
places, and prizes never growing further down the field.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import defaultdict

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import Action, ActionKind, AnteKind, Hand
from engine.seating import PlayerId
from engine.table import TableEvent
from engine.tournament import (
    BlindLevel,
    PayoutTable,
    PlayerEliminated,
    Standing,
    Tournament,
    TournamentConfig,
)

# --- payout tables ------------------------------------------------------------------------


@st.composite
def payout_tables(draw: st.DrawFn) -> PayoutTable:
    bounds = sorted(draw(st.sets(st.integers(1, 30), min_size=1, max_size=4)))
    open_last = draw(st.booleans())
    tiers: list[tuple[int | None, tuple[int, ...]]] = []
    for k, bound in enumerate(bounds):
        shares = draw(st.lists(st.integers(1, 100), min_size=1, max_size=8))
        last = k == len(bounds) - 1
        tiers.append((None if open_last and last else bound, tuple(sorted(shares, reverse=True))))
    return PayoutTable(tuple(tiers))


@settings(max_examples=500, deadline=None)
@given(
    payout_tables(),
    st.one_of(st.integers(0, 1000), st.integers(0, 10**15)),
    st.integers(0, 40),
    st.one_of(st.integers(1, 10), st.sampled_from([25, 100, 1000, 10**6])),
)
def test_prizes_add_up_to_the_pool_in_prize_units(
    table: PayoutTable, pool: int, entrants: int, unit: int
) -> None:
    prizes = table.prizes(pool, entrants, unit)
    shares = table.shares(entrants)
    assert len(prizes) == len(shares) <= max(1, entrants)
    assert sum(prizes) == pool
    assert min(prizes) >= 0
    assert all(a >= b for a, b in itertools.pairwise(prizes))
    # Only the winner's prize holds the chips smaller than a unit.
    units, loose = divmod(pool, unit)
    assert prizes[0] % unit == loose
    assert all(p % unit == 0 for p in prizes[1:])
    # Each place gets its proportional share rounded down, and the units left over go one each
    # to the best places.
    floors = [units * s // sum(shares) for s in shares]
    extra = [
        (p - (loose if k == 0 else 0)) // unit - f
        for k, (p, f) in enumerate(zip(prizes, floors, strict=True))
    ]
    assert all(x in (0, 1) for x in extra)
    assert extra == sorted(extra, reverse=True)
    assert PayoutTable.from_json(json.loads(json.dumps(table.to_json()))) == table


# --- whole tournaments --------------------------------------------------------------------

NAMES: tuple[PlayerId, ...] = tuple(f"p{k}" for k in range(10))


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[TournamentConfig, int, int, int, float]:
    """(config, players at the start, late registrants wanted, seed, shove rate)."""
    unit = draw(st.sampled_from([1, 1, 5, 25]))
    stack = unit * draw(st.one_of(st.integers(10, 400), st.sampled_from([100, 200, 400])))
    ante_kind = draw(st.sampled_from(list(AnteKind)))
    first_bb = 2 * unit * draw(st.integers(1, 5))
    levels = []
    for k in range(draw(st.integers(1, 8))):
        bb = first_bb * 2**k
        ante = 0 if ante_kind is AnteKind.NONE or k == 0 else bb // (2 * unit) * unit
        minutes = draw(st.sampled_from([0.5, 1, 2, 5, 10]))
        levels.append(BlindLevel(bb // 2, bb, ante, minutes=minutes))
    # A last level whose blinds swallow any stack ends a freeze-out in a bounded number of hands.
    big = max(4 * stack, levels[-1].big_blind)  # big blinds never go down
    ante = 0 if ante_kind is AnteKind.NONE else max(big, levels[-1].ante)
    levels.append(BlindLevel(big // 2, big, ante, minutes=1))
    start = draw(st.integers(2, 10))
    config = TournamentConfig(
        buy_in=draw(st.one_of(st.just(0), st.integers(1, 200), st.integers(1, 10**9))),
        starting_stack=stack,
        levels=tuple(levels),
        ante_kind=ante_kind,
        time_limit=draw(st.one_of(st.none(), st.integers(1, 3000), st.floats(0.5, 3000))),
        payouts=draw(payout_tables()),
        late_registration_level=draw(st.sampled_from([0, 0, 1, 2])),
        max_players=10,
        seats=10,
        chip_unit=unit,
        prize_unit=draw(st.sampled_from([1, 1, 2, 5, 10, 25, 100, 1000])),
    )
    late = draw(st.integers(0, 10 - start))
    return (
        config,
        start,
        late,
        draw(st.integers(0, 2**32 - 1)),
        draw(st.sampled_from([0.0, 0.02, 0.1, 0.4])),
    )


def random_action(hand: Hand, rng: random.Random, shove: float) -> None:
    legal = hand.legal()
    assert legal is not None
    p = legal.player
    roll = rng.random()
    if roll < shove and (legal.can_raise or hand.stacks[p] <= legal.to_call):
        hand.apply(Action(ActionKind.ALL_IN, p))
    elif legal.to_call and roll < shove + 0.3:
        hand.fold(p)
    elif legal.can_raise and roll > 0.9:
        unit = hand.config.chip_unit
        low = -(-legal.min_raise_to // unit) * unit
        to = min(legal.max_raise_to, low + unit * rng.randint(0, 3))
        hand.apply(Action(ActionKind.BET if legal.is_bet else ActionKind.RAISE, p, to))
    elif legal.to_call:
        hand.call(p)
    else:
        hand.check(p)


def reload(t: Tournament, rng: random.Random) -> Tournament:
    data = json.loads(json.dumps(t.to_json()))
    copy = Tournament.from_json(data, rng=rng.randrange(1 << 30))
    assert copy.to_json() == data
    return copy


def play(
    config: TournamentConfig, start: int, late: int, seed: int, shove: float
) -> tuple[Tournament, list[TableEvent]]:
    rng = random.Random(seed)
    t = Tournament(config, rng=seed)
    for name in NAMES[:start]:
        t.register(name, now=0)
    waiting = list(NAMES[start : start + late])
    now = 0.0
    events = t.start(now)
    hands = 0
    while not t.is_over:
        now += rng.uniform(5, 40)
        if waiting and rng.random() < 0.3:
            try:
                events += t.register(waiting[0], now)
                waiting.pop(0)
            except EngineError as exc:
                assert exc.code == "registration_closed"
                waiting.clear()
        left = t.players_left()
        if left and rng.random() < 0.05:
            events += t.set_absent(rng.choice(left), rng.random() < 0.5)
        if rng.random() < 0.03:
            t = reload(t, rng)
        if rng.random() < 0.03:
            events += t.pause(now)
            if t.is_over:  # time ran out before the pause
                break
            now += rng.uniform(0, 2000)  # the clock stands still meanwhile
            events += t.resume(now)
        events += t.start_hand(rng.sample(FULL_DECK, 52), now)
        if t.is_over:
            break
        hand = t.hand
        assert hand is not None
        voided = False
        while not hand.is_over:
            t.act_for_absent()
            if hand.is_over:
                break
            if rng.random() < 0.005:
                # The floor calls the hand off: nobody can be eliminated in it.
                settled = t.void_hand(now)
                assert not [e for e in settled if isinstance(e, PlayerEliminated)]
                events += settled
                voided = True
                break
            random_action(hand, rng, shove)
            if rng.random() < 0.05:
                now += rng.uniform(1, 20)
                events += t.tick(now)
        if not voided:
            events += t.finish_hand(now)
        # Between hands every chip is in a stack at the table.
        assert sum(v.stack for v in t.table.seats()) == config.starting_stack * t.entrants
        hands += 1
        assert hands < 5000, "the tournament does not end"
    return t, events


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(tournaments())
def test_whole_tournaments_place_everyone_and_pay_the_pool(
    drawn: tuple[TournamentConfig, int, int, int, float],
) -> None:
    config, start, late, seed, shove = drawn
    t, events = play(config, start, late, seed, shove)
    standings = t.standings
    n = t.entrants
    unit = config.prize_unit
    pool = t.prize_pool
    assert pool == config.buy_in * n

    # Every entrant exactly once.
    assert len(standings) == n
    assert (
        {s.player_id for s in standings}
        == set(NAMES[:n])
        == {*t.players_left()}
        | {s.player_id for s in standings if s.eliminated_in_hand is not None}
    )

    # Places: a permutation of 1..n with ties, a tied group of k taking k consecutive places
    # and all of them showing the best one; best first.
    groups: dict[int, list[Standing]] = defaultdict(list)
    for s in standings:
        groups[s.place].append(s)
    covered: list[int] = []
    for place, group in groups.items():
        assert all(s.tied == len(group) for s in group)
        covered += range(place, place + len(group))
    assert sorted(covered) == list(range(1, n + 1))
    assert [s.place for s in standings] == sorted(s.place for s in standings)
    if any(len(g) > 1 for g in groups.values()):
        event("tie")

    # Ranking: survivors by chips, then later eliminations first, then bigger starting stacks;
    # players tie exactly when all of that is equal.
    started_with = {
        e.player_id: e.starting_stack for e in events if isinstance(e, PlayerEliminated)
    }

    def rank_key(s: Standing) -> tuple[int, int, int]:
        if s.eliminated_in_hand is None:
            return (1, s.chips, 0)
        return (0, s.eliminated_in_hand, started_with[s.player_id])

    for a, b in itertools.pairwise(standings):
        assert rank_key(a) >= rank_key(b)
        assert (a.place == b.place) == (rank_key(a) == rank_key(b))
    for s in standings:
        if s.eliminated_in_hand is not None:
            assert s.chips == 0
    assert sum(s.chips for s in standings) == config.starting_stack * n
    if t.finish_reason == "last_player":
        assert standings[0].tied == 1 and standings[0].chips == config.starting_stack * n
    else:
        assert config.time_limit is not None and t.finish_reason == "time"
        event("time limit")

    # Prizes: the pool exactly, never more for a lower place.
    prizes = [s.prize for s in standings]
    assert sum(prizes) == pool
    assert min(prizes) >= 0
    assert all(a >= b for a, b in itertools.pairwise(prizes))
    # Odd chips: only the first prize holds chips smaller than a unit; a tied group shares what
    # its places pay, at most one unit apart, the bigger shares first.
    assert prizes[0] % unit == pool % unit
    assert all(p % unit == 0 for p in prizes[1:])
    table = config.payouts.prizes(pool, n, unit)
    for place, group in groups.items():
        paid = sum(table[p - 1] for p in range(place, place + len(group)) if p <= len(table))
        shares = [s.prize for s in group]
        assert sum(shares) == paid
        shares[0] -= pool % unit if place == 1 else 0
        assert max(shares) - min(shares) <= unit
        if place > len(table):
            assert paid == 0
