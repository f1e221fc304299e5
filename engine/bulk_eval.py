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

**Omaha** (:func:`omaha_values_on_boards`): a hand is its best pair of hole cards with the best
three of the board. Without a flush, a pair of hole ranks and a five-rank board give one value
whatever the suits, the best of the board's ten threes: a table by board index per pair of
ranks (91 pairs at most, kept), so a hand is one gather per pair of its cards (6 for four
cards, 10 for five). A flush takes exactly two hole cards and three board cards of one suit;
only the suit a board holds three or more of can give one, and there the best is the flush of
the pair's two ranks with the best three of the board's ranks in that suit (a table of each
13-bit mask's threes).

**Low** (:func:`low_values_on_boards`): eight-or-better lows as :mod:`engine.low` values, from
8-bit rank masks: per pair of low hole ranks, the three lowest board ranks it does not hold.

>>> from engine.cards import parse_cards
>>> from engine.evaluator import rank_value
>>> holes = [parse_cards("AsKs"), parse_cards("7c2d")]
>>> boards = boards_array([parse_cards("QsJsTs2c3c"), parse_cards("7d7h2h4s5c")])
>>> values = values_on_boards(holes, boards)
>>> values.tolist() == [[rank_value(h + tuple(b)) for b in boards.tolist()] for h in holes]
True
>>> from engine.evaluator import omaha_rank_value
>>> from engine.low import low_value
>>> omaha = [parse_cards("AsKsQdJd"), parse_cards("7c2d3h4h")]
>>> highs, lows = omaha_values_on_boards(omaha, boards), low_values_on_boards(omaha, boards)
>>> highs.tolist() == [[omaha_rank_value(h, tuple(b)) for b in boards.tolist()] for h in omaha]
True
>>> lows.tolist() == [[low_value(h, tuple(b)) for b in boards.tolist()] for h in omaha]
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
from engine.games import Game, HandMaking
from engine.low import LOW_BIT, LOWEST_THREE

__all__ = [
    "RANK_CLASSES",
    "boards_array",
    "flush_values",
    "high_values_by_ranks",
    "high_values_on_boards",
    "low_values_by_ranks",
    "low_values_of_hands",
    "low_values_on_boards",
    "omaha_values_of_hands",
    "omaha_values_on_boards",
    "rank_class",
    "rank_classes",
    "values_on_boards",
]

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


def _check_batch(holes: Sequence[Sequence[Card]], boards: Boards, hole_sizes: range) -> None:
    if (
        boards.dtype != np.uint8
        or boards.ndim != 2
        or boards.shape[1] != _BOARD
        or any(len(hole) not in hole_sizes for hole in holes)
        or not all(type(c) is int and 0 <= c < 52 for hole in holes for c in hole)
        or (boards.size and int(boards.max()) >= 52)
    ):
        raise EngineError("bad_hand", reason="batch", size=boards.shape[-1])


def values_on_boards(holes: Sequence[Sequence[Card]], boards: Boards) -> Values:
    """``values[h, b]``: the value of ``holes[h]`` (two cards) with ``boards[b]`` (five), equal
    to ``rank_value(holes[h] + boards[b])``.

    ``boards`` is a ``uint8`` array of shape ``(n, 5)`` (see :func:`boards_array`). Cards are
    checked to be in 0..51 and the sizes to be right; as with
    :func:`engine.evaluator.rank_values`, repeated cards are not checked and give a meaningless
    value. Raises ``EngineError("bad_hand", reason="batch", size=...)`` otherwise.
    """
    _check_batch(holes, boards, range(2, 3))
    return _high_values(HandMaking.ANY_FIVE, holes, boards)


def _high_values(making: HandMaking, holes: Sequence[Sequence[Card]], boards: Boards) -> Values:
    """Each hand's value on each board: its value by the board's ranks (flushes aside), raised
    to its flush on the boards holding three or more cards of a suit."""
    values = np.empty((len(holes), len(boards)), dtype=np.uint16)
    if not len(boards):
        return values
    ranks = boards >> 2
    index = _multiset_index(np.sort(ranks, axis=1))
    flush_suit = _FLUSH_SUIT[_SUIT_FIELD[boards].sum(axis=1, dtype=np.uint16)]
    could = np.flatnonzero(flush_suit < 4)
    flush_suit = flush_suit[could]
    in_suit = (boards[could] & 3) == flush_suit[:, None]
    board_mask = np.where(in_suit, _BIT[ranks[could]], 0).sum(axis=1, dtype=np.uint16)
    flushes = _Flushes(making, flush_suit, board_mask)
    for row, hole in zip(values, holes, strict=True):
        row[:] = _by_ranks(making, hole)[index]
        row[could] = np.maximum(row[could], flushes.of(hole))
    return values


def _by_ranks(making: HandMaking, hole: Sequence[Card]) -> Values:
    """A hand's value without a flush, by the board's rank class (see :func:`rank_classes`)."""
    if making is HandMaking.ANY_FIVE:
        low, high = sorted((hole[0] >> 2, hole[1] >> 2))
        return _pair_table(low, high)
    best: Values | None = None
    for first, second in combinations(hole, 2):
        low, high = sorted((first >> 2, second >> 2))
        table = _omaha_pair_table(low, high)
        best = table.copy() if best is None else np.maximum(best, table, out=best)
    assert best is not None
    return best


class _Flushes:
    """The flushes hands make with boards whose cards of suit ``suits[b]`` (one that holds
    three or more of them) have the rank mask ``masks[b]``.

    Hold'em: the suit's cards of the board and the hand together, through the flush table.
    Omaha: exactly two hole cards of the suit with three of the board's (see the module doc);
    the board's threes are looked up once for every hand.
    """

    def __init__(self, making: HandMaking, suits: npt.NDArray[np.intp], masks: Values) -> None:
        self.making = making
        self.suits = suits
        self.masks = masks
        self.table = _flush_table()
        self.threes = None if making is HandMaking.ANY_FIVE else _mask_threes()[masks]

    def of(self, hole: Sequence[Card]) -> Values:
        """The best flush (straight flush included) of ``hole`` on each board, 0 for none."""
        if self.threes is None:
            hole_mask = np.zeros(4, dtype=np.uint16)
            for card in hole:
                hole_mask[card & 3] |= 1 << (card >> 2)
            flush: Values = self.table[self.masks | hole_mask[self.suits]]
            return flush
        best = np.zeros(len(self.suits), dtype=np.uint16)
        for first, second in combinations(hole, 2):
            if first & 3 == second & 3:
                mine = np.flatnonzero(self.suits == first & 3)
                pair = np.uint16(1 << (first >> 2) | 1 << (second >> 2))
                # Threes of the board's suit never hold the pair's ranks (one card each); the
                # padding threes (0) leave two bits, which the table values 0.
                flush = self.table[self.threes[mine] | pair].max(axis=1)
                best[mine] = np.maximum(best[mine], flush)
        return best


# --- Omaha: two hole cards and three board cards ------------------------------------------


@cache
def _five_rank_table() -> Values:
    """Non-flush value of five ranks by their multiset index (0 for five of a rank)."""
    multisets, index = _board_multisets()
    dealt = multisets[:, 4] != multisets[:, 0]
    # Suits round the four: no flush, and equal ranks (at most four) never share a suit.
    cards = multisets[dealt] * 4 + np.arange(_BOARD) % 4
    table = np.zeros(len(multisets), dtype=np.uint16)
    table[index[dealt]] = rank_values(cards.tolist())
    return _frozen(table)


# The ten ways to take three of a board's five cards.
_THREES: Final = np.array(list(combinations(range(_BOARD), 3)), dtype=np.intp)


@cache
def _board_threes() -> npt.NDArray[np.intp]:
    """For each five-rank board (by index), the rank-multiset index of each of its ten threes.

    A board's row of ranks is ascending, so each three taken in order is ascending too and
    indexes as it stands.
    """
    multisets, index = _board_multisets()
    threes = np.empty((len(multisets), len(_THREES)), dtype=np.intp)
    for k, three in enumerate(_THREES):
        threes[index, k] = _multiset_index(multisets[:, three])
    return threes


@cache
def _omaha_pair_table(low: int, high: int) -> Values:
    """Non-flush value of hole ranks ``low <= high`` with the best three of a board, by the
    board's five-rank index: the pair's value with each three-rank multiset (455 of them),
    then the best of each board's ten threes."""
    threes = _rank_multisets(3)
    pair = np.broadcast_to(np.array([low, high], dtype=np.intp), (len(threes), 2))
    five = np.sort(np.concatenate([threes, pair], axis=1), axis=1)
    with_three = np.empty(len(threes), dtype=np.uint16)
    with_three[_multiset_index(threes)] = _five_rank_table()[_multiset_index(five)]
    return _frozen(with_three[_board_threes()].max(axis=1))


@cache
def _mask_threes() -> npt.NDArray[np.uint16]:
    """For each 13-bit rank mask of three to five bits, its ten (or fewer, 0-padded) three-bit
    submasks: the threes a board's cards of one suit can give to a flush."""
    table = np.zeros((1 << _RANKS, 10), dtype=np.uint16)
    for size in range(3, _BOARD + 1):
        for ranks in combinations(range(_RANKS), size):
            mask = sum(1 << r for r in ranks)
            threes = [sum(1 << r for r in three) for three in combinations(ranks, 3)]
            table[mask, : len(threes)] = threes
    table.flags.writeable = False
    return table


def omaha_values_on_boards(holes: Sequence[Sequence[Card]], boards: Boards) -> Values:
    """``values[h, b]``: the value of the best five of exactly two of ``holes[h]`` (two to
    five cards) and three of ``boards[b]``, equal to
    :func:`engine.evaluator.omaha_rank_value`. Checked and refused as
    :func:`values_on_boards`."""
    _check_batch(holes, boards, range(2, 6))
    return _high_values(HandMaking.TWO_PLUS_THREE, holes, boards)


_PAIR_ROWS: Final = 13 * 13  # a (low, high) pair of hole ranks is row low * 13 + high


@cache
def _omaha_pair_stack() -> Values:
    """Every :func:`_omaha_pair_table` in one array, row ``low * 13 + high``: many hands are
    then valued on many boards by one gather instead of a loop over the hands."""
    stack = np.zeros((_PAIR_ROWS, len(_board_multisets()[0])), dtype=np.uint16)
    for low, high in combinations_with_replacement(range(_RANKS), 2):
        stack[low * _RANKS + high] = _omaha_pair_table(low, high)
    return _frozen(stack)


def _hole_pairs(holes: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.uint8], ...]:
    """The two cards of every pair of each hand's hole cards: two ``(hands, pairs)`` arrays."""
    pairs = np.array(list(combinations(range(holes.shape[1]), 2)), dtype=np.intp)
    return holes[:, pairs[:, 0]], holes[:, pairs[:, 1]]


