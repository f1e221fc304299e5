"""Hand evaluation: RULES.md section 6, every tie-break of seed 004, names, and exact counts."""

from __future__ import annotations

import doctest
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations, islice, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engine.evaluator
from engine.cards import FULL_DECK, Card, format_cards, parse_cards
from engine.errors import EngineError
from engine.evaluator import (
    MAX_VALUE,
    MIN_VALUE,
    Category,
    HandRank,
    category_of,
    evaluate,
    rank_value,
    rank_values,
)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def best(hole: str, board: str) -> HandRank:
    return evaluate(cards(hole) + cards(board))


def read(hand: HandRank) -> str:
    """The best five as rank letters in reading order, e.g. ``"JJ44A"``."""
    return format_cards(hand.cards)[::2]


# --- an independent reference, written from the rules text alone ----------------------------


def reference_key(five: Sequence[int]) -> tuple[int, ...]:
    """(category, tie-break ranks...) of five cards, compared as a tuple, from RULES.md 6."""
    ranks = sorted((c >> 2 for c in five), reverse=True)
    flush = len({c & 3 for c in five}) == 1
    distinct = sorted(set(ranks), reverse=True)
    top: int | None = None
    if len(distinct) == 5 and distinct[0] - distinct[4] == 4:
        top = distinct[0]
    elif distinct == [12, 3, 2, 1, 0]:
        top = 3  # the wheel: the ace counts low
    groups = sorted(Counter(ranks).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    shape = tuple(n for _, n in groups)
    order = tuple(r for r, _ in groups)
    if top is not None and flush:
        return (8, top)
    if shape == (4, 1):
        return (7, *order)
    if shape == (3, 2):
        return (6, *order)
    if flush:
        return (5, *ranks)
    if top is not None:
        return (4, top)
    if shape == (3, 1, 1):
        return (3, *order)
    if shape == (2, 2, 1):
        return (2, *order)
    if shape == (2, 1, 1, 1):
        return (1, *order)
    return (0, *ranks)


def reference_best(hand: Sequence[int]) -> tuple[int, ...]:
    return max(reference_key(five) for five in combinations(hand, 5))


def test_docstring_examples() -> None:
    assert doctest.testmod(engine.evaluator).failed == 0


# --- RULES.md section 6 examples -------------------------------------------------------------


def test_e1_ace_kicker_beats_nine_kicker_on_paired_board() -> None:
    board = "2c 4d 4h 9s Jc"
    aj = best("Ah Jd", board)
    two_j = best("2d Jh", board)
    assert aj > two_j
    assert read(aj) == "JJ44A"
    assert read(two_j) == "JJ449"
    assert aj.describe() == "Two pair, jacks and fours, ace kicker"
    assert two_j.describe() == "Two pair, jacks and fours, nine kicker"


def test_e2_flush_with_one_hole_card() -> None:
    hand = best("A♣ 5♥", "K♣ 9♣ 6♣ 3♣ 8♦")
    assert hand.category is Category.FLUSH
    assert hand.cards == cards("Ac Kc 9c 6c 3c")
    assert hand.describe() == "Flush, ace high"


def test_e3_board_straight_everyone_splits() -> None:
    board = "As Kd Qh Jc Ts"
    hands = [best(hole, board) for hole in ["2c 3d", "9h 9s", "Ad Kh", "Qs Qd", "Ks 2s", "Tc Th"]]
    assert len({hand.value for hand in hands}) == 1
    assert all(hand == hands[0] for hand in hands)
    for hand in hands:
        assert hand.category is Category.STRAIGHT
        assert hand.describe() == "Straight, ace high"
        assert read(hand) == "AKQJT"


def test_e4_king_kicker_beats_queen_kicker() -> None:
    aak = evaluate(cards("Ah Ad Kc 9s 7d"))
    aaq = evaluate(cards("Ac As Qh 9d 7c"))
    assert aak > aaq
    assert rank_value(cards("Ah Ad Kc 9s 7d")) > rank_value(cards("Ac As Qh 9d 7c"))
    assert aak.describe() == "Pair of aces, king kicker"
    assert aaq.describe() == "Pair of aces, queen kicker"


def test_e10_third_kicker_decides() -> None:
    board = "6c 7d 8h Qs Kc"
    j8 = best("Jd 8s", board)
    n8 = best("9h 8c", board)
    assert read(j8) == "88KQJ"
    assert read(n8) == "88KQ9"
    assert j8 > n8


def test_e10_board_kickers_split() -> None:
    board = "7c 8d Kh Qs Ac"
    j8 = best("Jd 8s", board)
    n8 = best("9h 8c", board)
    assert read(j8) == read(n8) == "88AKQ"
    assert j8 == n8
    assert j8.value == n8.value


# --- seed 004 tie-breaks, rank by rank -------------------------------------------------------


def assert_order(*hands: str) -> None:
    """Each five-card hand beats the next one."""
    values = [rank_value(cards(hand)) for hand in hands]
    ranks = [evaluate(cards(hand)) for hand in hands]
    for i in range(len(hands) - 1):
        assert values[i] > values[i + 1], (hands[i], hands[i + 1])
        assert ranks[i] > ranks[i + 1], (hands[i], hands[i + 1])


def assert_tie(*hands: str) -> None:
    values = {rank_value(cards(hand)) for hand in hands}
    assert len(values) == 1, hands
    assert len({evaluate(cards(hand)) for hand in hands}) == 1


def test_category_order() -> None:
    assert_order(
        "As Ks Qs Js Ts",  # royal flush
        "9h 8h 7h 6h 5h",  # straight flush
        "2c 2d 2h 2s 3c",  # four of a kind
        "3c 3d 3h 2s 2c",  # full house
        "7d 5d 4d 3d 2d",  # flush
        "6c 5d 4h 3s 2c",  # straight
        "2c 2d 2h 4s 3c",  # three of a kind
        "3c 3d 2h 2s 4c",  # two pair
        "2c 2d 5h 4s 3c",  # pair
        "Ac Kd Qh Js 9c",  # high card
    )


def test_straight_flush_by_top_card_steel_wheel_lowest() -> None:
    assert_order("Kd Qd Jd Td 9d", "6c 5c 4c 3c 2c", "5h 4h 3h 2h Ah", "Ac Ad Ah As Kc")
    assert_tie("9h 8h 7h 6h 5h", "9s 8s 7s 6s 5s")


def test_quads_by_quad_then_kicker() -> None:
    assert_order("Kc Kd Kh Ks 2c", "Qc Qd Qh Qs Ac", "Qc Qd Qh Qs Kc", "Qc Qd Qh Qs 2c")
    assert_tie("Qc Qd Qh Qs 5c", "Qc Qd Qh Qs 5d")


def test_quads_on_board_best_kicker_plays() -> None:
    board = "Qc Qd Qh Qs 2c"
    assert best("Ah 3d", board) > best("Kh Kd", board)
    assert read(best("Kh Kd", board)) == "QQQQK"
    # When the board's kicker is the best one, everyone plays the board.
    board = "Qc Qd Qh Qs Ac"
    assert best("Kh Kd", board) == best("2h 3d", board)


def test_full_house_by_trips_then_pair() -> None:
    assert_order("Kc Kd Kh 2s 2c", "Qc Qd Qh As Ac", "Qc Qd Qh Js Jc", "Qc Qd Qh 2s 2c")
    assert_tie("Qc Qd Qh Js Jc", "Qs Qd Qh Jd Jh")


def test_full_house_from_two_trips_takes_the_higher_trips() -> None:
    hand = evaluate(cards("Kc Kd Kh Qs Qc Qd 2h"))
    assert hand.category is Category.FULL_HOUSE
    assert read(hand) == "KKKQQ"
    assert hand.describe() == "Full house, kings over queens"
    hand = evaluate(cards("3c 3d 3h 2s 2c Ad Ah"))
    assert read(hand) == "333AA"


def test_flush_card_by_card() -> None:
    assert_order(
        "Ac Kc 9c 6c 4c",
        "Ad Kd 9d 6d 3d",
        "Ah Kh 9h 5h 4h",
        "Ah Kh 8h 6h 4h",
        "Ah Qh 9h 6h 4h",
        "Kh Qh 9h 6h 4h",
    )
    assert_tie("Ac Kc 9c 6c 4c", "As Ks 9s 6s 4s")


def test_flush_uses_the_five_highest_of_its_suit() -> None:
    hand = evaluate(cards("2s 9s Ks 4s Ts 7s Ah"))
    assert format_cards(hand.cards) == "KsTs9s7s4s"


def test_straight_by_top_card_wheel_lowest() -> None:
    assert_order(
        "Ac Kd Qh Js Tc", "Kc Qd Jh Ts 9c", "6c 5d 4h 3s 2c", "5c 4d 3h 2s Ac", "Ac Ad Ah Kc Qd"
    )
    assert_tie("9c 8d 7h 6s 5c", "9s 8s 7d 6d 5h")


def test_wheel_reads_five_high() -> None:
    hand = evaluate(cards("Ac 2d 3h 4s 5c"))
    assert hand.category is Category.STRAIGHT
    assert read(hand) == "5432A"
    assert hand.describe() == "Straight, five high"
    assert hand.describe_parts() == ("straight", ("5",))
    steel = evaluate(cards("Ah 2h 3h 4h 5h"))
    assert steel.category is Category.STRAIGHT_FLUSH
    assert read(steel) == "5432A"
    assert steel.describe() == "Straight flush, five high"


def test_wheel_with_a_six_is_six_high() -> None:
    hand = evaluate(cards("Ac 2d 3h 4s 5c 6d Kh"))
    assert read(hand) == "65432"


@pytest.mark.parametrize("text", ["Qc Kd Ah 2s 3c", "Jc Qd Kh As 2c", "Kc Ah 2d 3s 4c"])
def test_straights_never_wrap_around(text: str) -> None:
    hand = evaluate(cards(text))
    assert hand.category is Category.HIGH_CARD
    assert hand.describe() == "High card, ace"


def test_no_wrap_in_seven_cards() -> None:
    hand = evaluate(cards("Qc Kd Ah 2s 3c 7d 8h"))
    assert hand.category is Category.HIGH_CARD
    assert read(hand) == "AKQ87"


def test_three_of_a_kind_by_trips_then_kickers() -> None:
    assert_order(
        "8c 8d 8h 3s 2c", "7c 7d 7h As Kc", "7c 7d 7h As Qc", "7c 7d 7h As Jc", "7c 7d 7h Ks Qc"
    )
    assert_tie("7c 7d 7h As Kc", "7s 7d 7h Ad Kd")


def test_two_pair_by_high_pair_low_pair_then_kicker() -> None:
    assert_order(
        "Kc Kd 3h 2s 2c",
        "Qc Qd Jh Js Ac",
        "Qc Qd Th Ts Ac",
        "Qc Qd Th Ts Kc",
        "Qc Qd Th Ts 2c",
    )
    assert_tie("Qc Qd Th Ts Kc", "Qs Qh Td Tc Kd")


def test_two_pair_from_three_pairs_keeps_the_best_kicker() -> None:
    hand = evaluate(cards("Ac Ad Kc Kd Qc Qd 2s"))
    assert read(hand) == "AAKKQ"
    hand = evaluate(cards("Ac Ad Kc Kd 2c 2d Qs"))
    assert read(hand) == "AAKKQ"


def test_one_pair_by_pair_then_three_kickers_in_order() -> None:
    assert_order(
        "9c 9d 4h 3s 2c",
        "8c 8d Ah Ks 3c",
        "8c 8d Ah Ks 2c",
        "8c 8d Ah Qs Jc",
        "8c 8d Kh Qs Jc",
    )
    assert_tie("8c 8d Ah Ks 3c", "8s 8h Ad Kc 3d")


def test_high_card_card_by_card() -> None:
    assert_order(
        "Ac Kd Qh Js 9c",
        "Ac Kd Qh Js 8c",
        "Ac Kd Qh Ts 9c",
        "Ac Qd Jh 9s 7c",
        "Ac Qd Jh 9s 6c",
        "Ac Qd Jh 8s 7c",
        "Kc Qd Jh 9s 7c",
        "7c 5d 4h 3s 2c",
    )


def test_five_identical_ranks_split() -> None:
    a = evaluate(cards("Ac Kd Qh Js 9c"))
    b = evaluate(cards("As Kh Qd Jc 9s"))
    assert a == b
    assert hash(a) == hash(b)
    assert not a < b and not a > b and a <= b and a >= b
    assert a.cards != b.cards


def test_sixth_and_seventh_cards_never_count() -> None:
    # All make K K Q J 8; their own cards lie outside the best five and decide nothing.
    board = "Kc Kd Qh Js 8c"
    assert best("2h 7d", board) == best("3h 6d", board) == best("4h 5d", board)
    assert read(best("2h 7d", board)) == "KKQJ8"
    # The quads' kicker is one card, the best of the rest, never a sum of more.
    board = "7c 7d 7h 7s 9c"
    assert best("2h 3d", board) == best("4h 5d", board)


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reading", "describe", "code", "parts"),
    [
        ("As Kd 9h 7c 3s", "AK973", "High card, ace", "high_card", ("A",)),
        ("Tc 8d 7h 4c 3s", "T8743", "High card, ten", "high_card", ("T",)),
        ("3s Ad Kh 7c As", "AAK73", "Pair of aces, king kicker", "pair", ("A", "K")),
        ("6s 6d Qh 7c 3s", "66Q73", "Pair of sixes, queen kicker", "pair", ("6", "Q")),
        (
            "4h Js As Jd 4c",
            "JJ44A",
            "Two pair, jacks and fours, ace kicker",
            "two_pair",
            ("J", "4", "A"),
        ),
        ("7s 2s 7d 7h Kc", "777K2", "Three of a kind, sevens", "three_of_a_kind", ("7",)),
        ("2s 2d 2h Kc 3s", "222K3", "Three of a kind, twos", "three_of_a_kind", ("2",)),
        ("5s 9s 8d 7h 6c", "98765", "Straight, nine high", "straight", ("9",)),
        ("5s 4d 3h 2c As", "5432A", "Straight, five high", "straight", ("5",)),
        ("Ts Js Qd Kh Ac", "AKQJT", "Straight, ace high", "straight", ("A",)),
        ("3s As Js 9s 6s", "AJ963", "Flush, ace high", "flush", ("A",)),
        ("4c Ks 4s Kd Kh", "KKK44", "Full house, kings over fours", "full_house", ("K", "4")),
        ("Tc Ts Td 6c 6s", "TTT66", "Full house, tens over sixes", "full_house", ("T", "6")),
        ("Qs 2s Qd Qh Qc", "QQQQ2", "Four of a kind, queens", "four_of_a_kind", ("Q",)),
        ("9s 5s 7s 6s 8s", "98765", "Straight flush, nine high", "straight_flush", ("9",)),
        ("Ts Ks Qs Js As", "AKQJT", "Royal flush", "royal_flush", ()),
    ],
)
def test_describe(
    text: str, reading: str, describe: str, code: str, parts: tuple[str, ...]
) -> None:
    hand = evaluate(cards(text))
    assert read(hand) == reading
    assert hand.describe() == describe
    assert hand.code == code
    assert hand.describe_parts() == (code, parts)
    assert str(hand).startswith(describe + " (")


