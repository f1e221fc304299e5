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
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from math import gcd
from typing import Protocol

from engine.cards import Card
from engine.errors import EngineError
from engine.games import Game
from engine.hand import Action, ActionKind, ActionTaken, Hand, Street, StreetDealt

__all__ = [
    "Bot",
    "BotView",
    "Decision",
    "HandSeen",
    "HandViews",
    "Move",
    "SeatInfo",
    "Seen",
    "chip_grain",
    "new_session",
    "tell_hand",
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
    game: Game  # the rules of the hand: how many hole cards, how hands are made, the limit
    # Who sits at each index, as everybody at the table sees it (a player's id at a table, a
    # bot's name in a match): what lets a player remember another from one hand to the next.
    who: tuple[int, ...]
    number: int  # the hand's number at its table, as its messages show it

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


@dataclass(frozen=True, slots=True)
class HandSeen:
    """A finished hand as everybody at the table saw it: who sat where with what, every action,
    the board and the hands shown at the showdown (and no other card)."""

    number: int
    who: tuple[int, ...]
    big_blind: int
    stacks: tuple[int, ...]  # each index's stack as the hand was dealt
    actions: tuple[Seen, ...]
    board: tuple[Card, ...]
    shown: tuple[tuple[int, tuple[Card, ...]], ...]  # (index, hole cards) of each hand shown


def hand_seen(hand: Hand, who: Sequence[int] | None = None, number: int = 0) -> HandSeen:
    """A finished ``hand`` as everybody at the table saw it (see :class:`HandSeen`)."""
    return HandViews(hand, who, number).ended()


def tell_hand(bot: Bot, seen: HandSeen) -> None:
    """Show ``bot`` a finished hand: a player who remembers the others (an ``observe(seen)``
    method) learns from it; any other bot has nothing to learn."""
    observe = getattr(bot, "observe", None)
    if callable(observe):
        observe(seen)


def new_session(bot: Bot) -> None:
    """Tell ``bot`` that what follows is a new session: a player who remembers the others
    (a ``new_session()`` method) forgets them; any other bot has nothing to forget."""
    forget = getattr(bot, "new_session", None)
    if callable(forget):
        forget()


def view_of(
    hand: Hand, player: int, who: Sequence[int] | None = None, number: int = 0
) -> BotView:
    """The view of ``player``, whose turn it must be; ``who`` names each index (the indices
    themselves by default) and ``number`` is the hand's number at its table."""
    return HandViews(hand, who, number).of(player)


class HandViews:
    """The views of one hand's players, turn after turn: :func:`view_of` for a caller that asks
    at every decision of the hand (a match between bots).

    A view holds the whole action so far, and rebuilding it from the hand's events at every turn
    made views the larger part of a bot match's time, growing with the hand. This keeps what it
    read: the actions seen so far and the last seat records, so a view costs what changed since
    the last one. A hand's events are only ever appended, and every change of state emits one,
    so the event count says how far it has read.
    """

    __slots__ = ("_fields", "_hand", "_number", "_read", "_seats", "_seen", "_street", "_who")

    def __init__(self, hand: Hand, who: Sequence[int] | None = None, number: int = 0) -> None:
        self._hand = hand
        self._number = number
        self._who = tuple(range(hand.n)) if who is None else tuple(who)
        if len(self._who) != hand.n:
            raise ValueError("who names every index of the hand, once")
        self._read = 0
        self._street = Street.FLOP if hand.config.bomb_pot else Street.PREFLOP
        self._seen: tuple[Seen, ...] = ()
        # No seat has these fields (a stack of -1), so the first view makes every record.
        self._fields: list[tuple[int, int, int, bool, bool]] = [(-1, 0, 0, False, False)] * hand.n
        self._seats = [SeatInfo(-1, 0, 0, False, False)] * hand.n

    def ended(self) -> HandSeen:
        """The finished hand as everybody saw it (see :class:`HandSeen`)."""
        hand = self._hand
        self._catch_up()
        return HandSeen(
            number=self._number,
            who=self._who,
            big_blind=hand.config.big_blind,
            stacks=tuple(hand.config.stacks),
            actions=self._seen,
            board=hand.board,
            shown=tuple((i, hand.hole_cards(i)) for i in sorted(hand.shown)),
        )

    def of(self, player: int) -> BotView:
        """The view of ``player``, whose turn it must be."""
        hand = self._hand
        legal = hand.legal()
        if legal is None or legal.player != player:
            raise EngineError("not_your_turn", player=player, to_act=hand.to_act)
        self._catch_up()
        return BotView(
            me=player,
            hole=hand.hole_cards(player),
            board=hand.board,
            street=hand.street,
            big_blind=hand.config.big_blind,
            seats=self._seat_infos(),
            pot=hand.total_pot(),
            to_call=legal.to_call,
            can_raise=legal.can_raise,
            min_raise_to=legal.min_raise_to,
            max_raise_to=legal.max_raise_to,
            actions=self._seen,
            game=hand.game,
            who=self._who,
            number=self._number,
        )

    def _catch_up(self) -> None:
        """Read the events added since the last view."""
        hand = self._hand
        events = hand.events
        if self._read < len(events):
            street = self._street
            seen: list[Seen] = []
            for event in events[self._read :]:
                if isinstance(event, ActionTaken):
                    seen.append(Seen(event.player, event.kind, street, event.amount, event.all_in))
                elif isinstance(event, StreetDealt):
                    street = event.street
            self._street, self._read = street, len(events)
            if seen:
                self._seen += tuple(seen)

    def _seat_infos(self) -> tuple[SeatInfo, ...]:
        # Most seats are as they were at the last view (one player acted since): their records
        # are kept rather than made again, a record being dearer than comparing its fields.
        hand = self._hand
        fields = self._fields
        infos = self._seats
        for i, (stack, bet, contributed, pooled, folded, all_in) in enumerate(
            zip(
                hand.stacks,
                hand.bets,
                hand.contributions,
                hand.pooled,
                hand.folded,
                hand.all_in,
                strict=True,
            )
        ):
            now = (stack, bet, contributed + pooled, folded, all_in)
            if now != fields[i]:
                fields[i] = now
                infos[i] = SeatInfo(*now)
        return tuple(infos)


def to_action(decision: Decision, view: BotView) -> Action:
    """The engine action for ``decision``, made legal: a bot's answer never stalls a hand.

    An impossible answer becomes the nearest legal one: a fold when checking is free becomes a
    check, a raise that cannot be made becomes a call (or check), and a raise size is rounded to
    the table's chip grain (:func:`chip_grain`) and clamped into the allowed range; a raise to
    the whole stack is an all-in.
    """
    move = decision.move
    me = view.me
    if move is Move.FOLD:
        return Action(ActionKind.CHECK if view.to_call == 0 else ActionKind.FOLD, me)
    if move in (Move.RAISE, Move.ALL_IN) and view.can_raise:
        to = view.max_raise_to if move is Move.ALL_IN or decision.to is None else decision.to
        if to < view.max_raise_to:
            grain = chip_grain(view)
            to = (to + grain // 2) // grain * grain
        to = max(view.min_raise_to, min(view.max_raise_to, to))
        if to == view.max_raise_to:
            return Action(ActionKind.ALL_IN, me)
        kind = ActionKind.BET if view.high_bet == 0 else ActionKind.RAISE
        return Action(kind, me, to)
    if move is Move.ALL_IN and view.to_call >= view.stack:
        return Action(ActionKind.ALL_IN, me)
    return Action(ActionKind.CALL if view.to_call > 0 else ActionKind.CHECK, me)


def chip_grain(view: BotView) -> int:
    """The largest chip amount every public figure of the hand is a multiple of.

    A table with a chip unit refuses a raise to an amount off the unit (only an all-in may be
    odd). A view does not carry the unit, but blinds, antes, stacks and bets are all multiples
    of it, so their greatest common divisor is a multiple of the unit too, and a total rounded
    to it is always accepted. The minimum raise is a sum of such figures, so it stays on the
    grain as well.

    >>> from engine.cards import FULL_DECK
    >>> from engine.hand import Hand, HandConfig
    >>> hand = Hand(HandConfig.standard((1000, 1000, 975), 25, 50, chip_unit=25), FULL_DECK)
    >>> view = view_of(hand, hand.to_act)
    >>> chip_grain(view), to_action(Decision.raise_to(137), view).amount
    (25, 125)
    """
    grain = view.big_blind
    for seat in view.seats:
        grain = gcd(grain, seat.stack, seat.bet, seat.put_in)
    return max(grain, 1)