def _check_hands(holes: npt.NDArray[np.uint8], boards: Boards) -> None:
    if holes.dtype != np.uint8 or holes.ndim != 2 or not 2 <= holes.shape[1] <= 5:
        raise EngineError("bad_hand", reason="batch", size=holes.shape[-1])
    if holes.size and int(holes.max()) >= 52:
        raise EngineError("bad_hand", reason="batch", size=holes.shape[-1])
    _check_batch((), boards, range(2, 6))


def omaha_values_of_hands(holes: npt.NDArray[np.uint8], boards: Boards) -> Values:
    """:func:`omaha_values_on_boards` for hands given as one ``(hands, 2..5)`` ``uint8`` array,
    all the hands at once: the same values, for the many-hands counts of the computer players."""
    _check_hands(holes, boards)
    first, second = _hole_pairs(holes)
    low = np.minimum(first >> 2, second >> 2).astype(np.intp)
    high = np.maximum(first >> 2, second >> 2).astype(np.intp)
    index = _multiset_index(np.sort(boards >> 2, axis=1))
    values: Values = _omaha_pair_stack()[
        (low * _RANKS + high)[:, :, None], index[None, None, :]
    ].max(axis=1, initial=0)
    if not len(boards):
        return values
    flush_suit = _FLUSH_SUIT[_SUIT_FIELD[boards].sum(axis=1, dtype=np.uint16)]
    could = np.flatnonzero(flush_suit < 4)
    if not len(could):
        return values
    suit = flush_suit[could]
    in_suit = (boards[could] & 3) == suit[:, None]
    board_mask = np.where(in_suit, _BIT[boards[could] >> 2], 0).sum(axis=1, dtype=np.uint16)
    threes = _mask_threes()[board_mask]  # (boards, 10)
    pair_mask = _BIT[first >> 2] | _BIT[second >> 2]
    # Two hole cards of the board's flush suit, with three of the board's cards of it; the
    # padding threes (0) leave the pair's two bits, which the table values 0.
    suited = ((first & 3) == (second & 3))[:, :, None] & ((first & 3)[:, :, None] == suit)
    flush = _flush_table()[threes[None, None, :, :] | pair_mask[:, :, None, None]].max(axis=3)
    best = np.where(suited, flush, 0).max(axis=1)
    values[:, could] = np.maximum(values[:, could], best)
    return values