def test_royal_flush_is_a_straight_flush_category() -> None:
    royal = evaluate(cards("Ah Kh Qh Jh Th 2c 2d"))
    assert royal.category is Category.STRAIGHT_FLUSH
    assert royal.category.code == "straight_flush"
    assert royal.code == "royal_flush"
    assert royal.value == MAX_VALUE
    assert evaluate(cards("Kh Qh Jh Th 9h")).code == "straight_flush"


def test_category_codes() -> None:
    assert [c.code for c in Category] == [
        "high_card", "pair", "two_pair", "three_of_a_kind", "straight", "flush", "full_house",
        "four_of_a_kind", "straight_flush",
    ]  # fmt: skip
    assert [int(c) for c in Category] == list(range(9))


# --- the best five ---------------------------------------------------------------------------


def test_best_five_ties_are_chosen_by_suit_deterministically() -> None:
    # Three ways to make the 9-high straight; the highest suits card by card are shown.
    hand = evaluate(cards("9c 8d 7h 6s 5c 9s 9d"))
    assert format_cards(hand.cards) == "9s8d7h6s5c"
    hand = evaluate(cards("Ac Ad Ah As Kc Kd Kh"))
    assert format_cards(hand.cards) == "AsAhAdAcKh"


@given(st.permutations(FULL_DECK).map(lambda deck: deck[:7]), st.randoms())
def test_best_five_does_not_depend_on_card_order(hand: list[Card], rnd: random.Random) -> None:
    shuffled = list(hand)
    rnd.shuffle(shuffled)
    assert evaluate(hand).cards == evaluate(shuffled).cards


