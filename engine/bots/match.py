"""Matches between two computer players over the engine alone, scored in big blinds per 100.

No table, no clock, no storage: each hand is an :class:`~engine.hand.Hand`, each decision a
:func:`~engine.bots.view.view_of` (through its incremental form,
:class:`~engine.bots.view.HandViews`) given to the bot and its answer made legal by
:func:`~engine.bots.view.to_action`.

The game
--------
Any game of :mod:`engine.games` (Hold'em by default). Cash, blinds 1 and 2
(:data:`SMALL_BLIND`, :data:`BIG_BLIND`), no ante, no straddle, boards run once. Every hand
starts afresh with :data:`STACK` = 200 chips, 100 big blinds, for everybody: nothing carries
over, so every hand is a sample of the same game and no bot can win a stack once and then sit
on it.

Seats ``0 .. n-1`` go round the table. Deal ``k`` puts the button on seat ``k mod n``, and the
hand's index ``i`` (the engine's order, its last index the button) is seat
``(k + 1 + i) mod n``.

Duplicate
---------
Each deal, one deck, is played twice with the bots' seats swapped, the cards staying with the
seats: what a seat was dealt in the first play it is dealt in the second, and only who holds it
changes. Heads-up the first play seats A on seat 0 and B on seat 1, the second B on 0 and A on 1.
Six-handed (any even ``n``) the first play seats ``A B A B A B`` round seats 0 to 5 and the
second ``B A B A B A``; the copies of a bot at one table are the same object, each seat deciding
from its own view. Over the two plays each bot has held every seat's cards from every position
once, so the luck of the deal cancels out of their difference and what is left is play.

Scores
------
A **pair** is the two plays of one deal. A bot's result for a pair is the chips won by all its
seats over both plays, divided by its number of seats (one heads-up, three six-handed: the result
of one seat of it, on average), in big blinds. Its **bb/100** is the mean over the pairs times
100 / 2, two hands a pair; its **95% interval** is that mean plus or minus 1.96 standard errors,
the pairs being the independent samples (the normal approximation: meant for hundreds of pairs
and more). Chips only change hands between the two bots, so B's figures are A's negated.

Sessions
--------
A bot may remember the others from one hand to the next (the strong level does,
:mod:`engine.bots.memory`). A match is then sessions of :data:`SESSION_DEALS` deals: at deal 0
and every multiple of it each bot is told to forget (``new_session()``), and at the first deal
of a range played on its own too. The hands are numbered ``2k`` and ``2k + 1`` (the two plays of
deal ``k``). Ranges of deals that start on a session's first deal add up to the whole match
exactly, as the league's workers' do.

Randomness
----------
The deck of deal ``k`` is drawn by ``random.Random(f"{seed}:{k}")``. Each bot has its own
``random.Random``, reseeded at every deal from ``f"{seed}:{k}:a"`` (or ``:b``) and drawn on
through both plays of the deal. A match is therefore the same from its seed, and so is any range
of its deals played on its own (the share of one worker process in ``bench.bots``).

Two calling stations play every deal the same from either side, so each pair nets nothing:

>>> from engine.bots.baselines import station
>>> result = play_match(station(), station(), players=2, hands=20, seed=1)
>>> result.hands, result.a, result.b.to_json()
(20, Score(bb_per_100=0.0, ci95=(0.0, 0.0)), {'bb_per_100': 0.0, 'ci95': [0.0, 0.0]})
"""

from __future__ import annotations

import importlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.bots.view import Bot, HandViews, new_session, tell_hand, to_action
from engine.cards import FULL_DECK, Card
from engine.games import NLHE, Game
from engine.hand import Hand, HandConfig, HandResult

__all__ = [
    "BIG_BLIND",
    "SESSION_DEALS",
    "SMALL_BLIND",
    "STACK",
    "BotLoadError",
    "MatchResult",
    "Score",
    "Tally",
    "deal",
    "load_bot",
    "play_deals",
    "play_hand",
    "play_match",
    "score",
]

SMALL_BLIND: Final = 1
BIG_BLIND: Final = 2
STACK: Final = 100 * BIG_BLIND
_Z_95: Final = 1.959963984540054  # two-sided 95% point of the normal distribution
SESSION_DEALS: Final = 500
"""Deals of one session: a bot that remembers the others forgets them at every multiple."""
# Who each bot is to the other (BotView.who): every copy of one bot at a table is the same one.
A: Final = 0
B: Final = 1


@dataclass(frozen=True, slots=True)
class Tally:
    """One bot's pair results, in chips of all its seats: the count, sum and sum of squares.

    Integers, so they are exact and add up the same in any order: the tallies of ranges of deals
    played apart (by worker processes) merge into the tally of the whole match.
    """

    pairs: int = 0
    total: int = 0
    squares: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.pairs + other.pairs, self.total + other.total, self.squares + other.squares
        )


@dataclass(frozen=True, slots=True)
class Score:
    bb_per_100: float
    ci95: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return {"bb_per_100": self.bb_per_100, "ci95": list(self.ci95)}


def score(tally: Tally, seats: int) -> Score:
    """bb/100 and its 95% interval from a tally over at least two pairs (see the module doc)."""
    if tally.pairs < 2:
        raise ValueError("a score needs two pairs of hands or more")
    n = tally.pairs
    mean = tally.total / n
    # The sum of squared deviations from exact integers: no cancellation in floating point.
    spread = (tally.squares * n - tally.total * tally.total) / n
    error = math.sqrt(max(spread, 0) / (n - 1) / n)
    per_100 = 100 / 2 / seats / BIG_BLIND
    return Score(
        round(mean * per_100, 4),
        (round((mean - _Z_95 * error) * per_100, 4), round((mean + _Z_95 * error) * per_100, 4)),
    )


