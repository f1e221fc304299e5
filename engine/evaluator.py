"""Hand evaluation: a rank object for showdown, plain int values for bulk work.

The native evaluator is phevaluator (PH Evaluator, C). It numbers cards ``rank * 4 + suit``
exactly as ``engine.cards`` does, so our ints go to it unconverted; measured in
``bench/evaluator.py``, that makes it the fastest of the PyPI evaluators tried.

A hand's **value** is its class among the 7,462 distinct five-card poker hands: 1 is 7-5-4-3-2
(no flush), 7,462 a royal flush; bigger is better and equal values tie. The numbering is a fact of
poker rather than of the library, so values may be stored and compared across versions.

>>> from engine.cards import parse_cards
>>> board = parse_cards("2c 4d 4h 9s Jc")
>>> a, b = evaluate(parse_cards("AhJd") + board), evaluate(parse_cards("2dJh") + board)
>>> a > b, a.describe(), b.describe()
(True, 'Two pair, jacks and fours, ace kicker', 'Two pair, jacks and fours, nine kicker')
>>> a.code, a.describe_parts(), pretty_cards(a.cards)
('two_pair', ('two_pair', ('J', '4', 'A')), 'J♦ J♣ 4♥ 4♦ A♥')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import chain, combinations, repeat, starmap
from operator import add, sub
from typing import Final

from phevaluator import _pheval  # its C extension (since 0.6); the public wrappers cost ~4x more

from engine.cards import RANKS, Card, pretty_cards
from engine.errors import EngineError

__all__ = [
    "MAX_VALUE",
    "MIN_VALUE",
    "Category",
    "HandRank",
    "category_of",
    "evaluate",
    "evaluate_omaha",
    "omaha_rank_value",
    "rank_value",
    "rank_values",
    "rank_values_on_boards",
]


class Category(IntEnum):
    """The nine hand categories, weakest first (a royal flush is a STRAIGHT_FLUSH)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def code(self) -> str:
        """Stable lower-case name, e.g. ``"full_house"``."""
        return self.name.lower()


# phevaluator ranks 1 (royal flush) .. 7462 (7-5-4-3-2); subtracting from this flips it so that
# bigger is better.
_FLIP: Final = 7463
MIN_VALUE: Final = 1
"""Value of the weakest hand, 7-5-4-3-2 of at least two suits."""
MAX_VALUE: Final = 7462
"""Value of a royal flush."""

# How many distinct hand classes each category has, weakest category first; the values of a
# category are one contiguous run, so these counts are all it takes to map value -> category.
_CLASSES_PER_CATEGORY: Final = (1277, 2860, 858, 858, 10, 1277, 156, 156, 10)
# Index 0 is no hand; it is filled only so that a value indexes the tuple directly.
_CATEGORY_OF_VALUE: Final[tuple[Category, ...]] = (
    Category.HIGH_CARD,
    *(category for category in Category for _ in range(_CLASSES_PER_CATEGORY[category])),
)
assert len(_CATEGORY_OF_VALUE) == MAX_VALUE + 1

_NATIVE_BY_SIZE: Final[dict[int, Callable[..., int]]] = {
    5: _pheval.evaluate_5cards,
    6: _pheval.evaluate_6cards,
    7: _pheval.evaluate_7cards,
}
_EVAL5: Final[Callable[..., int]] = _pheval.evaluate_5cards
# Five board cards then four hole cards; exactly two of the hole and three of the board.
_OMAHA4: Final[Callable[..., int]] = _pheval.evaluate_omaha_cards
_CARD_IDS: Final = frozenset(range(52))