@given(st.integers(5, 7).flatmap(lambda n: st.permutations(FULL_DECK).map(lambda d: d[:n])))
def test_evaluate_agrees_with_reference(hand: list[Card]) -> None:
    ranked = evaluate(hand)
    assert ranked.value == rank_value(hand) == rank_values([hand])[0]
    assert ranked.category == category_of(ranked.value)
    assert len(ranked.cards) == 5
    assert set(ranked.cards) <= set(hand)
    expected = reference_best(hand)
    assert reference_key(ranked.cards) == expected
    assert ranked.category == expected[0]


def test_value_order_matches_reference_order_on_random_hands() -> None:
    rnd = random.Random(20240601)
    hands = [tuple(rnd.sample(FULL_DECK, rnd.choice((5, 6, 7)))) for _ in range(4000)]
    values = rank_values(hands)
    assert values == [rank_value(h) for h in hands]
    keyed = sorted(zip(values, (reference_best(h) for h in hands), strict=True))
    for (v1, k1), (v2, k2) in pairwise(keyed):
        assert (v1 < v2) == (k1 < k2)
        assert (v1 == v2) == (k1 == k2)
    ranked = sorted(hands, key=evaluate)
    assert [rank_value(h) for h in ranked] == sorted(values)


# --- fast paths and errors -------------------------------------------------------------------


