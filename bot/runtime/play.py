"""What every table does with a player's decision, cash or tournament: find his seat in the
hand being played, check the button he pressed is for the decision now due, read what his
all-in means, and write each player's hole cards for his DM in his own language."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.errors import BotError
from bot.i18n import resolve_locale, t
from bot.presenter import decision_number, hole_cards_text, hole_cards_view, labels_for
from bot.runtime.direct import HoleCardsLetter
from bot.runtime.recovery import live_hand
from engine.hand import ActionKind, Hand
from engine.table import Table


def seat_in_hand(table: Table, user_id: int, ref: tuple[int, int] | None) -> tuple[Hand, int]:
    """The hand being played at ``table`` and ``user_id``'s index in it; ``ref`` is the
    (hand, decision) a button was drawn for: a press from another hand is refused."""
    hand = live_hand(table)
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
