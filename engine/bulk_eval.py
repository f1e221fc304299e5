"""Seven-card hand values in bulk: a few hands on many boards at once, in numpy, for equity.

The values are :func:`engine.evaluator.rank_value`'s (bigger is better, equal values tie), read
from two tables that are filled from that function itself the first time they are needed, so they
agree with phevaluator by construction (and ``tests/engine/test_bulk_eval.py`` checks every
entry through the lookup path). Building them costs some 60 ms of CPU, once a process.

**No flush.** Without five cards of a suit, suits play no part: the value is a function of the
multiset of seven ranks. Sorted, ``r0 <= ... <= r6``, the numbers ``r_i + i`` are seven distinct
values of 0..18, and the combinatorial number system numbers those without gaps:
``sum(C(r_i + i, i + 1))`` is a perfect index into 0..C(19, 7) - 1 = 50,387. The 49,205
multisets a deck can deal (the other 1,183 hold five or more of a rank) are evaluated once each,
their cards given suits round the four in sorted order: no suit gets three, and equal ranks get
different suits. The same numbering on five ranks indexes the 6,188 five-rank multisets of a
board, and a pair of hole ranks turns the seven-rank table into one by board (kept, 91 pairs at
most): a hand's non-flush values on all the boards are then one gather.

**Flush.** Five or more of the seven cards in one suit leave two cards at most to pair the
flush's distinct ranks, which makes two pair or trips but never a full house or four of a kind;
so such a hand's value is its flush (or straight flush), a function of the 13-bit rank mask of
that suit alone: a table of 8,192 entries, 0 where fewer than five bits are set. A board has a
suit with three cards or more at most once, and only there can a hand make a flush, so only those
boards are looked at again, taking the larger of the two values.

>>> from engine.cards import parse_cards
>>> from engine.evaluator import rank_value
>>> holes = [parse_cards("AsKs"), parse_cards("7c2d")]
>>> boards = boards_array([parse_cards("QsJsTs2c3c"), parse_cards("7d7h2h4s5c")])
>>> values = values_on_boards(holes, boards)
>>> values.tolist() == [[rank_value(h + tuple(b)) for b in boards.tolist()] for h in holes]
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import chain, combinations, combinations_with_replacement
from math import comb
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.cards import Card
from engine.errors import EngineError
from engine.evaluator import rank_values

__all__ = ["boards_array", "values_on_boards"]

Values = npt.NDArray[np.uint16]
Boards = npt.NDArray[np.uint8]

_RANKS: Final = 13
_HAND: Final = 7
_BOARD: Final = 5
# _PLACE[i, r] = C(r + i, i + 1): the term the i-th smallest rank adds to a multiset's index.
_PLACE: Final = np.array(
    [[comb(r + i, i + 1) for r in range(_RANKS)] for i in range(_HAND)], dtype=np.intp
)
_BIT: Final = np.array([1 << r for r in range(_RANKS)], dtype=np.uint16)
# A board's suit counts packed three bits a suit (five cards fit), card by card ...
_SUIT_FIELD: Final = np.array([1 << 3 * (card & 3) for card in range(52)], dtype=np.uint16)
# ... and by packed counts, the suit holding three or more, else 4 (a board has one at most).
_FIELDS: Final = np.arange(1 << 12)[:, None] >> 3 * np.arange(4) & 7 >= 3
_FLUSH_SUIT: Final = np.where(_FIELDS.any(axis=1), _FIELDS.argmax(axis=1), 4)


def _multiset_index(sorted_ranks: npt.NDArray[np.integer]) -> npt.NDArray[np.intp]:
    """Each row's index (rows of ascending ranks, five or seven of them; see the module doc)."""
    index = np.zeros(len(sorted_ranks), dtype=np.intp)
    for i in range(sorted_ranks.shape[1]):
        index += _PLACE[i][sorted_ranks[:, i]]
    return index


def _frozen(table: Values) -> Values:
    # Cached and shared by every later count (from any thread): nothing may write to it.
    table.flags.writeable = False
    return table


def _rank_multisets(size: int) -> npt.NDArray[np.intp]:
    """Every multiset of ``size`` ranks, one ascending row each."""
    count = comb(_RANKS + size - 1, size)
    flat = chain.from_iterable(combinations_with_replacement(range(_RANKS), size))
    return np.fromiter(flat, dtype=np.intp, count=count * size).reshape(count, size)


