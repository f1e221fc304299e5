"""How strong each of the 169 starting hands is, measured once a process by the project's evaluator.

A hand's strength against ``k`` opponents is the mean, over a fixed sample of complete boards, of
``q ** k``, where ``q`` is the share of the other two-card hands it beats on that board (a tie
counting half). ``q`` is its chance to beat one random hand once all five cards are out, and
``q ** k`` its chance to beat ``k`` of them, taken as independent on a given board; so ``k = 1``
is about the equity against a random hand (the counts leave the hand's own cards among the
other deals, which costs a point at most: aces get 86% for 85%), and a larger ``k``
prices the hands that win big when they hit (pairs, suited and connected cards) as a pot with
more players in it does.

The classes are then ordered by strength, and :meth:`Strengths.top` gives each class its place:
the share of all 1,326 deals that are stronger, plus half its own. "The top 15%" is every class
whose place is at most 0.15, and a range of hands is a set of places.

>>> from engine.cards import parse_cards
>>> table = strengths()
>>> aces, trash = hand_class(parse_cards("AsAd")), hand_class(parse_cards("7c2d"))
>>> f"{table.top(1)[aces]:.3f}", bool(table.top(1)[trash] > 0.95)
('0.002', True)
>>> [round(float(table.equity(1)[c]), 2) for c in (aces, trash)]
[0.86, 0.34]

The boards are :data:`BOARDS` random boards from a fixed seed, counted against every deal: some
800,000 hand-boards, a tenth of a second once a process on top of the evaluator's own tables
(``engine.bulk_eval`` builds those on first use). A class's figure averages its 4 to 12 deals on
every board, so its sampling error is well under a point: less than the gap between the
classes at the edge of any range drawn from it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.bots.preflop import CLASSES, class_combos, hand_class
from engine.bulk_eval import values_on_boards
from engine.cards import Card

__all__ = [
    "BOARDS",
    "COMBOS",
    "COMBO_CLASS",
    "MOST_OPPONENTS",
    "Strengths",
    "class_hole",
    "class_name_ranks",
    "combos_without",
    "hand_class",
    "strengths",
]

BOARDS: Final = 600
"""Complete boards the strengths are measured on."""
MOST_OPPONENTS: Final = 4
"""Strengths are kept for 1 to this many opponents; more play as this many."""
_SEED: Final = 20_260_101
_VALUE_BINS: Final = 7_463  # hand values are 1..7,462; 0 marks a deal that clashes
_BOARDS_AT_ONCE: Final = 100  # keeps the bins of a count to a few megabytes

Floats = npt.NDArray[np.float64]

COMBOS: Final = np.array(list(combinations(range(52), 2)), dtype=np.uint8)
"""The 1,326 two-card deals, ``(low card, high card)``, one row each."""
COMBO_CLASS: Final = np.array([hand_class((Card(a), Card(b))) for a, b in COMBOS.tolist()])
"""The class of each row of :data:`COMBOS`."""
# _HOLDS[c]: the deals that hold card c.
_HOLDS: Final = np.zeros((52, len(COMBOS)), dtype=np.bool_)
_HOLDS[COMBOS[:, 0], np.arange(len(COMBOS))] = True
_HOLDS[COMBOS[:, 1], np.arange(len(COMBOS))] = True
COMBOS.flags.writeable = False
COMBO_CLASS.flags.writeable = False
_HOLDS.flags.writeable = False


def combos_without(cards: tuple[Card, ...]) -> npt.NDArray[np.bool_]:
    """Which rows of :data:`COMBOS` hold none of ``cards``."""
    free: npt.NDArray[np.bool_] = np.logical_not(_HOLDS[list(cards)].any(axis=0))
    return free


@dataclass(frozen=True, slots=True)
class Strengths:
    """Strength and place of every class against 1 to :data:`MOST_OPPONENTS` opponents."""

    _equity: tuple[Floats, ...]
    _top: tuple[Floats, ...]

    def equity(self, opponents: int) -> Floats:
        """By class: the chance to beat ``opponents`` random hands at showdown."""
        return self._equity[_clamp(opponents) - 1]

    def top(self, opponents: int) -> Floats:
        """By class: its place in the order by :meth:`equity` (0 strongest, 1 weakest)."""
        return self._top[_clamp(opponents) - 1]


def _clamp(opponents: int) -> int:
    return max(1, min(MOST_OPPONENTS, opponents))


@cache
def strengths() -> Strengths:
    """The table, built on first use (see the module doc)."""
    rng = random.Random(_SEED)
    boards = np.array([rng.sample(range(52), 5) for _ in range(BOARDS)], dtype=np.uint8)
    holes = [(Card(a), Card(b)) for a, b in COMBOS.tolist()]
    values = values_on_boards(holes, boards).astype(np.int32)
    # A deal that holds a card of the board is not a deal on that board.
    clash = np.asarray(_HOLDS[boards].any(axis=1)).T  # (deals, boards)
    share = _shares(np.where(clash, 0, values), clash)
    dealt = ~clash
    counts = np.bincount(COMBO_CLASS, minlength=CLASSES)
    equity: list[Floats] = []
    top: list[Floats] = []
    for k in range(1, MOST_OPPONENTS + 1):
        per_deal = np.where(dealt, share**k, 0.0).sum(axis=1) / dealt.sum(axis=1)
        by_class = np.bincount(COMBO_CLASS, weights=per_deal, minlength=CLASSES) / counts
        equity.append(_frozen(by_class))
        top.append(_frozen(_places(by_class)))
    return Strengths(tuple(equity), tuple(top))


def _shares(values: npt.NDArray[np.int32], clash: npt.NDArray[np.bool_]) -> Floats:
    """``share[d, b]``: the part of the deals on board ``b`` that deal ``d`` beats (ties half).

    Counting each board's values into bins of hand value gives, by a running sum, how many deals
    are weaker than each value and how many equal it. Clashing deals sit at value 0, below every
    real hand, and are taken off the weaker count.
    """
    deals, count = values.shape
    share = np.empty(values.shape, dtype=np.float64)
    bins = _VALUE_BINS
    for first in range(0, count, _BOARDS_AT_ONCE):
        chunk = values[:, first : first + _BOARDS_AT_ONCE]
        # Board b of the chunk counts into its own run of bins.
        keys = chunk + np.arange(chunk.shape[1]) * bins
        equal = np.bincount(keys.ravel(), minlength=chunk.shape[1] * bins)
        weaker = (np.cumsum(equal.reshape(-1, bins), axis=1) - equal.reshape(-1, bins)).ravel()
        clashing = clash[:, first : first + _BOARDS_AT_ONCE].sum(axis=0)
        share[:, first : first + _BOARDS_AT_ONCE] = (
            weaker[keys] - clashing + 0.5 * (equal[keys] - 1)
        ) / (deals - clashing - 1)
    return share


def _places(by_class: Floats) -> Floats:
    order = np.argsort(-by_class, kind="stable")
    combos = np.array([class_combos(c) for c in order], dtype=np.float64)
    before = np.cumsum(combos) - combos
    places = np.empty(CLASSES, dtype=np.float64)
    places[order] = (before + combos / 2) / combos.sum()
    return places


def _frozen(array: Floats) -> Floats:
    array.flags.writeable = False
    return array


def class_name_ranks(index: int) -> tuple[int, int, bool]:
    """``(high rank, low rank, suited)`` of a class (a pair is not suited)."""
    row, col = divmod(index, 13)
    if row == col:
        return row, row, False
    if row > col:
        return row, col, True
    return col, row, False


def class_hole(index: int) -> tuple[Card, Card]:
    """Two cards of the class (spades first, then hearts), for charts that ask by cards."""
    high, low, suited = class_name_ranks(index)
    return Card(high * 4 + 3), Card(low * 4 + (3 if suited else 2))