def test_rank_values_batches() -> None:
    assert rank_values([]) == []
    sevens = [cards("As Ks Qs Js Ts 2c 3d"), cards("7c 5d 4h 3s 2c 9d Jh")]
    assert rank_values(sevens) == [rank_value(h) for h in sevens]
    assert rank_values([list(h) for h in sevens]) == rank_values(sevens)
    assert rank_values([cards("7c 5d 4h 3s 2c")]) == [MIN_VALUE]
    mixed = [cards("7c 5d 4h 3s 2c"), cards("As Ks Qs Js Ts 2c"), cards("2c 2d 2h 2s 3c 3d 3h")]
    assert rank_values(mixed) == [rank_value(h) for h in mixed]
    assert rank_values(mixed[::-1]) == [rank_value(h) for h in mixed[::-1]]


@pytest.mark.parametrize(
    ("hand", "reason"),
    [
        ((0, 1, 2, 3), "size"),
        ((0, 1, 2, 3, 4, 5, 6, 7), "size"),
        ((), "size"),
        ((0, 1, 2, 3, 52), "card"),
        ((0, 1, 2, 3, -1), "card"),
        ((0, 1, 2, 3, 10**9), "card"),
        ((0, 1, 2, 3, 3), "duplicate"),
        ((0, 0, 0, 0, 0, 0, 0), "duplicate"),
    ],
)
def test_rank_value_rejects_bad_hands(hand: tuple[int, ...], reason: str) -> None:
    bad = tuple(Card(c) for c in hand)
    calls: list[Callable[[tuple[Card, ...]], object]] = [rank_value, evaluate]
    if reason != "duplicate":  # the batch checks ranges but, for speed, not repeats (documented)
        calls.append(lambda h: rank_values([h]))
    for call in calls:
        with pytest.raises(EngineError) as info:
            call(bad)
        assert info.value.code == "bad_hand"
        assert info.value.params == {"reason": reason, "size": len(hand)}


