"""Eight-or-better low hands, the low half of Omaha Hi-Lo (奧馬哈高低牌).

A low is five cards of five different ranks, all eight or lower, the ace counting low (one), made
from exactly two hole cards and three board cards; straights and flushes do not count against
it. Lows compare from the top card down: 8-6-4-2-A beats 8-7-3-2-A (six against seven at the
second card), and 5-4-3-2-A (the wheel) is the best. The high hand and the low hand of a player
may use different cards.

A low's **value** is bigger for a better low and 0 when there is none, so values order and tie
as the high hand values of :mod:`engine.evaluator` do. Five distinct ranks of A..8 are eight bits
(A is bit 0, 8 is bit 7), and comparing the top card down is comparing those masks as numbers,
the smaller the better; the value is ``256 - mask``: 225 for 5-4-3-2-A, 8 for 8-7-6-5-4. There
are 56 lows, so values fit a byte and may be stored.

The best low of a pair of hole ranks takes the three lowest board ranks the pair does not
already hold (any other three give a bigger mask), so a hand is its best pair: at most 10 pairs,
never the 60 or 100 two-plus-three combinations.

>>> from engine.cards import parse_cards
>>> board = parse_cards("2c 4d 6h Ks 8c")
>>> low = evaluate_low(parse_cards("Ah 3s Kd Kc"), board)
>>> low.describe(), low.value, low_value(parse_cards("Ah 7s Kd Kc"), board) < low.value
('6-4-3-2-A', 209, True)
>>> evaluate_low(parse_cards("9h Ts Kd Ac"), board) is None   # one low hole card is not two
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Final

from engine.cards import RANKS, Card
from engine.errors import EngineError

__all__ = ["LOWEST_THREE", "LOW_BIT", "NO_LOW", "LowRank", "evaluate_low", "low_name", "low_value"]

NO_LOW: Final = 0

# The low bit of each card, -1 for nine and up: the ace is bit 0, a deuce bit 1 ... an eight bit 7.
LOW_BIT: Final[tuple[int, ...]] = tuple(
    0 if card >> 2 == 12 else (card >> 2) + 1 if card >> 2 <= 6 else -1 for card in range(52)
)


def _lowest_three(mask: int) -> int:
    bits = [b for b in range(8) if mask >> b & 1][:3]
    return sum(1 << b for b in bits) if len(bits) == 3 else 0


LOWEST_THREE: Final[tuple[int, ...]] = tuple(_lowest_three(m) for m in range(256))
"""The mask of the three lowest ranks of an 8-bit rank mask, 0 when it holds fewer than three."""

_RANK_OF_BIT: Final = "A2345678"


@dataclass(frozen=True, slots=True, order=True)
class LowRank:
    """A qualifying low and its five cards, top card first (8 6 4 2 A).

    Ordering and equality look at ``value`` only, as with :class:`engine.evaluator.HandRank`.
    """

    value: int
    cards: tuple[Card, ...] = field(compare=False)

    @property
    def code(self) -> str:
        return "low"

    def describe_parts(self) -> tuple[str, tuple[str, ...]]:
        """``("low", ranks)``, the five ranks top first as characters of ``RANKS``."""
        return "low", tuple(RANKS[card >> 2] for card in self.cards)

    def describe(self) -> str:
        """The low as players say it: ``"8-6-4-2-A"``."""
        return "-".join(RANKS[card >> 2] for card in self.cards)

    def __str__(self) -> str:
        return f"Low, {self.describe()}"


def _check(hole: Sequence[Card], board: Sequence[Card]) -> None:
    cards = (*hole, *board)
    if len(hole) < 2 or not 3 <= len(board) <= 5:
        raise EngineError("bad_hand", reason="size", size=len(cards))
    if not all(type(c) is int and 0 <= c < 52 for c in cards):
        raise EngineError("bad_hand", reason="card", size=len(cards))
    if len(set(cards)) != len(cards):
        raise EngineError("bad_hand", reason="duplicate", size=len(cards))


def _best_mask(hole: Sequence[Card], board: Sequence[Card]) -> tuple[int, int]:
    """The smallest low mask and the pair of hole ranks that makes it; (256, 0) for none."""
    board_mask = 0
    for card in board:
        bit = LOW_BIT[card]
        if bit >= 0:
            board_mask |= 1 << bit
    hole_mask = 0
    for card in hole:
        bit = LOW_BIT[card]
        if bit >= 0:
            hole_mask |= 1 << bit
    best, best_pair = 256, 0
    bits = [1 << b for b in range(8) if hole_mask >> b & 1]
    for a, b in combinations(bits, 2):
        pair = a | b
        three = LOWEST_THREE[board_mask & ~pair]
        if three and pair | three < best:
            best, best_pair = pair | three, pair
    return best, best_pair


def low_value(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """Value of the best eight-or-better low of two of ``hole`` and three of ``board`` (3 to 5
    cards); 0 when there is none. Bigger is better (see the module doc).

    >>> from engine.cards import parse_cards
    >>> board = parse_cards("Ac 2d 7h 8s Kc")
    >>> low_value(parse_cards("3c 6d Qh Qs"), board) > low_value(parse_cards("3h 7d Js Jc"), board)
    True
    """
    _check(hole, board)
    best, _ = _best_mask(hole, board)
    return 256 - best if best < 256 else NO_LOW


def evaluate_low(hole: Sequence[Card], board: Sequence[Card]) -> LowRank | None:
    """The best low and its five cards, or None when no low qualifies.

    When several cards give the same low (two aces in the hand), the higher suit is shown:
    suits never rank, this only makes the display deterministic.
    """
    _check(hole, board)
    best, pair = _best_mask(hole, board)
    if best == 256:
        return None
    chosen: list[Card] = []
    for source, bits in ((hole, pair), (board, best & ~pair)):
        for bit in range(8):
            if bits >> bit & 1:
                chosen.append(max(c for c in source if LOW_BIT[c] == bit))
    chosen.sort(key=lambda c: LOW_BIT[c], reverse=True)
    return LowRank(256 - best, tuple(chosen))


def low_name(value: int) -> str:
    """The ranks of a low value, top first: ``low_name(225) == "5-4-3-2-A"``."""
    mask = 256 - value
    if not 0 < value < 256 or bin(mask).count("1") != 5:
        raise EngineError("bad_hand_value", value=value)
    return "-".join(_RANK_OF_BIT[b] for b in range(7, -1, -1) if mask >> b & 1)