@cache
def _seven_rank_table() -> Values:
    """Non-flush value by seven-rank multiset index (0 for five or more of a rank)."""
    multisets = _rank_multisets(_HAND)
    # Sorted rows: five of a rank is the same rank four places apart.
    dealt = (multisets[:, 4:] != multisets[:, :-4]).all(axis=1)
    multisets = multisets[dealt]
    # Suits round the four in sorted order: two per suit at most (no flush), and the up to four
    # copies of a rank, which sit side by side, all of different suits.
    cards = multisets * 4 + np.arange(_HAND) % 4
    table = np.zeros(comb(_RANKS + _HAND - 1, _HAND), dtype=np.uint16)
    table[_multiset_index(multisets)] = rank_values(cards.tolist())
    return _frozen(table)


@cache
def _board_multisets() -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Every five-rank multiset, ascending rows, and the index of each."""
    multisets = _rank_multisets(_BOARD)
    return multisets, _multiset_index(multisets)


@cache
def _pair_table(low: int, high: int) -> Values:
    """Non-flush value of hole ranks ``low <= high`` by the board's five-rank index."""
    multisets, index = _board_multisets()
    hole = np.broadcast_to(np.array([low, high], dtype=np.intp), (len(multisets), 2))
    seven = np.sort(np.concatenate([multisets, hole], axis=1), axis=1)
    table = np.zeros(len(multisets), dtype=np.uint16)
    table[index] = _seven_rank_table()[_multiset_index(seven)]
    return _frozen(table)


@cache
def _flush_table() -> Values:
    """Value of a flush by the 13-bit rank mask of its suit (0 below five bits; see the module
    doc). Masks of more than seven bits cannot be dealt in seven cards and are left 0."""
    table = np.zeros(1 << _RANKS, dtype=np.uint16)
    for size in range(5, _HAND + 1):
        suited = list(combinations(range(_RANKS), size))
        masks = [sum(1 << r for r in ranks) for ranks in suited]
        # All in clubs (suit 0): card = rank * 4.
        table[masks] = rank_values([[Card(r * 4) for r in ranks] for ranks in suited])
    return _frozen(table)


def boards_array(boards: Iterable[Sequence[Card]]) -> Boards:
    """Boards of five cards as the ``(n, 5)`` array :func:`values_on_boards` reads."""
    return np.array([tuple(b) for b in boards], dtype=np.uint8).reshape(-1, _BOARD)


def values_on_boards(holes: Sequence[Sequence[Card]], boards: Boards) -> Values:
    """``values[h, b]``: the value of ``holes[h]`` (two cards) with ``boards[b]`` (five), equal
    to ``rank_value(holes[h] + boards[b])``.

    ``boards`` is a ``uint8`` array of shape ``(n, 5)`` (see :func:`boards_array`). Cards are
    checked to be in 0..51 and the sizes to be right; as with
    :func:`engine.evaluator.rank_values`, repeated cards are not checked and give a meaningless
    value. Raises ``EngineError("bad_hand", reason="batch", size=...)`` otherwise.
    """
    if (
        boards.dtype != np.uint8
        or boards.ndim != 2
        or boards.shape[1] != _BOARD
        or any(len(hole) != 2 for hole in holes)
        or not all(type(c) is int and 0 <= c < 52 for hole in holes for c in hole)
        or (boards.size and int(boards.max()) >= 52)
    ):
        raise EngineError("bad_hand", reason="batch", size=boards.shape[-1])
    values = np.empty((len(holes), len(boards)), dtype=np.uint16)
    if not len(boards):
        return values
    ranks = boards >> 2
    suits = boards & 3
    index = _multiset_index(np.sort(ranks, axis=1))
    flush_suit = _FLUSH_SUIT[_SUIT_FIELD[boards].sum(axis=1, dtype=np.uint16)]
    could = np.flatnonzero(flush_suit < 4)
    flush_suit = flush_suit[could]
    in_suit = suits[could] == flush_suit[:, None]
    board_mask = np.where(in_suit, _BIT[ranks[could]], 0).sum(axis=1, dtype=np.uint16)
    flushes = _flush_table()
    for row, (first, second) in zip(values, holes, strict=True):
        low, high = sorted((first >> 2, second >> 2))
        row[:] = _pair_table(low, high)[index]
        hole_mask = np.zeros(4, dtype=np.uint16)
        hole_mask[first & 3] |= 1 << (first >> 2)
        hole_mask[second & 3] |= 1 << (second >> 2)
        flush = flushes[board_mask | hole_mask[flush_suit]]
        row[could] = np.maximum(row[could], flush)
    return values
