"""Three computer players that think differently: beginner, regular and strong.

Each level is a class with one method, ``decide(view, rng)``: it reads the seat's
:class:`~engine.bots.view.BotView` and nothing else, draws any randomness from ``rng`` alone and
keeps no state between decisions but caches of fixed tables, so the same view and the same
generator state give the same :class:`~engine.bots.view.Decision`. Its answer goes through
:func:`~engine.bots.view.to_action`, which makes any answer legal.

**Beginner** plays the way people do in their first home games. Before the flop he looks at his
two cards and little else: any pair, any ace, any two suited cards and most hands with a picture
card are worth seeing a flop, from any seat, mostly by limping; he calls raises with those as
long as the call is a small part of his stack, raises himself now and then at random, more often
with a big pair, and never folds one. After the flop he names his hand (a pair, a draw, nothing)
and calls with anything that has a chance unless the bet is bigger than the pot, sometimes with
nothing at all out of curiosity; he bets good hands only about half the time, small, and rarely
raises. What his opponents might hold never crosses his mind.

**Regular** is a solid, tight-aggressive player. Before the flop he opens a range that widens as
fewer players are left to act behind him (about one hand in nine under the gun, nearly half on
the button), raises instead of limping, re-raises the top of the range he is facing and calls
with the next part of it, wider in position and in the big blind, narrower against big raises
and out of position. After the flop he names his made hand and counts his outs, turns them into
a chance of winning (made hands lose value against more opponents and repeated aggression), and
calls when that chance beats the pot odds; he bets good hands for value at two thirds of the
pot, continuation-bets the flop after raising before it, semi-bluffs strong draws, and raises
only very strong hands.

**Strong** weighs ranges and prices. Before the flop, with more than 15 big blinds effective,
his ranges depend on position and on stack depth: most hands on the button heads-up, narrower
and smaller raises when short, 3-bets that go all-in below 25 big blinds, hands that play well
multi-way (pairs, suited connectors) for calls when deep and the call is cheap, and re-raise
bluffs with suited hands just outside his calling range, at the frequency the re-raise's price
allows. At 15 big blinds or fewer he plays push or fold: heads-up spots (the small blind's
shove when folded to, the big blind's call of it) follow the project's equilibrium chart
(:mod:`engine.bots.pushfold`), and with more players behind he shoves the same share of the
chart's hands cut by a quarter for each extra player who could wake up with a hand. Against a
re-raise or an all-in he goes on when his equity (:mod:`engine.bots.allin`, exact by class)
against the raiser's range beats the price, reading that range as holding some of the bluffs
the price allows, so that re-raising him with anything does not pay.

After the flop he reads each opponent's range from his actions (:mod:`engine.bots.ranges`),
estimates his equity against it on sampled hands and boards, and weighs it against pot odds
(with some implied odds while cards are to come) and the stack-to-pot ratio (all-in when little
is left behind). He bets one size per spot for value and as a bluff alike: value when he is
ahead of the hands that would call, a bluff with a hand that has little equity with the
probability ``b / (p + 2b)`` that makes a caller of a bet ``b`` into ``p`` indifferent (less
against several players). Facing a bet he raises for value when ahead of the hands that would
call the raise, semi-bluffs now and then, and calls when his equity beats the price, counting
the bettor's bluffs as above on the flop and less on later streets, where most bets are what
they say.

>>> import random
>>> from engine.cards import parse_cards
>>> from engine.hand import HandConfig, deck_from_cards, Hand
>>> from engine.bots.view import view_of
>>> deck = deck_from_cards(6, [None, None, parse_cards("7c2d")], parse_cards(""))
>>> hand = Hand(HandConfig.standard((200,) * 6, 1, 2), deck)
>>> [level.decide(view_of(hand, 2), random.Random(1)).move.value
...  for level in (Regular(), Strong())]
['fold', 'fold']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from engine.bots import omaha
from engine.bots.memory import Memory
from engine.bots.preflop import class_combos
from engine.bots.ranges import (
    Floats,
    Line,
    estimate,
    open_width,
    postflop_lines,
    preflop_equity,
    preflop_range,
    range_weights,
    re_raise_width,
    with_bluffs,
)
from engine.bots.reading import Betting, betting, read_hand
from engine.bots.strength import class_hole, class_name_ranks, hand_class, strengths
from engine.bots.view import ALL_IN, CALL, CHECK, FOLD, BotView, Decision, HandSeen
from engine.cards import Card
from engine.games import HandMaking
from engine.hand import ActionKind, Street

__all__ = ["PUSH_FOLD_DEPTH", "Beginner", "PushFoldChart", "Regular", "Strong"]

WIDE_SHOVES: Final = 0.1
"""All-ins remembered this wide or wider are read from memory rather than as raises."""
WILD_RE_RAISES: Final = 0.5
"""A player who re-raises this share of the single raises he faces, or more, has his raises
before the flop read as that wide (in Omaha, where such a player's raises go on to the stack)."""
SHOVED_OFF: Final = 0.25
"""An open that players who only move all in shove over this often or more is made only with a
hand that can call them (``Strong._shoved_off``)."""
QUIET_RE_RAISES: Final = 0.2
"""Players still to act who re-raise this share of single raises or less let the strong level
answer an opener by his own width as memory saw it (``Strong._quiet_behind``)."""
SELDOM_FOLDS: Final = 0.15
"""Players who fold to this share of bets after the flop or less are bet into for value with
any hand that beats most of their hands, not only the part that would call
(``Strong._never_fold``)."""
EASY_FOLDS: Final = 0.75
"""Against players remembered folding to this share of bets after the flop or more, the strong
level bets whatever it holds, and calls a small raise before the flop with any hand to do so."""
PUSH_FOLD_DEPTH: Final = 15.0
"""At this many big blinds effective or fewer the strong level plays push or fold."""

# How much of the bluffing a bet's price allows (see ranges.with_bluffs) the strong level
# believes is there, heads-up or not, by street. All of it would make him unexploitable by a
# player who raises with anything, and a caller of every value bet of one who never bluffs.
# Heads-up, where every pot is fought for, he believes more; at a fuller table, and by the
# river, most bets are what they say. These are where he beats the regular level and both the
# maniac and the rock of engine.bots.baselines in both formats (python -m engine.bots duel,
# 20,000 to 40,000 hands).
# Before the flop they count against re-raises and all-ins only: an open meets the ranges.
_BLUFFS_BELIEVED: Final = {
    True: {Street.PREFLOP: 0.6, Street.FLOP: 0.6, Street.TURN: 0.3, Street.RIVER: 0.1},
    False: {Street.PREFLOP: 0.1, Street.FLOP: 0.1, Street.TURN: 0.0, Street.RIVER: 0.0},
}


def _bluffs_believed(view: BotView, street: Street) -> float:
    return _BLUFFS_BELIEVED[view.players == 2][street]


# --- moves every level makes ---------------------------------------------------------------


def _places_of(order: npt.NDArray[np.intp]) -> Floats:
    """The place of each class when the classes rank in ``order`` (best first)."""
    combos = np.array([class_combos(c) for c in order], dtype=np.float64)
    before = np.cumsum(combos) - combos
    places = np.empty(len(order), dtype=np.float64)
    places[order] = (before + combos / 2) / combos.sum()
    return places


def _check_or_fold(view: BotView) -> Decision:
    return CHECK if view.to_call == 0 else FOLD


def _check_or_call(view: BotView) -> Decision:
    return CHECK if view.to_call == 0 else CALL


def _raise_to(view: BotView, to: float) -> Decision:
    """A raise to ``to`` chips this street, or all-in when it would leave too little to fold.

    What is left behind after the raise is kept above a third of the pot it makes: a player who
    would have less has committed himself anyway, and the rest is better in now.
    """
    if not view.can_raise:
        return _check_or_call(view)
    total = view.stack + view.bet
    target = max(view.min_raise_to, int(to))
    pot_after = view.pot + target - view.bet
    if total - target <= pot_after / 3:
        return ALL_IN
    return Decision.raise_to(target)


def _pot_raise(view: BotView, fraction: float) -> Decision:
    """A bet, or a raise, of ``fraction`` of the pot as it stands once the call is in."""
    return _raise_to(view, view.high_bet + fraction * (view.pot + view.to_call))


def _place(view: BotView, opponents: int) -> float:
    return float(strengths().top(opponents)[hand_class(view.hole)])


def _was_raiser(view: BotView) -> bool:
    """The seat has raised this hand before the flop."""
    return any(
        seen.player == view.me and seen.street is Street.PREFLOP and seen.kind is ActionKind.RAISE
        for seen in view.actions
    )


# --- beginner ------------------------------------------------------------------------------


class Beginner:
    """Loose and passive: sees many flops, calls too much, raises rarely and at random."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        if _omaha(view):
            return _beginner_omaha(view, rng)
        if view.street is Street.PREFLOP:
            return self._preflop(view, rng)
        return self._postflop(view, rng)

    def _preflop(self, view: BotView, rng: random.Random) -> Decision:
        place = _place(view, 1)
        high, low, suited = class_name_ranks(hand_class(view.hole))
        # What catches a new player's eye: a pair, an ace, a suit, a picture card.
        likes = place <= 0.55 or high == low or high == 12 or suited or high >= 10
        premium = place <= 0.03
        stack = view.stack + view.bet
        bb = view.big_blind
        if view.to_call == 0:
            if view.can_raise and ((premium and rng.random() < 0.6) or rng.random() < 0.05):
                return _raise_to(view, view.high_bet + bb * rng.choice((2, 3)))
            return CHECK
        if premium:  # even a beginner knows not to fold these
            if view.can_raise and rng.random() < 0.5:
                return _raise_to(view, view.high_bet * rng.choice((2, 3)))
            return CALL
        if view.to_call >= view.stack:
            return CALL if place <= 0.12 else FOLD
        if view.high_bet <= bb * 1.5:  # nobody raised: limp in, sometimes raise
            if likes and view.can_raise and rng.random() < 0.07:
                return _raise_to(view, bb * rng.choice((2, 3, 4)))
            if likes or rng.random() < 0.1:
                return CALL
            return FOLD
        share = view.to_call / stack
        if (likes and share <= 0.15) or (place <= 0.25 and share <= 0.4):
            return CALL
        return FOLD

    def _postflop(self, view: BotView, rng: random.Random) -> Decision:
        hand = read_hand(view.hole, view.board)
        if view.to_call == 0:
            if hand.made >= 0.75 and rng.random() < 0.5:
                return _pot_raise(view, 0.5)
            if hand.made >= 0.55 and rng.random() < 0.25:
                return _pot_raise(view, 0.33)
            if rng.random() < 0.04:
                return _pot_raise(view, 0.5)
            return CHECK
        price = view.to_call / (view.pot + view.to_call)
        if hand.made >= 0.85:
            return _raise_to(view, view.high_bet * 2) if rng.random() < 0.3 else CALL
        has_something = hand.made >= 0.36 or hand.outs >= 4
        if has_something and (price <= 1 / 3 or hand.made >= 0.55):  # up to a pot-sized bet
            return CALL
        if price <= 0.3 and rng.random() < 0.2:
            return CALL
        return FOLD


# --- regular -------------------------------------------------------------------------------


class Regular:
    """Tight-aggressive by the book: positional ranges, pot odds, value bets and c-bets."""

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        read = betting(view)
        if _omaha(view):
            if view.street is Street.PREFLOP:
                return _omaha_preflop(view, read, _REGULAR_OMAHA, None)
            return _regular_omaha_postflop(view, rng, read)
        if view.street is Street.PREFLOP:
            return self._preflop(view, rng, read)
        return self._postflop(view, rng, read)

    def _preflop(self, view: BotView, rng: random.Random, read: Betting) -> Decision:
        best = _place(view, 1)
        bb = view.big_blind
        total = view.stack + view.bet
        raiser = read.aggressor
        in_position = raiser is None or view.me > raiser
        if read.unopened:
            if view.to_call == 0:  # the big blind's option
                if best <= 0.12:
                    return _raise_to(view, view.high_bet + (2 + read.limpers) * bb)
                return CHECK
            width = open_width(read.behind) * (0.7 if read.limpers else 1.0)
            if _place(view, 1 if read.behind <= 2 else 2) <= width:
                size = 3.0 if view.players > 2 and view.me == 0 else 2.5
                return _raise_to(view, view.high_bet * size + read.limpers * bb)
            return _check_or_fold(view)
        if view.to_call >= 0.4 * total:  # a shove, or a raise that commits us
            return CALL if best <= max(0.02, 0.4 * open_width(read.first_raiser_behind)) else FOLD
        if read.raises == 1:
            opened = open_width(read.first_raiser_behind)
            if best <= max(0.025, 0.25 * opened):
                size = 3.0 if in_position else 3.5
                return _raise_to(view, view.high_bet * (size + _callers(view)))
            if view.me == _big_blind(view):
                width = min(0.55, 2.0 * opened)
            elif in_position:
                width = 0.9 * opened
            else:
                width = 0.45 * opened
            raised_bb = view.high_bet / bb
            if raised_bb > 3:
                width *= 3 / raised_bb
            if best <= width and view.to_call <= 0.12 * total:
                return CALL
            return FOLD
        if read.raises == 2:
            if best <= 0.022:
                return _raise_to(view, view.high_bet * (2.3 if in_position else 2.6))
            committed = view.bet >= 0.3 * total
            if best <= (0.15 if committed else 0.06 if in_position else 0.04):
                return CALL if view.to_call <= 0.15 * total or committed else FOLD
            return FOLD
        if best <= 0.012:
            return ALL_IN
        committed = view.bet >= 0.4 * total
        return CALL if best <= (0.1 if committed else 0.025) else FOLD

    def _postflop(self, view: BotView, rng: random.Random, read: Betting) -> Decision:
        hand = read_hand(view.hole, view.board)
        # A hand good against one player is worse against each more.
        made = hand.made ** (1 + 0.5 * (read.opponents - 1))
        chance = made + (1 - made) * hand.draw
        river = view.street is Street.RIVER
        if view.to_call == 0:
            if made >= 0.62:
                return _pot_raise(view, 0.75 if river and made >= 0.8 else 0.66)
            if (
                view.street is Street.FLOP
                and read.preflop_raiser == view.me
                and read.opponents <= 2
                and rng.random() < (0.65 if read.opponents == 1 else 0.35)
            ):
                return _pot_raise(view, 0.4)
            if hand.draw >= 0.3 and rng.random() < 0.5:
                return _pot_raise(view, 0.6)
            return CHECK
        price = view.to_call / (view.pot + view.to_call)
        # Every raise after the first, and a bet of most of the pot, shows more strength.
        before = view.pot - view.to_call
        chance -= 0.06 * max(0, read.raises - 1) + (0.05 if view.to_call > 0.75 * before else 0)
        if made >= 0.82 and view.can_raise:
            return _pot_raise(view, 0.8)
        if view.stack <= 0.3 * view.pot and chance >= 0.35:
            return CALL
        semi_bluff = hand.draw >= 0.3 and view.street is Street.FLOP and rng.random() < 0.15
        if semi_bluff and view.can_raise:
            return _pot_raise(view, 0.8)
        return CALL if chance >= price else FOLD


def _callers(view: BotView) -> int:
    """Calls of the current raise this street."""
    count = 0
    for seen in view.actions:
        if seen.street is not view.street:
            continue
        if seen.kind in (ActionKind.BET, ActionKind.RAISE):
            count = 0
        elif seen.kind is ActionKind.CALL:
            count += 1
    return count


def _big_blind(view: BotView) -> int:
    return 0 if view.players == 2 else 1


# --- strong --------------------------------------------------------------------------------


class PushFoldChart(Protocol):
    """A heads-up push/fold equilibrium: the small blind's shove and the big blind's call."""

    def push(self, hole: Sequence[Card], stack_bb: float) -> bool: ...

    def call(self, hole: Sequence[Card], stack_bb: float) -> bool: ...


def _project_chart() -> PushFoldChart:
    # Imported on first use: the chart is its own module, and a level that never gets short
    # should not pay for it.
    from engine.bots import pushfold

    return pushfold


class Strong:
    """Ranges by position and depth, push/fold when short, equity against read ranges."""

    def __init__(self, chart: PushFoldChart | None = None) -> None:
        self._chart = chart
        self._push_widths: dict[float, float] = {}
        self.memory = Memory()
        self._shove_order: Floats | None = None

    def new_session(self) -> None:
        """Forget the players met so far (a match's new session)."""
        self.memory.forget()

    def observe(self, seen: HandSeen) -> None:
        """Learn from a finished hand, as everybody at the table saw it."""
        self.memory.learn(seen)

    @property
    def chart(self) -> PushFoldChart:
        if self._chart is None:
            self._chart = _project_chart()
        return self._chart

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        self.memory.see(view)
        read = betting(view)
        if view.street is Street.PREFLOP and self._folds_later(view, read):
            # A raise that commits little, from players who give up after the flop to a bet.
            return CALL
        if _omaha(view) and view.street is Street.PREFLOP:
            seen = self._raiser_width(view, read)
            return _omaha_preflop(view, read, _STRONG_OMAHA, self._omaha_all_in(rng), seen)
        if view.street is Street.PREFLOP:
            depth = view.effective_stack() / view.big_blind
            if depth <= PUSH_FOLD_DEPTH:
                return self._push_or_fold(view, rng, read, depth)
            return self._preflop(view, rng, read, depth)
        return self._postflop(view, rng, read)

    # -- short: push or fold ----------------------------------------------------------------

    def _push_width(self, depth: float) -> float:
        """Share of all deals the chart shoves at ``depth`` (half a big blind steps)."""
        key = round(depth * 2) / 2
        width = self._push_widths.get(key)
        if width is None:
            chart = self.chart
            pushed = sum(class_combos(c) for c in range(169) if chart.push(class_hole(c), key))
            width = self._push_widths[key] = pushed / 1326
        return width

    def _push_or_fold(
        self, view: BotView, rng: random.Random, read: Betting, depth: float
    ) -> Decision:
        best = _place(view, 1)
        if read.unopened:
            if view.to_call == 0:  # the big blind after limps: shove over them or look free
                if read.limpers == 1 and self.chart.call(view.hole, depth):
                    return ALL_IN
                return ALL_IN if best <= 0.06 else CHECK
            if read.limpers == 0 and read.behind == 1:
                return ALL_IN if self.chart.push(view.hole, depth) else FOLD
            # Each player behind may wake up with a hand: a quarter fewer shoves for each.
            width = self._push_width(depth) * 0.75 ** max(0, read.behind - 1)
            if read.limpers:
                width *= 0.5
            return ALL_IN if best <= width else FOLD
        raiser = read.aggressor
        assert raiser is not None
        if (
            read.raises == 1
            and read.opponents == 1
            and read.behind == 0
            and read.first_raiser_behind == 1
            and view.seats[raiser].all_in
        ):
            return ALL_IN if self.chart.call(view.hole, depth) else FOLD
        return ALL_IN if self._good_all_in(view, read) else FOLD

    def _good_all_in(self, view: BotView, read: Betting) -> bool:
        """Whether all our chips in now wins more than folding, if the raiser calls it."""
        raiser = read.aggressor
        assert raiser is not None
        theirs = view.seats[raiser]
        called = min(view.stack + view.bet, theirs.stack + theirs.bet)
        pot = view.pot - view.bet - theirs.bet + 2 * called
        need = (called - view.bet) / pot
        equity = preflop_equity(view, self._ranges_in_pot(view, read, need))
        need += 0.03 * read.behind
        if not theirs.all_in and view.stack > view.to_call:
            need -= 0.05  # he may fold to it
        return equity >= need

    def _ranges_in_pot(self, view: BotView, read: Betting, price: float) -> list[Floats]:
        """The ranges of those in the pot, the last raiser's with as many bluffs as ``price``
        allows him (:func:`~engine.bots.ranges.with_bluffs`).

        In the pot are those who put in half the bet or more; the rest will mostly fold, and
        each one still to act is counted in the caller's margin instead.
        """
        ranges = []
        for seat in view.live:
            if seat == view.me or 2 * view.seats[seat].bet < view.high_bet:
                continue
            classes = preflop_range(view, seat)
            wide = self._shoves(view, seat) if seat == read.aggressor else None
            wild = None
            if seat == read.aggressor and self._wild_alone(view, read):
                wild = self._raiser_width(view, read)
            elif view.seats[seat].all_in or view.to_call >= 0.4 * (view.stack + view.bet):
                # For the stack, a player seen re-raising most raises is read that wide.
                share = self.memory.re_raises(view.who[seat])
                wild = share if share is not None and share >= WILD_RE_RAISES else None
            if wild is not None:
                wide = max(wide or 0.0, wild)
            if wide is not None and wide >= WIDE_SHOVES:
                # He has been seen moving all in this often: his range is that share of hands
                # in the order people shove them (the chart's), bluffs and all.
                classes = range_weights(self._shove_places(), 0.0, wide, 1.0)
            elif seat == read.aggressor:
                classes = with_bluffs(classes, price * _bluffs_believed(view, Street.PREFLOP))
            ranges.append(classes)
        return ranges

    def _shove_places(self) -> Floats:
        """Each class's place in the order hands are shoved: by the deepest stack the chart
        shoves it at, then by strength."""
        if self._shove_order is None:
            chart = self.chart
            depths = [x / 2 for x in range(2, 61)]
            reach = [max((d for d in depths if chart.push(class_hole(c), d)), default=0.0)
                     for c in range(169)]
            self._shove_order = _places_of(np.lexsort((strengths().top(1), -np.array(reach))))
        return self._shove_order

    def _shoves(self, view: BotView, seat: int) -> float | None:
        """The width of the all-ins remembered of ``seat`` when he is all-in now, deep, with
        at most one raise before his; None when memory says nothing (module engine.bots.memory)."""
        info = view.seats[seat]
        if not info.all_in or (info.stack + info.put_in) < 25 * view.big_blind:
            return None
        return self.memory.shove_width(view.who[seat])

    def _believed(self, view: BotView, seat: int, street: Street) -> float:
        """The bluffs believed in a bet of ``seat``: the usual share, less from a player who
        seldom bets and more from one who bets most of the time, never more than the price
        allows."""
        believed = self.memory.bluffs_believed(view.who[seat])
        return min(1.0, _bluffs_believed(view, street) * believed)

    def _never_fold(self, view: BotView) -> bool:
        """Everyone else in the hand folds to a bet after the flop :data:`SELDOM_FOLDS` of the
        time or less (engine.bots.memory): a bet is called by all their hands, not the best."""
        opponents = [view.who[s] for s in view.live if s != view.me]
        folds = self.memory.folds_to_bets(opponents)
        return folds is not None and folds <= SELDOM_FOLDS

    def _easy_folds(self, view: BotView) -> bool:
        """Everyone else in the hand folds to most bets after the flop (engine.bots.memory)."""
        folds = self.memory.folds_to_bets([view.who[s] for s in view.live if s != view.me])
        return folds is not None and folds >= EASY_FOLDS

    def _folds_later(self, view: BotView, read: Betting) -> bool:
        """A call before the flop worth making whatever the cards: a raise to call that costs at
        most a tenth of the stack, deep, from players who fold to most bets after the flop."""
        total = view.stack + view.bet
        return (
            read.aggressor is not None
            and 0 < view.to_call <= 0.1 * total
            and total >= 25 * view.big_blind
            and self._easy_folds(view)
        )

    def _wild_alone(self, view: BotView, read: Betting) -> bool:
        """In Hold'em: a re-raise by a player read as raising wider than it says, with nobody
        else in the pot and quiet players behind (where others put chips in, their ranges say
        more; in Omaha, whose hands run closer, ``_raiser_width`` is read whoever is in)."""
        if read.raises < 2 or read.opponents > 1 or not self._quiet_behind(view):
            return False
        return self._raiser_width(view, read) is not None

    def _quiet_behind(self, view: BotView) -> bool:
        """Every player still to act before the flop is known to re-raise a raise seldom."""
        acted = {a.player for a in view.actions if a.street is Street.PREFLOP}
        for seat in view.live:
            if seat == view.me or seat in acted or view.seats[seat].all_in:
                continue
            share = self.memory.re_raises(view.who[seat])
            if share is None or share > QUIET_RE_RAISES:
                return False
        return True

    def _raiser_width(self, view: BotView, read: Betting) -> float | None:
        """How wide the last raise before the flop is by memory, when it says more than the
        raise does: an opener seen opening wide, or a re-raiser seen re-raising most raises he
        faces (:data:`WILD_RE_RAISES`); None else. An opener's width is read only when every
        player still to act is known to re-raise seldom: else their answers count more."""
        raiser = read.aggressor
        if raiser is None:
            return None
        who = view.who[raiser]
        if read.raises == 1:
            return self.memory.open_width(who) if self._quiet_behind(view) else None
        share = self.memory.re_raises(who)
        return share if share is not None and share >= WILD_RE_RAISES else None

    def _bets_for_us(self, view: BotView, read: Betting) -> bool:
        """The one other player in the hand acts after us and bets whenever checked to."""
        others = [s for s in view.live if s != view.me]
        return (
            len(others) == 1
            and not read.in_position
            and self.memory.always_bets(view.who[others[0]])
        )

    def _own_bluffs(self, view: BotView) -> float:
        """How much of the usual bluffing to do: less against players who seldom fold."""
        return self.memory.bluff_share([view.who[s] for s in view.live if s != view.me])

    # -- deeper: ranges by position and depth ---------------------------------------------------

    def _preflop(self, view: BotView, rng: random.Random, read: Betting, depth: float) -> Decision:
        best = _place(view, 1)
        bb = view.big_blind
        total = view.stack + view.bet
        raiser = read.aggressor
        in_position = raiser is None or view.me > raiser
        if read.unopened:
            if view.to_call == 0:
                if best <= 0.14:
                    return _raise_to(view, view.high_bet + (2.5 + read.limpers) * bb)
                return CHECK
            if self._limps_in(view, read):
                return CALL
            if self._shoved_off(view):
                return _check_or_fold(view)
            width = open_width(read.behind) * (0.85 if depth < 30 else 1.0)
            if view.players == 2:
                # Heads-up the button opens most hands: he plays every later street in
                # position, and the big blind alone stands between him and the blinds.
                width = 0.65 if depth < 30 else 0.8
            if read.limpers:
                width *= 0.7
            if _place(view, 1 if read.behind <= 2 else 2) <= width:
                size = 2.0 if depth <= 25 else 2.2 if depth <= 40 else 2.5
                if view.players > 2 and view.me == 0:
                    size += 0.5
                return _raise_to(view, view.high_bet * size + read.limpers * bb)
            if read.limpers and depth >= 50 and read.behind <= 3 and self._plays_deep(view) <= 0.5:
                return CALL
            return _check_or_fold(view)
        facing_all_in = raiser is not None and view.seats[raiser].all_in
        if facing_all_in or view.to_call >= 0.4 * total:
            return ALL_IN if self._good_all_in(view, read) else FOLD
        if read.raises == 1 or self._wild_alone(view, read):
            # A re-raise by a player seen re-raising most raises is answered as an open.
            decision = self._against_open(view, rng, read, depth, best, in_position)
        elif read.raises == 2:
            decision = self._against_re_raise(view, rng, read, depth, best, in_position)
        else:
            decision = ALL_IN if best <= 0.012 else FOLD
        if decision is FOLD and read.raises >= 2 and self._defends(view, read, in_position):
            return CALL
        return decision

    def _shoved_off(self, view: BotView) -> bool:
        """Whether an open would too often be shoved off: players still to act who only move
        all in (:meth:`Memory.only_all_in`) shove over it a quarter of the time or more
        (:data:`SHOVED_OFF`), and this hand could not call one of them."""
        nobody = 1.0
        widest = 0.0
        for seat in view.live:
            if seat == view.me:
                continue
            width = self.memory.only_all_in(view.who[seat])
            if width is not None:
                nobody *= 1.0 - width
                widest = max(widest, width)
        if 1.0 - nobody < SHOVED_OFF:
            return False
        shoves = range_weights(self._shove_places(), 0.0, widest, 1.0)
        return preflop_equity(view, [shoves]) < 0.5

    def _limps_in(self, view: BotView, read: Betting) -> bool:
        """Whether to call the big blind with any hand because everybody left to act only
        ever moves all in or lets a hand go (:meth:`Memory.only_all_in`).

        Against them a raise costs more than a call when one of them shoves and wins no more
        when none does; so the call is worth it with any hand when the chance that none of them
        shoves pays for it, and a hand good enough to call a shove still gets to (the
        answer to an all-in reads the width he was seen shoving)."""
        if read.limpers or view.to_call == 0:
            return False
        nobody = 1.0
        for seat in view.live:
            if seat == view.me:
                continue
            width = self.memory.only_all_in(view.who[seat])
            if width is None:
                return False
            nobody *= 1.0 - width
        return nobody * view.pot > (1.0 - nobody) * view.to_call

    def _defends(self, view: BotView, read: Betting, in_position: bool) -> bool:
        """Whether a hand the ranges would fold still gets the price to call a raise that may
        be a bluff: out of position it keeps less of its equity."""
        price = view.to_call / (view.pot + view.to_call)
        keeps = 0.9 if in_position else 0.7
        return keeps * preflop_equity(view, self._ranges_in_pot(view, read, price)) >= price

    def _against_re_raise(
        self,
        view: BotView,
        rng: random.Random,
        read: Betting,
        depth: float,
        best: float,
        in_position: bool,
    ) -> Decision:
        total = view.stack + view.bet
        size = 2.3 if in_position else 2.6
        if best <= 0.025:
            return ALL_IN if depth <= 40 else _raise_to(view, view.high_bet * size)
        opened = _was_raiser(view)
        high, _, suited = class_name_ranks(hand_class(view.hole))
        if opened and depth >= 60 and suited and high == 12 and best > 0.12:
            # Suited aces too weak to call make the 4-bet bluffs: the ace blocks the hands
            # that would go on. As often as half the raise's price makes it pay.
            added = view.high_bet * size - view.bet
            if rng.random() < 0.5 * added / (view.pot + 2 * added):
                return _raise_to(view, view.high_bet * size)
        # The re-raise shows about a third of the range it answers: call with the part of
        # that which does well against it, less out of position. Cold, only the very best.
        if opened:
            shown = re_raise_width(open_width(read.first_raiser_behind))
            width = (0.6 if in_position else 0.45) * shown
        else:
            width = 0.03
        if best <= width and view.to_call <= 0.12 * total:
            return CALL
        return FOLD

    def _plays_deep(self, view: BotView) -> float:
        """The hand's place for a cheap, deep, multi-way call: sets and suited connectors win
        stacks when they hit, which all-in equity does not count."""
        high, low, suited = class_name_ranks(hand_class(view.hole))
        place = _place(view, 3)
        if high == low:
            place -= 0.25
        elif suited and high - low <= 2:
            place -= 0.15
        return place

    def _against_open(
        self,
        view: BotView,
        rng: random.Random,
        read: Betting,
        depth: float,
        best: float,
        in_position: bool,
    ) -> Decision:
        usual = open_width(read.first_raiser_behind)
        # The raiser's own width as memory saw it (an opener's only when the players still to
        # act are known to re-raise seldom: else their answers count more than his range).
        seen = self._raiser_width(view, read)
        opened = usual if seen is None else max(usual, seen) if read.raises == 1 else seen
        if read.raises == 1:
            opened = min(opened, self._opened(view, opened))  # an opener of only the best
        total = view.stack + view.bet
        value = max(0.025, 0.3 * opened)
        if depth <= 25:
            # Too short to re-raise and fold: the re-raise is all-in, from a wider range.
            if best <= max(0.04, 0.45 * opened):
                return ALL_IN
            return CALL if view.me == _big_blind(view) and best <= 0.8 * opened else FOLD
        size = (3.0 if in_position else 3.8) + _callers(view)
        if best <= value:
            return _raise_to(view, view.high_bet * size)
        if view.me == _big_blind(view):
            price = view.to_call / (view.pot + view.to_call)
            # Against an opener seen to raise wider than the usual, as wide as he opens.
            cap = max(0.6, opened) if opened > usual else 0.6
            width = min(cap, opened * (1.0 + 4 * (0.4 - price)))
        elif in_position:
            width = 0.85 * opened
        else:
            width = 0.45 * opened
        raised_bb = view.high_bet / view.big_blind
        if raised_bb > 3:
            width *= 3 / raised_bb
        cheap = view.to_call <= total / 20
        place = self._plays_deep(view) if depth >= 50 and cheap else best
        if place <= width and view.to_call <= 0.12 * total:
            return CALL
        # Re-raise bluffs: suited hands just below the calls, as often as the price allows.
        _, _, suited = class_name_ranks(hand_class(view.hole))
        if suited and width < best <= width + 0.1 and view.can_raise:
            bet = view.high_bet * size - view.bet
            if rng.random() < 1.5 * bet / (view.pot + 2 * bet):
                return _raise_to(view, view.high_bet * size)
        return FOLD

    # -- after the flop ---------------------------------------------------------------------

    def _omaha_all_in(self, rng: random.Random) -> Callable[[BotView, Betting], bool]:
        """Whether to go on against a raise that commits the stack, by equity against the
        ranges read, the raiser's with the bluffs its price allows."""

        def good(view: BotView, read: Betting) -> bool:
            raiser = read.aggressor
            assert raiser is not None
            theirs = view.seats[raiser]
            called = min(view.stack + view.bet, theirs.stack + theirs.bet)
            pot = view.pot - view.bet - theirs.bet + 2 * called
            need = (called - view.bet) / pot + 0.03 * read.behind
            opponents = omaha.lines(view)
            wide = self._shoves(view, raiser)
            wild = self.memory.re_raises(view.who[raiser])
            if wild is not None and wild >= WILD_RE_RAISES:
                wide = max(wide or 0.0, wild)
            if wide is not None:
                opponents = [
                    replace(line, bounds=(0.0, max(line.bounds[1], wide), 1.0))
                    if line.seat == raiser
                    else line
                    for line in opponents
                ]
            guess = omaha.estimate(view, rng, opponents)
            share = need * self._believed(view, raiser, Street.PREFLOP)
            return guess.against_bet(raiser, share) >= need

        return good

    def _opened(self, view: BotView, usual: float) -> float:
        """How wide the first raise before the flop is read: as its position opens, or as
        memory has seen its maker open when that is wide, whichever is wider, or when it is
        tight, whichever is narrower."""
        first = next(
            (a.player for a in view.actions
             if a.street is Street.PREFLOP and a.kind in (ActionKind.BET, ActionKind.RAISE)),
            None,
        )
        if first is None:
            return usual
        tight = self.memory.tight_opens(view.who[first])
        if tight is not None:
            return min(usual, tight)
        seen = self.memory.open_width(view.who[first])
        return usual if seen is None else max(usual, seen)

    def _remembered(self, view: BotView, line: _L) -> _L:
        """A line read from the actions, less the bets of a player who bets whenever he is
        checked to, and the raises of one who raises whatever he faces (engine.bots.memory):
        those say nothing of his hand."""
        who = view.who[line.seat]
        if not self.memory.always_bets(who):
            return line
        hollow = {ActionKind.BET}
        if self.memory.always_raises(who):
            hollow.add(ActionKind.RAISE)
        return replace(line, actions=tuple(a for a in line.actions if a.kind not in hollow))

    def _postflop(self, view: BotView, rng: random.Random, read: Betting) -> Decision:
        first_behind = read.first_raiser_behind
        if _omaha(view):
            opened = self._opened(view, omaha.omaha_open_width(first_behind))
            lines = [self._remembered(view, x) for x in omaha.lines(view, opened=opened)]
            guess = omaha.estimate(view, rng, lines)
        else:
            opened = self._opened(view, open_width(first_behind))
            held = [self._remembered(view, x) for x in postflop_lines(view, opened)]
            guess = estimate(view, rng, held)
        equity = guess.equity
        pot = view.pot
        behind = max(0, view.effective_stack() - view.bet)
        spr = behind / max(pot, 1)
        river = view.street is Street.RIVER
        many = read.opponents > 1
        if view.to_call == 0:
            if not view.can_raise:
                return CHECK
            if spr <= 1.0:
                fraction = behind / max(pot, 1)
            elif view.street is Street.FLOP and read.preflop_raiser == view.me and not many:
                fraction = 0.33
            elif river:
                fraction = 0.75
            else:
                fraction = 0.6
            bet = fraction * pot
            if not many and equity >= 0.6 and self._bets_for_us(view, read):
                return CHECK  # he bets whatever he holds when checked to: let him
            # Against players who call whatever they hold, the callers are everybody, and a
            # hand well ahead is paid the most the bet can be.
            stations = self._never_fold(view)
            called = equity if stations else guess.against_calls(bet, pot)
            if called >= 0.55 + 0.05 * (read.opponents - 1) or (not river and equity >= 0.7):
                if stations and equity >= 0.7:
                    fraction = max(fraction, 1.0)
                return _pot_raise(view, fraction)
            if self._easy_folds(view):
                return _pot_raise(view, fraction)
            # Bluff with little equity, as often as the bet's price makes a caller indifferent.
            if equity < (0.3 if river else 0.35):
                bluffs = bet / (pot + 2 * bet) * (0.3 if many else 1.0) * self._own_bluffs(view)
                if rng.random() < bluffs:
                    return _pot_raise(view, fraction)
            return CHECK
        price = view.to_call / (pot + view.to_call)
        if read.aggressor is not None and not self.memory.always_bets(view.who[read.aggressor]):
            # The bet may be a bluff, as often as its price lets it be without losing. On the
            # flop people bluff about that much; by the river most bets are what they say.
            # (Not from one who bets whatever he holds: his bets are out of his line already,
            # and what he raises with is read as it is.)
            share = price * self._believed(view, read.aggressor, view.street)
            equity = guess.against_bet(read.aggressor, share)
        need = price
        if not river:
            # A draw that gets there is paid on the later streets; but a hand behind now faces
            # more bets before a showdown. Deep, the first outweighs the second a little.
            need -= 0.015 * min(spr, 2.0)
        if view.can_raise:
            raise_to = view.high_bet + 0.75 * (pot + view.to_call)
            extra = raise_to - view.high_bet
            called = guess.against_calls(extra, pot + view.to_call)
            if called >= 0.6 or (not river and equity >= 0.8):
                return _pot_raise(view, 0.75)
            if not many and equity < need and read.aggressor is not None:
                folds = self.memory.folds_when_raised(view.who[read.aggressor])
                if folds is not None and folds >= EASY_FOLDS:
                    return _pot_raise(view, 0.75)  # he gives up his bets to raises: this one too
            if not river and not many and 0.25 <= equity < need + 0.1:
                added = raise_to - view.bet
                if rng.random() < 0.5 * added / (pot + 2 * added) * self._own_bluffs(view):
                    return _pot_raise(view, 0.75)
        return CALL if equity >= need else FOLD


# --- Omaha -----------------------------------------------------------------------------------
#
# The same levels in Pot-Limit Omaha, five-card PLO and PLO Hi-Lo: hands are places among the
# game's starting hands (engine.bots.omaha), raises are pot-sized at most (the engine's pot
# limit is the largest raise a view allows, and to_action keeps every answer within it), and
# equity is counted as the game makes hands, lows included.


_L = TypeVar("_L", Line, omaha.OmahaLine)


def _omaha(view: BotView) -> bool:
    return view.game.hand_making is HandMaking.TWO_PLUS_THREE


@dataclass(frozen=True, slots=True)
class OmahaStyle:
    """How wide a level plays before the flop in Omaha, as shares of the ranges it meets."""

    open: float  # times omaha_open_width
    heads_up: float  # the button's opening range heads-up
    option: float  # the big blind raises limpers with this share of hands
    re_raise: float  # of the opener's range, the share he re-raises
    in_position: float  # of the opener's range, the share he calls with behind him
    out_of_position: float
    big_blind: float  # the big blind's defence, times the opener's range
    call_re_raise: float  # the share of all hands that calls a re-raise
    commits: float  # the share of all hands that calls a raise committing the stack


_REGULAR_OMAHA: Final = OmahaStyle(1.0, 0.55, 0.1, 0.25, 0.8, 0.45, 1.8, 0.06, 0.06)
_STRONG_OMAHA: Final = OmahaStyle(1.1, 0.75, 0.12, 0.3, 0.9, 0.5, 2.2, 0.08, 0.06)


def _omaha_preflop(
    view: BotView,
    read: Betting,
    style: OmahaStyle,
    all_in: Callable[[BotView, Betting], bool] | None,
    seen: float | None = None,
) -> Decision:
    """Pre-flop in Omaha for the regular and strong levels: pot-sized opens and re-raises by
    place; ``all_in`` judges a raise that commits the stack (by the place alone without it).
    ``seen`` is how wide the last raise is, when the strong level's memory knows its maker
    raises wider than a raise says (``Strong._raiser_width``): it is then answered as an open
    that wide, whatever raise it is."""
    best = omaha.place(view.hole, view.game)
    total = view.stack + view.bet
    raiser = read.aggressor
    in_position = raiser is None or view.me > raiser
    if read.unopened:
        if view.to_call == 0:
            return _pot_raise(view, 1.0) if best <= style.option else CHECK
        width = omaha.omaha_open_width(read.behind) * style.open
        if view.players == 2:
            width = style.heads_up
        if read.limpers:
            width *= 0.7
        return _pot_raise(view, 1.0) if best <= width else _check_or_fold(view)
    if view.to_call >= 0.4 * total or (raiser is not None and view.seats[raiser].all_in):
        if all_in is not None:
            return CALL if all_in(view, read) else FOLD
        return CALL if best <= style.commits else FOLD
    if read.raises == 1 or seen is not None:
        opened = omaha.omaha_open_width(read.first_raiser_behind)
        if seen is not None:
            opened = max(opened, seen) if read.raises == 1 else seen
        if best <= max(0.03, style.re_raise * opened):
            return _pot_raise(view, 1.0)
        if view.me == _big_blind(view):
            width = min(0.6, style.big_blind * opened)
        else:
            width = (style.in_position if in_position else style.out_of_position) * opened
        return CALL if best <= width and view.to_call <= 0.15 * total else FOLD
    if read.raises == 2:
        if best <= 0.015:
            return _pot_raise(view, 1.0)
        return CALL if best <= style.call_re_raise and view.to_call <= 0.2 * total else FOLD
    if best <= 0.006:
        return _pot_raise(view, 1.0)
    return CALL if best <= 0.03 and view.bet >= 0.3 * total else FOLD


def _beginner_omaha(view: BotView, rng: random.Random) -> Decision:
    """The beginner in Omaha: four cards look good more often than not, and he plays his
    equity against any hands at all, as if nobody's betting said anything."""
    if view.street is Street.PREFLOP:
        best = omaha.place(view.hole, view.game)
        share = view.to_call / (view.stack + view.bet)
        if best <= 0.03:
            return _pot_raise(view, 1.0) if rng.random() < 0.5 else _check_or_call(view)
        if view.to_call == 0:
            return _pot_raise(view, 1.0) if rng.random() < 0.04 else CHECK
        if view.to_call >= view.stack:
            return CALL if best <= 0.1 else FOLD
        if (best <= 0.6 and share <= 0.15) or (best <= 0.2 and share <= 0.4):
            return CALL
        return CALL if rng.random() < 0.08 and share <= 0.05 else FOLD
    made = omaha.estimate(view, rng, omaha.anybody(view)).equity
    if view.to_call == 0:
        if made >= 0.75 and rng.random() < 0.5:
            return _pot_raise(view, 0.5)
        if made >= 0.6 and rng.random() < 0.25:
            return _pot_raise(view, 0.33)
        return _pot_raise(view, 0.5) if rng.random() < 0.04 else CHECK
    price = view.to_call / (view.pot + view.to_call)
    if made >= 0.85:
        return _pot_raise(view, 1.0) if rng.random() < 0.3 else CALL
    if made >= 0.55 or (made >= 0.4 and price <= 1 / 3):
        return CALL
    return CALL if price <= 0.3 and rng.random() < 0.2 else FOLD


def _regular_omaha_postflop(view: BotView, rng: random.Random, read: Betting) -> Decision:
    """The regular in Omaha: his equity against the pre-flop ranges read, less for every
    raise, against pot odds; value bets at two thirds of the pot, continuation bets."""
    equity = omaha.estimate(view, rng, omaha.lines(view, read_actions=False)).equity
    if view.to_call == 0:
        if equity >= 0.6 + 0.05 * (read.opponents - 1):
            return _pot_raise(view, 0.66)
        continuing = view.street is Street.FLOP and read.preflop_raiser == view.me
        if continuing and read.opponents == 1 and rng.random() < 0.5:
            return _pot_raise(view, 0.5)
        return CHECK
    price = view.to_call / (view.pot + view.to_call)
    before = view.pot - view.to_call
    chance = equity - 0.06 * max(0, read.raises - 1)
    chance -= 0.05 if view.to_call > 0.75 * before else 0.0
    if equity >= 0.8 and view.can_raise:
        return _pot_raise(view, 1.0)
    return CALL if chance >= price else FOLD
