"""Push or fold: the stored solutions against the game itself.

The near-equilibrium check computes the best responses again here, deal by deal from the stored
equities, not through ``engine.bots.pushfold.Game``; the build's determinism is checked by
solving two stacks again and by writing the stored solutions back byte for byte.
"""

from __future__ import annotations

import math
import random
from itertools import combinations, pairwise
from pathlib import Path

import numpy as np
import pytest

from engine.bots import allin
from engine.bots.preflop import CLASS_NAMES, CLASSES, class_combos, hand_class
from engine.bots.pushfold import (
    DATA,
    STACKS,
    TARGET,
    Solution,
    call,
    call_percent,
    chart_markdown,
    load,
    push,
    push_percent,
    solution_at,
    solve,
    write,
)
from engine.cards import Card, parse_cards

REPO = Path(__file__).resolve().parents[2]
HOLES = [(Card(a), Card(b)) for a, b in combinations(range(52), 2)]
PURE_BOUND = 1e-4  # bb a hand: the bot's pure ranges are within a tenth of an mbb


def combos_of(name: str) -> list[tuple[Card, Card]]:
    return [h for h in HOLES if CLASS_NAMES[hand_class(h)] == name]


def best_response_gains(stack: float, pushes: np.ndarray, calls: np.ndarray) -> tuple[float, float]:
    """What a best-responding small blind and big blind gain, deal by deal."""
    table = allin.load()
    eq, deals = table.equity(), table.pairs.astype(np.float64)
    p, q = pushes[:, None], calls[None, :]
    called = stack * (2 * eq - 1)
    # The small blind's winnings on each deal, for each way the two sides may act.
    fold = np.full_like(eq, -0.5)
    push_folded_to, push_called = np.ones_like(eq), called
    played = (1 - p) * fold + p * ((1 - q) * push_folded_to + q * push_called)
    value = (deals * played).sum() / deals.sum()
    pushing = (deals * ((1 - q) * push_folded_to + q * push_called)).sum(axis=1)
    best_sb = np.maximum(pushing, -0.5 * deals.sum(axis=1)).sum() / deals.sum()
    by_calling = (deals * ((1 - p) * fold + p * push_called)).sum(axis=0)
    by_folding = (deals * ((1 - p) * fold + p * push_folded_to)).sum(axis=0)
    worst_sb = np.minimum(by_calling, by_folding).sum() / deals.sum()
    return float(best_sb - value), float(value - worst_sb)


@pytest.mark.parametrize("stack", [*STACKS, 0.3, 3.3, 15.1, 40.0])
def test_aces_push_and_call_at_every_stack(stack: float) -> None:
    for hole in combos_of("AA"):
        assert push(hole, stack) and call(hole, stack)


def test_seven_deuce_offsuit_folds_at_15_big_blinds() -> None:
    for hole in combos_of("72o"):
        assert not push(hole, 15) and not call(hole, 15)


def test_at_one_big_blind_everything_goes_in() -> None:
    assert push_percent(1) == call_percent(1) == 100


def test_the_push_share_falls_with_the_stack() -> None:
    # Not quite monotone: 84s joins the range at 8.5 bb and 43s half joins it as the calls
    # tighten, and the share rises by 0.11 points from 8 to 8.5 bb, the only rise.
    shares = [push_percent(s) for s in STACKS]
    rises = [(STACKS[i], later - share) for i, (share, later) in enumerate(pairwise(shares))]
    assert all(rise <= 0.15 for _, rise in rises)
    assert [s for s, rise in rises if rise > 0] == [8.0]
    assert shares[-1] < 50 < 100 == shares[0]


def test_calls_are_tighter_than_pushes_from_4_5_big_blinds() -> None:
    # Shorter, the big blind's price is too good: at 4 bb it calls 3 to win 5 (needing 3/8 of
    # the pot) and calls a little wider than the small blind pushes.
    for stack in STACKS:
        if stack >= 4.5:
            assert call_percent(stack) < push_percent(stack), stack
        else:
            assert call_percent(stack) >= push_percent(stack), stack


@pytest.mark.parametrize("solution", load(), ids=lambda s: f"{s.stack:g}bb")
def test_stored_solutions_are_near_equilibria(solution: Solution) -> None:
    mixed = best_response_gains(solution.stack, np.array(solution.push), np.array(solution.call))
    assert all(gain >= -1e-12 for gain in mixed)
    assert sum(mixed) / 2 <= TARGET + 1e-12
    assert mixed == pytest.approx((solution.sb_gain, solution.bb_gain), abs=1e-12)
    pure = best_response_gains(
        solution.stack,
        (np.array(solution.push) >= 0.5).astype(float),
        (np.array(solution.call) >= 0.5).astype(float),
    )
    assert sum(pure) / 2 <= PURE_BOUND
    assert pure == pytest.approx((solution.pure_sb_gain, solution.pure_bb_gain), abs=1e-12)


@pytest.mark.parametrize("stack", [6.5, 10.0])
def test_solving_again_gives_the_stored_solution(stack: float) -> None:
    assert solve(allin.load(), stack) == solution_at(stack)


def test_the_file_is_what_the_build_writes(tmp_path: Path) -> None:
    again = tmp_path / "pushfold.json"
    write(load(), again)
    assert again.read_bytes() == DATA.read_bytes()


def test_the_nearest_solved_stack() -> None:
    assert solution_at(0.2).stack == 1 and solution_at(99).stack == 15
    assert solution_at(7.2).stack == 7 and solution_at(7.74).stack == 7.5
    assert solution_at(7.25).stack == 7.5  # half-way: the deeper
    with pytest.raises(ValueError):
        solution_at(math.nan)


def test_with_a_generator_the_mix_is_played() -> None:
    solution = solution_at(10)
    mixed = [c for c in range(CLASSES) if 0.2 < solution.push[c] < 0.8]
    assert mixed, "no mixed class at 10 bb"
    hole = combos_of(CLASS_NAMES[mixed[0]])[0]
    rng = random.Random(5)
    pushed = sum(push(hole, 10, rng) for _ in range(4000)) / 4000
    assert pushed == pytest.approx(solution.push[mixed[0]], abs=0.03)


@pytest.mark.parametrize("stack", [3, 8.5, 15])
def test_percentages_count_combinations(stack: float) -> None:
    solution = solution_at(stack)
    pushed = sum(push(h, stack) for h in HOLES)
    called = sum(call(h, stack) for h in HOLES)
    mixed_push = sum(class_combos(c) for c, p in enumerate(solution.push) if 0 < p < 1)
    mixed_call = sum(class_combos(c) for c, q in enumerate(solution.call) if 0 < q < 1)
    assert abs(push_percent(stack) * 1326 / 100 - pushed) <= mixed_push
    assert abs(call_percent(stack) * 1326 / 100 - called) <= mixed_call


def test_a_hand_is_its_class() -> None:
    for stack in (5, 12):
        for name in ("AKs", "T9s", "Q4o", "22"):
            holes = combos_of(name)
            assert len({push(h, stack) for h in holes}) == len({call(h, stack) for h in holes}) == 1
    assert push(parse_cards("Kd As"), 15) == push(parse_cards("AsKd"), 15)


def test_the_docs_show_the_current_chart() -> None:
    text = (REPO / "docs" / "bots.md").read_text(encoding="utf-8")
    assert chart_markdown() in text
