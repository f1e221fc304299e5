"""Pre-flop all-in equity between the 169 starting-hand classes, exact, card removal counted.

Class ``a`` against class ``b`` (numbered as in :mod:`engine.bots.preflop`) is the average over
every *compatible* pair of combinations, one of ``a`` and one of ``b`` sharing no card, of the
first hand's all-in equity over the C(48, 5) = 1,712,304 boards left: a win counts 1 and a tie
1/2. Every compatible pair leaves the same number of boards, so the pairs weigh equally.
:class:`AllIn` keeps, for each ordered pair of classes, the number of compatible pairs
(``pairs``: AA against AA has 6, AA against KK 36, AKs against AKo 24) and the sum, over those
pairs and their boards, of half-pots won (``shares``: 2 a win, 1 a tie). Both are integers, so
the equity ``shares / (2 * pairs * 1,712,304)`` is exact, not sampled; and ``shares[a, b] +
shares[b, a] = 2 * pairs[a, b] * 1,712,304``, so ``eq[a, b] + eq[b, a] = 1``.

How it is counted
-----------------
Not pair by pair (tens of thousands of pairs that differ by more than a renaming of suits,
1.7 million boards each) but board by board. Renaming suits maps a class onto itself, so the
totals by class are the same on every board of one orbit of the 24 renamings: the 2,598,960
boards fall into 134,459 orbits, and one board of each, weighed by its orbit's size, stands for
them all. On one board the 1,326 hands are valued at once by :mod:`engine.bulk_eval` and
sorted; a hand's wins against class ``b`` are the hands of ``b`` sorted strictly below it. With
``lt[a, b]`` the number of (hand of ``a``, hand of ``b``, board) with the second hand lower,
``shares[a, b] = pairs[a, b] * 1,712,304 + lt[a, b] - lt[b, a]`` (a hand either wins, loses or
ties). The sort counts every pair of hands the board leaves, also those sharing a card; those
are counted again on their own (the hands holding one card, compared among themselves) and
taken off. Built by ``python -m engine.bots.pushfold build``, in a few minutes of one core.

>>> from engine.bots.preflop import CLASS_NAMES
>>> table = load()
>>> aa, kk = CLASS_NAMES.index("AA"), CLASS_NAMES.index("KK")
>>> int(table.pairs[aa, kk]), f"{table.equity()[aa, kk]:.6f}"
(36, '0.819461')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import chain, combinations, permutations
from math import comb
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.bots.preflop import CLASSES, hand_class
from engine.bulk_eval import values_on_boards
from engine.cards import Card

__all__ = [
    "BOARDS_PER_PAIR",
    "DATA",
    "AllIn",
    "board_orbits",
    "build",
    "compatible_pairs",
    "count_lower",
    "load",
    "save",
]

BOARDS_PER_PAIR: Final = comb(48, 5)
"""Boards left to any two hands that share no card."""
DATA: Final = Path(__file__).with_name("data") / "allin.npy"

Counts = npt.NDArray[np.int64]

_HOLES: Final = tuple((Card(a), Card(b)) for a, b in combinations(range(52), 2))
_HAND_MASK: Final = np.array([(1 << a) | (1 << b) for a, b in _HOLES], dtype=np.int64)
_HAND_CLASS: Final = np.array([hand_class(h) for h in _HOLES], dtype=np.intp)
_FIRST: Final = np.array([a for a, _ in _HOLES], dtype=np.intp)
_SECOND: Final = np.array([b for _, b in _HOLES], dtype=np.intp)
# Sorted last, and a class of their own whose column is dropped: hands the board kills.
_DEAD: Final = np.iinfo(np.int16).max
_NO_CLASS: Final = CLASSES
# Hands valued and sorted together; the comparisons of hands sharing a card, which make a
# (boards, 52, 52, 52) array, go a smaller slice at a time to stay in the cache.
_BATCH: Final = 512
_SHARED_BATCH: Final = 32


@dataclass(frozen=True, eq=False)  # arrays: compared entry by entry, not as wholes
class AllIn:
    """The table: ``pairs[a, b]`` compatible combination pairs, ``shares[a, b]`` half-pots the
    first class wins over them all (see the module doc); both ``(169, 169)``."""

    shares: Counts
    pairs: Counts

    def equity(self) -> npt.NDArray[np.float64]:
        """``eq[a, b]``: class ``a``'s all-in equity against class ``b``."""
        return self.shares / (2.0 * BOARDS_PER_PAIR * self.pairs)


