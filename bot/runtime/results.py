"""What storage records when a hand ends: each player's outcome, a summary of the result, and
the hand's all-in EV.

The summary holds no hole cards: storage keeps the deck for replays, and the result JSON may be
shown or exported, so it names players and chips only. The all-in EV (``engine.allin_ev``) holds
none either: the board at the all-in moment and chips, the live hands having been turned face up
then anyway.

Counting the all-in EV goes through every board still possible (a few milliseconds, tens before
the flop four ways), so :func:`settled_hand` counts it off the event loop; the first count of a
process also builds the evaluator's tables (20 to 80 ms), which :func:`prepare` does at start-up.
A count that fails costs the hand its all-in EV (stored as unknown), never its result.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

from bot.storage.hands import AllInRecord, PlayerResult
from engine.allin_ev import AllInEV, all_in_ev
from engine.cards import parse_cards
from engine.hand import ActionKind, ActionTaken, Hand, HandConfig, StreetDealt, deck_from_cards

log = logging.getLogger(__name__)

_VOLUNTARY = frozenset({ActionKind.CALL, ActionKind.BET, ActionKind.RAISE})
_AGGRESSIVE = frozenset({ActionKind.BET, ActionKind.RAISE})


def player_results(hand: Hand, ev: AllInEV | None = None) -> list[PlayerResult]:
    """One ``PlayerResult`` per player of a finished hand, with the statistics read from its
    events: VPIP, PFR and 3-bets from the pre-flop decisions, the flop and the showdown from
    who was still in; with ``ev`` (the hand's all-in EV) each player still in the hand at the
    all-in moment gets his all-in EV net in whole chips.

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
    ev_nets: list[int | None] = [None] * n
    if ev is not None:
        for i, chips in enumerate(ev.ev_net_chips()):
            if not hand.folded[i]:
                ev_nets[i] = chips
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
            all_in_ev_net=ev_nets[i],
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


@dataclass(frozen=True, slots=True)
class SettledHand:
    """Everything storage records with a finished hand's result (the arguments of
    ``record_hand_result`` and ``record_tournament_hand``)."""

    summary: dict[str, Any]
    players: list[PlayerResult]
    all_in: AllInRecord | None  # None: the all-in EV could not be counted (stored as unknown)


def count_all_in(hand: Hand) -> AllInEV | None:
    """The hand's all-in EV (None without the all-in moment): CPU work, for a worker thread."""
    return all_in_ev(hand)


async def settled_hand(hand: Hand) -> SettledHand:
    """What to store with a finished hand, its all-in EV counted off the event loop (the
    table's lock keeps the hand still meanwhile)."""
    try:
        ev = await asyncio.to_thread(count_all_in, hand)
    except Exception:
        log.exception("could not count a hand's all-in EV; it is stored as unknown")
        return SettledHand(result_summary(hand), player_results(hand), None)
    record = AllInRecord(None if ev is None else ev.to_json())
    return SettledHand(result_summary(hand), player_results(hand, ev), record)


def warm_up() -> None:
    """Count one all-in hand, so the first real one does not build the evaluator's tables."""
    holes = [parse_cards("AsAh"), parse_cards("KsKh")]
    deck = deck_from_cards(2, holes, parse_cards("2c7d9h 4s 5d"))
    hand = Hand(HandConfig.standard((100, 100), 1, 2), deck)
    hand.go_all_in(1)
    hand.call(0)
    all_in_ev(hand)


async def prepare() -> None:
    """Warm the all-in EV count up in a worker thread (the bot starts this at start-up)."""
    await asyncio.to_thread(warm_up)
