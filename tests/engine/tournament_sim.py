"""Whole tournaments over several tables played by random players (the tests and
``bench/tournament.py`` share this driver).

Each step moves one table, picked at random, on by one thing (deal, one decision, settle), so
hands at different tables overlap as they do live, and a table that must give up a player is
often still in a hand when another table asks for him.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.cards import FULL_DECK
from engine.errors import EngineError
from engine.hand import Action, ActionKind, Hand
from engine.seating import PlayerId
from engine.table import TableEvent
from engine.tournament import Tournament

Settled = Callable[[Tournament, int, list[TableEvent]], None]
Between = Callable[[Tournament, float, random.Random], list[TableEvent]]


def casual_action(hand: Hand, rng: random.Random) -> None:
    """A home-game regular picked at random: folds to a bet more often than not, calls the
    rest, now and then bets or raises a little, very rarely shoves. (Calling most raises, as the
    cash simulation's players do, busts a field in a few orbits.)"""
    legal = hand.legal()
    assert legal is not None
    i, unit = legal.player, hand.config.chip_unit
    roll = rng.random()
    if roll < 0.01:
        hand.timeout(i)
    elif legal.can_raise and roll > 0.996:
        hand.go_all_in(i)
    elif legal.can_raise and roll > 0.92:
        low = -(-legal.min_raise_to // unit) * unit
        top = min(legal.max_raise_to, low + 2 * hand.config.big_blind)
        amount = min(low + unit * rng.randint(0, max(0, (top - low) // unit)), legal.max_raise_to)
        hand.apply(Action(ActionKind.BET if legal.is_bet else ActionKind.RAISE, i, amount))
    elif legal.to_call and roll < 0.6:
        hand.fold(i)
    elif legal.to_call:
        hand.call(i)
    else:
        hand.check(i)


def play_tables(
    t: Tournament,
    rng: random.Random,
    now: float = 0.0,
    *,
    decide: Callable[[Hand, random.Random], None] = casual_action,
    settled: Settled | None = None,
    between: Between | None = None,
    step: float = 2.0,
    max_hands: int = 200_000,
    stop_after: int | None = None,
) -> tuple[list[TableEvent], int, float]:
    """Play the started tournament ``t`` to its end, or until ``stop_after`` hands were
    settled: (every event, hands dealt, the time then).

    ``settled(t, table, events)`` is called after every hand is settled, with its events;
    ``between(t, now, rng)`` at every step, for what players do away from the hands (rebuys,
    add-ons, re-entries: :func:`format_moves`), its events kept with the others.
    """
    events: list[TableEvent] = []
    hands = 0
    done = 0
    stuck = 0
    while not t.is_over and (stop_after is None or done < stop_after):
        # The tables play at once: a decision at one of them takes ``step`` at most, but the
        # clock only moves by its share.
        now += rng.uniform(0, step) / max(1, len(t.tables))
        events += t.tick(now)
        if between is not None and not t.is_over:
            events += between(t, now, rng)
        if t.is_over:
            break
        number = rng.choice(list(t.tables))
        hand = t.hand_at(number)
        if hand is None:
            if t.can_start(number):
                events += t.start_hand(rng.sample(FULL_DECK, 52), now, table=number)
                hands += 1
                assert hands <= max_hands, "the tournament does not end"
                stuck = 0
            elif not any(t.hand_at(n) is not None or t.can_start(n) for n in t.tables):
                # Nothing can be dealt anywhere: only a break (or a pause), or busted players
                # yet to answer a rebuy offer, may explain it.
                stuck += 1
                to_next = t.seconds_to_next_level(now)
                assert t.on_break or t.paused or t.pending(), (
                    "no table can deal and nothing is pending")
                now += to_next or step
                assert stuck < 1000
            continue
        if not hand.is_over:
            t.act_for_absent(number)
        if hand.is_over:
            settled_events = t.finish_hand(now, table=number)
            events += settled_events
            done += 1
            if settled is not None:
                settled(t, number, settled_events)
        else:
            decide(hand, rng)
    return events, hands, now


def finish_hands(
    t: Tournament,
    rng: random.Random,
    now: float,
    decide: Callable[[Hand, random.Random], None] = casual_action,
) -> list[TableEvent]:
    """Play out every hand in progress without dealing another (the tables fall still)."""
    events: list[TableEvent] = []
    for number in list(t.tables):
        if number not in t.tables or t.is_over:
            continue  # broken, or the tournament ended, when an earlier hand was settled
        hand = t.hand_at(number)
        if hand is None:
            continue
        while not hand.is_over:
            decide(hand, rng)
        events += t.finish_hand(now, table=number)
    return events


def format_moves(
    t: Tournament,
    now: float,
    rng: random.Random,
    *,
    answer: float = 0.3,
    rebuy: float = 0.6,
    top_up: float = 0.01,
    add_on: float = 0.2,
    close_add_on: float = 0.02,
    reenter: float = 0.05,
) -> list[TableEvent]:
    """What players do between their hands, at random: a busted player answers his rebuy
    offer (rebuys, declines, or lets his time run out), a short stack rebuys, players take the
    add-on and the add-on closes, knocked-out players enter again. Every call the engine
    refuses must be one it may refuse (the rules are the engine's to apply, not the driver's).
    """
    events: list[TableEvent] = []
    for pid in t.pending():
        if rng.random() < answer:
            roll = rng.random()
            if roll < rebuy:
                events += _try(t.rebuy, pid, now)
            elif roll < rebuy + (1 - rebuy) / 2:
                events += t.decline_rebuy(pid, now)
            else:
                events += t.expire_rebuy(pid, now)
        if t.is_over:
            return events
    if t.rebuys_open and rng.random() < top_up:
        events += _try(t.rebuy, rng.choice(t.players_left()), now)
    if t.add_on_open:
        for pid in t.players_left():
            if not t.took_add_on(pid) and rng.random() < add_on:
                events += _try(t.add_on, pid, now)
        if rng.random() < close_add_on:
            events += t.close_add_on(now)
    if t.config.reentries and t.registration_open and rng.random() < reenter:
        out = t.knocked_out()
        if out:
            events += _try(t.register, rng.choice(out), now)
    return events


REFUSALS = {
    "rebuy_closed", "rebuy_stack_too_large", "rebuy_limit", "hand_in_progress",
    "add_on_needs_chips", "registration_closed", "reentry_limit", "tournament_full",
}


def _try(move: Callable[[PlayerId, float], list[TableEvent]], pid: PlayerId, now: float
         ) -> list[TableEvent]:
    try:
        return move(pid, now)
    except EngineError as exc:
        assert exc.code in REFUSALS, exc
        return []
