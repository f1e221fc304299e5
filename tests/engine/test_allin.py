"""The class-against-class all-in equities against counts made another way.

The table is counted board by board, one board standing for each orbit of the suit renamings,
with the pairs of hands sharing a card counted and taken off. Here entries are counted pair by
pair instead (every compatible pair of combinations, by ``engine.equity`` over all 1,712,304
boards) and must come out equal as fractions; and the board-by-board count on a few boards
must equal a plain count over every board of their orbits and every pair of hands.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, permutations

import numpy as np
import pytest

from engine.bots.allin import BOARDS_PER_PAIR, DATA, compatible_pairs, count_lower, load
from engine.bots.preflop import CLASS_NAMES, CLASSES, class_combos, hand_class
from engine.cards import Card, parse_cards
from engine.equity import equity
from engine.evaluator import rank_values

HOLES = [(Card(a), Card(b)) for a, b in combinations(range(52), 2)]


def renamed(cards: tuple[Card, ...], renaming: tuple[int, ...]) -> tuple[Card, ...]:
    return tuple(sorted(Card(c >> 2 << 2 | renaming[c & 3]) for c in cards))


def pair_by_pair(first: str, second: str) -> Fraction:
    """The first class's equity, every compatible pair counted once per suit pattern, weighed by
    the pairs sharing it."""
    a, b = CLASS_NAMES.index(first), CLASS_NAMES.index(second)
    patterns: dict[tuple[tuple[Card, ...], tuple[Card, ...]], int] = {}
    for h in (h for h in HOLES if hand_class(h) == a):
        for g in (g for g in HOLES if hand_class(g) == b and not set(g) & set(h)):
            key = min((renamed(h, r), renamed(g, r)) for r in permutations(range(4)))
            patterns[key] = patterns.get(key, 0) + 1
    total = Fraction(0)
    for (h, g), count in patterns.items():
        result = equity([h, g], samples=BOARDS_PER_PAIR)
        assert result.exact
        total += count * result.hands[0].share
    return total / sum(patterns.values())


@pytest.mark.parametrize(
    ("first", "second"), [("AA", "KK"), ("AKs", "QQ"), ("72o", "T9s"), ("AKo", "AKs")]
)
def test_entries_equal_a_count_pair_by_pair(first: str, second: str) -> None:
    table = load()
    a, b = CLASS_NAMES.index(first), CLASS_NAMES.index(second)
    stored = Fraction(int(table.shares[a, b]), 2 * BOARDS_PER_PAIR * int(table.pairs[a, b]))
    assert stored == pair_by_pair(first, second)


def test_equities_of_both_sides_add_to_one() -> None:
    table = load()
    assert (table.pairs == table.pairs.T).all()
    assert (table.shares + table.shares.T == 2 * BOARDS_PER_PAIR * table.pairs).all()
    eq = table.equity()
    assert np.allclose(eq + eq.T, 1, atol=1e-12, rtol=0)
    assert np.allclose(np.diag(eq), 0.5, atol=1e-12, rtol=0)


def test_pair_counts() -> None:
    table = load()
    assert (table.pairs == compatible_pairs()).all()
    assert int(table.pairs.sum()) == 1326 * 1225
    combos = np.array([class_combos(c) for c in range(CLASSES)])
    # A hand leaves 1,225 hands of the 1,326: the counts by class add up to that.
    assert (table.pairs.sum(axis=1) == combos * 1225).all()
    name = CLASS_NAMES.index
    assert int(table.pairs[name("AA"), name("AA")]) == 6
    assert int(table.pairs[name("AA"), name("KK")]) == 36
    assert int(table.pairs[name("AKs"), name("AKo")]) == 24
    assert int(table.pairs[name("AKo"), name("AKo")]) == 12 * 7


def test_aces_are_the_favourite_of_every_class() -> None:
    eq, aces = load().equity(), CLASS_NAMES.index("AA")
    assert eq[aces, CLASS_NAMES.index("KK")] == pytest.approx(0.8195, abs=5e-5)
    assert (np.delete(eq[aces], aces) > 0.77).all()  # 65s comes closest


def test_the_data_file_is_the_package_data() -> None:
    assert DATA.parent.name == "data" and DATA.suffix == ".npy"
    assert np.load(DATA).dtype == np.dtype("<u4")


def plain_count(board: tuple[Card, ...]) -> np.ndarray:
    """``lt[a, b]`` on every board of ``board``'s orbit, every pair of hands compared."""
    orbit = {renamed(board, r) for r in permutations(range(4))}
    lower = np.zeros(CLASSES * CLASSES, dtype=np.int64)
    classes = np.array([hand_class(h) for h in HOLES])
    for each in orbit:
        live = [i for i, h in enumerate(HOLES) if not set(h) & set(each)]
        values = np.array(rank_values([HOLES[i] + each for i in live]))
        masks = np.array([(1 << HOLES[i][0]) | (1 << HOLES[i][1]) for i in live])
        apart = (masks[:, None] & masks[None, :]) == 0
        below = apart & (values[None, :] < values[:, None])
        index = classes[live][:, None] * CLASSES + classes[live][None, :]
        lower += np.bincount(index[below], minlength=CLASSES * CLASSES)
    return lower.reshape(CLASSES, CLASSES)


def test_one_board_an_orbit_and_shared_cards_taken_off() -> None:
    boards = [parse_cards(b) for b in ("2c3c4c5c7c", "AsAdKhKc2s", "Td9h5s4c2d")]
    sizes = [len({renamed(b, r) for r in permutations(range(4))}) for b in boards]
    assert sizes == [4, 12, 24]
    counted = count_lower(np.array(boards, dtype=np.uint8), np.array(sizes, dtype=np.int64))
    assert (counted == sum(plain_count(b) for b in boards)).all()
