"""What every table does with a player's decision, cash or tournament: find his seat in the
hand being played, check the button he pressed is for the decision now due, read what his
all-in means, tell a double click on a toggle from two presses, and write each player's hole
cards for his DM in his own language."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from bot.errors import BotError
from bot.i18n import resolve_locale, t
from bot.presenter import decision_number, hole_cards_text, hole_cards_view, labels_for
from bot.runtime.direct import HoleCardsLetter
from engine.hand import ActionKind, Hand, PreAction
from engine.table import Table


def seat_in_hand(table: Table, user_id: int, ref: tuple[int, int] | None) -> tuple[Hand, int]:
    """The hand being played at ``table`` and ``user_id``'s index in it; ``ref`` is the
    (hand, decision) a button was drawn for: a press from another hand is refused."""
    hand = table.live_hand
    if hand is None:
        raise BotError("no_hand")
    if ref is not None and ref[0] != table.hand_number:
        raise BotError("stale_message")
    index = table.hand_index(user_id)
    if index is None:
        raise BotError("not_in_hand")
    return hand, index


def check_decision(hand: Hand, ref: tuple[int, int] | None) -> None:
    """A button acts only on the decision it was drawn for (a double click acts once)."""
    if ref is not None and ref[1] != decision_number(hand):
        raise BotError("already_acted")


# Two presses of one toggle by one player this close together are one double click (desktop
# systems take half a second by default; a press's round trip through Discord adds to it).
DOUBLE_CLICK = 0.8


class Clicks:
    """When each player last pressed each toggle (a straddle, a pre-selection) to effect.

    A toggle pressed twice in a double click would be set and taken straight back: a press
    less than ``DOUBLE_CLICK`` after the same player's last press of it that took effect is the
    second click of that double click, and changes nothing. A deliberate second press comes
    after the first one's answer, later than that. Only a press that takes effect opens the
    window, so a burst of clicks cannot stretch it."""

    def __init__(self) -> None:
        self._last: dict[tuple[int, str], float] = {}

    def recent(self, user_id: int, toggle: str, within: float = DOUBLE_CLICK) -> bool:
        """Whether his last press of ``toggle`` to effect was less than ``within`` ago."""
        last = self._last.get((user_id, toggle))
        return last is not None and time.monotonic() - last < within

    def second(self, user_id: int, toggle: str) -> bool:
        """Whether this press is the second click of a double click; if not, it takes effect
        and opens the window."""
        if self.recent(user_id, toggle):
            return True
        self._last[(user_id, toggle)] = time.monotonic()
        return False

    def forget(self, user_id: int) -> None:
        for key in [key for key in self._last if key[0] == user_id]:
            del self._last[key]


def preselection(
    hand: Hand, index: int, pre: PreAction, clicks: Clicks, user_id: int
) -> PreAction | None:
    """What a press of the ``pre`` button asks of player ``index``: that choice, ``NONE`` to
    cancel it when chosen already, or None for the second click of a double click (what is
    chosen stands)."""
    if clicks.second(user_id, f"pre:{pre.value}"):
        return None
    current = hand.preselected.get(index)
    return PreAction.NONE if current is not None and current[0] is pre else pre


def preselected(hand: Hand, index: int) -> PreAction:
    """Player ``index``'s pre-selected action now."""
    current = hand.preselected.get(index)
    return current[0] if current is not None else PreAction.NONE


def all_in_meaning(hand: Hand, index: int, kind: ActionKind) -> ActionKind:
    """Going all-in when nobody left could answer a raise can only mean calling."""
    legal = hand.legal()
    if (
        kind is ActionKind.ALL_IN
        and legal is not None
        and legal.player == index
        and legal.to_call
        and not legal.can_raise
        and not legal.raise_closed
    ):
        return ActionKind.CALL
    return kind


def hole_card_letters(
    hand: Hand,
    players: Sequence[int],
    number: int,
    spoken: Mapping[int, str],
    fallback: str | None,
    link: str,
) -> list[HoleCardsLetter]:
    """Each player's hole cards (``players`` in the hand's order), written in the language
    his client spoke last (``fallback``, the table's, for a player never seen)."""
    letters = []
    for index, pid in enumerate(players):
        locale = resolve_locale(spoken.get(pid, fallback))
        caption = t("cards.caption", locale, hand=number)
        text = t(
            "cards.dm", locale, hand=number, cards=hole_cards_text(hand, index, locale), link=link
        )
        view = hole_cards_view(hand, index, caption, locale)
        letters.append(HoleCardsLetter(pid, text, view, labels_for(locale)))
    return letters
