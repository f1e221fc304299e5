"""What a computer player may know, and what it may answer.

A bot decides from a :class:`BotView` alone. The type is the proof of fairness: it has a field
for the seat's own hole cards and none for anybody else's or for the deck, so a decision function
cannot read a hidden card however it is written. :func:`view_of` is the only place a view is
made from a live :class:`~engine.hand.Hand`, and it copies public facts only.

Seats in a view are the hand's indices. The button is always the last index (heads-up, the
button is index 1 and posts the small blind; the big blind is index 0), so a seat's position is
its distance from the button: :meth:`BotView.position`.

>>> from engine.cards import FULL_DECK, format_cards
>>> from engine.hand import Hand, HandConfig
>>> hand = Hand(HandConfig.standard((200, 200, 200), 1, 2), FULL_DECK)
>>> view = view_of(hand, hand.to_act)
>>> view.me, format_cards(view.hole), view.to_call, view.pot, view.position(view.me)
(2, '2h3d', 2, 3, 0)
>>> to_action(Decision.raise_to(6), view).amount
6
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from engine.cards import Card
from engine.errors import EngineError
from engine.hand import Action, ActionKind, ActionTaken, Hand, Street, StreetDealt

__all__ = [
    "Bot",
    "BotView",
    "Decision",
    "Move",
    "SeatInfo",
    "Seen",
    "to_action",
    "view_of",
]


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of the hand as everybody at the table sees it."""

    stack: int  # chips behind, not counting this street's bet
    bet: int  # this street's bet
    put_in: int  # every chip put in this hand, this street's bet and antes included
    folded: bool
    all_in: bool


@dataclass(frozen=True, slots=True)
class Seen:
    """One action of this hand, as it was shown at the table."""

    player: int
    kind: ActionKind  # fold, check, call, bet or raise
    street: Street
    amount: int  # chips put in now (call) or the raise-to total (bet, raise)
    all_in: bool


@dataclass(frozen=True, slots=True)
class BotView:
    """Everything the seat ``me`` may know when it is his turn, and nothing more."""

    me: int
    hole: tuple[Card, ...]
    board: tuple[Card, ...]
    street: Street
    big_blind: int
    seats: tuple[SeatInfo, ...]
    pot: int  # every chip in the middle, this street's bets included
    to_call: int
    can_raise: bool
    min_raise_to: int  # 0 when no raise is possible
    max_raise_to: int
    actions: tuple[Seen, ...]

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def button(self) -> int:
        return self.players - 1

    def position(self, seat: int) -> int:
        """0 on the button, 1 at its right (the cut-off), and so on; the blinds come last."""
        return (self.button - seat) % self.players

    @property
    def stack(self) -> int:
        return self.seats[self.me].stack

    @property
    def bet(self) -> int:
        return self.seats[self.me].bet

    @property
    def high_bet(self) -> int:
        return max(s.bet for s in self.seats)

    @property
    def live(self) -> tuple[int, ...]:
        """Seats still holding cards (all-in ones included)."""
        return tuple(i for i, s in enumerate(self.seats) if not s.folded)

    def effective_stack(self) -> int:
        """The most this seat can win or lose from here against one opponent who covers it."""
        others = [
            s.stack + s.bet for i, s in enumerate(self.seats) if i != self.me and not s.folded
        ]
        return min(self.stack + self.bet, max(others, default=0))


class Move(StrEnum):
    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    RAISE = "raise"  # a bet when nobody has bet this street
    ALL_IN = "all_in"


@dataclass(frozen=True, slots=True)
class Decision:
    move: Move
    to: int | None = None  # the street total of a raise

    @classmethod
    def raise_to(cls, to: int) -> Decision:
        return cls(Move.RAISE, to)


FOLD = Decision(Move.FOLD)
CHECK = Decision(Move.CHECK)
CALL = Decision(Move.CALL)
ALL_IN = Decision(Move.ALL_IN)


class Bot(Protocol):
    """A computer player: any object with this method (see docs/bots.md)."""

    def decide(self, view: BotView, rng: random.Random) -> Decision: ...


def view_of(hand: Hand, player: int) -> BotView:
    """The view of ``player``, whose turn it must be."""
    legal = hand.legal()
    if legal is None or legal.player != player:
        raise EngineError("not_your_turn", player=player, to_act=hand.to_act)
    seats = tuple(
        SeatInfo(
            stack=hand.stacks[i],
            bet=hand.bets[i],
            put_in=hand.contributions[i] + hand.pooled[i],
            folded=hand.folded[i],
            all_in=hand.all_in[i],
        )
        for i in range(hand.n)
    )
    seen: list[Seen] = []
    street = Street.FLOP if hand.config.bomb_pot else Street.PREFLOP
    for event in hand.events:
        if isinstance(event, ActionTaken):
            seen.append(Seen(event.player, event.kind, street, event.amount, event.all_in))
        elif isinstance(event, StreetDealt):
            street = event.street
    return BotView(
        me=player,
        hole=hand.hole_cards(player),
        board=hand.board,
        street=hand.street,
        big_blind=hand.config.big_blind,
        seats=seats,
        pot=hand.total_pot(),
        to_call=legal.to_call,
        can_raise=legal.can_raise,
        min_raise_to=legal.min_raise_to,
        max_raise_to=legal.max_raise_to,
        actions=tuple(seen),
    )


def to_action(decision: Decision, view: BotView) -> Action:
    """The engine action for ``decision``, made legal: a bot's answer never stalls a hand.

    An impossible answer becomes the nearest legal one: a fold when checking is free becomes a
    check, a raise that cannot be made becomes a call (or check), and a raise size is clamped
    into the allowed range; a raise to the whole stack is an all-in.
    """
    move = decision.move
    me = view.me
    if move is Move.FOLD:
        return Action(ActionKind.CHECK if view.to_call == 0 else ActionKind.FOLD, me)
    if move in (Move.RAISE, Move.ALL_IN) and view.can_raise:
        to = view.max_raise_to if move is Move.ALL_IN or decision.to is None else decision.to
        to = max(view.min_raise_to, min(view.max_raise_to, to))
        if to == view.max_raise_to:
            return Action(ActionKind.ALL_IN, me)
        kind = ActionKind.BET if view.high_bet == 0 else ActionKind.RAISE
        return Action(kind, me, to)
    if move is Move.ALL_IN and view.to_call >= view.stack:
        return Action(ActionKind.ALL_IN, me)
    return Action(ActionKind.CALL if view.to_call > 0 else ActionKind.CHECK, me)