_SINGULAR: Final = (
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)  # fmt: skip
_PLURAL: Final = (
    "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
    "jacks", "queens", "kings", "aces",
)  # fmt: skip
# {sN} is the N-th rank of describe_parts() as a singular word, {pN} as a plural one.
_ENGLISH: Final = {
    "high_card": "High card, {s0}",
    "pair": "Pair of {p0}, {s1} kicker",
    "two_pair": "Two pair, {p0} and {p1}, {s2} kicker",
    "three_of_a_kind": "Three of a kind, {p0}",
    "straight": "Straight, {s0} high",
    "flush": "Flush, {s0} high",
    "full_house": "Full house, {p0} over {p1}",
    "four_of_a_kind": "Four of a kind, {p0}",
    "straight_flush": "Straight flush, {s0} high",
    "royal_flush": "Royal flush",
}
# Positions in the reading-ordered five whose ranks name the hand (see describe_parts).
_NAMING_POSITIONS: Final = {
    Category.HIGH_CARD: (0,),
    Category.PAIR: (0, 2),
    Category.TWO_PAIR: (0, 2, 4),
    Category.THREE_OF_A_KIND: (0,),
    Category.STRAIGHT: (0,),
    Category.FLUSH: (0,),
    Category.FULL_HOUSE: (0, 3),
    Category.FOUR_OF_A_KIND: (0,),
    Category.STRAIGHT_FLUSH: (0,),
}


def category_of(value: int) -> Category:
    """The category of a hand value.

    >>> category_of(MAX_VALUE), category_of(MIN_VALUE)
    (<Category.STRAIGHT_FLUSH: 8>, <Category.HIGH_CARD: 0>)
    """
    if not MIN_VALUE <= value <= MAX_VALUE:
        raise EngineError("bad_hand_value", value=value)
    return _CATEGORY_OF_VALUE[value]


@dataclass(frozen=True, slots=True, order=True)
class HandRank:
    """How strong a hand is, and its best five cards.

    Ordering and equality look at ``value`` only: two hands of equal value tie whatever their suits.
    ``cards`` reads as a player would say it: the group that makes the hand, largest group first
    (J J 4 4 A, 7 7 7 K 2), straights from the top with the ace last in 5-4-3-2-A. When several
    fives are equally strong the one with the higher suits (s > h > d > c) card by card is shown:
    suits never rank, this only makes the display deterministic.
    """

    value: int
    category: Category = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)

    @property
    def code(self) -> str:
        """Stable name: ``category.code``, but ``"royal_flush"`` for the ace-high straight flush."""
        return "royal_flush" if self.value == MAX_VALUE else self.category.code

    def describe_parts(self) -> tuple[str, tuple[str, ...]]:
        """The code and the ranks (characters of ``RANKS``) a translation needs to name the hand.

        ``high_card``/``straight``/``flush``/``straight_flush``: (top,); ``pair``: (pair, first
        kicker); ``two_pair``: (high pair, low pair, kicker); ``three_of_a_kind`` and
        ``four_of_a_kind``: (set,); ``full_house``: (trips, pair); ``royal_flush``: ().

        >>> from engine.cards import parse_cards
        >>> evaluate(parse_cards("Kc Kd Kh 4s 4c")).describe_parts()
        ('full_house', ('K', '4'))
        """
        code = self.code
        if code == "royal_flush":
            return code, ()
        return code, tuple(RANKS[self.cards[i] >> 2] for i in _NAMING_POSITIONS[self.category])

    def describe(self) -> str:
        """The hand in English, e.g. ``"Full house, kings over fours"``.

        >>> from engine.cards import parse_cards
        >>> evaluate(parse_cards("5d 4c 3h 2s Ac 9d 9h")).describe()
        'Straight, five high'
        """
        code, ranks = self.describe_parts()
        words: dict[str, str] = {}
        for i, rank in enumerate(ranks):
            index = RANKS.index(rank)
            words[f"s{i}"] = _SINGULAR[index]
            words[f"p{i}"] = _PLURAL[index]
        return _ENGLISH[code].format(**words)

    def __str__(self) -> str:
        return f"{self.describe()} ({pretty_cards(self.cards)})"


