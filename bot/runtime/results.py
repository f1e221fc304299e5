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
    """One ``PlayerResult`` per player of a finished hand, with the statistics read from its
    events: VPIP, PFR and 3-bets from the pre-flop decisions, the flop and the showdown from
    who was still in.

    A 3-bet chance is a pre-flop turn facing exactly one raise: the big blind is the opening
    bet (RULES 4), so the first raise is the open and re-raising it is the 3-bet. A turn comes
    with every decision, so a player who called before the raise (a limper) has his chance when
    the action comes back to him.
    """
    result = hand.result
    if result is None:
        raise ValueError("the hand is not over")
    n = hand.config.players
    vpip, pfr = [False] * n, [False] * n
    chance, three_bet = [False] * n, [False] * n
    folded = [False] * n
    saw_flop = [False] * n
    raises = 0
    for event in hand.events:
        if isinstance(event, StreetDealt):
            # The first street dealt is the flop: whoever had not folded saw it.
            saw_flop = [not f for f in folded]
            break
        if isinstance(event, ActionTaken):
            player = event.player
            if raises == 1:
                chance[player] = True
                three_bet[player] |= event.kind in _AGGRESSIVE
            if event.kind in _AGGRESSIVE:
                raises += 1
            vpip[player] |= event.kind in _VOLUNTARY
            pfr[player] |= event.kind in _AGGRESSIVE
            folded[player] |= event.kind is ActionKind.FOLD
    won = result.won
    at_showdown = [result.showdown and not hand.folded[i] for i in range(n)]
    return [
        PlayerResult(
            player=i,
            final_stack=result.stacks[i],
            contributed=hand.contributions[i] + hand.pooled[i],
            won=won[i],
            vpip=vpip[i],
            pfr=pfr[i],
            showdown=result.showdown and i in result.shown,
            saw_flop=saw_flop[i],
            went_to_showdown=at_showdown[i],
            won_at_showdown=at_showdown[i] and won[i] > 0,
            three_bet_chance=chance[i],
            three_bet=three_bet[i],
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
