"""Baseline opponents: simple, fixed styles to measure the real computer players against.

None of them is meant to play well. Each is a plain rule over the :class:`BotView`, so what a
level gains or loses against it says something definite: the random bot punishes nobody, the
calling station never folds, the maniac raises the pot at every turn, the rock waits for the
best hands and the honest bot plays its equity against random hands at face value. Three more
play one style hard: the shover moves all in before the flop with a wide range, the nutter bets
only the nuts, and the bluffer bets whenever it is checked to. Each plays every game of
:mod:`engine.games`.

>>> from engine.cards import FULL_DECK
>>> from engine.hand import Hand, HandConfig
>>> from engine.bots.view import view_of
>>> hand = Hand(HandConfig.standard((200, 200), 1, 2), FULL_DECK)
>>> view = view_of(hand, hand.to_act)
>>> rng = random.Random(1)
>>> station().decide(view, rng), maniac().decide(view, rng)
(Decision(move=<Move.CALL: 'call'>, to=None), Decision(move=<Move.RAISE: 'raise'>, to=6))
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from engine.bots import omaha
from engine.bots.preflop import hand_class
from engine.bots.view import ALL_IN, CALL, CHECK, FOLD, BotView, Decision
from engine.bulk_eval import values_on_boards
from engine.cards import Card, rank_of
from engine.evaluator import Category, category_of, rank_value
from engine.hand import Street

__all__ = [
    "Bluffer",
    "Honest",
    "Maniac",
    "Nutter",
    "RandomBot",
    "Rock",
    "Shover",
    "Station",
    "bluffer",
    "equity_vs_random",
    "honest",
    "maniac",
    "nutter",
    "pot_raise",
    "random_bot",
    "rock",
    "shover",
    "station",
]


def pot_raise(view: BotView) -> Decision:
    """A raise (or bet) of the pot: call first, then raise by everything then in the middle."""
    return Decision.raise_to(view.high_bet + view.pot + view.to_call)


class RandomBot:
    """Fold, check-or-call and raise equally often; a raise is any legal size, all equally likely.

    A fold when checking is free is played as a check (see :func:`~engine.bots.view.to_action`),
    so it folds only a third of the bets it faces.
    """

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        choice = rng.randrange(3)
        if choice == 0:
            return FOLD
        if choice == 1 or not view.can_raise:
            return CALL
        return Decision.raise_to(rng.randint(view.min_raise_to, view.max_raise_to))


class Station:
    """The calling station: checks or calls every time, whatever it holds."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        return CALL


class Maniac:
    """Raises the pot whenever a raise is allowed, and calls when it is not."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        return pot_raise(view) if view.can_raise else CALL


# The rock's starting hands: queens or better, and ace-king suited or not.
_JACK, _QUEEN, _KING, _ACE = 9, 10, 11, 12


def premium(hole: Sequence[Card]) -> bool:
    high, low = sorted((rank_of(hole[0]), rank_of(hole[1])), reverse=True)
    return (high == low and high >= _QUEEN) or (high == _ACE and low == _KING)


def _board_category(board: Sequence[Card]) -> Category:
    """What three or four board cards make by themselves (no straight, flush or full house)."""
    ranks = [rank_of(c) for c in board]
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if counts[0] >= 3:
        return Category.FOUR_OF_A_KIND if counts[0] == 4 else Category.THREE_OF_A_KIND
    if counts[0] == 2:
        return Category.TWO_PAIR if counts[1] == 2 else Category.PAIR
    return Category.HIGH_CARD


def strong_made_hand(hole: Sequence[Card], board: Sequence[Card]) -> bool:
    """An overpair, or two pair or better that is the hand's own: of a higher category than the
    board makes by itself or, from a straight up, a better hand of the board's category (a
    kicker to the board's two pair is not enough; a higher straight is)."""
    first, second = rank_of(hole[0]), rank_of(hole[1])
    if first == second and first > max(rank_of(c) for c in board):
        return True
    value = rank_value(tuple(hole) + tuple(board))
    made = category_of(value)
    if made < Category.TWO_PAIR:
        return False
    if len(board) < 5:
        return made > _board_category(board)
    alone = rank_value(board)
    return made > category_of(alone) or (made >= Category.STRAIGHT and value > alone)


def holds_strong_hand(view: BotView) -> bool:
    """A strong made hand as the view's game makes hands: :func:`strong_made_hand` in Hold'em;
    in Omaha, where two pair is often second best, a straight or better of the hand's own (two
    hole cards and three of the board)."""
    if view.game.hole_count == 2:
        return strong_made_hand(view.hole, view.board)
    return category_of(view.game.high_value(view.hole, view.board)) >= Category.STRAIGHT