def test_rank_values_checks_every_card_range() -> None:
    good = cards("As Ks Qs Js Ts 2c 3d")
    with pytest.raises(EngineError) as info:
        rank_values([good, (*good[:6], Card(99))])
    assert info.value.params["reason"] == "card"


def test_category_of_bounds() -> None:
    assert category_of(MIN_VALUE) is Category.HIGH_CARD
    assert category_of(MAX_VALUE) is Category.STRAIGHT_FLUSH
    for value in (0, MAX_VALUE + 1, -5):
        with pytest.raises(EngineError) as info:
            category_of(value)
        assert info.value.code == "bad_hand_value"


def test_hand_rank_is_frozen_and_ordered_by_value_only() -> None:
    a = evaluate(cards("Ac Kd Qh Js 9c"))
    b = evaluate(cards("Ac Kd Qh Js 8c"))
    assert sorted([a, b]) == [b, a]
    assert max(a, b) is a
    with pytest.raises(AttributeError):
        a.value = 3  # type: ignore[misc]


# --- exact counts ----------------------------------------------------------------------------

FIVE_CARD_COUNTS = {
    Category.STRAIGHT_FLUSH: 40,
    Category.FOUR_OF_A_KIND: 624,
    Category.FULL_HOUSE: 3744,
    Category.FLUSH: 5108,
    Category.STRAIGHT: 10200,
    Category.THREE_OF_A_KIND: 54912,
    Category.TWO_PAIR: 123552,
    Category.PAIR: 1098240,
    Category.HIGH_CARD: 1302540,
}
# Distinct hand classes (values) per category; 7,462 in all.
CLASS_COUNTS = {
    Category.STRAIGHT_FLUSH: 10,
    Category.FOUR_OF_A_KIND: 156,
    Category.FULL_HOUSE: 156,
    Category.FLUSH: 1277,
    Category.STRAIGHT: 10,
    Category.THREE_OF_A_KIND: 858,
    Category.TWO_PAIR: 858,
    Category.PAIR: 2860,
    Category.HIGH_CARD: 1277,
}


