"""Which hole cards nobody showed, and whether any of them reached a message everybody could
read: the one leak check of every end-to-end game (cash tables, tournaments, any game)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from bot.presenter import cards_text
from bot.storage import Database, hands
from tests.fakediscord.models import MessageEvent


@dataclass(frozen=True)
class Hidden:
    channel_id: int  # where its table plays
    hand_no: int
    cards: str
    owner: int = 0  # whose they are


async def hidden_cards(
    db: Database, where: str, params: Sequence[object]
) -> tuple[list[Hidden], set[str]]:
    """The hole cards nobody showed, hand by hand (a folded or mucked hand, and every hand of
    a hand called off), and the cards that were shown in some hand, of the finished hands
    ``where`` selects (a condition on ``h``, the hands, or ``t``, their tables)."""
    rows = await db.fetchall(
        "SELECT h.hand_id, h.status, h.hand_no, t.channel_id FROM hands h"
        " JOIN poker_tables t ON t.table_id = h.table_id"
        f" WHERE ({where}) AND h.status <> 'running'",
        tuple(params),
    )
    hidden: list[Hidden] = []
    shown: set[str] = set()
    for hand_id, status, hand_no, channel_id in rows:
        stored = await hands.load_hand(db, hand_id)
        hand = hands.rebuild_hand(stored)
        owners = {p.player: p.user_id for p in stored.players}
        result = hand.result if status == "finished" else None
        opened = set(result.shown) if result is not None else set()
        for i in range(hand.config.players):
            cards = cards_text(hand.hole_cards(i))
            if i in opened:
                shown.add(cards)
            else:
                hidden.append(Hidden(channel_id, hand_no, cards, owners.get(i, 0)))
    return hidden, shown


HAND_NAMED = re.compile(r"[Hh]and #(\d+)")


def public_leaks(
    events: Iterable[MessageEvent], places: Collection[int], hidden: Sequence[Hidden],
    shown: Collection[str],
) -> list[tuple[Hidden, str]]:
    """Every version of every message in ``places`` that everybody could read and that names
    a hand nobody showed.

    A table deals many hands from fresh decks, so the same cards are shown in one hand and
    hidden in another: a message is held to the hands it names, and one naming none to the
    cards no hand ever showed."""
    leaked = []
    for event in events:
        message = event.message
        if message.channel_id not in places or message.ephemeral:
            continue
        named = {int(n) for n in HAND_NAMED.findall(message.content)}
        for secret in hidden:
            if secret.cards not in message.content:
                continue
            its_hand = secret.hand_no in named and secret.channel_id == message.channel_id
            if its_hand or (not named and secret.cards not in shown):
                leaked.append((secret, message.content))
    return leaked
