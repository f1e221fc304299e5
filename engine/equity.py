"""All-in equity: each live hand's chance to win or tie, from the board so far.

Given the hole cards of the live hands, the board (0, 3, 4 or 5 cards) and any dead cards, every
possible rest of the board is equally likely. A hand *wins* a board when it alone is best and
*ties* it when it shares the best; its *equity* is its expected share of a pot they all contest
(a tie between ``k`` hands counts ``1/k``). Dead cards are cards every player knows are out of
the deck; folded hands and burns are not: counting them out would leak them through the figures.

Exact or sampled
----------------
**Exact** whenever there are at most :data:`SAMPLES` possible boards (``C(m, r)`` with ``m``
cards left and ``r`` to come): always on the flop (at most C(47, 2) = 1,081 boards) and on the
turn (at most 46), and pre-flop from 13 players up. Every board is counted once; the counts and
the shares are exact.

**Sampled** pre-flop with 2 to 12 players: there are C(48, 5) = 1,712,304 boards heads-up and
658,008 six-handed, too many to count within a budget of 200 ms. Instead :data:`SAMPLES` boards
are drawn uniformly and independently from a generator seeded by ``seed`` (same input, same
figures: the boards a seed gives are fixed, and the tests pin some of their counts). Each
reported probability ``p`` is then the mean of ``n`` independent Bernoulli(p) draws, of standard
deviation ``sqrt(p(1 - p) / n) <= 0.5 / sqrt(n)``; with ``n = 66,349 = ceil((2.5758 * 0.5 /
0.005) ** 2)`` that is at most 0.194 percentage points, so each figure is within 0.5 points of
the exact one with probability at least 99% (2.5758 standard deviations; at this ``n`` the
normal approximation is close, and figures away from 1/2 are tighter still). An equity is the
mean of per-board shares in [0, 1], whose variance is at most 1/4 too, so the same bound holds
for it.

Omaha
-----
``game`` (:mod:`engine.games`) says how many hole cards each hand has and how a hand is made;
the boards are drawn or listed exactly as above, so the same bounds hold. In Omaha Hi-Lo each
board's pot is halved between the best high and the best eight-or-better low when some hand has
a low (in fractions of the pot: no odd chip), and goes whole to the high hand otherwise; a
hand's ``share`` counts both, and ``low_wins``, ``low_ties`` and ``low_share`` say what the low
gives it (its share of the whole pot won through low halves), all within the same 0.5 points
at 99% when sampled. Four PLO hands pre-flop take 20 to 30 ms, Hi-Lo a few more, and a
process's first count some 90 ms as it fills the Omaha tables of :mod:`engine.bulk_eval`
(``python -m bench.omaha``): within the 200 ms budget either way.

How it is counted
-----------------
The boards, drawn or listed, are the rows of one numpy array, and each hand's values on all of
them come at once from :func:`engine.bulk_eval.values_on_boards`: a few table lookups over the
whole array, from tables filled once a process out of phevaluator itself, so the values are
exactly :func:`engine.evaluator.rank_value`'s. Wins, ties and shares are counted over the
hands-by-boards array of values, and the shares summed as exact fractions. Why arrays: six-handed
pre-flop is 400,000 hand-boards, and at a few hundred nanoseconds of Python object work each (a
phevaluator call, a tuple, a list entry) drawing, ranking and counting them one at a time took
about the whole budget; over arrays it is 10 to 20 ms (``python -m bench.equity``).

>>> from engine.cards import parse_cards
>>> e = equity([parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9h"))
>>> e.exact, e.boards, [f"{h.win:.4f}" for h in e.hands], e.hands[1].wins
(True, 990, ['0.9162', '0.0838'], 83)
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import chain, combinations, combinations_with_replacement
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from engine.bulk_eval import (
    Boards,
    Values,
    flush_values,
    high_values_by_ranks,
    high_values_on_boards,
    low_values_by_ranks,
    low_values_on_boards,
    rank_class,
    rank_classes,
)
from engine.cards import Card
from engine.errors import EngineError
from engine.games import NLHE, Game
from engine.hand import Hand, HandEnded, HandShown, StreetDealt

__all__ = [
    "SAMPLES",
    "BoardCount",
    "Equity",
    "HandEquity",
    "RunOutStage",
    "count_boards",
    "equity",
    "run_out_equities",
    "run_out_start",
]

_Z_99: Final = 2.5758293035489  # two-sided 99% point of the normal distribution
_TOLERANCE: Final = 0.005  # half a percentage point
SAMPLES: Final = math.ceil((_Z_99 * 0.5 / _TOLERANCE) ** 2)
"""Boards drawn when not every board is counted (66,349; see the module doc)."""


@dataclass(frozen=True, slots=True)
class HandEquity:
    """One hand's outcome over ``boards`` boards. In a high-low game ``wins`` and ``ties`` are
    the high hand's, ``low_wins`` and ``low_ties`` the low's (boards on which it alone has, or
    shares, the best qualifying low), and ``low_share`` is the part of ``share`` won through
    low halves."""

    wins: int  # boards on which it alone is best
    ties: int  # boards on which it shares the best hand
    boards: int
    share: Fraction  # its expected fraction of a pot all the hands contest
    low_wins: int = 0
    low_ties: int = 0
    low_share: Fraction = Fraction(0)

    @property
    def win(self) -> float:
        return self.wins / self.boards

    @property
    def tie(self) -> float:
        return self.ties / self.boards

    @property
    def equity(self) -> float:
        return float(self.share)

    @property
    def low_win(self) -> float:
        return self.low_wins / self.boards

    @property
    def low_tie(self) -> float:
        return self.low_ties / self.boards


@dataclass(frozen=True, slots=True)
class Equity:
    """The hands' equities, in the order given. ``exact``: every board was counted; else a
    uniform random sample of ``boards`` boards (see the module doc for its accuracy).
    ``high_low``: the game splits pots high-low, so the low figures mean something."""

    hands: tuple[HandEquity, ...]
    boards: int
    exact: bool
    high_low: bool = False

    def to_json(self) -> dict[str, Any]:
        hands: list[dict[str, Any]] = []
        for h in self.hands:
            figures: dict[str, Any] = {"win": h.win, "tie": h.tie, "equity": h.equity}
            if self.high_low:
                figures.update(low_win=h.low_win, low_tie=h.low_tie, low_equity=float(h.low_share))
            hands.append(figures)
        return {"exact": self.exact, "boards": self.boards, "hands": hands}


def equity(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
    *,
    samples: int = SAMPLES,
    seed: int = 0,
    game: Game = NLHE,
) -> Equity:
    """Each hand's chance to win, tie and its pot share, over the boards still possible.

    ``holes`` are two or more hands of ``game.hole_count`` cards (two in Hold'em), ``board`` 0,
    3, 4 or 5 cards, ``dead`` cards known to be out. Counts every board when there are at most
    ``samples`` of them, else draws ``samples`` boards at random from ``seed``. Raises
    ``EngineError("bad_hand", reason=...)`` on bad input (the params never name a card: they
    may be someone's hole cards).

    >>> from engine.cards import parse_cards
    >>> from engine.games import PLO8
    >>> holes = [parse_cards("As2sKhQh"), parse_cards("KsKdJcTc")]
    >>> e = equity(holes, parse_cards("3c8d9h"), game=PLO8)
    >>> e.exact, e.boards, [f"{h.equity:.3f}" for h in e.hands]
    (True, 820, ['0.454', '0.546'])
    >>> f"{float(e.hands[0].low_share):.3f}"           # of its 0.454, won with the low
    '0.317'
    """
    known = _check(holes, board, dead, samples, game.hole_count)
    rest = [Card(c) for c in range(52) if c not in known]
    prefix = tuple(board)
    missing = 5 - len(prefix)
    possible = math.comb(len(rest), missing)
    exact = possible <= samples
    if exact:
        boards = _every_board(rest, prefix)
    else:
        boards = _sample_boards(rest, missing, samples, random.Random(seed), prefix)
    if game.has_low:
        return _tally_high_low(holes, boards, exact, game)
    return _tally(holes, boards, exact, game)


def _every_board(rest: Sequence[Card], prefix: tuple[Card, ...]) -> Boards:
    """``prefix`` completed by every set of cards of ``rest`` that makes five, one row each."""
    missing = 5 - len(prefix)
    possible = math.comb(len(rest), missing)
    tails = np.fromiter(
        chain.from_iterable(combinations(rest, missing)), dtype=np.uint8, count=possible * missing
    ).reshape(possible, missing)
    return _with_prefix(prefix, tails)


def _check(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card],
    dead: Sequence[Card],
    samples: int,
    hole_count: int,
) -> set[int]:
    if len(holes) < 2:
        raise EngineError("bad_hand", reason="fewer_than_two_hands")
    if any(len(hole) != hole_count for hole in holes):
        reason = "hole_not_two_cards" if hole_count == 2 else "hole_card_count"
        raise EngineError("bad_hand", reason=reason)
    if len(board) not in (0, 3, 4, 5):
        raise EngineError("bad_hand", reason="board_size", size=len(board))
    if type(samples) is not int or samples < 1:
        raise EngineError("bad_hand", reason="samples", samples=repr(samples))
    cards: list[int] = [c for hole in holes for c in hole]
    cards += board
    cards += dead
    if not all(type(c) is int and 0 <= c < 52 for c in cards):
        raise EngineError("bad_hand", reason="bad_card")
    known: set[int] = set(cards)
    if len(known) != len(cards):
        raise EngineError("bad_hand", reason="duplicate_card")
    if 52 - len(known) < 5 - len(board):
        raise EngineError("bad_hand", reason="deck_too_short")
    return known


def _sample_boards(
    rest: Sequence[Card], missing: int, count: int, rng: random.Random, prefix: tuple[Card, ...]
) -> Boards:
    """``count`` independent uniform boards: ``prefix`` and ``missing`` distinct cards of
    ``rest``, one row each.

    Random bytes below the largest multiple of ``len(rest)`` under 256 map evenly onto the
    cards (the others are dropped), so the stream is independent uniform cards; taken
    ``missing`` at a time, draws that repeat a card are thrown back, which leaves every set of
    ``missing`` cards equally likely. Each step is one numpy operation on the whole stream.
    """
    m = len(rest)
    usable = 256 // m * m
    table = np.array([rest[b % m] for b in range(usable)], dtype=np.uint8)
    distinct = math.perm(m, missing) / m**missing  # chance that a draw repeats no card
    chunks: list[Boards] = []
    have = 0
    while have < count:
        wanted = count - have
        raw = rng.randbytes(int(wanted * missing / distinct * 256 / usable * 1.05) + 64)
        stream = np.frombuffer(raw, dtype=np.uint8)
        cards = table[stream[stream < usable]]
        # A last, incomplete draw is dropped, not carried over: the boards a seed gives
        # depend on it.
        drawn = cards[: len(cards) // missing * missing].reshape(-1, missing)
        fresh = np.ones(len(drawn), dtype=np.bool_)
        for i, j in combinations(range(missing), 2):
            fresh &= drawn[:, i] != drawn[:, j]
        chunks.append(drawn[fresh])
        have += len(chunks[-1])
    tails = np.concatenate(chunks)[:count]
    return _with_prefix(prefix, tails)


def _with_prefix(prefix: tuple[Card, ...], tails: Boards) -> Boards:
    if not prefix:
        return tails
    known = np.broadcast_to(np.array(prefix, dtype=np.uint8), (len(tails), len(prefix)))
    return np.concatenate([known, tails], axis=1)


def _tally(holes: Sequence[Sequence[Card]], boards: Boards, exact: bool, game: Game) -> Equity:
    values = high_values_on_boards(game, holes, boards)
    n = len(boards)
    if len(holes) == 2:
        first, second = values
        first_wins = int(np.count_nonzero(first > second))
        ties = int(np.count_nonzero(first == second))
        second_wins = n - first_wins - ties
        hands = (
            HandEquity(first_wins, ties, n, Fraction(2 * first_wins + ties, 2 * n)),
            HandEquity(second_wins, ties, n, Fraction(2 * second_wins + ties, 2 * n)),
        )
        return Equity(hands, n, exact)
    at_best = values == values.max(axis=0)
    sharing = np.count_nonzero(at_best, axis=0)  # hands at the best, board by board
    result = []
    for mine in at_best:
        # How many hands shared each board this hand is best on: 1 is a win, k a 1/k share.
        sizes = np.bincount(sharing[mine], minlength=2).tolist()
        wins = sizes[1]
        share = sum(
            (Fraction(count, size) for size, count in enumerate(sizes) if count), Fraction(0)
        )
        result.append(HandEquity(wins, sum(sizes) - wins, n, share / n))
    return Equity(tuple(result), n, exact)


# Every share a board gives, over this, is a whole number: two halves, each split among at most
# 23 hands (the most a deck deals), so the lcm of 1..23, doubled.
_SHARE_UNIT: Final = 2 * math.lcm(*range(1, 24))


def _tally_high_low(
    holes: Sequence[Sequence[Card]], boards: Boards, exact: bool, game: Game
) -> Equity:
    highs = high_values_on_boards(game, holes, boards)
    lows = low_values_on_boards(holes, boards)
    n = len(boards)
    at_high = highs == highs.max(axis=0)
    high_count = np.count_nonzero(at_high, axis=0)
    best_low = lows.max(axis=0)
    has_low = best_low > 0
    at_low = (lows == best_low) & has_low
    low_count = np.maximum(np.count_nonzero(at_low, axis=0), 1)
    # Per board, in _SHARE_UNIT parts of the pot: the whole pot to the high hands without a
    # low, half to each side with one.
    high_part = np.where(has_low, _SHARE_UNIT // 2, _SHARE_UNIT) // high_count
    low_part = _SHARE_UNIT // 2 // low_count
    result = []
    for high_row, low_row in zip(at_high, at_low, strict=True):
        high_units = int(high_part[high_row].sum(dtype=np.int64))
        low_units = int(low_part[low_row].sum(dtype=np.int64))
        wins = int(np.count_nonzero(high_row & (high_count == 1)))
        low_wins = int(np.count_nonzero(low_row & (low_count == 1)))
        result.append(
            HandEquity(
                wins,
                int(np.count_nonzero(high_row)) - wins,
                n,
                Fraction(high_units + low_units, _SHARE_UNIT * n),
                low_wins,
                int(np.count_nonzero(low_row)) - low_wins,
                Fraction(low_units, _SHARE_UNIT * n),
            )
        )
    return Equity(tuple(result), n, exact, high_low=True)


# --- a hand's run-out ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunOutStage:
    """The live hands' equity with ``board`` out: ``run`` 1, or 2 for the second run's own
    streets when the board was run twice."""

    run: int
    board: tuple[Card, ...]
    players: tuple[int, ...]
    equity: Equity


def run_out_equities(
    hand: Hand, *, samples: int = SAMPLES, seed: int = 0
) -> tuple[RunOutStage, ...]:
    """Equity at each step of a hand's all-in run-out: when the live hands were tabled, then
    after every street before the river (of both runs when it was run twice). ``()`` when the
    board was not run out. Only the tabled hands and the boards are used: the second run's
    figures leave out the first run's own cards, which everybody saw dealt before it.

    >>> from engine.cards import parse_cards
    >>> from engine.hand import HandConfig, deck_from_cards
    >>> holes = [parse_cards("AsAh"), parse_cards("KsKh")]
    >>> deck = deck_from_cards(2, holes, parse_cards("2c7d9h 4s 5d"))
    >>> hand = Hand(HandConfig.standard((100, 100), 1, 2), deck)
    >>> _ = hand.go_all_in(1), hand.call(0)
    >>> [(len(s.board), f"{s.equity.hands[0].equity:.2f}") for s in run_out_equities(hand)]
    [(0, '0.83'), (3, '0.92'), (4, '0.95')]
    """
    start = run_out_start(hand)
    if start is None:
        return ()
    players = tuple(j for j in range(hand.n) if not hand.folded[j])
    holes = [hand.hole_cards(j) for j in players]
    counts = [k for k in (0, 3, 4) if k >= start]
    stages = []
    for run, board in enumerate(hand.boards, start=1):
        seen = hand.board[start:] if run == 2 else ()
        for k in counts:
            if k > len(board) or (run == 2 and k == start):
                continue
            shown = tuple(board[:k])
            figures = equity(holes, shown, seen, samples=samples, seed=seed, game=hand.game)
            stages.append(RunOutStage(run, shown, players, figures))
    return tuple(stages)


def run_out_start(hand: Hand) -> int | None:
    """How many board cards were out when nobody could bet any more and the live hands were
    tabled with cards still to come (0, 3 or 4); None when the hand has not come to that (it
    ended before, or on the river, or is still being bet).

    >>> from engine.cards import FULL_DECK
    >>> from engine.hand import HandConfig
    >>> hand = Hand(HandConfig.standard((100, 100), 1, 2), FULL_DECK)
    >>> run_out_start(hand)
    >>> _ = hand.go_all_in(1), hand.call(0)
    >>> run_out_start(hand)
    0
    """
    dealt = 0
    for event in hand.events:
        if isinstance(event, StreetDealt):
            dealt += len(event.cards)
        elif isinstance(event, HandShown) and dealt < 5:
            return dealt
        elif isinstance(event, HandEnded):
            break
    return None


# --- every board, counted in classes ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardCount:
    """Every board still possible, in classes of boards on which each hand has one value:
    hand ``h`` has the high value ``highs[h, c]`` (and the low ``lows[h, c]`` in a high-low
    game, else ``lows`` is None) on each of the ``counts[c]`` boards of class ``c``; the counts
    add up to ``boards``, the number of boards still possible."""

    highs: Values
    lows: Values | None
    counts: npt.NDArray[np.int64]
    boards: int


def count_boards(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
    *,
    game: Game = NLHE,
    by_ranks: bool = True,
) -> BoardCount:
    """Every board still possible, counted exactly (never sampled), each hand valued on each.

    With part of the board out (three or four cards) at most 1,081 boards are left and each is
    a class of its own. With none out there are up to C(48, 5) = 1,712,304, too many to value
    one by one within a few milliseconds, so they are counted in classes (``by_ranks``; False
    lists them one by one, for tests and benchmarks):

    - Without three cards of a suit on the board no flush can be made (two hole cards of one
      suit and two board cards make four; Omaha takes three board cards), so every hand's
      value, high and low, depends only on the board's five ranks: one class per multiset of
      ranks (:func:`engine.bulk_eval.rank_classes`), holding the boards of those ranks the
      cards left can make, the product over ranks of C(cards left of the rank, times it
      appears).
    - A board holds three or more cards of at most one suit. Such a board, in suit ``s``, is
      ``k`` cards of ``s`` (a set of ranks) with ``5 - k`` cards of the other suits (a
      multiset of ranks, made in as many ways as above from the cards left outside ``s``); a
      hand's value on it is the larger of its value by the five ranks and its flush with the
      ``k`` suited ranks. Where that raises some hand's value the pair is a class of its own,
      taken out of its rank class; elsewhere its boards stay in the rank class, whose values
      they share.

    Some 6,000 rank classes and a few thousand to a few tens of thousands of flush classes
    replace up to 1.7 million boards.

    >>> from engine.cards import parse_cards
    >>> count = count_boards([parse_cards("AsAh"), parse_cards("KsKh")])
    >>> count.boards, int(count.counts.sum()), count.highs.shape[1] < 40_000
    (1712304, 1712304, True)
    """
    known = _check(holes, board, dead, 1, game.hole_count)
    rest = [Card(c) for c in range(52) if c not in known]
    prefix = tuple(board)
    possible = math.comb(len(rest), 5 - len(prefix))
    if prefix or not by_ranks:
        boards = _every_board(rest, prefix)
        lows = low_values_on_boards(holes, boards) if game.has_low else None
        counts = np.ones(len(boards), dtype=np.int64)
        return BoardCount(high_values_on_boards(game, holes, boards), lows, counts, possible)
    return _count_by_ranks(holes, rest, game, possible)


# C(n, k) for the cards of a rank left (n, at most four) and the times a board holds it (k).
_COMB: Final = np.array([[math.comb(n, k) for k in range(6)] for n in range(5)], dtype=np.int64)


def _rank_counts(rows: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """How many times each of the 13 ranks appears in each row of ranks."""
    counts = np.zeros((len(rows), 13), dtype=np.intp)
    for column in rows.T:
        counts[np.arange(len(rows)), column] += 1
    return counts


def _ways(rank_counts: npt.NDArray[np.intp], left: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
    """In how many ways the cards left (``left[..., r]`` of rank ``r``) make each multiset of
    ranks (``rank_counts[m, r]`` of rank ``r``)."""
    ways: npt.NDArray[np.int64] = np.prod(_COMB[left[..., None, :], rank_counts], axis=-1)
    return ways


@dataclass(frozen=True, slots=True)
class _Suited:
    """Boards holding ``k`` cards of a suit: every set of ``k`` ranks (``masks``), every
    multiset of ``5 - k`` ranks for the other cards (``filler_counts``, by rank), and the rank
    class of each pair (``classes[set, filler]``)."""

    masks: Values
    filler_counts: npt.NDArray[np.intp]
    classes: npt.NDArray[np.intp]


@cache
def _suited(k: int) -> _Suited:
    sets = np.array(list(combinations(range(13), k)), dtype=np.intp)
    multisets = list(combinations_with_replacement(range(13), 5 - k))
    fillers = np.array(multisets, dtype=np.intp).reshape(len(multisets), 5 - k)
    five = np.concatenate(
        [np.repeat(sets, len(fillers), axis=0), np.tile(fillers, (len(sets), 1))], axis=1
    )
    suited = _Suited(
        (1 << sets).sum(axis=1).astype(np.uint16),
        _rank_counts(fillers),
        rank_class(five).reshape(len(sets), len(fillers)),
    )
    for array in (suited.masks, suited.filler_counts, suited.classes):
        array.flags.writeable = False
    return suited


@cache
def _class_rank_counts() -> npt.NDArray[np.intp]:
    counts = _rank_counts(rank_classes())
    counts.flags.writeable = False
    return counts


def _count_by_ranks(
    holes: Sequence[Sequence[Card]], rest: Sequence[Card], game: Game, possible: int
) -> BoardCount:
    """``count_boards`` with no board out, in rank and flush classes (see there)."""
    unknown = np.zeros((4, 13), dtype=np.intp)  # by suit and rank: is the card left?
    for card in rest:
        unknown[card & 3, card >> 2] = 1
    left = unknown.sum(axis=0)
    counts = _ways(_class_rank_counts(), left)
    plain = high_values_by_ranks(game, holes)
    suit_masks = (unknown << np.arange(13)).sum(axis=1)
    highs: list[Values] = []
    ways: list[npt.NDArray[np.int64]] = []
    classes: list[npt.NDArray[np.intp]] = []
    for k in (3, 4, 5):
        table = _suited(k)
        # The sets of k ranks each suit has left, and the flushes they give.
        fits = (table.masks[None, :] & ~suit_masks[:, None]) == 0
        suits, sets = np.nonzero(fits)
        flushes = flush_values(game, holes, suits, table.masks[sets])
        made = flushes.max(axis=0) > 0
        suits, sets, flushes = suits[made], sets[made], flushes[:, made]
        # Each with every filler the other suits can make, in so many ways.
        filler_ways = _ways(table.filler_counts, left - unknown)[suits]
        cls = table.classes[sets]
        by_ranks = plain[:, cls]
        value = np.maximum(by_ranks, flushes[:, :, None])
        raised = (value != by_ranks).any(axis=0) & (filler_ways > 0)
        highs.append(value[:, raised])
        ways.append(filler_ways[raised])
        classes.append(cls[raised])
    flush_classes, flush_ways = np.concatenate(classes), np.concatenate(ways)
    # Exact: float64 holds whole numbers to 2 ** 53, and no count comes near C(48, 5).
    taken = np.bincount(flush_classes, weights=flush_ways, minlength=len(counts))
    counts = counts - taken.astype(np.int64)
    some = counts > 0
    lows = low_values_by_ranks(holes) if game.has_low else None
    return BoardCount(
        np.concatenate([plain[:, some], *highs], axis=1),
        None if lows is None else np.concatenate([lows[:, some], lows[:, flush_classes]], axis=1),
        np.concatenate([counts[some], flush_ways]),
        possible,
    )