def compatible_pairs() -> Counts:
    """``pairs[a, b]``: combinations of ``a`` and of ``b`` that share no card."""
    apart = (_HAND_MASK[:, None] & _HAND_MASK[None, :]) == 0
    index = _HAND_CLASS[:, None] * CLASSES + _HAND_CLASS[None, :]
    counts = np.bincount(index[apart], minlength=CLASSES * CLASSES)
    return counts.reshape(CLASSES, CLASSES).astype(np.int64)


def board_orbits() -> tuple[npt.NDArray[np.uint8], Counts]:
    """One board of each orbit of the suit renamings, ``(n, 5)``, and the orbit's size (the
    boards it stands for)."""
    count = comb(52, 5)
    flat = chain.from_iterable(combinations(range(52), 5))
    cards = np.fromiter(flat, dtype=np.int64, count=count * 5).reshape(count, 5)
    masks = np.bitwise_or.reduce(np.left_shift(np.int64(1), cards), axis=1)
    del cards
    # A suit's 13 cards sit four bits apart (card = rank * 4 + suit): shifting the clubs' bit
    # pattern by a suit moves those cards to that suit.
    clubs = np.int64(sum(1 << 4 * rank for rank in range(13)))
    least = masks
    for renaming in permutations(range(4)):
        renamed = np.zeros_like(masks)
        for suit, to in enumerate(renaming):
            renamed |= ((masks >> suit) & clubs) << to
        least = np.minimum(least, renamed)
    canonical, sizes = np.unique(least, return_counts=True)
    bits = np.unpackbits(canonical.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    boards = np.nonzero(bits)[1].reshape(-1, 5).astype(np.uint8)
    return boards, sizes.astype(np.int64)


def _lower_by_class(values: npt.NDArray[np.int16], weights: npt.NDArray[np.float32]) -> Counts:
    """``lt[a, b]`` over a batch of boards (``values`` by board and hand, ``_DEAD`` for a hand
    the board kills), every pair of live hands counted, also those sharing a card."""
    boards, hands = values.shape
    order = np.argsort(values, axis=1)
    ranked = np.take_along_axis(values, order, axis=1)
    classes = np.where(values == _DEAD, _NO_CLASS, _HAND_CLASS[None, :])
    ranked_classes = np.take_along_axis(classes, order, axis=1)
    # Equal values make one level; levels are numbered across the whole batch.
    new = np.ones((boards, hands), dtype=np.bool_)
    new[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    level = np.cumsum(new.ravel()) - 1
    levels = int(level[-1]) + 1
    width = CLASSES + 1
    at_level = np.bincount(level * width + ranked_classes.ravel(), minlength=levels * width)
    hist = at_level.reshape(levels, width).astype(np.float32)
    below = np.cumsum(hist, axis=0)
    first = level.reshape(boards, hands)[:, 0]
    before_board = np.zeros((boards, width), dtype=np.float32)
    before_board[1:] = below[first[1:] - 1]
    board_of_level = np.repeat(np.arange(boards), np.diff(np.append(first, levels)))
    below -= hist + before_board[board_of_level]
    # Integers below 2**24 all through (orbits of 24 at most, 144 pairs a class pair, 512
    # boards), so single precision and any summing order are exact.
    weighted = hist * weights[board_of_level][:, None]
    lower = weighted.T @ below
    return np.rint(lower[:CLASSES, :CLASSES]).astype(np.int64)


def _lower_sharing(values: npt.NDArray[np.int16], weights: npt.NDArray[np.float32]) -> Counts:
    """``lower[c, x, y]``: weighed boards on which hand ``{c, y}`` is below hand ``{c, x}``,
    both live."""
    boards = len(values)
    low = np.full((boards, 52, 52), -1, dtype=np.int16)  # a dead hand is above nothing ...
    high = np.full((boards, 52, 52), _DEAD, dtype=np.int16)  # ... and below nothing
    live = np.where(values == _DEAD, -1, values)
    low[:, _FIRST, _SECOND] = low[:, _SECOND, _FIRST] = live
    high[:, _FIRST, _SECOND] = high[:, _SECOND, _FIRST] = values
    below = high[:, :, None, :] < low[:, :, :, None]
    lower = np.tensordot(weights, below.astype(np.float32), axes=1)
    return np.rint(lower).astype(np.int64)


def _sharing_by_class(lower: Counts) -> Counts:
    """``lower[c, x, y]`` summed by the classes of ``{c, x}`` and ``{c, y}``."""
    cards = np.arange(52)
    pair_class = np.full((52, 52), -1, dtype=np.intp)
    pair_class[_FIRST, _SECOND] = pair_class[_SECOND, _FIRST] = _HAND_CLASS
    c, x, y = np.meshgrid(cards, cards, cards, indexing="ij")
    real = (x != c) & (y != c) & (x != y)
    index = pair_class[c, x] * CLASSES + pair_class[c, y]
    summed = np.bincount(index[real], weights=lower[real], minlength=CLASSES * CLASSES)
    return np.rint(summed).astype(np.int64).reshape(CLASSES, CLASSES)


def count_lower(boards: npt.NDArray[np.uint8], weights: Counts) -> Counts:
    """``lt[a, b]`` over ``boards``, each counted ``weights`` times, of the hand pairs sharing
    no card: (hand of ``a``, hand of ``b``, board) with the second hand lower."""
    masks = np.bitwise_or.reduce(np.left_shift(np.int64(1), boards.astype(np.int64)), axis=1)
    lower = np.zeros((CLASSES, CLASSES), dtype=np.int64)
    sharing = np.zeros((52, 52, 52), dtype=np.int64)
    for start in range(0, len(boards), _BATCH):
        stop = min(start + _BATCH, len(boards))
        live = (_HAND_MASK[None, :] & masks[start:stop, None]) == 0
        valued = values_on_boards(_HOLES, boards[start:stop]).T
        values = np.where(live, valued, _DEAD).astype(np.int16)
        batch_weights = weights[start:stop].astype(np.float32)
        lower += _lower_by_class(values, batch_weights)
        for at in range(0, stop - start, _SHARED_BATCH):
            part = slice(at, at + _SHARED_BATCH)
            sharing += _lower_sharing(values[part], batch_weights[part])
    return lower - _sharing_by_class(sharing)


def build(progress: Callable[[int, int], None] | None = None) -> AllIn:
    """Count the table (minutes of one core); ``progress(done, total)`` now and then."""
    boards, sizes = board_orbits()
    assert int(sizes.sum()) == comb(52, 5)
    lower = np.zeros((CLASSES, CLASSES), dtype=np.int64)
    step = _BATCH * 16
    for start in range(0, len(boards), step):
        stop = min(start + step, len(boards))
        lower += count_lower(boards[start:stop], sizes[start:stop])
        if progress is not None:
            progress(stop, len(boards))
    pairs = compatible_pairs()
    return AllIn(pairs * BOARDS_PER_PAIR + lower - lower.T, pairs)


def save(table: AllIn, path: Path = DATA) -> None:
    """One ``.npy`` of ``uint32`` (the largest share, 2 * 144 * 1,712,304, fits), shape
    ``(2, 169, 169)``: shares, then pairs. The format holds no date, so a build gives the same
    bytes every time."""
    stacked = np.stack([table.shares, table.pairs])
    assert int(stacked.min()) >= 0 and int(stacked.max()) < 1 << 32
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, stacked.astype("<u4"))


@cache
def load(path: Path = DATA) -> AllIn:
    stacked = np.load(path).astype(np.int64)
    for part in stacked:
        part.flags.writeable = False
    return AllIn(stacked[0], stacked[1])
