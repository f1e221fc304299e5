"""Opponents' ranges read from their actions, and a hand's equity against them.

**Before the flop** a player's range is a set of places in the order of
:mod:`engine.bots.strength`, narrowed by each of his actions in turn: an open raise with ``b``
players still to act is the top :data:`OPEN_WIDTH`\\ ``[b]`` of hands, a re-raise a fraction of
the raise it answers, a call the part of the range that was neither folded nor re-raised, a limp
the middle. Every class keeps a small weight outside the range, because people do not play by
the book (and the beginner level does not).

**After the flop** each action weighs the hands by how likely a player holding them is to make
it. That likelihood is a function of the hand's *place in its own range*: its share of the
pot, on the boards still to come, against the other hands of that range. Bets come mostly from
the top half (with some bluffs, fewer on later streets), each raise on a street from about half
the part of the range the one before came from, calls from the middle up, checks from anywhere
but the very top; a player calling a bet of ``b`` into ``p`` folds about the weakest
``b / (p + b)`` of his range, the share that leaves the bettor's bluffs no profit. Conversely
a bet of ``b`` into ``p`` that leaves its caller indifferent holds ``b / (p + 2b)`` bluffs;
:func:`with_bluffs` and :meth:`Estimate.against_bet` read a range as holding part of them.

>>> from engine.bots.preflop import class_combos
>>> from engine.bots.view import view_of
>>> from engine.cards import FULL_DECK
>>> from engine.hand import Hand, HandConfig
>>> hand = Hand(HandConfig.standard((200,) * 6, 1, 2), FULL_DECK)
>>> _ = hand.raise_to(2, 5)  # under the gun, five players behind him
>>> weights = preflop_range(view_of(hand, 3), 2)  # the top 17%, and a little of the rest
>>> f"{sum(w * class_combos(c) for c, w in enumerate(weights)) / 1326:.2f}"
'0.19'

**Equity** is counted on sampled hands and boards: for each opponent :func:`estimate` draws
hands from his range (systematically, one random offset, so the sample covers the range evenly)
and completes the board a number of ways; every hand meets every board except where they share
a card. All the seven-card values come from one :func:`engine.bulk_eval.values_on_boards` call:
a value does not depend on which two cards are called the hole, so two cards of the board, the
same in every case, serve as the hole and the other five (the rest of the board, a player's
hand, the cards to come) as the board. On the river that is one exact board and many hands.
Against several opponents the chance to beat them all on a board is the product of the chances
to beat each, then averaged over the boards. Before the flop nothing is sampled: the equity is
read from the exact class-against-class table of :mod:`engine.bots.allin`.

The sample sizes keep a decision near a few tenths of a millisecond (``python -m
bench.bot_decisions``): about 1,200 hand-boards. Against one opponent the flop draws 60 hands on
20 run-outs, the turn 75 hands on 16 rivers, the river 128 hands on its one board. Measured
over spots from play, the standard deviation of the estimate from one seed to another is about
five points on the flop and turn and two on the river: a hand that close to a decision's edge
goes one way or the other by the draw, which reads as a mixed strategy. The draws follow the
given generator, so a decision is repeatable.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.bots import allin
from engine.bots.reading import betting
from engine.bots.strength import COMBO_CLASS, COMBOS, combos_without, hand_class, strengths
from engine.bots.view import BotView
from engine.bulk_eval import values_on_boards
from engine.hand import ActionKind, Street

__all__ = [
    "OPEN_WIDTH",
    "Act",
    "Estimate",
    "Line",
    "action_likelihood",
    "estimate",
    "open_width",
    "places_in_range",
    "postflop_acts",
    "postflop_lines",
    "preflop_equity",
    "preflop_range",
    "range_bounds",
    "range_weights",
    "re_raise_width",
    "with_bluffs",
]

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

OPEN_WIDTH: Final = (1.0, 0.45, 0.45, 0.28, 0.21, 0.17, 0.14, 0.12, 0.11)
"""Share of hands a sound player opens with ``b`` players left to act (index ``b``; 8 and more
play as 8): the small blind against the big blind and the button open wide, the first seat of a
full table about one hand in nine."""

_FLOOR: Final = 0.03  # weight of a hand outside the range read: unlikely, never impossible
_EDGE: Final = 0.05  # width of the ramp at a range's edge, in places
_TRAPS: Final = 0.25  # weight of the hands above a caller's range: he may slow-play them
_CELLS: Final = 1_200  # hand-boards a post-flop estimate counts
_RUNOUTS: Final = {3: 20, 4: 16, 5: 1}  # boards drawn, by board cards out
_PLACE_BOARDS: Final = 8  # of those, the ones a hand's place in its range is measured on
_BIT: Final = np.array([1 << c for c in range(52)], dtype=np.uint64)
_CLASS_COMBOS: Final = np.bincount(COMBO_CLASS, minlength=169).astype(np.float64)
_MOST_HANDS: Final = 128  # hands drawn per opponent at most
_AGGRESSIVE: Final = (ActionKind.BET, ActionKind.RAISE)


def open_width(behind: int) -> float:
    return OPEN_WIDTH[max(0, min(behind, len(OPEN_WIDTH) - 1))]


def re_raise_width(previous: float) -> float:
    # Each re-raise shows about a third of the range it answers, never fewer than the
    # premium pairs and ace-king.
    return max(0.025, 0.3 * previous)


def preflop_range(view: BotView, seat: int) -> Floats:
    """Weight of each class in the range of ``seat`` after the pre-flop actions seen."""
    return _preflop_range(view, seat, open_width(betting(view).first_raiser_behind))


def _preflop_range(view: BotView, seat: int, opened: float) -> Floats:
    """:func:`preflop_range`, the first raise's width ``opened`` known."""
    return range_weights(strengths().top(1), *range_bounds(view, seat, opened))


