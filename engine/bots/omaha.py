"""What the computer players know of the Omaha games: starting hands, ranges and equity.

**Starting hands.** Four (or five) cards make six (or ten) two-card pairs, of which a hand
plays exactly two with three of the board (RULES section 10), so what makes an Omaha hand is
how its cards work together. :func:`scores` rates a hand on what players look for: a pair
(the higher the better, and three of a rank is a dead card and worse than none), suits (two
cards of a suit make a flush draw, the ace of it the nut one, two suits twice that; a third
card of the suit takes an out from the draw), connected ranks (the more distinct ranks within
one five-rank window, the more straights), high cards and, in Hi-Lo, low potential: distinct
ranks from the ace to the eight, the ace and the deuce above all, middle cards (nine to
jack) counting against. The score of a hand is then read as a *place* (:func:`places`): the
share of random hands of the game scoring better, 0 the best and 1 the worst, the order the
Hold'em ranges use (:mod:`engine.bots.strength`), so a range is a set of places in every game.

>>> from engine.cards import parse_cards
>>> from engine.games import PLO, PLO8
>>> [round(place(parse_cards(h), PLO), 2) for h in ("AsAhKsKh", "Jh Th 9s 8s", "7c 2d 2h 2s")]
[0.0, 0.03, 1.0]
>>> place(parse_cards("As 2s 3h Kh"), PLO8) < place(parse_cards("As 2s 3h Kh"), PLO)
True

**Ranges** are read from the pre-flop actions as in Hold'em (:func:`~engine.bots.ranges.\
range_bounds`), over these places, and weighed after the flop by each action as in Hold'em
(a hand's place in its own range on the boards to come).

**Equity** (:func:`estimate`): for each opponent, random hands of the game are drawn from the
unseen cards, weighed by his range and redrawn from it by weight (systematically, so the
sample covers the range evenly); the board is completed a number of ways, and every hand is
valued on every board by the bulk evaluator as the game makes hands (exactly two hole cards and
three board cards; in Hi-Lo the eight-or-better low too, the pot halved between the best high
and the best low and the high taking it all when nobody has a low). The figures go into the
same :class:`~engine.bots.ranges.Estimate` the Hold'em levels read.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.bots.ranges import (
    OPEN_WIDTH,
    Act,
    Estimate,
    action_likelihood,
    places_in_range,
    postflop_acts,
    range_bounds,
    range_weights,
)
from engine.bots.reading import betting
from engine.bots.view import BotView
from engine.bulk_eval import low_values_of_hands, omaha_values_of_hands
from engine.cards import Card
from engine.games import Game

__all__ = [
    "OmahaLine",
    "estimate",
    "lines",
    "omaha_open_width",
    "place",
    "places",
    "scores",
]

Floats = npt.NDArray[np.float64]
Hands = npt.NDArray[np.uint8]

_REFERENCE: Final = 20_000  # random hands a game's places are measured against
_SEED: Final = 20_261_207
_CELLS: Final = 1_200  # hand-boards an estimate counts, as in Hold'em
_RUNOUTS: Final = {0: 24, 3: 20, 4: 16, 5: 1}  # boards drawn, by board cards out
_MOST_HANDS: Final = 64  # hands drawn per opponent at most: each costs an evaluation
_CANDIDATES: Final = 8  # random hands looked at for each one kept
_PLACE_BOARDS: Final = 8
_BIT: Final = np.array([1 << c for c in range(52)], dtype=np.uint64)

# Connected ranks: points by how many distinct ranks of the hand fall in one five-rank window.
_CONNECTED: Final = np.array([0.0, 0.0, 2.0, 6.0, 11.0, 13.0])
_LOW_RANKS: Final = np.array([0.0, 0.0, 3.0, 5.0, 6.5, 7.0])


def omaha_open_width(behind: int) -> float:
    """Share of hands a sound player opens with ``behind`` players left to act: a little
    tighter than Hold'em, as Omaha hands run closer and the worst of them are dominated."""
    return 0.9 * OPEN_WIDTH[max(0, min(behind, len(OPEN_WIDTH) - 1))]


