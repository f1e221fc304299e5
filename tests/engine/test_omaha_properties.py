"""Invariants of Omaha hands over random tables (hypothesis): chips are conserved, no raise goes
above the pot limit and the limit itself is accepted, every high and every low is made of
exactly two hole cards, and a high-low pot's halves go to the right players to the chip.

The references here are written from the rules, not from the engine: the pot limit from the
chips that left the stacks, the hands from every two-plus-three combination, and the split from
RULES.md 5 and engine.games' halving."""

from __future__ import annotations

import copy
import random
from itertools import combinations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import FULL_DECK, Card
from engine.errors import EngineError
from engine.evaluator import rank_value
from engine.games import PLO, PLO5, PLO8
from engine.hand import (
    Action,
    ActionKind,
    AnteKind,
    Hand,
    HandConfig,
    PotAwarded,
    ReopenMode,
    RunItTwice,
    StraddleMode,
)
from tests.engine.test_hand_properties import random_action
from tests.engine.test_omaha_eval import slow_low


@st.composite
def omaha_tables(draw: st.DrawFn) -> tuple[HandConfig, tuple[Card, ...], int]:
    game = draw(st.sampled_from([PLO, PLO5, PLO8]))
    n = draw(st.integers(2, game.max_players))
    unit = draw(st.sampled_from([1, 1, 5, 25]))
    sb = unit * draw(st.integers(1, 10))
    bb = max(unit, draw(st.integers(sb // unit, 3 * sb // unit)) * unit)
    stacks = [unit * draw(st.integers(1, 400)) for _ in range(n)]
    runs = draw(st.sampled_from([RunItTwice.OFF, RunItTwice.OFF, RunItTwice.ALWAYS]))
    shape = draw(st.integers(0, 5))
    if shape == 0:
        config = HandConfig.bomb(
            stacks, unit * draw(st.integers(1, 20)), bb, chip_unit=unit, run_it_twice=runs,
            game=game,
        )  # fmt: skip
    else:
        straddle = StraddleMode.OFF
        if shape == 1 and n >= 3:
            straddle = draw(st.sampled_from([StraddleMode.UTG, StraddleMode.BUTTON]))
            index = 2 if straddle is StraddleMode.UTG else n - 1
            stacks[index] = max(stacks[index], 2 * bb)
        ante_kind = draw(st.sampled_from(list(AnteKind)))
        config = HandConfig.standard(
            stacks,
            sb,
            bb,
            ante_kind=ante_kind,
            ante=0 if ante_kind is AnteKind.NONE else unit * draw(st.integers(1, 5)),
            chip_unit=unit,
            reopen=draw(st.sampled_from(list(ReopenMode))),
            straddle=straddle,
            run_it_twice=runs,
            game=game,
        )
    deck = tuple(draw(st.permutations(FULL_DECK)))
    return config, deck, draw(st.integers(0, 2**32 - 1))


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_out(hand: Hand, rng: random.Random) -> None:
    steps = 0
    while not hand.is_over:
        hand.apply(random_action(hand, rng))
        steps += 1
        assert steps < 500


@SETTINGS
@given(omaha_tables())
def test_chips_are_conserved_and_every_chip_put_in_is_paid_out(table) -> None:
    config, deck, seed = table
    hand = Hand(config, deck)
    rng = random.Random(seed)
    total = sum(config.stacks)
    while not hand.is_over:
        assert sum(hand.stacks) + hand.total_pot() == total and min(hand.stacks) >= 0
        hand.apply(random_action(hand, rng))
    assert sum(hand.stacks) == total and min(hand.stacks) >= 0
    awards = [e for e in hand.events if isinstance(e, PotAwarded)]
    assert sum(a.amount for a in awards) == sum(hand.contributions) + sum(hand.pooled)
    assert all(sum(c for _, c in a.shares) == a.amount for a in awards)
    assert not any(hand.folded[p] for a in awards for p, _ in a.shares)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(omaha_tables())
def test_no_raise_goes_above_the_pot_limit_and_the_limit_is_accepted(table) -> None:
    config, deck, seed = table
    hand = Hand(config, deck)
    rng = random.Random(seed)
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        if legal.can_raise:
            i = legal.player
            # The pot from the chips that left the stacks (this street's bets included).
            middle = sum(config.stacks) - sum(hand.stacks)
            high = max(hand.bets)
            limit = high + middle + (high - hand.bets[i])
            everything = hand.stacks[i] + hand.bets[i]
            assert legal.max_raise_to == min(everything, max(limit, legal.min_raise_to))
            assert legal.pot_limited == (legal.max_raise_to < everything)
            assert hand.pot_raise_to() == legal.max_raise_to
            accepted = copy.deepcopy(hand)
            accepted.apply(Action(ActionKind.RAISE, i, legal.max_raise_to))
            refused = copy.deepcopy(hand)
            try:
                refused.apply(Action(ActionKind.RAISE, i, legal.max_raise_to + 1))
            except EngineError as err:
                expected = "above_pot_limit" if legal.pot_limited else "amount_above_stack"
                assert err.code == expected
                assert err.params["maximum"] == legal.max_raise_to
            else:
                raise AssertionError("a raise above the maximum was accepted")
        hand.apply(random_action(hand, rng))


def _two_and_three(cards: tuple[Card, ...], hole: tuple[Card, ...], board: tuple[Card, ...]):
    return sum(c in hole for c in cards) == 2 and sum(c in board for c in cards) == 3


@SETTINGS
@given(omaha_tables())
def test_every_high_and_every_low_uses_exactly_two_hole_cards(table) -> None:
    config, deck, seed = table
    hand = Hand(config, deck)
    play_out(hand, random.Random(seed))
    for run, board in enumerate(hand.boards, start=1):
        if len(board) < 3:
            continue
        for j in range(hand.n):
            hole = hand.hole_cards(j)
            rank = hand.rank(j, run)
            assert rank is not None and _two_and_three(rank.cards, hole, board)
            assert rank.value == max(
                rank_value(two + three)
                for two in combinations(hole, 2)
                for three in combinations(board, 3)
            )
            low = hand.low_rank(j, run)
            if low is not None:
                assert config.game.has_low and _two_and_three(low.cards, hole, board)
                assert low.describe() == "-".join(
                    "A" if r == 1 else str(r) for r in slow_low(hole, board) or ()
                )


def _rules_split(amount: int, winners: list[int], unit: int) -> list[tuple[int, int]]:
    units, loose = divmod(amount, unit)
    each, odd = divmod(units, len(winners))
    ordered = sorted(winners)
    return [
        (w, each * unit + (unit if k < odd else 0) + (loose if k == 0 else 0))
        for k, w in enumerate(ordered)
    ]


def _halves(amount: int, unit: int) -> tuple[int, int]:
    units, loose = divmod(amount, unit)
    first = (units - units // 2) * unit + loose
    return first, amount - first


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(omaha_tables())
def test_high_low_halves_go_to_the_right_players_to_the_chip(table) -> None:
    config, deck, seed = table
    hand = Hand(config, deck)
    play_out(hand, random.Random(seed))
    assert hand.result is not None
    if not hand.result.showdown:
        return
    unit = config.chip_unit
    live = [j for j in range(hand.n) if not hand.folded[j]]
    pots: dict[int, tuple[int, tuple[int, ...]]] = {}
    for award in hand.result.pots:
        amount, _ = pots.get(award.index, (0, award.eligible))
        pots[award.index] = (amount + award.amount, award.eligible)
    expected: list[tuple[int, int, str, list[tuple[int, int]]]] = []
    for index, (amount, eligible) in sorted(pots.items()):
        runs = [(0, amount)]
        if hand.second_board is not None and len(eligible) > 1:
            first, second = _halves(amount, unit)
            runs = [(1, first), (2, second)]
        for run, part in runs:
            board = hand.boards[max(run, 1) - 1]
            highs = {
                j: max(
                    rank_value(two + three)
                    for two in combinations(hand.hole_cards(j), 2)
                    for three in combinations(board, 3)
                )
                for j in live
            }
            lows = {j: slow_low(hand.hole_cards(j), board) for j in live}
            halves: list[tuple[str, int, list[int]]]
            with_low = [j for j in eligible if lows[j] is not None]
            if config.game.has_low and with_low and len(eligible) > 1:
                best_low = min(lows[j] for j in with_low)  # type: ignore[type-var]
                high_part, low_part = _halves(part, unit)
                best_high = max(highs[j] for j in eligible)
                halves = [
                    ("high", high_part, [j for j in eligible if highs[j] == best_high]),
                    ("low", low_part, [j for j in with_low if lows[j] == best_low]),
                ]
            else:
                best_high = max(highs[j] for j in eligible)
                halves = [("", part, [j for j in eligible if highs[j] == best_high])]
            for half, chips, winners in halves:
                if chips:
                    expected.append((index, run, half, _rules_split(chips, winners, unit)))
    got = [(a.index, a.run, a.half, list(a.shares)) for a in hand.result.pots]
    assert got == expected