def range_bounds(view: BotView, seat: int, opened: float) -> tuple[float, float, float]:
    """The range of ``seat`` read from the pre-flop actions, as places ``(top, bottom]`` and
    the weight of the places above ``top`` (hands he may be slow-playing): the same reading in
    every game, whatever orders its starting hands into places."""
    top, bottom, traps = 0.0, 1.0, 1.0  # the range: places in (top, bottom], traps above
    width = 1.0  # the range the last raise showed
    raises = 0
    for seen in view.actions:
        if seen.street is not Street.PREFLOP:
            continue
        if seen.kind in _AGGRESSIVE:
            width = opened if raises == 0 else re_raise_width(width)
            raises += 1
            if seen.player == seat:
                top, bottom, traps = 0.0, min(bottom, width), 1.0
        elif seen.kind is ActionKind.CALL and seen.player == seat:
            if raises == 0:  # a limp: neither good enough to raise nor bad enough to fold
                top, bottom, traps = max(top, 0.05), min(bottom, 0.6), _TRAPS
            else:
                reraise = re_raise_width(width)
                # The big blind closes the action at a price: he defends wider.
                wide = 2.5 if seat == _big_blind(view) and raises == 1 else 1.6
                top, bottom, traps = max(top, reraise), min(bottom, wide * width), _TRAPS
        elif seen.kind is ActionKind.CHECK and seen.player == seat:
            top, traps = max(top, 0.1), 0.4  # the big blind's option: he would raise the best
    return top, max(bottom, top + _EDGE), traps


def range_weights(places: Floats, top: float, bottom: float, traps: float) -> Floats:
    """The weight of hands at ``places`` in a range read by :func:`range_bounds`: full inside,
    a ramp at its edge, :data:`_FLOOR` outside (people do not play by the book)."""
    inside = np.clip((bottom + _EDGE / 2 - places) / _EDGE, 0.0, 1.0)
    weight = np.where(places <= top, traps, 1.0) * inside
    result: Floats = _FLOOR + (1 - _FLOOR) * weight
    return result


def _big_blind(view: BotView) -> int:
    return 0 if view.players == 2 else 1


