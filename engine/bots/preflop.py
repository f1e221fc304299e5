"""The 169 starting-hand classes: pairs, suited and offsuit hands, up to the suits.

A class is numbered on a 13×13 grid the way players draw it: row ``hi`` and column ``lo`` by rank
(0 = deuce .. 12 = ace); a pair sits on the diagonal, a suited hand above it (``hi > lo``, index
``hi * 13 + lo``) and an offsuit hand below (``lo * 13 + hi``). Pairs have 6 combinations, suited
hands 4 and offsuit hands 12: 1,326 in all.

>>> from engine.cards import parse_cards
>>> [CLASS_NAMES[hand_class(parse_cards(h))] for h in ("AsAd", "AsKs", "Kd As", "7c2d")]
['AA', 'AKs', 'AKo', '72o']
>>> sum(class_combos(c) for c in range(CLASSES))
1326
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import RANKS, Card

__all__ = ["CLASSES", "CLASS_NAMES", "class_combos", "class_of", "hand_class"]

CLASSES: Final = 169


def class_of(hi: int, lo: int, suited: bool) -> int:
    """The class of two ranks (``hi >= lo``); ``suited`` is ignored for a pair."""
    if hi == lo:
        return hi * 13 + hi
    return hi * 13 + lo if suited else lo * 13 + hi


def hand_class(hole: Sequence[Card]) -> int:
    a, b = hole[0], hole[1]
    ra, rb = a >> 2, b >> 2
    hi, lo = (ra, rb) if ra >= rb else (rb, ra)
    return class_of(hi, lo, (a & 3) == (b & 3))


def _name(index: int) -> str:
    row, col = divmod(index, 13)
    if row == col:
        return RANKS[row] * 2
    if row > col:
        return RANKS[row] + RANKS[col] + "s"
    return RANKS[col] + RANKS[row] + "o"


CLASS_NAMES: Final[tuple[str, ...]] = tuple(_name(i) for i in range(CLASSES))


def class_combos(index: int) -> int:
    row, col = divmod(index, 13)
    return 6 if row == col else 4 if row > col else 12