# --- eight-or-better lows -------------------------------------------------------------------

_LOW_CARD_MASK: Final = np.array([1 << bit if bit >= 0 else 0 for bit in LOW_BIT], dtype=np.uint16)
_LOWEST_THREE: Final = np.array(LOWEST_THREE, dtype=np.uint16)


_LOW_RANK_MASK: Final = _LOW_CARD_MASK[::4]  # by rank: cards are rank * 4 + suit


def low_values_on_boards(holes: Sequence[Sequence[Card]], boards: Boards) -> Values:
    """``values[h, b]``: the eight-or-better low of exactly two of ``holes[h]`` and three of
    ``boards[b]``, equal to :func:`engine.low.low_value` (0 for none). Checked and refused as
    :func:`values_on_boards`."""
    _check_batch(holes, boards, range(2, 6))
    board_mask = np.bitwise_or.reduce(_LOW_CARD_MASK[boards], axis=1)
    return _lows(holes, board_mask)


def _lows(holes: Sequence[Sequence[Card]], board_masks: Values) -> Values:
    """Each hand's low with boards of the given low-rank masks (a board's low is a function of
    the set of its ranks from ace to eight)."""
    values = np.zeros((len(holes), len(board_masks)), dtype=np.uint16)
    for row, hole in zip(values, holes, strict=True):
        bits = sorted({LOW_BIT[c] for c in hole if LOW_BIT[c] >= 0})
        best = np.full(len(board_masks), 256, dtype=np.uint16)
        for a, b in combinations(bits, 2):
            pair = (1 << a) | (1 << b)
            three = _LOWEST_THREE[board_masks & (0xFF ^ pair)]
            np.minimum(best, np.where(three > 0, three | pair, 256), out=best)
        row[:] = np.where(best < 256, 256 - best, 0)
    return values