def _bad_hand(cards: Sequence[object]) -> EngineError:
    # The params name what is wrong but never the cards: they may be someone's hole cards.
    if len(cards) not in _NATIVE_BY_SIZE:
        return EngineError("bad_hand", reason="size", size=len(cards))
    if not _CARD_IDS.issuperset(cards):
        return EngineError("bad_hand", reason="card", size=len(cards))
    return EngineError("bad_hand", reason="duplicate", size=len(cards))


def rank_value(cards: Sequence[Card]) -> int:
    """Value of the best five of 5, 6 or 7 distinct cards (bigger is better; see the module doc).

    Raises ``EngineError("bad_hand", reason=..., size=...)`` for a wrong count, a card outside
    0..51 or a repeated card.

    >>> from engine.cards import parse_cards
    >>> rank_value(parse_cards("AhAd Kc 9s 7d")) > rank_value(parse_cards("AcAs Qh 9d 7c"))
    True
    """
    native = _NATIVE_BY_SIZE.get(len(cards))
    if native is None or len(set(cards)) != len(cards) or not _CARD_IDS.issuperset(cards):
        raise _bad_hand(cards)
    return _FLIP - native(*cards)


def rank_values(hands: Sequence[Sequence[Card]]) -> list[int]:
    """``[rank_value(h) for h in hands]``, a few times faster.

    Every card is checked to be in 0..51 (an out-of-range id would make the native code read out
    of bounds), but to keep the batch fast the cards of one hand are NOT checked for repeats: a
    hand with a repeated card gets a meaningless value. Hands dealt from one deck never repeat.
    A batch whose hands all have the same size takes the fast path; mixed sizes work, slower.

    >>> from engine.cards import parse_cards
    >>> rank_values([parse_cards("AsKsQsJsTs2c3c"), parse_cards("7c5d4h3s2c")])
    [7462, 1]
    """
    if not hands:
        return []
    native = _NATIVE_BY_SIZE.get(len(hands[0]))
    if native is not None and _CARD_IDS.issuperset(chain.from_iterable(hands)):
        try:
            return list(map(sub, repeat(_FLIP), starmap(native, hands)))
        except TypeError:
            pass  # a hand of another size: the checked path below handles and reports it
    return [rank_value(hand) for hand in hands]


def rank_values_on_boards(
    holes: Sequence[Sequence[Card]], boards: Sequence[Sequence[Card]]
) -> list[list[int]]:
    """For each of ``holes``, its value with each of ``boards``: ``rank_values`` of every
    ``hole + board``, hand by hand, for when many boards meet a few hands (equity).

    Every card is checked to be in 0..51, the boards once for all hands; as in ``rank_values``
    repeats are not checked. Hands and boards are the same size throughout (5 to 7 cards in all).

    >>> from engine.cards import parse_cards
    >>> holes = [parse_cards("AsKs"), parse_cards("7c2d")]
    >>> boards = [parse_cards("QsJsTs2c3c"), parse_cards("7d7h2h4s5c")]
    >>> values = rank_values_on_boards(holes, boards)
    >>> values == [[rank_value(h + b) for b in boards] for h in holes], values[0][0]
    (True, 7462)
    """
    if not boards:
        return [[] for _ in holes]
    size = len(boards[0])
    natives = {len(hole) + size for hole in holes}
    native = _NATIVE_BY_SIZE.get(natives.pop()) if len(natives) == 1 else None
    if (
        native is None
        or set(map(len, boards)) != {size}
        or not _CARD_IDS.issuperset(chain.from_iterable(holes))
        or not _CARD_IDS.issuperset(chain.from_iterable(boards))
    ):
        raise EngineError("bad_hand", reason="batch", size=size)
    flip = repeat(_FLIP)
    return [
        list(map(sub, flip, starmap(native, map(add, repeat(tuple(hole)), boards))))
        for hole in holes
    ]


