"""The statistics a finished hand records (``bot.runtime.results.player_results``): worked
examples for each flag, and a recount over random hands that watches the table instead of
reading the engine's events."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings

from bot.runtime.results import player_results
from engine.cards import FULL_DECK
from engine.hand import Action, ActionKind, Hand, HandConfig, Street
from tests.engine.helpers import rigged
from tests.engine.test_hand_properties import random_action, tables

FOLD, CHECK, CALL, RAISE = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE


def play(hand: Hand, *moves: tuple[ActionKind, int] | ActionKind) -> Hand:
    """Apply decisions in turn order (a bare kind acts for whoever is to act)."""
    for move in moves:
        kind, amount = move if isinstance(move, tuple) else (move, None)
        assert hand.to_act is not None
        hand.apply(Action(kind, hand.to_act, amount))
    return hand


def flags(hand: Hand, name: str) -> list[bool | None]:
    return [getattr(r, name) for r in player_results(hand)]


def test_the_open_is_the_first_raise_and_the_re_raise_is_the_three_bet() -> None:
    # Four players: 0 SB, 1 BB, 2 UTG, 3 button. UTG opens, the button 3-bets; the blinds then
    # face two raises (no chance), and so does UTG when he 4-bets; the button folds.
    hand = Hand(HandConfig.standard((1000,) * 4, 5, 10), FULL_DECK)
    play(hand, (RAISE, 30), (RAISE, 90), FOLD, FOLD, (RAISE, 270), FOLD)
    assert flags(hand, "three_bet_chance") == [False, False, False, True]
    assert flags(hand, "three_bet") == [False, False, False, True]
    assert flags(hand, "pfr") == [False, False, True, True]
    assert flags(hand, "saw_flop") == [False] * 4
    assert flags(hand, "went_to_showdown") == [False] * 4


def test_a_limper_facing_one_raise_has_his_chance_when_the_action_comes_back() -> None:
    hand = Hand(HandConfig.standard((1000,) * 4, 5, 10), FULL_DECK)
    # UTG limps, the button raises; the blinds face that one raise and fold; UTG may now
    # re-raise: he calls.
    play(hand, CALL, (RAISE, 40), FOLD, FOLD, CALL)
    while not hand.is_over:
        play(hand, CHECK)
    assert flags(hand, "three_bet_chance") == [True, True, True, False]
    assert flags(hand, "three_bet") == [False] * 4
    assert flags(hand, "saw_flop") == [False, False, True, True]


def test_without_a_raise_nobody_has_a_three_bet_chance() -> None:
    hand = Hand(HandConfig.standard((1000,) * 3, 5, 10), FULL_DECK)
    play(hand, CALL, CALL, CHECK)  # button limps, SB completes, BB checks: a flop for three
    assert hand.street is Street.FLOP
    while not hand.is_over:
        play(hand, CHECK)
    assert flags(hand, "three_bet_chance") == [False] * 3
    assert flags(hand, "saw_flop") == [True] * 3
    assert flags(hand, "went_to_showdown") == [True] * 3
    assert flags(hand, "vpip") == [True, False, True]


def test_showdown_flags_count_a_mucked_hand_and_only_the_winner_wins() -> None:
    # Heads-up: player 0 is the big blind, player 1 the button. The button's aces beat the 72.
    hand = rigged(HandConfig.standard((1000, 1000), 5, 10), ["7c2d", "AsAh"], "KdQs9h4c3s")
    play(hand, CALL, CHECK)
    while not hand.is_over:
        play(hand, CHECK)
    assert hand.result is not None and hand.result.showdown
    assert flags(hand, "went_to_showdown") == [True, True]
    assert flags(hand, "won_at_showdown") == [False, True]
    # The loser, first to show on a river checked through, had to show; "showdown" keeps
    # meaning "showed his cards", which the older statistic counted.
    assert flags(hand, "showdown")[1] is True


def test_a_hand_won_without_a_showdown_sends_nobody_there() -> None:
    hand = Hand(HandConfig.standard((1000,) * 3, 5, 10), FULL_DECK)
    play(hand, CALL, CALL, CHECK)
    play(hand, (ActionKind.BET, 20), FOLD, FOLD)
    assert flags(hand, "saw_flop") == [True] * 3
    assert flags(hand, "went_to_showdown") == [False] * 3
    assert flags(hand, "won_at_showdown") == [False] * 3


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_flags_match_a_recount_made_by_watching_the_table(table) -> None:
    """Played at random, each hand is recounted from the outside: before every pre-flop
    decision the raises made so far are counted from the high bet going up, the players still
    in are noted when the flop appears, and the showdown is read off the result."""
    cfg, deck, seed = table
    rng = random.Random(seed)
    hand = Hand(cfg, deck)
    n = cfg.players
    raises = 0
    chance, three_bet = [False] * n, [False] * n
    saw_flop: list[bool] | None = None
    while True:
        if saw_flop is None and len(hand.board) >= 3:
            # The first moment the flop shows (before any decision when the blinds put
            # everyone all-in): who had not folded saw it.
            saw_flop = [not f for f in hand.folded]
        if hand.is_over:
            break
        action = random_action(hand, rng)
        preflop = hand.street is Street.PREFLOP
        high = hand.high_bet
        player = action.player
        assert player is not None
        hand.apply(action)
        if preflop:
            # A raise never closes the round, so the high bet it set is still there.
            raised = hand.street is Street.PREFLOP and hand.high_bet > high
            if raises == 1:
                chance[player] = True
                three_bet[player] |= raised
            raises += raised
    saw_flop = saw_flop or [False] * n
    assert hand.result is not None
    at_showdown = [hand.result.showdown and not f for f in hand.folded]
    won = hand.result.won
    results = player_results(hand)
    assert [r.three_bet_chance for r in results] == chance
    assert [r.three_bet for r in results] == three_bet
    assert [r.saw_flop for r in results] == saw_flop
    assert [r.went_to_showdown for r in results] == at_showdown
    assert [r.won_at_showdown for r in results] == [s and w > 0 for s, w in zip(
        at_showdown, won, strict=True)]
    assert sum(three_bet) <= 1  # after a 3-bet, everyone faces two raises