def low_values_of_hands(holes: npt.NDArray[np.uint8], boards: Boards) -> Values:
    """:func:`low_values_on_boards` for hands given as one ``(hands, 2..5)`` array, all the
    hands at once."""
    _check_hands(holes, boards)
    board_mask = np.bitwise_or.reduce(_LOW_CARD_MASK[boards], axis=1)
    first, second = _hole_pairs(holes)
    a, b = _LOW_CARD_MASK[first], _LOW_CARD_MASK[second]
    both = (a != 0) & (b != 0) & (a != b)
    pair = a | b
    three = _LOWEST_THREE[board_mask[None, None, :] & (0xFF ^ pair)[:, :, None]]
    mask = np.where(both[:, :, None] & (three > 0), three | pair[:, :, None], 256).min(
        axis=1, initial=256
    )
    lows: Values = np.where(mask < 256, 256 - mask, 0).astype(np.uint16)
    return lows


def high_values_on_boards(game: Game, holes: Sequence[Sequence[Card]], boards: Boards) -> Values:
    """The high hands' values, made as ``game`` makes them: :func:`values_on_boards` for any
    five of seven, :func:`omaha_values_on_boards` for two hole and three board cards."""
    if game.hand_making is HandMaking.ANY_FIVE:
        return values_on_boards(holes, boards)
    return omaha_values_on_boards(holes, boards)


