"""What a seat can read off its :class:`~engine.bots.view.BotView`: the betting so far, its made
hand and its draws. Shared by the levels in :mod:`engine.bots.levels`; nothing here decides.

>>> from engine.cards import parse_cards
>>> read = read_hand(parse_cards("AhKh"), parse_cards("Kd7h2h"))
>>> read.kind, read.outs, f"{read.made:.2f}"
('top_pair', 9, '0.68')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb

from engine.bots.view import BotView
from engine.cards import Card
from engine.evaluator import Category, category_of, rank_value
from engine.hand import ActionKind, Street

__all__ = ["Betting", "HandRead", "betting", "read_hand"]

_AGGRESSIVE = (ActionKind.BET, ActionKind.RAISE)


@dataclass(frozen=True, slots=True)
class Betting:
    """The betting of the hand so far, from the seat's side of the table."""

    raises: int  # bets and raises on this street (pre-flop the blinds are not counted)
    limpers: int  # pre-flop calls of the big blind before any raise
    aggressor: int | None  # who bet or raised last on this street
    behind: int  # players who may still act after this seat in this round
    opponents: int  # other players still holding cards
    preflop_raiser: int | None  # the last pre-flop raiser
    first_raiser_behind: int  # how many could act after the first raiser when he raised
    in_position: bool  # this seat acts last after the flop among those who can still act
    street_actions: int  # actions taken on this street so far

    @property
    def unopened(self) -> bool:
        return self.raises == 0


def betting(view: BotView) -> Betting:
    """Read the betting of ``view`` (see :class:`Betting`)."""
    me, street = view.me, view.street
    acted_now: set[int] = set()
    raises = limpers = street_actions = 0
    aggressor: int | None = None
    preflop_raiser: int | None = None
    first_raiser_behind = 0
    acted_preflop: set[int] = set()
    for seen in view.actions:
        if seen.street is Street.PREFLOP:
            if seen.kind in _AGGRESSIVE:
                if preflop_raiser is None:
                    first_raiser_behind = sum(
                        1
                        for j, seat in enumerate(view.seats)
                        if j != seen.player
                        and j not in acted_preflop
                        and not (seat.all_in and _never_acted(view, j))
                    )
                preflop_raiser = seen.player
            acted_preflop.add(seen.player)
        if seen.street is street:
            street_actions += 1
            acted_now.add(seen.player)
            if seen.kind in _AGGRESSIVE:
                raises += 1
                aggressor = seen.player
            elif seen.kind is ActionKind.CALL and raises == 0 and street is Street.PREFLOP:
                limpers += 1
    able = [j for j, s in enumerate(view.seats) if not s.folded and not s.all_in]
    behind = sum(1 for j in able if j != me and j not in acted_now)
    # Seats act after the flop in index order (small blind first, button last; heads-up the
    # big blind first), so the highest index still able to act is last.
    in_position = all(j < me for j in able if j != me)
    return Betting(
        raises=raises,
        limpers=limpers,
        aggressor=aggressor,
        behind=behind,
        opponents=len(view.live) - 1,
        preflop_raiser=preflop_raiser,
        first_raiser_behind=first_raiser_behind,
        in_position=in_position,
        street_actions=street_actions,
    )


def _never_acted(view: BotView, seat: int) -> bool:
    return all(seen.player != seat for seen in view.actions)


@dataclass(frozen=True, slots=True)
class HandRead:
    """A player's rough reading of his own hand after the flop.

    ``made`` is the chance, as a player guesses it, that the hand is best now against one
    opponent; ``outs`` the cards that would make it a strong hand, ``draw`` the chance of
    catching one of them by the river (0 on the river).
    """

    kind: str
    made: float
    outs: int
    draw: float


# How good each made hand usually is heads-up, before the adjustments in read_hand.
_BASE = {
    "nothing": 0.08,
    "board": 0.2,
    "weak_pair": 0.36,
    "middle_pair": 0.45,
    "top_pair": 0.58,
    "overpair": 0.72,
    "two_pair": 0.8,
    "trips": 0.8,
    "set": 0.88,
    "straight": 0.86,
    "flush": 0.88,
    "full_house": 0.95,
}


