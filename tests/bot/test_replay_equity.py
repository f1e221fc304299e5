"""The replay's chances street by street (``bot.replay.street_equities``): for a hand that went
to showdown, each shown hand's chances on every street, on the image and in the words, counted
among the shown hands only.

That the figures give nothing away is the replay's non-interference test
(tests/bot/test_replay_secrets.py): every card nobody saw, a folded hand's included, swapped
for another leaves every frame and every word of the replay the same, chances and all. Here:
the figures are ``engine.equity.equity`` over the shown hands and the board of the street,
with no dead card but a second run's view of the first; an all-in's run-out shows the same
figures as ``engine.equity.run_out_equities``; a hand with fewer than two hands shown shows
none; Hi-Lo says both halves.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.replay import PlayedHand, build_replay, street_equities
from engine.cards import parse_cards
from engine.equity import equity, run_out_equities
from engine.games import PLO8
from engine.hand import Hand, HandConfig, RunItTwice, deck_from_cards
from tests.bot.test_replay import NAMES, _random_hand

BOARD = parse_cards("Ks8h3d9cQd")


def _played(hand: Hand) -> PlayedHand:
    n = hand.n
    return PlayedHand(hand, 3, seats=tuple(range(1, n + 1)), names=NAMES[:n],
                      seat_count=max(n, 6), button_seat=n, small_blind=hand.config.big_blind // 2)


def _turn_all_in() -> Hand:
    """Three see the flop; Dana folds to a bet there; Alice goes all in on the turn and
    Bartholomew calls: both hands are turned up for the river, Dana's never is."""
    holes = [parse_cards(h) for h in ("AsQs", "JhJc", "7c7d")]
    hand = Hand(HandConfig.standard((1_000, 1_000, 1_000), 5, 10),
                deck_from_cards(3, holes, BOARD))
    for _ in range(3):  # everybody in before the flop
        legal = hand.legal()
        assert legal is not None
        hand.call(legal.player) if legal.to_call else hand.check(legal.player)
    order = []
    while len(hand.board) == 3:
        legal = hand.legal()
        assert legal is not None
        order.append(legal.player)
        if legal.player == 2 and legal.to_call:
            hand.fold(2)
        elif legal.to_call:
            hand.call(legal.player)
        elif not any(hand.bets):
            hand.bet(legal.player, 20)
        else:
            hand.check(legal.player)
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        hand.call(legal.player) if legal.to_call else hand.go_all_in(legal.player)
    assert hand.folded[2] and hand.result is not None and set(hand.result.shown) == {0, 1}
    return hand


def test_a_showdown_shows_the_shown_hands_chances_on_every_street() -> None:
    hand = _turn_all_in()
    stages = street_equities(hand)
    holes = [hand.hole_cards(0), hand.hole_cards(1)]
    assert [(s.run, len(s.board)) for s in stages] == [(1, 0), (1, 3), (1, 4), (1, 5)]
    for stage in stages:
        assert stage.players == (0, 1)
        assert stage.equity == equity(holes, stage.board)  # no dead card: Dana's are unknown
    assert stages[-1].equity.hands[0].win in (0.0, 1.0)  # the river decides

    replay = build_replay(_played(hand))
    # Every frame before the result carries its street's chances, for the two shown hands.
    for frame in replay.view.frames[:-1]:
        marked = {s.name: s.equity for s in frame.view.seats if s and s.equity}
        assert set(marked) == {"Alice", "Bartholomew the Magnificent"}
        stage = next(s for s in stages if len(s.board) == len(frame.view.board))
        assert [marked["Alice"].win, marked["Bartholomew the Magnificent"].win] == [
            h.win for h in stage.equity.hands]
    assert not any(s and s.equity for s in replay.view.frames[-1].view.seats)
    # And every street of the words says them, never Dana's.
    streets = [line for line in replay.lines if " · odds " in line]
    assert [line.split(" ")[0] for line in streets] == ["Pre-flop", "Flop", "Turn", "River"]
    for line in streets:
        odds = line.split(" · odds ", 1)[1].split(": ", 1)[0].rstrip(".")
        assert odds.startswith("Alice ") and ", Bartholomew the Magnificent " in odds
        assert "Chen" not in odds
    river = dict(part.rsplit(" ", 1) for part in streets[-1].split(" · odds ")[1].rstrip(".")
                 .split(", "))
    assert sorted(river.values()) == ["0%", "100%"]


def test_no_chances_without_two_hands_shown_at_a_showdown() -> None:
    folded = Hand(HandConfig.standard((100, 100), 1, 2), tuple(range(52)))
    folded.fold(folded.legal().player)  # type: ignore[union-attr]
    lone = Hand(HandConfig.standard((100, 100, 100), 1, 2),
                deck_from_cards(3, [parse_cards(h) for h in ("AsAh", "7c2d", "8c3d")],
                                parse_cards("KsJh4d9cQd")))
    while not lone.is_over:  # checked down: the losers may muck, one hand is shown
        legal = lone.legal()
        assert legal is not None
        lone.call(legal.player) if legal.to_call else lone.check(legal.player)
    assert lone.result is not None and lone.result.showdown and len(lone.result.shown) == 1
    for hand in (folded, lone):
        assert street_equities(hand) == ()
        replay = build_replay(_played(hand))
        assert " · odds " not in replay.text
        assert not any(s and s.equity for f in replay.view.frames for s in f.view.seats)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6),
       mode=st.sampled_from(list(RunItTwice)))
def test_a_run_out_shows_what_the_table_showed_live(seed: int, players: int,
                                                   mode: RunItTwice) -> None:
    """Where the board was run out, the replay's figures for the streets of the run-out are
    the ones the table showed as the cards came (``run_out_equities``); a showdown always has
    the pre-flop and the river's too."""
    hand = _random_hand(random.Random(seed), players, mode)
    stages = {(s.run, len(s.board)): s for s in street_equities(hand)}
    for live in run_out_equities(hand):
        assert stages[(live.run, len(live.board))] == live
    result = hand.result
    assert result is not None
    shown = [i for i in result.shown if not hand.folded[i]]
    if result.showdown and len(shown) >= 2:
        assert (1, 0) in stages and (1, 5) in stages
        assert all(stage.players == tuple(sorted(shown)) for stage in stages.values())
    else:
        assert stages == {}


def test_hi_lo_says_both_halves() -> None:
    holes = [parse_cards(h) for h in ("As2sKhQh", "KsKdJcTc")]
    hand = Hand(HandConfig.standard((1_000, 1_000), 5, 10, game=PLO8),
                deck_from_cards(2, holes, parse_cards("3c8d9h4s7d"), hole_count=4))
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        hand.call(legal.player) if legal.to_call else hand.go_all_in(legal.player)
    replay = build_replay(_played(hand))
    flop = next(line for line in replay.lines if line.startswith("Flop"))
    assert " high, " in flop and " low" in flop