# --- by the board's ranks, for counting boards in classes -------------------------------

RANK_CLASSES: Final = comb(_RANKS + _BOARD - 1, _BOARD)
"""How many multisets of five ranks there are (6,188), the rank classes of boards."""

_EMPTY: Final = np.empty((0, _BOARD), dtype=np.uint8)


@cache
def rank_classes() -> npt.NDArray[np.intp]:
    """Every multiset of five ranks, one ascending row each, row ``k`` being rank class ``k``
    (:func:`rank_class`). The thirteen of five equal ranks are no board's."""
    multisets, index = _board_multisets()
    rows = np.empty_like(multisets)
    rows[index] = multisets
    rows.flags.writeable = False
    return rows


def rank_class(ranks: npt.NDArray[np.integer]) -> npt.NDArray[np.intp]:
    """The rank class of each row of five ranks (0..12, in any order)."""
    return _multiset_index(np.sort(ranks, axis=1))


def high_values_by_ranks(game: Game, holes: Sequence[Sequence[Card]]) -> Values:
    """``values[h, k]``: the high value of ``holes[h]``, flushes aside, with a board of rank
    class ``k``; that is its value on every board of those ranks on which it makes no flush.

    Where a board holds three or more cards of one suit (at most one suit can), a hand's value
    is the larger of this and its :func:`flush_values`; elsewhere it is this. Hands are
    checked as :func:`high_values_on_boards` checks them.
    """
    making = game.hand_making
    _check_batch(holes, _EMPTY, range(2, 3) if making is HandMaking.ANY_FIVE else range(2, 6))
    values = np.empty((len(holes), RANK_CLASSES), dtype=np.uint16)
    for row, hole in zip(values, holes, strict=True):
        row[:] = _by_ranks(making, hole)
    return values


def flush_values(
    game: Game, holes: Sequence[Sequence[Card]], suits: npt.NDArray[np.intp], masks: Values
) -> Values:
    """``values[h, b]``: the best flush (straight flush included) ``holes[h]`` makes, as the
    game makes hands, with a board whose cards of suit ``suits[b]`` are the ranks of the 13-bit
    mask ``masks[b]`` (three to five of them); 0 when it makes none."""
    making = game.hand_making
    _check_batch(holes, _EMPTY, range(2, 3) if making is HandMaking.ANY_FIVE else range(2, 6))
    flushes = _Flushes(making, suits, masks)
    values = np.empty((len(holes), len(masks)), dtype=np.uint16)
    for row, hole in zip(values, holes, strict=True):
        row[:] = flushes.of(hole)
    return values


@cache
def _class_low_masks() -> Values:
    masks: Values = np.bitwise_or.reduce(_LOW_RANK_MASK[rank_classes()], axis=1)
    return _frozen(masks)


def low_values_by_ranks(holes: Sequence[Sequence[Card]]) -> Values:
    """``values[h, k]``: the eight-or-better low of ``holes[h]`` with a board of rank class
    ``k`` (a low never depends on suits). Checked as :func:`low_values_on_boards`."""
    _check_batch(holes, _EMPTY, range(2, 6))
    return _lows(holes, _class_low_masks())
