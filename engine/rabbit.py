"""Rabbit hunting: the board that would have come, for a hand that ended before the river.

Nothing about the hand changes: the cards are read from its deck order at the positions the
board would have been dealt from (:func:`engine.hand.board_positions`), so they are the cards
the provable shuffle committed to there, and the positions say which openings prove them. A
board position is never a hole card nor a burn, so a rabbit hunt shows no one's hand. Once it
is shown, everybody has seen the whole board: the positions to open are
``seen_positions(players, 5, shown, hole_count=...)`` (:mod:`engine.commitment`).

>>> from engine.cards import FULL_DECK, format_cards
>>> from engine.hand import Hand, HandConfig
>>> hand = Hand(HandConfig.standard((100, 100, 100), 1, 2), FULL_DECK)
>>> _ = hand.fold(2), hand.fold(0)                     # over pre-flop
>>> rabbit = rabbit_hunt(hand)
>>> rabbit.positions, format_cards(rabbit.cards), rabbit.board_count
((7, 8, 9, 11, 13), '3s4c4d4s5d', 0)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import Card
from engine.errors import EngineError
from engine.hand import Hand, board_positions

__all__ = ["RabbitHunt", "rabbit_hunt"]


@dataclass(frozen=True, slots=True)
class RabbitHunt:
    """The board cards that were not dealt, in dealing order, with their deck positions."""

    positions: tuple[int, ...]
    cards: tuple[Card, ...]
    board_count: int  # board cards the hand had dealt; the rabbit is the rest of the five


def rabbit_hunt(hand: Hand) -> RabbitHunt:
    """The rest of the board of a finished hand that ended before the river.

    Raises ``EngineError("hand_not_over")`` before the end, and ``EngineError("bad_action",
    value="rabbit", reason=...)`` with ``voided`` (the hand never happened) or
    ``board_complete`` (there is nothing to hunt).
    """
    result = hand.result
    if result is None:
        raise EngineError("hand_not_over")
    if result.voided:
        raise EngineError("bad_action", value="rabbit", reason="voided")
    dealt = len(hand.board)
    if dealt >= 5:
        raise EngineError("bad_action", value="rabbit", reason="board_complete")
    positions = board_positions(hand.n, hand.game.hole_count)[dealt:]
    return RabbitHunt(positions, tuple(hand.deck[p] for p in positions), dealt)
