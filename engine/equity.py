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
658,008 six-handed, seconds of work in Python against a budget of 200 ms. Instead
:data:`SAMPLES` boards are drawn uniformly and independently from a generator seeded by
``seed`` (same input, same figures). Each reported probability ``p`` is then the mean of
``n`` independent Bernoulli(p) draws, of standard deviation ``sqrt(p(1 - p) / n) <= 0.5 /
sqrt(n)``; with ``n = 66,349 = ceil((2.5758 * 0.5 / 0.005) ** 2)`` that is at most 0.194
percentage points, so each figure is within 0.5 points of the exact one with probability at
least 99% (2.5758 standard deviations; at this ``n`` the normal approximation is close, and
figures away from 1/2 are tighter still). An equity is the mean of per-board shares in [0, 1],
whose variance is at most 1/4 too, so the same bound holds for it.

Values come from :func:`engine.evaluator.rank_values_on_boards` (phevaluator's C core, one call
per hand and board); the counting is done by C-level ``map``/``compress`` over those lists.

>>> from engine.cards import parse_cards
>>> e = equity([parse_cards("AsAh"), parse_cards("KsKh")], parse_cards("2c7d9h"))
>>> e.exact, e.boards, [f"{h.win:.4f}" for h in e.hands], e.hands[1].wins
(True, 990, ['0.9162', '0.0838'], 83)
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, compress, repeat
from operator import add, eq, gt
from typing import Any, Final

from engine.cards import Card
from engine.errors import EngineError
from engine.evaluator import rank_values_on_boards
from engine.hand import Hand, HandEnded, HandShown, StreetDealt

__all__ = ["SAMPLES", "Equity", "HandEquity", "RunOutStage", "equity", "run_out_equities"]

_Z_99: Final = 2.5758293035489  # two-sided 99% point of the normal distribution
_TOLERANCE: Final = 0.005  # half a percentage point
SAMPLES: Final = math.ceil((_Z_99 * 0.5 / _TOLERANCE) ** 2)
"""Boards drawn when not every board is counted (66,349; see the module doc)."""


@dataclass(frozen=True, slots=True)
class HandEquity:
    """One hand's outcome over ``boards`` boards."""

    wins: int  # boards on which it alone is best
    ties: int  # boards on which it shares the best hand
    boards: int
    share: Fraction  # its expected fraction of a pot all the hands contest

    @property
    def win(self) -> float:
        return self.wins / self.boards

    @property
    def tie(self) -> float:
        return self.ties / self.boards

    @property
    def equity(self) -> float:
        return float(self.share)


@dataclass(frozen=True, slots=True)
class Equity:
    """The hands' equities, in the order given. ``exact``: every board was counted; else a
    uniform random sample of ``boards`` boards (see the module doc for its accuracy)."""

    hands: tuple[HandEquity, ...]
    boards: int
    exact: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "exact": self.exact,
            "boards": self.boards,
            "hands": [{"win": h.win, "tie": h.tie, "equity": h.equity} for h in self.hands],
        }


def equity(
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
    *,
    samples: int = SAMPLES,
    seed: int = 0,
) -> Equity:
    """Each hand's chance to win, tie and its pot share, over the boards still possible.

    ``holes`` are two or more hands of two cards, ``board`` 0, 3, 4 or 5 cards, ``dead`` cards
    known to be out. Counts every board when there are at most ``samples`` of them, else draws
    ``samples`` boards at random from ``seed``. Raises ``EngineError("bad_hand", reason=...)``
    on bad input (the params never name a card: they may be someone's hole cards).
    """
    known = _check(holes, board, dead, samples)
    rest = [Card(c) for c in range(52) if c not in known]
    prefix = tuple(board)
    missing = 5 - len(prefix)
    exact = math.comb(len(rest), missing) <= samples
    if exact:
        boards = [prefix + tail for tail in combinations(rest, missing)]
    else:
        boards = _sample_boards(rest, missing, samples, random.Random(seed), prefix)
    return _tally([tuple(h) for h in holes], boards, exact)