def chunks(hands: Iterable[tuple[Card, ...]], size: int) -> Iterable[list[tuple[Card, ...]]]:
    it = iter(hands)
    while chunk := list(islice(it, size)):
        yield chunk


def test_all_five_card_hands_exact_category_counts() -> None:
    by_value: Counter[int] = Counter()
    example: dict[int, tuple[Card, ...]] = {}
    for chunk in chunks(combinations(FULL_DECK, 5), 1 << 18):
        values = rank_values(chunk)
        by_value.update(values)
        example.update(zip(values, chunk, strict=True))

    assert by_value.total() == 2_598_960
    per_category: Counter[Category] = Counter()
    classes: Counter[Category] = Counter()
    for value, n in by_value.items():
        per_category[category_of(value)] += n
        classes[category_of(value)] += 1
    assert per_category == FIVE_CARD_COUNTS
    assert classes == CLASS_COUNTS
    assert sorted(by_value) == list(range(MIN_VALUE, MAX_VALUE + 1))
    assert by_value[MAX_VALUE] == 4  # the four royal flushes

    # One hand of every value, in value order, must be in strictly increasing reference order:
    # this checks the whole ordering of the 7,462 classes against the rules text.
    keys = [reference_key(example[value]) for value in range(MIN_VALUE, MAX_VALUE + 1)]
    assert all(k1 < k2 for k1, k2 in pairwise(keys))
    # Its speed is bench.evaluator's business (ratios in one run), not a test's.
