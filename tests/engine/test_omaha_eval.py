"""Omaha hand making: the high hand (phevaluator's Omaha evaluator, and five calls of it for five
hole cards) and the eight-or-better low, each against a slow reference that tries every
two-plus-three combination.

The sample is stated and fixed: from ``random.Random(2026)``, 20,000 deals of four hole cards
and a full board, 8,000 of five hole cards, and 4,000 each on a flop and a turn (four hole
cards), every one compared with the reference; the lows of another 20,000 deals are compared
with a reference that lists every qualifying two-plus-three low and takes the smallest, top card
first.
"""

from __future__ import annotations

import random
from itertools import combinations, pairwise

import pytest

from engine.cards import Card, parse_cards
from engine.errors import EngineError
from engine.evaluator import evaluate_omaha, omaha_rank_value, rank_value
from engine.games import NLHE, PLO, PLO5, PLO8, game_by_code
from engine.low import LOW_BIT, evaluate_low, low_name, low_value

SEED = 2026


def slow_high(hole: tuple[Card, ...], board: tuple[Card, ...]) -> int:
    """Every two of the hole with every three of the board, through the 5-card evaluator."""
    return max(
        rank_value(two + three) for two in combinations(hole, 2) for three in combinations(board, 3)
    )


def slow_low(hole: tuple[Card, ...], board: tuple[Card, ...]) -> tuple[int, ...] | None:
    """The best low as its ranks top first (ace = 1), smallest tuple best; None for none."""
    lows = []
    for two in combinations(hole, 2):
        for three in combinations(board, 3):
            ranks = [1 if c >> 2 == 12 else (c >> 2) + 2 for c in two + three]
            if len(set(ranks)) == 5 and max(ranks) <= 8:
                lows.append(tuple(sorted(ranks, reverse=True)))
    return min(lows) if lows else None


def deals(count: int, holes: int, board: int, seed: int) -> list[tuple[tuple[Card, ...], ...]]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        cards = tuple(Card(c) for c in rng.sample(range(52), holes + board))
        out.append((cards[:holes], cards[holes:]))
    return out


@pytest.mark.parametrize(
    ("count", "holes", "board"), [(20_000, 4, 5), (8_000, 5, 5), (4_000, 4, 3), (4_000, 4, 4)]
)
def test_omaha_high_matches_every_two_plus_three(count: int, holes: int, board: int) -> None:
    for hole, shown in deals(count, holes, board, SEED + holes * 10 + board):
        assert omaha_rank_value(hole, shown) == slow_high(hole, shown), (hole, shown)


def test_named_omaha_hand_uses_exactly_two_hole_cards() -> None:
    for hole, board in deals(2_000, 4, 5, SEED):
        rank = evaluate_omaha(hole, board)
        assert rank.value == omaha_rank_value(hole, board)
        assert sum(c in hole for c in rank.cards) == 2
        assert sum(c in board for c in rank.cards) == 3
        assert rank_value(rank.cards) == rank.value


def test_omaha_is_not_holdem() -> None:
    board = parse_cards("Ah Kh Qh 7h 2d")
    # One heart in the hand: Hold'em has a flush, Omaha does not.
    assert NLHE.high_rank(parse_cards("Jh 3s"), board).code == "flush"
    assert PLO.high_rank(parse_cards("Jh 3s 4s 5s"), board).code == "high_card"
    # Four of a kind on the board plays only three of its cards.
    quads = parse_cards("9c 9d 9h 9s 2c")
    assert PLO.high_rank(parse_cards("Ac Kd 3h 4s"), quads).describe() == "Three of a kind, nines"
    # Three aces in the hand make one pair at most.
    assert PLO.high_rank(parse_cards("Ac Ad Ah 4s"), parse_cards("Kc 8d 6h 3s 2c")).code == "pair"


def test_five_card_omaha_takes_any_two_of_five() -> None:
    board = parse_cards("Ah Kh Qh 7c 2d")
    assert PLO5.high_rank(parse_cards("2c 3s 4s Jh Th"), board).code == "royal_flush"