def _reading_order(five: tuple[Card, ...]) -> tuple[Card, ...]:
    ranks = [card >> 2 for card in five]
    counts = {rank: ranks.count(rank) for rank in ranks}
    # Five distinct ranks A 2 3 4 5 can only be the wheel, where the ace reads (and counts) low.
    low_ace = len(counts) == 5 and set(counts) == {12, 0, 1, 2, 3}

    def key(card: Card) -> tuple[int, int, int]:
        rank = card >> 2
        return counts[rank], -1 if low_ace and rank == 12 else rank, card & 3

    return tuple(sorted(five, key=key, reverse=True))


def evaluate(cards: Sequence[Card]) -> HandRank:
    """Rank 5, 6 or 7 distinct cards and find the best five (for showdown, not for bulk work).

    >>> from engine.cards import parse_cards, format_cards
    >>> hand = evaluate(parse_cards("Kc 9c 6c 3c 8d Ac 5h"))
    >>> hand.code, format_cards(hand.cards), hand.describe()
    ('flush', 'AcKc9c6c3c', 'Flush, ace high')
    """
    value = rank_value(cards)
    # Equally strong fives read with the same ranks, so comparing the reading-ordered card ints
    # compares only their suits: a deterministic choice that no poker rule depends on.
    best = max(
        _reading_order(five) for five in combinations(cards, 5) if _FLIP - _EVAL5(*five) == value
    )
    return HandRank(value, _CATEGORY_OF_VALUE[value], best)


# --- two hole cards and three board cards (Omaha) ------------------------------------------


def _check_omaha(hole: Sequence[Card], board: Sequence[Card]) -> None:
    cards = (*hole, *board)
    if len(hole) < 2 or not 3 <= len(board) <= 5:
        raise EngineError("bad_hand", reason="size", size=len(cards))
    if not _CARD_IDS.issuperset(cards):
        raise EngineError("bad_hand", reason="card", size=len(cards))
    if len(set(cards)) != len(cards):
        raise EngineError("bad_hand", reason="duplicate", size=len(cards))


def omaha_rank_value(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Value of the best five made of exactly two of ``hole`` and three of ``board``.

    The values are :func:`rank_value`'s. ``board`` has 3 to 5 cards (the flop on), ``hole`` two
    or more. Four hole cards on a full board are one call of phevaluator's Omaha evaluator; five
    are five such calls, one per four of them, since every two of the five lie in three of those
    fours; anything else tries every two-plus-three combination.

    >>> from engine.cards import parse_cards
    >>> board = parse_cards("Ah Kh Qh 7c 2d")
    >>> category_of(omaha_rank_value(parse_cards("Jh Th 4s 5s"), board))
    <Category.STRAIGHT_FLUSH: 8>
    >>> category_of(omaha_rank_value(parse_cards("Jh 3s 4s 5s"), board))  # one heart: no flush
    <Category.HIGH_CARD: 0>
    """
    _check_omaha(hole, board)
    if len(board) == 5:
        if len(hole) == 4:
            return _FLIP - _OMAHA4(*board, *hole)
        if len(hole) == 5:
            return _FLIP - min(_OMAHA4(*board, *four) for four in combinations(hole, 4))
    return _FLIP - min(
        _EVAL5(*two, *three) for two in combinations(hole, 2) for three in combinations(board, 3)
    )


def evaluate_omaha(hole: Sequence[Card], board: Sequence[Card]) -> HandRank:
    """:func:`evaluate` for Omaha: the best two-plus-three five, named as :class:`HandRank`.

    >>> from engine.cards import parse_cards, format_cards
    >>> hand = evaluate_omaha(parse_cards("As Ad Kc Qd"), parse_cards("Ah 9c 5c 2c 3d"))
    >>> hand.describe(), format_cards(hand.cards)   # one club in the hand is no flush
    ('Three of a kind, aces', 'AsAhAd9c5c')
    """
    value = omaha_rank_value(hole, board)
    best = max(
        _reading_order(two + three)
        for two in combinations(hole, 2)
        for three in combinations(board, 3)
        if _FLIP - _EVAL5(*two, *three) == value
    )
    return HandRank(value, _CATEGORY_OF_VALUE[value], best)