def premium_start(view: BotView) -> bool:
    """The rock's starting hands: :func:`premium` in Hold'em, the top 3% in Omaha."""
    if view.game.hole_count == 2:
        return premium(view.hole)
    return omaha.place(view.hole, view.game) <= 0.03


class Rock:
    """Plays queens or better and ace-king (in Omaha the top 3% of hands), raising the pot with
    them; folds everything else pre-flop. After the flop it bets and raises the pot with a
    strong made hand (:func:`holds_strong_hand`) and otherwise checks or folds."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        keep = premium_start(view) if view.street is Street.PREFLOP else holds_strong_hand(view)
        if not keep:
            return FOLD
        return pot_raise(view) if view.can_raise else CALL


def wide_shove(hole: Sequence[Card]) -> bool:
    """Any pair, any ace or two picture cards among the hole cards."""
    ranks = [rank_of(c) for c in hole]
    pictures = sum(1 for r in ranks if _JACK <= r <= _KING)
    return len(set(ranks)) < len(ranks) or _ACE in ranks or pictures >= 2


class Shover:
    """Moves all in before the flop with any pair, any ace or two picture cards
    (:func:`wide_shove`), whatever the depth, and folds everything else; after a free flop it
    checks and folds. Under pot limit an all-in is a pot-sized raise, again at every turn."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        if view.street is Street.PREFLOP and wide_shove(view.hole):
            return ALL_IN
        return FOLD


class Nutter:
    """Sees every flop it can for a call, but bets and raises the pot only with a strong made
    hand (:func:`holds_strong_hand`) and folds to any bet without one: it never bluffs, and its
    bets say exactly what it holds."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        if view.street is Street.PREFLOP:
            return CALL if view.to_call <= 4 * view.big_blind else FOLD
        if holds_strong_hand(view):
            return pot_raise(view) if view.can_raise else CALL
        return FOLD


class Bluffer:
    """Raises the pot before the flop with any two cards and bets the pot whenever it is
    checked to, whatever it holds; facing a bet or raise after the flop it goes on only with a
    strong made hand (:func:`holds_strong_hand`)."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        if view.street is Street.PREFLOP:
            unraised = view.high_bet <= 2 * view.big_blind
            return pot_raise(view) if view.can_raise and unraised else CALL
        if view.to_call == 0:
            return pot_raise(view) if view.can_raise else CALL
        if holds_strong_hand(view):
            return pot_raise(view) if view.can_raise else CALL
        return FOLD


# --- equity against random hands --------------------------------------------------------

Cards = npt.NDArray[np.uint8]
Values = npt.NDArray[np.uint16]

SAMPLES: Final = 256
"""Deals the honest bot samples for each decision after the flop: a standard error of 3
percentage points at most (0.5 / 16)."""
PREFLOP_SAMPLES: Final = 1024
"""Deals behind each entry of the honest bot's pre-flop table, in groups of 32 sharing two board
cards: a standard error of about two points (measured; the groups' shared cards make it more than
the 1.6 of independent deals), and some 3 ms an entry, so the whole table (845 entries) costs a
process about three seconds."""
_PREFLOP_GROUP_SIZE: Final = 32