@dataclass(frozen=True, slots=True)
class Act:
    """One post-flop action of an opponent, with what it answered."""

    kind: ActionKind  # check, call, bet or raise (an all-in bet counts as a raise)
    street: Street
    level: int  # bets and raises on the street before it: 0 unopened, 1 facing a bet, ...


@dataclass(frozen=True, slots=True)
class Line:
    """One opponent: his pre-flop range and what he did after the flop."""

    seat: int
    classes: Floats
    actions: tuple[Act, ...]


def postflop_lines(view: BotView, opened: float | None = None) -> list[Line]:
    """Every other player still holding cards, with his range and post-flop actions; the first
    raise before the flop read as ``opened`` wide when given, else as its position opens."""
    if opened is None:
        opened = open_width(betting(view).first_raiser_behind)
    return [
        Line(seat, _preflop_range(view, seat, opened), acts)
        for seat, acts in postflop_acts(view).items()
    ]


def postflop_acts(view: BotView) -> dict[int, tuple[Act, ...]]:
    """Every other player still holding cards, with his post-flop actions."""
    acts: dict[int, list[Act]] = {seat: [] for seat in view.live if seat != view.me}
    street, level = Street.PREFLOP, 0
    for seen in view.actions:
        if seen.street is Street.PREFLOP:
            continue
        if seen.street is not street:
            street, level = seen.street, 0
        kind = seen.kind
        if seen.all_in and kind is ActionKind.BET:
            kind = ActionKind.RAISE  # a shove is never a probe
        if seen.player in acts:
            acts[seen.player].append(Act(kind, street, level))
        if seen.kind in _AGGRESSIVE:
            level += 1
    return {seat: tuple(a) for seat, a in acts.items()}


def _sigmoid(x: Floats) -> Floats:
    result: Floats = 1.0 / (1.0 + np.exp(-x))
    return result


# The least share of a street's bets that are bluffs: people bluff the flop more than the river.
_BLUFFS: Final = {Street.FLOP: 0.15, Street.TURN: 0.1, Street.RIVER: 0.08}


def action_likelihood(act: Act, place: Floats) -> Floats:
    """How likely a hand of this place in its range is to take ``act``.

    Each raise on a street comes from about half the part of the range the one before came
    from, and calling a raise takes more than calling a bet.
    """
    if act.kind is ActionKind.BET:
        floor = _BLUFFS.get(act.street, 0.1)
        return floor + (1 - floor) * _sigmoid((place - 0.55) / 0.08)
    if act.kind is ActionKind.RAISE:
        step = 0.5 ** max(0, act.level - 1)
        centre = 1 - 0.28 * step
        floor = 0.08 * step
        return floor + (1 - floor) * _sigmoid((place - centre) / (0.06 * step))
    if act.kind is ActionKind.CALL:
        centre = min(0.8, 0.35 + 0.15 * max(0, act.level - 1))
        return 0.05 + 0.95 * _sigmoid((place - centre) / 0.08)
    if act.kind is ActionKind.CHECK:
        return 1.0 - 0.5 * _sigmoid((place - 0.8) / 0.05)
    return np.ones_like(place)