def scores(hands: Hands, game: Game) -> Floats:
    """The starting-hand score of each row of ``hands`` (bigger is better; module doc)."""
    ranks = (hands >> 2).astype(np.intp)
    suits = (hands & 3).astype(np.intp)
    count = hands.shape[1]
    by_rank = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    pairs = np.where(by_rank == 2, 3.0 + 0.5 * np.arange(13), 0.0).sum(axis=1)
    dead = (by_rank >= 3).sum(axis=1) * 8.0
    in_suit = suits[:, :, None] == np.arange(4)
    by_suit = in_suit.sum(axis=1)
    top_of_suit = np.where(in_suit, ranks[:, :, None], -1).max(axis=1)
    draw = 2.5 + np.where(top_of_suit == 12, 1.5, np.where(top_of_suit == 11, 0.5, 0.0))
    # A third card of the suit is an out less; with five cards it is how suits usually come.
    third = 0.5 if count >= 5 else 0.0
    suited = np.where(by_suit == 2, draw, np.where(by_suit == 3, draw * third + 1.0, 0.0))
    suited = suited.sum(axis=1)
    present = by_rank > 0
    # The ace plays low too: index 0 is the ace below the deuce.
    ladder = np.concatenate([present[:, 12:13], present], axis=1).astype(np.intp)
    running = np.concatenate([np.zeros((len(hands), 1), dtype=np.intp), ladder.cumsum(axis=1)], 1)
    windows = running[:, 5:] - running[:, :-5]  # windows starting at ace-low .. ten
    best = windows.max(axis=1)
    # The highest window with the most ranks: connected high cards make the better straights.
    start = windows.shape[1] - 1 - np.argmax(windows[:, ::-1] == best[:, None], axis=1)
    connected = _CONNECTED[np.minimum(best, 5)] + 0.15 * start
    high = 0.4 * (ranks >= 8).sum(axis=1)
    score = pairs - dead + suited + connected + high
    if game.has_low:
        low_present = np.concatenate([present[:, 12:13], present[:, :7]], axis=1)
        lows = low_present.sum(axis=1)
        ace, deuce, trey = low_present[:, 0], low_present[:, 1], low_present[:, 2]
        score = (
            score
            + _LOW_RANKS[np.minimum(lows, 5)]
            + 4.0 * (ace & deuce)
            + 2.0 * (ace & trey & ~deuce)
            + 2.0 * ace
            - 1.0 * ((ranks >= 7) & (ranks <= 9)).sum(axis=1)
        )
    result: Floats = score.astype(np.float64)
    return result


@cache
def _reference(game: Game) -> Floats:
    """The sorted scores of random hands of ``game``, from a fixed seed: the same in every
    process, whatever asks first."""
    gen = np.random.Generator(np.random.PCG64(_SEED + game.hole_count))
    hands = gen.random((_REFERENCE, 52)).argsort(axis=1)[:, : game.hole_count].astype(np.uint8)
    ordered = np.sort(scores(hands, game))
    ordered.flags.writeable = False
    return ordered


def places(hands: Hands, game: Game) -> Floats:
    """Each hand's place among random hands of ``game``: the share scoring better, plus half
    the share scoring the same (0 the best, 1 the worst)."""
    ordered = _reference(game)
    mine = scores(hands, game)
    below = np.searchsorted(ordered, mine, "left")
    upto = np.searchsorted(ordered, mine, "right")
    result: Floats = 1.0 - (below + upto) / (2.0 * len(ordered))
    return result


def place(hole: Sequence[Card], game: Game) -> float:
    """The place of one hand (see :func:`places`)."""
    return float(places(np.array([hole], dtype=np.uint8), game)[0])


