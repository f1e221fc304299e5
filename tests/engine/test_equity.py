"""All-in equity against a brute-force count.

The brute force walks every board one by one and ranks each hand with ``rank_value``; the
equity module counts with the bulk evaluator and C-level maps. Flop, turn and the exact
pre-flop cases must agree to the board; the sampled pre-flop figures must land within the
documented 0.5 percentage points of the exact ones.
"""

from __future__ import annotations

import random
from array import array
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations

import pytest

from engine.cards import FULL_DECK, Card, parse_cards
from engine.equity import SAMPLES, equity, run_out_equities
from engine.errors import EngineError
from engine.evaluator import rank_value
from engine.hand import Hand, HandConfig, RunItTwice, deck_from_cards


def brute_force(
    holes: Sequence[tuple[Card, ...]], board: Sequence[Card], dead: Sequence[Card] = ()
) -> list[tuple[int, int, Fraction]]:
    used = {c for h in holes for c in h} | set(board) | set(dead)
    rest = [c for c in FULL_DECK if c not in used]
    wins = [0] * len(holes)
    ties = [0] * len(holes)
    shares = [Fraction(0)] * len(holes)
    boards = 0
    for tail in combinations(rest, 5 - len(board)):
        full = tuple(board) + tail
        values = [rank_value(h + full) for h in holes]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            if len(winners) == 1:
                wins[i] += 1
            else:
                ties[i] += 1
            shares[i] += Fraction(1, len(winners))
        boards += 1
    return [(w, t, s / boards) for w, t, s in zip(wins, ties, shares, strict=True)]


EXACT_AA_KK = 0.81255


def deal(rng: random.Random, players: int, board: int, dead: int) -> tuple[list, list, list]:
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    holes = [tuple(deck[2 * i : 2 * i + 2]) for i in range(players)]
    rest = deck[2 * players :]
    return holes, rest[:board], rest[board : board + dead]


@pytest.mark.parametrize("street", [3, 4, 5])
def test_flop_turn_and_river_match_the_brute_force_count(street: int) -> None:
    rng = random.Random(street)
    for case in range(40):
        holes, board, dead = deal(rng, rng.randint(2, 6), street, rng.choice((0, 0, 2, 5)))
        got = equity(holes, board, dead)
        assert got.exact
        expected = brute_force(holes, board, dead)
        assert [(h.wins, h.ties, h.share) for h in got.hands] == expected, case
        assert sum(h.share for h in got.hands) == 1
        # Every board has a sole winner or is tied.
        assert sum(h.wins for h in got.hands) <= got.boards


def test_pre_flop_with_many_players_is_counted_exactly() -> None:
    rng = random.Random(14)
    holes, _, _ = deal(rng, 14, 0, 0)
    got = equity(holes)
    assert got.exact and got.boards == 42_504
    assert [(h.wins, h.ties, h.share) for h in got.hands] == brute_force(holes, ())


def exact_pre_flop(holes: Sequence[tuple[Card, ...]]) -> list[tuple[float, float, float]]:
    """Every pre-flop board, each hand ranked one call at a time (an independent count)."""
    used = {c for h in holes for c in h}
    rest = [c for c in FULL_DECK if c not in used]
    values = [
        array("H", map(rank_value, (h + board for board in combinations(rest, 5)))) for h in holes
    ]
    n = len(values[0])
    wins = [0] * len(holes)
    ties = [0] * len(holes)
    shares = [Fraction(0)] * len(holes)
    for column, count in Counter(zip(*values, strict=True)).items():
        best = max(column)
        winners = [i for i, v in enumerate(column) if v == best]
        for i in winners:
            wins[i] += count if len(winners) == 1 else 0
            ties[i] += count if len(winners) > 1 else 0
            shares[i] += Fraction(count, len(winners))
    return [(w / n, t / n, float(s / n)) for w, t, s in zip(wins, ties, shares, strict=True)]