class Estimate:
    """A hand's equity against the ranges read, and against the part of them that would call."""

    def __init__(
        self,
        seats: list[int],
        won: list[Floats],
        met: list[Floats],
        weights: list[Floats],
        places: list[Floats],
    ) -> None:
        # By opponent, a hands x boards table each: the seat's share of the pot against that
        # hand on that board where they meet (else 0), and whether they meet.
        self._seats = seats
        self._won = won
        self._met = met
        self._weights = weights
        self._places = places
        self.equity = self._equity(weights)

    def _equity(self, weights: Sequence[Floats]) -> float:
        beat_all: Floats | float = 1.0
        for won, met, weight in zip(self._won, self._met, weights, strict=True):
            total = weight @ met
            beat_all = beat_all * np.where(
                total > 0, (weight @ won) / np.maximum(total, 1e-12), 0.5
            )
        return float(np.mean(beat_all))

    def against_calls(self, bet: float, pot: float) -> float:
        """The equity against the hands that would call a bet of ``bet`` into ``pot``."""
        folding = bet / (pot + bet)
        weights = [
            w * (0.03 + 0.97 * _sigmoid((place - folding) / 0.07))
            for w, place in zip(self._weights, self._places, strict=True)
        ]
        return self._equity(weights)

    def against_bet(self, seat: int, share: float) -> float:
        """The equity against the ranges read, but with ``share`` of the range of ``seat``, who
        bet, made of bluffs: his weakest hands (see :func:`with_bluffs`)."""
        weights = []
        for who, w, place in zip(self._seats, self._weights, self._places, strict=True):
            if who == seat:
                bluffs = _sigmoid((0.35 - place) / 0.08)
                w = (1 - share) * w / max(float(w.sum()), 1e-12) + share * bluffs / max(
                    float(bluffs.sum()), 1e-12
                )
            weights.append(w)
        return self._equity(weights)


