"""The hand that just ended, until the next deal: what its players may still ask of it.

Its uncontested winner may turn his cards up (RULES 6), and, where the kind of table plays
it, a player dealt in may have the board that would have come shown, once, when the hand ended
before the river (the rabbit). One job, callbacks in, as the decision clock: the loop tells
:class:`LastHand` a hand ended (:meth:`LastHand.ended`) and that a new one is dealt
(:meth:`LastHand.clear`); the players' presses come here (:meth:`LastHand.show`,
:meth:`LastHand.hunt`), each refused by its one check first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import ButtonSpec, cards_text, mention
from bot.runtime.kinds import Extra, TableKind
from engine.hand import Hand
from engine.rabbit import rabbit_hunt


@dataclass(frozen=True, slots=True)
class Ended:
    """A hand stored as ended: the hand, its number, its players and its stored id."""

    hand: Hand
    number: int
    players: tuple[int, ...]
    hand_id: int | None


class LastHand:
    """The hand that just ended at one table, and its rabbit shown or not.

    - ``kind``: the table's kind (whether it plays the rabbit);
    - ``lock``: the table's lock, held while a press is answered;
    - ``say(text)``: a line in the table's channel; ``locale()``: the channel's language;
    - ``note_rabbit(hand_id)``: store that the rabbit was shown (verifying opens it too).
    """

    def __init__(
        self,
        kind: TableKind,
        lock: AbstractAsyncContextManager[Any],
        say: Callable[[str], None],
        locale: Callable[[], str | None],
        note_rabbit: Callable[[int], Awaitable[None]],
    ) -> None:
        self.kind = kind
        self.lock = lock
        self._say = say
        self._locale = locale
        self._note_rabbit = note_rabbit
        self.last: Ended | None = None
        self.rabbit_shown = False

    def ended(self, last: Ended) -> None:
        self.last = last
        self.rabbit_shown = False

    def clear(self) -> None:
        """A new hand was dealt: the last one is nobody's to show any more."""
        self.last = None

    def buttons(self) -> tuple[ButtonSpec, ...]:
        """The buttons under its result: "Show" for an uncontested winner, and "Rabbit" when
        the table plays it and the board was not complete."""
        last = self.last
        result = last.hand.result if last is not None else None
        if last is None or result is None or result.voided:
            return ()
        ref, locale = (last.number, 0), self._locale()
        found: tuple[ButtonSpec, ...] = ()
        if not result.showdown:
            found = (ButtonSpec("show", t("button.show", locale), ref=ref),)
        if self.kind.allows(Extra.RABBIT) and len(last.hand.board) < 5 and last.hand_id is not None:
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
        by a player dealt in, where the table plays it?"""
        self.kind.require(Extra.RABBIT)
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

    async def show(self, user_id: int, hand_number: int | None) -> None:
        """The winner of a hand nobody contested turns his cards up (RULES 6), until the next
        deal. Cosmetic: the chips are settled and stored already."""
        async with self.lock:
            last, index = self.check_show(user_id, hand_number)
            last.hand.show(index)  # EngineError unless he won it without a showdown
            self._say(t("result.shows", self._locale(), player=mention(user_id),
                        cards=cards_text(last.hand.hole_cards(index))))

    async def hunt(self, user_id: int, hand_number: int | None) -> None:
        """Show the board that would have come in the hand that just ended before the river:
        to the channel, once, at the request of a player who was dealt in."""
        async with self.lock:
            last = self.check_rabbit(user_id, hand_number)
            assert last.hand_id is not None
            hunt = rabbit_hunt(last.hand)
            await self._note_rabbit(last.hand_id)  # verifying opens these positions too
            self.rabbit_shown = True
            self._say(t("result.rabbit", self._locale(), player=mention(user_id),
                        hand=last.number, cards=cards_text(hunt.cards)))


__all__ = ["Ended", "LastHand"]