def _check(
    holes: Sequence[Sequence[Card]], board: Sequence[Card], dead: Sequence[Card], samples: int
) -> set[int]:
    if len(holes) < 2:
        raise EngineError("bad_hand", reason="fewer_than_two_hands")
    if any(len(hole) != 2 for hole in holes):
        raise EngineError("bad_hand", reason="hole_not_two_cards")
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
) -> list[tuple[Card, ...]]:
    """``count`` independent uniform boards: ``prefix`` and ``missing`` distinct cards of
    ``rest``.

    Random bytes below the largest multiple of ``len(rest)`` under 256 map evenly onto the
    cards (the others are dropped), so the stream is independent uniform cards; taken
    ``missing`` at a time, draws that repeat a card are thrown back, which leaves every set of
    ``missing`` cards equally likely. All of it runs in C (``bytes.translate``, ``zip``, ``map``).
    """
    m = len(rest)
    usable = 256 // m * m
    table = bytes(rest[b % m] if b < usable else 0 for b in range(256))
    dropped = bytes(range(usable, 256))
    distinct = math.perm(m, missing) / m**missing  # chance that a draw repeats no card
    boards: list[tuple[Card, ...]] = []
    while len(boards) < count:
        wanted = count - len(boards)
        raw = rng.randbytes(int(wanted * missing / distinct * 256 / usable * 1.05) + 64)
        stream = iter(raw.translate(table, dropped))
        drawn: list[tuple[Card, ...]] = list(zip(*[stream] * missing, strict=False))
        fresh = compress(drawn, map(eq, map(len, map(set, drawn)), repeat(missing)))
        boards.extend(map(add, repeat(prefix), fresh) if prefix else fresh)
    del boards[count:]
    return boards


def _tally(holes: list[tuple[Card, ...]], boards: list[tuple[Card, ...]], exact: bool) -> Equity:
    values = rank_values_on_boards(holes, boards)
    n = len(boards)
    if len(holes) == 2:
        first, second = values
        first_wins = sum(map(gt, first, second))
        ties = sum(map(eq, first, second))
        second_wins = n - first_wins - ties
        hands = (
            HandEquity(first_wins, ties, n, Fraction(2 * first_wins + ties, 2 * n)),
            HandEquity(second_wins, ties, n, Fraction(2 * second_wins + ties, 2 * n)),
        )
        return Equity(hands, n, exact)
    best = list(map(max, *values))
    at_best = [list(map(eq, v, best)) for v in values]
    sharing = list(map(tuple.count, zip(*values, strict=True), best))  # hands at the best
    result = []
    for mine in at_best:
        # How many hands shared each board this hand is best on: 1 is a win, k a 1/k share.
        sizes = Counter(compress(sharing, mine))
        wins = sizes.get(1, 0)
        share = sum((Fraction(count, size) for size, count in sizes.items()), Fraction(0))
        result.append(HandEquity(wins, sum(sizes.values()) - wins, n, share / n))
    return Equity(tuple(result), n, exact)


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
    board was not run out. Only the tabled hands and the board are used.

    >>> from engine.cards import parse_cards
    >>> from engine.hand import HandConfig, deck_from_cards
    >>> holes = [parse_cards("AsAh"), parse_cards("KsKh")]
    >>> deck = deck_from_cards(2, holes, parse_cards("2c7d9h 4s 5d"))
    >>> hand = Hand(HandConfig.standard((100, 100), 1, 2), deck)
    >>> _ = hand.go_all_in(1), hand.call(0)
    >>> [(len(s.board), f"{s.equity.hands[0].equity:.2f}") for s in run_out_equities(hand)]
    [(0, '0.83'), (3, '0.92'), (4, '0.95')]
    """
    start: int | None = None
    dealt = 0
    for event in hand.events:
        if isinstance(event, StreetDealt):
            dealt += len(event.cards)
        elif isinstance(event, HandShown) and dealt < 5:
            start = dealt
            break
        elif isinstance(event, HandEnded):
            break
    if start is None:
        return ()
    players = tuple(j for j in range(hand.n) if not hand.folded[j])
    holes = [hand.hole_cards(j) for j in players]
    counts = [k for k in (0, 3, 4) if k >= start]
    stages = []
    for run, board in enumerate(hand.boards, start=1):
        for k in counts:
            if k > len(board) or (run == 2 and k == start):
                continue
            shown = tuple(board[:k])
            stages.append(
                RunOutStage(run, shown, players, equity(holes, shown, samples=samples, seed=seed))
            )
    return tuple(stages)