def read_hand(hole: Sequence[Card], board: Sequence[Card]) -> HandRead:
    """Name the made hand and count the draws, as a player does at the table."""
    cards = tuple(hole) + tuple(board)
    category = category_of(rank_value(cards))
    board_ranks = sorted((c >> 2 for c in board), reverse=True)
    hole_ranks = sorted((c >> 2 for c in hole), reverse=True)
    kind = _kind(category, hole, board, hole_ranks, board_ranks)
    made = _BASE[kind]
    if kind == "top_pair":
        kicker = hole_ranks[1] if hole_ranks[0] == board_ranks[0] else hole_ranks[0]
        made += max(0, kicker - 7) * 0.02  # a ten kicker and up adds to it
    elif kind == "overpair":
        made += (hole_ranks[0] - 8) * 0.015
    elif kind == "nothing":
        made += 0.04 * sum(r > board_ranks[0] for r in hole_ranks)
    if category < Category.FLUSH and _four_flush(board):
        made *= 0.7  # whoever holds one card of that suit has this beaten
    outs = 0 if len(board) >= 5 else _outs(hole, board, category, kind)
    unseen = 52 - len(cards)
    to_come = 5 - len(board)
    draw = 1 - comb(unseen - outs, to_come) / comb(unseen, to_come) if to_come else 0.0
    return HandRead(kind, min(made, 0.99), outs, draw)


def _kind(
    category: Category,
    hole: Sequence[Card],
    board: Sequence[Card],
    hole_ranks: list[int],
    board_ranks: list[int],
) -> str:
    if len(board) >= 5 and rank_value(tuple(board[:5])) == rank_value(tuple(hole) + tuple(board)):
        return "board"  # the five on the table play: the hole cards add nothing
    if category >= Category.FULL_HOUSE:
        return "full_house"
    if category is Category.FLUSH:
        return "flush"
    if category is Category.STRAIGHT:
        return "straight"
    paired = [r for r in hole_ranks if r in board_ranks]
    pocket = hole_ranks[0] == hole_ranks[1]
    if category is Category.THREE_OF_A_KIND:
        if pocket:
            return "set"
        return "trips" if paired else "board"
    if category is Category.TWO_PAIR:
        if len(set(paired)) == 2:
            return "two_pair"
        if not paired and not pocket:
            return "board"
    if pocket:
        above = sum(r > hole_ranks[0] for r in set(board_ranks))
        return "overpair" if above == 0 else "middle_pair" if above == 1 else "weak_pair"
    if not paired:
        return "nothing"
    top = max(paired)
    distinct = sorted(set(board_ranks), reverse=True)
    if top == distinct[0]:
        return "top_pair"
    return "middle_pair" if top == distinct[1] else "weak_pair"


def _four_flush(board: Sequence[Card]) -> bool:
    return any(sum(1 for c in board if c & 3 == s) >= 4 for s in range(4))


def _outs(hole: Sequence[Card], board: Sequence[Card], category: Category, kind: str) -> int:
    outs = 0
    if category < Category.FLUSH:
        for suit in range(4):
            mine = sum(1 for c in hole if c & 3 == suit)
            if mine and mine + sum(1 for c in board if c & 3 == suit) == 4:
                outs += 9
    if category < Category.STRAIGHT:
        outs += 4 * _straight_ranks(hole, board)
    if kind == "nothing":
        # Pairing a hole card above the board makes top pair: half an out each, as often
        # enough it is still not best.
        top = max(c >> 2 for c in board)
        outs += sum(3 for c in hole if c >> 2 > top) // 2
    return min(outs, 15)


def _straight_ranks(hole: Sequence[Card], board: Sequence[Card]) -> int:
    """How many ranks would complete a straight that uses a hole card."""

    # Rank 0..12 is deuce..ace; the ace also plays low, as -1.
    def ranks_of(cards: Sequence[Card]) -> set[int]:
        found = {c >> 2 for c in cards}
        return found | {-1} if 12 in found else found

    everything = ranks_of(tuple(hole) + tuple(board))
    own = ranks_of(hole)
    missing: set[int] = set()
    for low in range(-1, 9):
        window = set(range(low, low + 5))
        have = window & everything
        if len(have) == 4 and have & own:
            gap = (window - have).pop()
            missing.add(12 if gap == -1 else gap)
    return len(missing)