@pytest.mark.parametrize(
    ("hole", "board"),
    [("Ac", "AhKhQh7c2d"), ("AcKdQs", "Ah"), ("AcKdQsJs", "AhKhQh7c2dTs"), ("AcAcKdQs", "2h3h4h")],
)
def test_bad_omaha_hands_are_refused(hole: str, board: str) -> None:
    with pytest.raises(EngineError) as err:
        omaha_rank_value(parse_cards(hole), parse_cards(board))
    assert err.value.code == "bad_hand"


# --- the low -------------------------------------------------------------------------------


def test_lows_match_every_two_plus_three() -> None:
    samples = deals(20_000, 4, 5, SEED + 1) + deals(3_000, 5, 5, SEED + 2)
    values = []
    for hole, board in samples:
        expected = slow_low(hole, board)
        low = evaluate_low(hole, board)
        if expected is None:
            assert low is None and low_value(hole, board) == 0
            continue
        assert low is not None and low.value == low_value(hole, board) > 0
        assert tuple(1 if c >> 2 == 12 else (c >> 2) + 2 for c in low.cards) == expected
        assert sum(c in hole for c in low.cards) == 2 and sum(c in board for c in low.cards) == 3
        values.append((low.value, expected))
    # Bigger values are exactly the better lows (smaller tuples, top card first).
    values.sort()
    for (v1, t1), (v2, t2) in pairwise(values):
        assert (v1 < v2) == (t1 > t2) and (v1 == v2) == (t1 == t2)
    assert len(values) > 5_000  # the sample holds plenty of lows


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        ("8-6-4-2-A", "8-7-3-2-A"),  # from the top card down: six beats seven
        ("7-6-5-4-3", "8-4-3-2-A"),
        ("5-4-3-2-A", "6-4-3-2-A"),
        ("8-5-4-3-2", "8-6-3-2-A"),
    ],
)
def test_lows_compare_from_the_top_card(better: str, worse: str) -> None:
    def value(text: str) -> int:
        ranks = text.split("-")
        # Two hole cards (the lowest two) and three board cards, all off-suit.
        cards = [parse_cards(r + "cdhsc"[k])[0] for k, r in enumerate(reversed(ranks))]
        hole = (cards[0], cards[1], *parse_cards("KsKd"))
        board = (cards[2], cards[3], cards[4])
        return low_value(hole, board)

    assert value(better) > value(worse) > 0
    assert low_name(value(better)) == better


def test_low_rules() -> None:
    board = parse_cards("2c 4d 6h Ks 8c")
    # Exactly two hole cards: one low card in the hand makes no low.
    assert evaluate_low(parse_cards("Ah Ts Kd Kc"), board) is None
    # A paired ace counts once; the other low card completes it.
    low = evaluate_low(parse_cards("Ah Ad 3s Kc"), board)
    assert low is not None and low.describe() == "6-4-3-2-A"
    # Counterfeited: the board's deuce and four duplicate the hand's, so only A-3 helps.
    assert evaluate_low(parse_cards("Ah 2s 3d 4c"), board) == low
    # A board with two low cards makes no low for anybody.
    assert evaluate_low(parse_cards("Ah 2s 3d 4c"), parse_cards("Kc Qd 5h 6s Jc")) is None
    # The high and the low may use different hole cards.
    hole, river = parse_cards("As Ks 3d 5c"), parse_cards("Qs Js 2s 4h 7d")
    high = PLO8.high_rank(hole, river)
    assert high.code == "flush" and {hole[0], hole[1]} < set(high.cards)
    low8 = PLO8.low_rank(hole, river)
    assert low8 is not None and low8.describe() == "7-4-3-2-A" and hole[2] in low8.cards
    assert PLO.low_rank(hole, river) is None and PLO.low_value(hole, river) == 0


def test_low_bits_and_names() -> None:
    assert [LOW_BIT[c] for c in parse_cards("Ac 2d 8h 9s")] == [0, 1, 7, -1]
    assert low_name(225) == "5-4-3-2-A" and low_name(8) == "8-7-6-5-4"
    for bad in (0, 256, 255):
        with pytest.raises(EngineError):
            low_name(bad)


def test_games_are_found_by_code() -> None:
    assert [game_by_code(code) for code in ("nlhe", "plo", "plo5", "plo8")] == [
        NLHE,
        PLO,
        PLO5,
        PLO8,
    ]
    for bad in ("PLO", "omaha", None, 4):
        with pytest.raises(EngineError) as err:
            game_by_code(bad)
        assert err.value.code == "bad_config"