@dataclass(frozen=True, slots=True)
class MatchResult:
    players: int
    hands: int
    a: Score
    b: Score

    def to_json(self) -> dict[str, Any]:
        """The duel's answer, a stable interface (``python -m engine.bots duel``)."""
        return {"hands": self.hands, "a": self.a.to_json(), "b": self.b.to_json()}


class BotLoadError(Exception):
    """A ``module:factory`` that does not give a bot; the message says why."""


def load_bot(spec: str) -> Bot:
    """The bot made by ``spec``, ``"module:factory"``: the factory imported, called with no
    arguments, its answer checked to have a ``decide`` method."""
    module_name, colon, factory_name = spec.partition(":")
    if not colon or not module_name or not factory_name:
        raise BotLoadError(f"{spec!r} is not MODULE:FACTORY (e.g. engine.bots.baselines:station)")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # a missing module, or one that fails as it loads
        raise BotLoadError(
            f"cannot import module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    factory = getattr(module, factory_name, None)
    if factory is None:
        raise BotLoadError(f"module {module_name!r} has no attribute {factory_name!r}")
    if not callable(factory):
        raise BotLoadError(f"{spec!r} is not callable")
    try:
        bot = factory()
    except Exception as exc:
        raise BotLoadError(f"{spec}() failed: {type(exc).__name__}: {exc}") from None
    if not callable(getattr(bot, "decide", None)):
        raise BotLoadError(f"{spec}() gave {type(bot).__name__}, which has no decide(view, rng)")
    return bot  # type: ignore[no-any-return]


def deal(seed: int, k: int, players: int, game: Game = NLHE) -> tuple[Card, ...]:
    """The deck of deal ``k``: the cards a hand of ``players`` uses (the game's hole cards for
    each, the board and its burns), in a random order."""
    return tuple(random.Random(f"{seed}:{k}").sample(FULL_DECK, game.hole_count * players + 8))


def play_hand(
    config: HandConfig,
    deck: Sequence[Card],
    bots: Sequence[Bot],
    rngs: Sequence[random.Random],
    who: Sequence[int] | None = None,
    number: int = 0,
) -> HandResult:
    """One hand, ``bots[i]`` and ``rngs[i]`` deciding for the hand's index ``i``, who is
    ``who[i]`` to the others (the index itself by default); ``number`` is the hand's."""
    hand = Hand(config, deck)
    views = HandViews(hand, who, number)
    while (player := hand.to_act) is not None:
        view = views.of(player)
        hand.apply(to_action(bots[player].decide(view, rngs[player]), view))
    result = hand.result
    if result is None:  # only a run-it-twice vote stops a hand with nobody to act; none here
        raise RuntimeError("a hand stopped before its end")
    seen = views.ended()
    for bot in {id(bot): bot for bot in bots}.values():
        tell_hand(bot, seen)
    return result


def _owners(players: int, button: int, a_first: bool) -> tuple[bool, ...]:
    """For each hand index, whether bot A holds it: A on the even seats in the first play."""
    return tuple(((button + 1 + i) % players % 2 == 0) == a_first for i in range(players))


def play_deals(
    a: Bot,
    b: Bot,
    *,
    players: int,
    seed: int,
    start: int,
    stop: int,
    game: Game = NLHE,
) -> tuple[Tally, Tally]:
    """Deals ``start`` to ``stop - 1`` of the match of ``seed``, each played twice; the tallies
    of A and B (see the module doc)."""
    if players < 2 or players % 2:
        raise ValueError("two bots share a table of an even number of seats")
    config = HandConfig.standard((STACK,) * players, SMALL_BLIND, BIG_BLIND, game=game)
    rng_a, rng_b = random.Random(), random.Random()
    plays = [
        [_owners(players, button, first) for first in (True, False)] for button in range(players)
    ]
    total_a = squares_a = total_b = squares_b = 0
    for k in range(start, stop):
        if k == start or k % SESSION_DEALS == 0:
            new_session(a)
            new_session(b)
        deck = deal(seed, k, players, game)
        rng_a.seed(f"{seed}:{k}:a")
        rng_b.seed(f"{seed}:{k}:b")
        pair_a = pair_b = 0
        for play, owners in enumerate(plays[k % players]):
            bots = [a if owner else b for owner in owners]
            rngs = [rng_a if owner else rng_b for owner in owners]
            who = [A if owner else B for owner in owners]
            net = play_hand(config, deck, bots, rngs, who, 2 * k + play).net
            if sum(net):  # cheap beside a hand, and a league must not go on over a broken one
                raise RuntimeError(f"deal {k} of seed {seed} created or lost chips")
            won = sum(chips for chips, owner in zip(net, owners, strict=True) if owner)
            pair_a += won
            pair_b -= won
        total_a += pair_a
        squares_a += pair_a * pair_a
        total_b += pair_b
        squares_b += pair_b * pair_b
    pairs = stop - start
    return Tally(pairs, total_a, squares_a), Tally(pairs, total_b, squares_b)


def play_match(
    a: Bot, b: Bot, *, players: int, hands: int, seed: int, game: Game = NLHE
) -> MatchResult:
    """``hands`` hands (an even number, four or more: ``hands / 2`` deals played twice)."""
    if hands < 4 or hands % 2:
        raise ValueError("hands must be an even number of at least 4: each deal is played twice")
    tally_a, tally_b = play_deals(
        a, b, players=players, seed=seed, start=0, stop=hands // 2, game=game
    )
    seats = players // 2
    return MatchResult(players, hands, score(tally_a, seats), score(tally_b, seats))
