"""The numpy evaluator against ``rank_value`` (phevaluator): every entry of both of its tables
read through the lookup path, then random hands and batches."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import combinations_with_replacement

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.bulk_eval import _flush_table, _seven_rank_table, boards_array, values_on_boards
from engine.cards import FULL_DECK, Card
from engine.errors import EngineError
from engine.evaluator import MAX_VALUE, MIN_VALUE, rank_value, rank_values, rank_values_on_boards


def through_lookup(hands: Sequence[Sequence[Card]]) -> list[int]:
    """Each seven-card hand's value by ``values_on_boards``, its first two cards as the hole."""
    by_hole: defaultdict[tuple[Card, ...], list[int]] = defaultdict(list)
    for i, hand in enumerate(hands):
        by_hole[tuple(hand[:2])].append(i)
    values = [0] * len(hands)
    for hole, where in by_hole.items():
        boards = boards_array([hands[i][2:] for i in where])
        for i, value in zip(where, values_on_boards([hole], boards)[0].tolist(), strict=True):
            values[i] = value
    return values


def test_every_seven_rank_multiset_without_a_flush() -> None:
    rng = random.Random(7)
    hands = []
    for ranks in combinations_with_replacement(range(13), 7):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        # Other suits than the table was built with: equal ranks take distinct suits at random,
        # and the counts are drawn until no suit holds five.
        while True:
            suits = {r: rng.sample(range(4), 4) for r in set(ranks)}
            hand = [Card(r * 4 + suits[r].pop()) for r in ranks]
            if max(Counter(c & 3 for c in hand).values()) < 5:
                break
        rng.shuffle(hand)
        hands.append(hand)
    assert len(hands) == 49_205
    assert through_lookup(hands) == rank_values(hands)


def test_every_flush_mask() -> None:
    table = _flush_table()
    rng = random.Random(8)
    hands = []
    for mask in range(1 << 13):
        ranks = [r for r in range(13) if mask >> r & 1]
        if not 5 <= len(ranks) <= 7:
            # Under five suited cards there is no flush; over seven cannot be dealt.
            assert table[mask] == 0
            continue
        suit = rng.randrange(4)
        suited = [Card(r * 4 + suit) for r in ranks]
        # The other cards may pair the flush's ranks: a flush still beats what they make.
        others = rng.sample([c for c in FULL_DECK if c & 3 != suit], 7 - len(ranks))
        hand = suited + others
        rng.shuffle(hand)
        hands.append(hand)
    assert len(hands) == 1287 + 1716 + 1716
    assert through_lookup(hands) == rank_values(hands)


def test_the_seven_rank_table_holds_a_value_for_each_dealt_multiset() -> None:
    table = _seven_rank_table()
    assert len(table) == 50_388
    assert np.count_nonzero(table == 0) == 50_388 - 49_205
    dealt = table[table > 0]
    assert MIN_VALUE <= dealt.min() <= dealt.max() <= MAX_VALUE


seven_cards = st.permutations(FULL_DECK).map(lambda deck: tuple(deck[:7]))


@st.composite
def flushy_hands(draw: st.DrawFn) -> tuple[Card, ...]:
    """Three to seven cards of one suit and the rest of others: near and full flushes."""
    suit = draw(st.integers(0, 3))
    size = draw(st.integers(3, 7))
    ranks = draw(st.lists(st.integers(0, 12), min_size=size, max_size=size, unique=True))
    others = draw(st.permutations([c for c in FULL_DECK if c & 3 != suit]))[: 7 - size]
    return tuple(draw(st.permutations([Card(r * 4 + suit) for r in ranks] + others)))


@given(st.one_of(seven_cards, flushy_hands()))
def test_a_seven_card_hand_has_its_rank_value(hand: tuple[Card, ...]) -> None:
    value = values_on_boards([hand[:2]], boards_array([hand[2:]]))
    assert value.shape == (1, 1) and value.dtype == np.uint16
    assert int(value[0, 0]) == rank_value(hand)


@st.composite
def deals(draw: st.DrawFn) -> tuple[list[tuple[Card, ...]], list[tuple[Card, ...]]]:
    """Up to eight holes from one deck, and boards drawn from the cards left."""
    deck = draw(st.permutations(FULL_DECK))
    players = draw(st.integers(1, 8))
    holes = [tuple(deck[2 * i : 2 * i + 2]) for i in range(players)]
    rest = deck[2 * players :]
    boards = draw(st.lists(st.permutations(rest).map(lambda d: tuple(d[:5])), max_size=30))
    return holes, boards


@given(deals())
def test_a_batch_agrees_with_rank_values_on_boards(
    deal: tuple[list[tuple[Card, ...]], list[tuple[Card, ...]]],
) -> None:
    holes, boards = deal
    values = values_on_boards(holes, boards_array(boards))
    assert values.shape == (len(holes), len(boards))
    assert values.tolist() == rank_values_on_boards(holes, boards)


@pytest.mark.parametrize(
    ("holes", "boards"),
    [
        ([(0, 1, 2)], [(3, 4, 5, 6, 7)]),
        ([(0, 1)], [(3, 4, 5, 6)]),
        ([(0, 52)], [(3, 4, 5, 6, 7)]),
        ([(0, 1)], [(3, 4, 5, 6, 52)]),
        ([(0, -1)], [(3, 4, 5, 6, 7)]),
    ],
)
def test_bad_batches_are_refused(
    holes: list[tuple[int, ...]], boards: list[tuple[int, ...]]
) -> None:
    with pytest.raises(EngineError) as refused:
        values_on_boards(holes, np.array(boards, dtype=np.uint8))  # type: ignore[arg-type]
    assert refused.value.params["reason"] == "batch"


def test_boards_of_another_dtype_are_refused() -> None:
    with pytest.raises(EngineError):
        values_on_boards([(Card(0), Card(1))], np.array([[3, 4, 5, 6, -7]]))