@pytest.mark.parametrize(("seed", "players"), [(1, 2), (2, 2), (3, 3), (4, 4), (5, 6)])
def test_sampled_pre_flop_is_within_half_a_point_of_the_exact_count(
    seed: int, players: int
) -> None:
    holes, _, _ = deal(random.Random(seed), players, 0, 0)
    got = equity(holes, seed=seed)
    assert not got.exact and got.boards == SAMPLES == 66_349
    for hand, (win, tie, share) in zip(got.hands, exact_pre_flop(holes), strict=True):
        assert abs(hand.win - win) < 0.005
        assert abs(hand.tie - tie) < 0.005
        assert abs(hand.equity - share) < 0.005


def test_a_known_match_up_pre_flop() -> None:
    # Aces against kings of other suits: 81.255% by the exact count (exact_pre_flop).
    got = equity([parse_cards("AsAh"), parse_cards("KdKc")])
    assert abs(got.hands[0].equity - EXACT_AA_KK) < 0.005
    # The same input gives the same figures; another seed, another sample.
    assert equity([parse_cards("AsAh"), parse_cards("KdKc")]) == got
    assert equity([parse_cards("AsAh"), parse_cards("KdKc")], seed=1) != got


def test_the_sample_is_uniform_over_the_boards_left() -> None:
    from engine.equity import _sample_boards

    rest = [c for c in FULL_DECK if c >= 10]
    boards = _sample_boards(rest, 5, 40_000, random.Random(0), ())
    assert all(len(set(b)) == 5 and set(b) <= set(rest) for b in boards)
    counts = [0] * 52
    for board in boards:
        for card in board:
            counts[card] += 1
    expected = 40_000 * 5 / len(rest)
    # Each card's count is binomial around 4,762 (sd ~68): all within 5 sd.
    assert all(abs(counts[c] - expected) < 5 * 68 for c in rest)


@pytest.mark.parametrize(
    ("holes", "board", "dead", "reason"),
    [
        (["AsAh"], "", "", "fewer_than_two_hands"),
        (["AsAh", "Kd"], "", "", "hole_not_two_cards"),
        (["AsAh", "KdKc"], "2c3c", "", "board_size"),
        (["AsAh", "AsKc"], "", "", "duplicate_card"),
        (["AsAh", "KdKc"], "2c3c4c", "2c", "duplicate_card"),
    ],
)
def test_bad_input_is_refused_without_naming_cards(
    holes: list[str], board: str, dead: str, reason: str
) -> None:
    with pytest.raises(EngineError) as refused:
        equity([parse_cards(h) for h in holes], parse_cards(board), parse_cards(dead))
    assert refused.value.code == "bad_hand"
    assert refused.value.params["reason"] == reason
    with pytest.raises(EngineError):
        equity([(0, 1), (2, 60)])  # type: ignore[list-item]
    with pytest.raises(EngineError):
        equity([(0, 1), (2, 3)], samples=0)


def test_run_out_equities_follow_the_board_street_by_street() -> None:
    holes = [parse_cards("AsAh"), parse_cards("KsKh"), parse_cards("7c8c")]
    deck = deck_from_cards(3, holes, parse_cards("2c7d9h 4s 5d"), second_run=parse_cards("KdQc"))
    config = HandConfig.standard((100, 100, 100), 1, 2, run_it_twice=RunItTwice.ALWAYS)
    hand = Hand(config, deck)
    hand.call(2)
    hand.call(0)
    hand.check(1)
    hand.go_all_in(0)
    hand.call(1)
    hand.call(2)
    stages = run_out_equities(hand)
    assert [(s.run, len(s.board)) for s in stages] == [(1, 3), (1, 4), (2, 4)]
    assert all(s.players == (0, 1, 2) and s.equity.exact for s in stages)
    assert stages[0].equity == equity(holes, parse_cards("2c7d9h"))
    assert stages[2].board == parse_cards("2c7d9hKd")
    # A hand won without a showdown has no run-out, even when the winner shows.
    folded = Hand(HandConfig.standard((100, 100), 1, 2), deck)
    folded.fold(1)
    folded.show(0)
    assert run_out_equities(folded) == ()
