"""The hand that just ended, until the next deal: what its players may still ask of it.

Its uncontested winner may turn his cards up (RULES 6), and, where the kind of table plays
it, a player dealt in may have the board that would have come shown, once, when the hand ended
before the river (the rabbit). One job, as the decision clock has one: the loop tells
:class:`LastHand` a hand ended (:meth:`LastHand.ended`) and that a new one is dealt
(:meth:`LastHand.clear`), and asks it who may do what.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import ButtonSpec
from engine.hand import Hand


@dataclass(frozen=True, slots=True)
class Ended:
    """A hand stored as ended: the hand, its number, its players and its stored id."""

    hand: Hand
    number: int
    players: tuple[int, ...]
    hand_id: int | None


class LastHand:
    """The hand that just ended at one table, and its rabbit shown or not."""

    def __init__(self) -> None:
        self.last: Ended | None = None
        self.rabbit_shown = False

    def ended(self, last: Ended) -> None:
        self.last = last
        self.rabbit_shown = False

    def clear(self) -> None:
        """A new hand was dealt: the last one is nobody's to show any more."""
        self.last = None

    def buttons(self, locale: str | None, *, rabbit: bool) -> tuple[ButtonSpec, ...]:
        """The buttons under its result: "Show" for an uncontested winner, and "Rabbit" when
        the table plays it (``rabbit``) and the board was not complete."""
        last = self.last
        result = last.hand.result if last is not None else None
        if last is None or result is None or result.voided:
            return ()
        ref = (last.number, 0)
        found: tuple[ButtonSpec, ...] = ()
        if not result.showdown:
            found = (ButtonSpec("show", t("button.show", locale), ref=ref),)
        if rabbit and len(last.hand.board) < 5 and last.hand_id is not None:
            found += (ButtonSpec("rabbit", t("button.rabbit", locale), ref=ref),)
        return found

    def check_show(self, user_id: int, hand_number: int | None) -> tuple[Ended, int]:
        """May ``user_id`` turn his cards up: he won the hand that just ended uncontested?"""
        last = self.last
        result = last.hand.result if last is not None else None
        if (
            last is None
            or result is None
            or result.showdown
            or result.voided
            or (hand_number is not None and hand_number != last.number)
            or user_id not in last.players
        ):
            raise BotError("nothing_to_show")
        return last, last.players.index(user_id)

    def check_rabbit(self, user_id: int, hand_number: int | None) -> Ended:
        """May ``user_id`` ask for the rabbit: the hand that just ended before the river, once,
        by a player dealt in?"""
        last = self.last
        result = last.hand.result if last is not None else None
        if (
            last is None
            or result is None
            or result.voided
            or last.hand_id is None
            or len(last.hand.board) >= 5
            or (hand_number is not None and hand_number != last.number)
        ):
            raise BotError("nothing_to_hunt")
        if user_id not in last.players:
            raise BotError("not_in_that_hand")
        if self.rabbit_shown:
            raise BotError("rabbit_shown")
        return last


__all__ = ["Ended", "LastHand"]