def estimate(view: BotView, rng: random.Random, lines: Sequence[Line]) -> Estimate:
    """Equity of the seat's hand after the flop against ``lines`` (see the module doc)."""
    board = view.board
    known = len(board)
    unseen = np.ones(52, dtype=np.bool_)
    unseen[list(view.hole) + list(board)] = False
    runouts = _runouts(np.flatnonzero(unseen).astype(np.uint8), 5 - known, rng)
    count = len(runouts)
    per_line = max(8, min(_MOST_HANDS, _CELLS // (count * max(1, len(lines)))))
    alive = combos_without(tuple(view.hole) + tuple(board))
    hands = [_draw_hands(line.classes, alive, per_line, rng) for line in lines]
    holes = np.concatenate([np.array([view.hole], dtype=np.uint8), *hands])
    players = len(holes)
    # A drawn hand meets only the run-outs it shares no card with: disjoint sets of bits.
    hand_bits = _BIT[holes[:, 0]] | _BIT[holes[:, 1]]
    run_bits = np.bitwise_or.reduce(_BIT[runouts], axis=1)
    meets = (hand_bits[:, None] & run_bits[None, :]) == 0
    # The five "board" cards of each hand-board: the board beyond its first two cards, the
    # player's two, then the run-out. The board's first two cards are the "hole" of the call.
    # A repeated card is not a hand and its value is meaningless (it may even index out of
    # the evaluator's tables), so where a drawn hand clashes the seat's own hand stands in.
    cells = np.empty((players, count, 5), dtype=np.uint8)
    cells[:, :, : known - 2] = board[2:]
    cells[:, :, known - 2 : known] = np.where(meets[:, :, None], holes[:, None, :], holes[0])
    cells[:, :, known:] = runouts[None, :, :]
    values = values_on_boards([(board[0], board[1])], cells.reshape(-1, 5))[0]
    values = values.reshape(players, count).astype(np.int32)
    hero = values[0]
    won, met, weights, places = [], [], [], []
    start = 1
    for line, drawn in zip(lines, hands, strict=True):
        stop = start + len(drawn)
        theirs, ok = values[start:stop], meets[start:stop]
        start = stop
        # A hand's place in its range needs fewer boards than the equity does.
        place = places_in_range(theirs[:, :_PLACE_BOARDS], ok[:, :_PLACE_BOARDS])
        weight = np.ones(len(drawn))
        for act in line.actions:
            weight = weight * action_likelihood(act, place)
        share = (hero > theirs) + 0.5 * (hero == theirs)
        won.append(np.where(ok, share, 0.0))
        met.append(ok.astype(np.float64))
        weights.append(weight)
        places.append(place)
    return Estimate([line.seat for line in lines], won, met, weights, places)


def _runouts(
    rest: npt.NDArray[np.uint8], missing: int, rng: random.Random
) -> npt.NDArray[np.uint8]:
    """:data:`_RUNOUTS` completions of the board from ``rest``, each uniform (a completion may
    come twice). Four random bytes pick each one: the remainder of 2**32 by at most 1,081
    completions biases none by more than a millionth, and one call to the generator is far
    cheaper than one a completion."""
    if missing == 0:
        return np.zeros((1, 0), dtype=np.uint8)
    wanted = _RUNOUTS[5 - missing]
    pairs = _index_pairs(len(rest)) if missing == 2 else None
    possible = len(rest) if pairs is None else len(pairs)
    picked = np.frombuffer(rng.randbytes(4 * wanted), dtype=np.uint32) % possible
    if pairs is None:
        return rest[picked][:, None]
    return rest[pairs[picked]]


_PAIRS: dict[int, npt.NDArray[np.intp]] = {}


def _index_pairs(size: int) -> npt.NDArray[np.intp]:
    pairs = _PAIRS.get(size)
    if pairs is None:
        pairs = _PAIRS[size] = np.array(list(combinations(range(size), 2)), dtype=np.intp)
    return pairs


def _draw_hands(
    classes: Floats, alive: Bools, count: int, rng: random.Random
) -> npt.NDArray[np.uint8]:
    """``count`` hands from a range, by its weights, the deals that clash with the known cards
    left out. Systematic: one random offset, then evenly spaced, so each part of the range gets
    its share of the sample."""
    weight = np.where(alive, classes[COMBO_CLASS], 0.0)
    running = np.cumsum(weight)
    marks = (rng.random() + np.arange(count)) / count * running[-1]
    picked = np.minimum(np.searchsorted(running, marks, side="right"), len(running) - 1)
    hands: npt.NDArray[np.uint8] = COMBOS[picked]
    return hands


def places_in_range(values: npt.NDArray[np.int32], ok: Bools) -> Floats:
    """Each hand's share of the pot against the other hands drawn, over the boards it meets.

    Each board's values are lifted into a band of their own and sorted once; a hand's count of
    weaker and equal hands on a board is where its value starts and ends in that board's band.
    Hands that do not meet a board sit at 0 in it, below every real hand.
    """
    hands, count = values.shape
    band = np.arange(count, dtype=np.int64) * 8192
    keys = np.where(ok, values, 0) + band
    ordered = np.sort(keys, axis=None)
    below = np.searchsorted(ordered, keys, "left")
    upto = np.searchsorted(ordered, keys, "right")
    start = np.arange(count) * hands
    absent = hands - ok.sum(axis=0)
    others = hands - absent - 1
    share = (below - start - absent + 0.5 * (upto - below - 1)) / np.maximum(others, 1)
    met = (ok & (others > 0)).sum(axis=1)
    result: Floats = np.where(met > 0, (share * ok).sum(axis=1) / np.maximum(met, 1), 0.5)
    return result


def with_bluffs(classes: Floats, share: float) -> Floats:
    """A range with ``share`` of it made any hand at all: the bluffs a bet may hold.

    A bet of ``b`` into ``p`` that leaves a caller indifferent holds ``b / (p + 2b)`` bluffs:
    the caller's own price. Reading ranges with at least that many keeps a player from being
    pushed off every pot by one who raises with anything.
    """
    combos = _CLASS_COMBOS
    value = classes / max(float(classes @ combos), 1e-12)
    mixed: Floats = (1 - share) * value + share / float(combos.sum())
    return mixed


def preflop_equity(view: BotView, ranges: Sequence[Floats]) -> float:
    """Equity of the seat's hand before the flop against a range for each opponent.

    Exact class against class (:mod:`engine.bots.allin`): each class of a range weighs its
    weight times the pairs of combinations the two classes can be dealt as. Against several
    opponents it is the product of the equities against each, as if the hands met apart.
    """
    equity, pairs = _all_in_table()
    mine = hand_class(view.hole)
    result = 1.0
    for classes in ranges:
        weight = classes * pairs[mine]
        result *= float(weight @ equity[mine]) / max(float(weight.sum()), 1e-12)
    return result


@cache
def _all_in_table() -> tuple[Floats, Floats]:
    table = allin.load()
    return table.equity(), table.pairs.astype(np.float64)