def _distinct_rows(
    gen: np.random.Generator, size: int, width: int, rows: int
) -> npt.NDArray[np.intp]:
    """``rows`` rows of ``width`` distinct indices below ``size``, each row uniform: rows drawn
    with repeats are dropped, and more drawn until there are enough (far cheaper than sorting
    a random key for every card of every row)."""
    found = np.empty((0, width), dtype=np.intp)
    while len(found) < rows:
        drawn = gen.integers(0, size, size=(rows + rows // 2 + 4, width))
        ordered = np.sort(drawn, axis=1)
        distinct = (np.diff(ordered, axis=1) != 0).all(axis=1)
        found = np.concatenate([found, drawn[distinct]])
    return found[:rows]


@dataclass(frozen=True, slots=True)
class OmahaLine:
    """One opponent: his pre-flop range as places ``(top, bottom]`` with the weight of the
    places above, and what he did after the flop."""

    seat: int
    bounds: tuple[float, float, float]
    actions: tuple[Act, ...]


def lines(
    view: BotView, read_actions: bool = True, opened: float | None = None
) -> list[OmahaLine]:
    """Every other player still holding cards, with his range read from the pre-flop actions
    (the first raise read as ``opened`` wide when given, else as its position opens) and, when
    ``read_actions``, his post-flop actions (else none: a range, not a story)."""
    if opened is None:
        opened = omaha_open_width(betting(view).first_raiser_behind)
    return [
        OmahaLine(seat, range_bounds(view, seat, opened), acts if read_actions else ())
        for seat, acts in postflop_acts(view).items()
    ]


def anybody(view: BotView) -> list[OmahaLine]:
    """Every other player still holding cards, holding any hand at all."""
    return [OmahaLine(seat, (0.0, 1.0, 1.0), ()) for seat in postflop_acts(view)]


def estimate(view: BotView, rng: random.Random, opponents: Sequence[OmahaLine]) -> Estimate:
    """Equity of the seat's hand against ``opponents`` (see the module doc); the draws follow
    ``rng``, so an estimate is repeatable."""
    game = view.game
    board = np.array(view.board, dtype=np.uint8)
    known = len(board)
    unseen = np.ones(52, dtype=np.bool_)
    unseen[list(view.hole) + list(view.board)] = False
    rest = np.flatnonzero(unseen).astype(np.uint8)
    gen = np.random.Generator(np.random.PCG64(rng.getrandbits(64)))
    count = _RUNOUTS[known]
    missing = 5 - known
    runouts = rest[_distinct_rows(gen, len(rest), missing, count)]
    boards = np.concatenate([np.broadcast_to(board, (count, known)), runouts], axis=1)
    boards = np.ascontiguousarray(boards, dtype=np.uint8)
    per_line = max(8, min(_MOST_HANDS, _CELLS // (count * max(1, len(opponents)))))
    k = game.hole_count
    drawn: list[Hands] = []
    wanted = per_line * _CANDIDATES
    # Every opponent's candidates placed at once: scoring is the dearer part of a draw.
    everyone = rest[_distinct_rows(gen, len(rest), k, wanted * len(opponents))]
    spots = places(everyone, game)
    for number, line in enumerate(opponents):
        candidates = everyone[number * wanted : (number + 1) * wanted]
        weight = range_weights(spots[number * wanted : (number + 1) * wanted], *line.bounds)
        running = np.cumsum(weight)
        marks = (gen.random() + np.arange(per_line)) / per_line * running[-1]
        picked = np.minimum(np.searchsorted(running, marks, side="right"), wanted - 1)
        drawn.append(candidates[picked])
    holes = np.concatenate([np.array([view.hole], dtype=np.uint8), *drawn])
    high = omaha_values_of_hands(holes, boards).astype(np.int32)
    low = low_values_of_hands(holes, boards).astype(np.int32) if game.has_low else None
    hand_bits = np.bitwise_or.reduce(_BIT[holes], axis=1)
    run_bits = (
        np.bitwise_or.reduce(_BIT[runouts], axis=1) if missing else np.zeros(count, np.uint64)
    )
    meets = (hand_bits[:, None] & run_bits[None, :]) == 0
    won, met, weights, found = [], [], [], []
    start = 1
    for line, hands in zip(opponents, drawn, strict=True):
        stop = start + len(hands)
        ok = meets[start:stop]
        theirs = high[start:stop]
        share = (high[0] > theirs) + 0.5 * (high[0] == theirs)
        spot = places_in_range(theirs[:, :_PLACE_BOARDS], ok[:, :_PLACE_BOARDS])
        if low is not None:
            lows = low[start:stop]
            low_share = (low[0] > lows) + 0.5 * (low[0] == lows)
            nobody = (low[0] == 0) & (lows == 0)
            share = np.where(nobody, share, 0.5 * share + 0.5 * low_share)
            low_spot = places_in_range(lows[:, :_PLACE_BOARDS], ok[:, :_PLACE_BOARDS])
            spot = 0.5 * (spot + low_spot)
        start = stop
        weight = np.ones(len(hands))
        for act in line.actions:
            weight = weight * action_likelihood(act, spot)
        won.append(np.where(ok, share, 0.0))
        met.append(ok.astype(np.float64))
        weights.append(weight)
        found.append(spot)
    return Estimate([line.seat for line in opponents], won, met, weights, found)