def _draws(rng: random.Random, unseen: Cards, need: int, samples: int) -> Cards:
    """``samples`` rows of ``need`` distinct cards of ``unseen``, each row uniform.

    A random order of the unseen cards gives ``len(unseen) // need`` disjoint rows at once, so
    only one key per card is drawn for several samples. Rows from one order never share a card:
    each is still uniform, and the estimate that averages them unbiased.
    """
    per_order = len(unseen) // need
    orders = -(-samples // per_order)
    keys = np.frombuffer(rng.randbytes(orders * len(unseen) * 4), dtype=np.uint32)
    order = keys.reshape(orders, len(unseen)).argsort(axis=1)[:, : per_order * need]
    return unseen[order].reshape(orders * per_order, need)[:samples]


def _share_sum(hole: Sequence[Card], prefix: Sequence[Card], opponents: int, draws: Cards) -> float:
    """The hand's pot shares summed over the samples: each row of ``draws`` holds the rest of
    the board after ``prefix`` (two board cards or more), then each opponent's two cards.

    A hand's value depends on its seven cards alone, and every hand's seven cards, ours and the
    opponents', hold the first two cards of ``prefix``: those two serve as the "hole" of one
    :func:`~engine.bulk_eval.values_on_boards` call in which each player's other five cards are
    a "board", so every hand of every sample is valued in that one call.
    """
    samples = len(draws)
    common = len(prefix) - 2  # board cards every sample shares, after the two used as a "hole"
    dealt = 3 - common
    rows = np.empty((opponents + 1, samples, 5), dtype=np.uint8)
    rows[:, :, :common] = np.array(prefix[2:], dtype=np.uint8)
    rows[:, :, common:3] = draws[:, :dealt]
    rows[0, :, 3:] = np.array(hole, dtype=np.uint8)
    rows[1:, :, 3:] = draws[:, dealt:].reshape(samples, opponents, 2).transpose(1, 0, 2)
    values = values_on_boards([(prefix[0], prefix[1])], rows.reshape(-1, 5))
    values = values.reshape(opponents + 1, samples)
    mine, theirs = values[0], values[1:]
    best = theirs.max(axis=0)
    wins = np.count_nonzero(mine > best)
    at_best = mine == best
    tied = np.count_nonzero(theirs[:, at_best] == mine[at_best], axis=0)
    return float(wins + (1.0 / (1 + tied)).sum())


def _unseen(known: Sequence[Card]) -> Cards:
    out = set(known)
    return np.array([c for c in range(52) if c not in out], dtype=np.uint8)


def equity_vs_random(
    hole: Sequence[Card],
    board: Sequence[Card],
    opponents: int,
    rng: random.Random,
    samples: int = SAMPLES,
) -> float:
    """The expected pot share of ``hole`` against ``opponents`` hands dealt at random from the
    unseen cards, the board completed at random: a mean over ``samples`` deals drawn from
    ``rng``.

    Before the flop no card is common to every sample, so the deals are drawn in groups that
    share their first two board cards (which leaves each deal uniform), one valuation a group.

    >>> from engine.cards import parse_cards
    >>> e = equity_vs_random(parse_cards("AsAh"), parse_cards("AdAc2s"), 1, random.Random(1))
    >>> e > 0.99
    True
    """
    if len(board) >= 2:
        unseen = _unseen((*hole, *board))
        draws = _draws(rng, unseen, 5 - len(board) + 2 * opponents, samples)
        return _share_sum(hole, board, opponents, draws) / samples
    groups = max(1, samples // _PREFLOP_GROUP_SIZE)
    size = -(-samples // groups)
    total = 0.0
    for pair in _draws(rng, _unseen(hole), 2, groups):
        prefix = (Card(int(pair[0])), Card(int(pair[1])))
        draws = _draws(rng, _unseen((*hole, *prefix)), 3 + 2 * opponents, size)
        total += _share_sum(hole, prefix, opponents, draws)
    return total / (groups * size)


@cache
def _preflop_equity(hand_class: int, opponents: int) -> float:
    """A starting hand's equity against random hands depends on its class alone, so it is
    estimated once a process (:data:`PREFLOP_SAMPLES` deals), from a seed made of the class and
    the count: every process has the same table whatever asks first."""
    row, col = divmod(hand_class, 13)
    high, low = max(row, col), min(row, col)
    suited = row > col
    hole = (Card(high * 4 + 3), Card(low * 4 + (3 if suited else 2)))
    rng = random.Random(hand_class * 16 + opponents)
    return equity_vs_random(hole, (), opponents, rng, PREFLOP_SAMPLES)


class Honest:
    """Plays its equity against random hands at face value.

    The equity is against every live opponent holding a random hand (pre-flop from a table by
    starting hand, after the flop sampled from ``rng``): what it would be if nobody's betting
    said anything. Facing a bet it folds when the equity is below the pot odds (the call over the
    pot after calling), calls above them, and raises the pot when the equity is at least
    ``2 / (live + 1)``; with nothing to call it bets the pot from ``1 / live`` (its fair share)
    up and checks below. Against random hands it overrates what it holds when others bet: that
    is the trait a better player should punish.
    """

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        live = len(view.live)
        opponents = live - 1
        if view.game.hole_count != 2:
            equity = omaha.estimate(view, rng, omaha.anybody(view)).equity
        elif view.street is Street.PREFLOP:
            equity = _preflop_equity(hand_class(view.hole), opponents)
        else:
            equity = equity_vs_random(view.hole, view.board, opponents, rng)
        aggressive = view.can_raise and (
            equity >= 2 / (live + 1) or (view.to_call == 0 and equity >= 1 / live)
        )
        if aggressive:
            return pot_raise(view)
        if view.to_call == 0:
            return CHECK
        odds = view.to_call / (view.pot + view.to_call)
        return CALL if equity > odds else FOLD


def random_bot() -> RandomBot:
    return RandomBot()


def station() -> Station:
    return Station()


def maniac() -> Maniac:
    return Maniac()


def rock() -> Rock:
    return Rock()


def shover() -> Shover:
    return Shover()


def nutter() -> Nutter:
    return Nutter()


def bluffer() -> Bluffer:
    return Bluffer()


def honest() -> Honest:
    return Honest()
