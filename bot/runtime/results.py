"""What storage records when a hand ends: each player's outcome and a summary of the result.

The summary holds no hole cards: storage keeps the deck for replays, and the result JSON may be
shown or exported, so it names players and chips only.
"""

from __future__ import annotations

from typing import Any

from bot.storage.hands import PlayerResult
from engine.hand import ActionKind, ActionTaken, Hand, StreetDealt

_VOLUNTARY = frozenset({ActionKind.CALL, ActionKind.BET, ActionKind.RAISE})
_AGGRESSIVE = frozenset({ActionKind.BET, ActionKind.RAISE})


def player_results(hand: Hand) -> list[PlayerResult]:
    """One ``PlayerResult`` per player of a finished hand (VPIP and PFR from pre-flop play)."""
    result = hand.result
    if result is None:
        raise ValueError("the hand is not over")
    n = hand.config.players
    vpip, pfr = [False] * n, [False] * n
    for event in hand.events:
        if isinstance(event, StreetDealt):
            break
        if isinstance(event, ActionTaken):
            vpip[event.player] |= event.kind in _VOLUNTARY
            pfr[event.player] |= event.kind in _AGGRESSIVE
    won = result.won
    return [
        PlayerResult(
            player=i,
            final_stack=result.stacks[i],
            contributed=hand.contributions[i] + hand.pooled[i],
            won=won[i],
            vpip=vpip[i],
            pfr=pfr[i],
            showdown=result.showdown and i in result.shown,
        )
        for i in range(n)
    ]


def result_summary(hand: Hand) -> dict[str, Any]:
    """The JSON stored with a finished hand: stacks, net, pots and who showed (no cards)."""
    result = hand.result
    if result is None:
        raise ValueError("the hand is not over")
    return {
        "stacks": list(result.stacks),
        "net": list(result.net),
        "showdown": result.showdown,
        "shown": list(result.shown),
        "board_cards": len(hand.board),
        "pots": [
            {"amount": pot.amount, "eligible": list(pot.eligible), "shares": list(pot.shares)}
            for pot in result.pots
        ],
    }
