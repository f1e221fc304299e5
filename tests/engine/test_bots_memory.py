"""What the strong level remembers of the others: counted from finished hands as the table saw
them, one session long, and moving its play only within bounds."""

from __future__ import annotations

import random

import pytest

from engine.bots import strong
from engine.bots.levels import EASY_FOLDS
from engine.bots.memory import (
    FEWEST_BLUFFS,
    FEWEST_OWN_BLUFFS,
    MOST_BLUFFS,
    TIGHT_OPENS,
    WIDEST_SHOVES,
    Memory,
)
from engine.bots.view import CALL, FOLD, BotView, HandSeen, HandViews, Move, Seen, view_of
from engine.cards import parse_cards
from engine.games import NLHE, PLO, Game
from engine.hand import Action, ActionKind, Hand, HandConfig, Street, deck_from_cards
from tests.engine.bot_charts import WidthChart

SHOVER, HERO = 7, 1


def shove_hand(number: int, shoves: bool) -> HandSeen:
    """Heads-up, 100 big blinds: the shover (small blind, index 1) moves all in or folds."""
    hand = Hand(HandConfig.standard((200, 200), 1, 2), deck_from_cards(2, [None, None], ()))
    hand.apply(Action(ActionKind.ALL_IN if shoves else ActionKind.FOLD, 1))
    if shoves:
        hand.apply(Action(ActionKind.FOLD, 0))
    return HandViews(hand, (HERO, SHOVER), number).ended()


def seen_with(actions: list[Seen], number: int) -> HandSeen:
    return HandSeen(number, (HERO, SHOVER), 2, (200, 200), tuple(actions), (), ())


def shove_view(hole: str) -> BotView:
    """The hero's turn in the big blind, facing the shover's 100 big blind all-in."""
    deck = deck_from_cards(2, [parse_cards(hole), None], ())
    hand = Hand(HandConfig.standard((200, 200), 1, 2), deck)
    hand.apply(Action(ActionKind.ALL_IN, 1))
    return view_of(hand, 0, (HERO, SHOVER), 1000)


def test_a_wide_shover_is_read_as_wide_and_no_wider_than_the_bound() -> None:
    memory = Memory()
    memory.see(shove_view("2c7d"))  # a view of its own turn says who it is
    for number in range(7):
        memory.learn(shove_hand(number, True))
    assert memory.shove_width(SHOVER) is None  # too few chances yet
    for number in range(7, 40):
        memory.learn(shove_hand(number, number % 4 == 0))
    width = memory.shove_width(SHOVER)
    assert width is not None and 0.25 < width < 0.45
    for number in range(40, 400):
        memory.learn(shove_hand(number, True))
    assert memory.shove_width(SHOVER) == WIDEST_SHOVES  # never wider than the bound
    # Its own seat is never remembered, and a new session forgets the others.
    assert memory.habits(HERO) is None
    memory.forget()
    assert memory.shove_width(SHOVER) is None


def test_a_player_who_changes_style_is_read_anew() -> None:
    memory = Memory()
    for number in range(200):
        memory.learn(shove_hand(number, True))
    for number in range(200, 600):
        memory.learn(shove_hand(number, False))
    width = memory.shove_width(SHOVER)
    assert width is not None and width < 0.05


def test_bluffs_believed_and_made_move_only_within_bounds() -> None:
    memory = Memory()
    assert memory.bluffs_believed(SHOVER) == 1.0 and memory.bluff_share([SHOVER]) == 1.0
    flop = Street.FLOP
    for number in range(300):
        # The hero bets, the other calls: he never folds and never bets himself.
        memory.learn(seen_with([Seen(0, ActionKind.CALL, Street.PREFLOP, 1, False),
                                Seen(1, ActionKind.CHECK, Street.PREFLOP, 0, False),
                                Seen(1, ActionKind.CHECK, flop, 0, False),
                                Seen(0, ActionKind.BET, flop, 2, False),
                                Seen(1, ActionKind.CALL, flop, 2, False)], number))
    assert memory.bluff_share([SHOVER]) == FEWEST_OWN_BLUFFS  # a station: bluff it less
    assert memory.bluffs_believed(SHOVER) == FEWEST_BLUFFS  # he never bets: believe his bets
    for number in range(300, 900):
        memory.learn(seen_with([Seen(1, ActionKind.BET, flop, 2, False),
                                Seen(0, ActionKind.RAISE, flop, 8, False),
                                Seen(1, ActionKind.FOLD, flop, 0, False)], number))
    # Now he bets at every chance and folds to raises: believe more bluffs, within the bound.
    assert 1.0 < memory.bluffs_believed(SHOVER) <= MOST_BLUFFS
    assert memory.bluff_share([SHOVER]) == 1.0


def test_the_strong_level_calls_wider_the_wider_he_is_seen_to_shove() -> None:
    hands = ("AsAd", "TcTd", "8c8d", "5c5d", "4c4d", "AsKd", "AsTd", "As9d", "As7d", "Ad5c",
             "KsQd", "KsJd", "Qs9s", "Jc8d")

    def calls(share: int) -> set[str]:
        """The hands called after 300 hands seen in which he shoved one in ``share``."""
        player = strong(WidthChart())
        for number in range(300):
            player.observe(shove_hand(number, number % share == 0))
        return {h for h in hands if player.decide(shove_view(h), random.Random(1)) != FOLD}

    tight, loose = calls(6), calls(3)
    assert tight < loose  # every hand called against the tight one is called against the loose
    assert {"AsAd", "TcTd"} <= tight and "Ad5c" not in tight
    assert {"5c5d", "As9d"} <= loose
    assert "Jc8d" not in loose  # a wide range is not any two cards


def folder_hand(number: int) -> HandSeen:
    """He sees the flop for a call, is bet into, and folds."""
    flop = Street.FLOP
    return seen_with([Seen(1, ActionKind.CALL, Street.PREFLOP, 2, False),
                      Seen(0, ActionKind.CHECK, Street.PREFLOP, 0, False),
                      Seen(0, ActionKind.BET, flop, 2, False),
                      Seen(1, ActionKind.FOLD, flop, 0, False)], number)


def test_how_often_he_folds_to_bets_is_read_once_seen_often_enough() -> None:
    memory = Memory()
    for number in range(7):
        memory.learn(folder_hand(number))
    assert memory.folds_to_bets([SHOVER]) is None  # seven bets faced: too few yet
    for number in range(7, 10):  # counts fade a hand: a few more than eight
        memory.learn(folder_hand(number))
    folds = memory.folds_to_bets([SHOVER])
    assert folds is not None and 0.6 < folds < 1.0  # the prior still weighs
    for number in range(10, 200):
        memory.learn(folder_hand(number))
    folds = memory.folds_to_bets([SHOVER])
    assert folds is not None and folds >= EASY_FOLDS
    assert memory.folds_to_bets([SHOVER, 99]) is None  # nothing known of the other one
    assert memory.folds_to_bets([]) is None


def flop_view(game: Game) -> BotView:
    """Heads-up, the hero (big blind) first to act on a flop that missed him, checked to."""
    holes = {"nlhe": "7c2d", "plo": "7c2d3h8s"}[game.code]
    deck = deck_from_cards(2, [parse_cards(holes), None], parse_cards("AsKhQd"),
                           hole_count=game.hole_count)
    hand = Hand(HandConfig.standard((200, 200), 1, 2, game=game), deck)
    hand.apply(Action(ActionKind.CALL, 1))
    hand.apply(Action(ActionKind.CHECK, 0))
    assert hand.street is Street.FLOP and hand.to_act == 0
    return view_of(hand, 0, (HERO, SHOVER), 500)


def raised_view() -> BotView:
    """Pot-Limit Omaha heads-up: the hero (big blind) faces a pot raise holding the worst
    hand there is."""
    deck = deck_from_cards(2, [parse_cards("7c2d2h2s"), None], (), hole_count=4)
    hand = Hand(HandConfig.standard((200, 200), 1, 2, game=PLO), deck)
    hand.apply(Action(ActionKind.RAISE, 1, 6))
    return view_of(hand, 0, (HERO, SHOVER), 500)


@pytest.mark.parametrize("game", [NLHE, PLO])
def test_the_strong_level_bets_into_a_player_who_folds_to_bets(game: Game) -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(folder_hand(number))
    view = flop_view(game)
    told = [knowing.decide(view, random.Random(seed)).move for seed in range(20)]
    usual = [fresh.decide(view, random.Random(seed)).move for seed in range(20)]
    assert set(told) <= {Move.RAISE, Move.ALL_IN}  # a bet every time, whatever it holds
    assert Move.CHECK in usual or Move.FOLD in usual  # without the reading it mostly checks


def test_the_strong_level_calls_a_small_raise_of_a_player_who_folds_later() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(folder_hand(number))
    view = raised_view()
    assert fresh.decide(view, random.Random(1)) == FOLD
    assert knowing.decide(view, random.Random(1)).move is Move.CALL


def open_view(hole: str) -> BotView:
    """Heads-up, 100 big blinds: the hero on the button (small blind) first to act, the other
    player in the big blind."""
    deck = deck_from_cards(2, [None, parse_cards(hole)], ())
    hand = Hand(HandConfig.standard((200, 200), 1, 2), deck)
    return view_of(hand, 1, (SHOVER, HERO), 1000)


def test_a_player_who_only_moves_all_in_is_read_so_and_one_who_also_calls_is_not() -> None:
    memory = Memory()
    for number in range(30):
        memory.learn(shove_hand(number, number % 4 == 0))
    assert memory.only_all_in(SHOVER) is None  # eight deep plays not seen yet (counts fade)
    for number in range(30, 60):
        memory.learn(shove_hand(number, number % 4 == 0))
    width = memory.only_all_in(SHOVER)
    assert width is not None and 0.15 < width < 0.35  # a quarter of his hands, the prior weighing
    for number in range(60, 100):  # he now calls to see flops as well
        memory.learn(folder_hand(number))
    assert memory.only_all_in(SHOVER) is None


def test_the_strong_level_limps_any_hand_against_a_player_who_only_shoves() -> None:
    fresh, knowing, told_of_calls = strong(WidthChart()), strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(shove_hand(number, number % 4 == 0))
        told_of_calls.observe(shove_hand(number, number % 4 == 0))
    for number in range(100, 120):
        told_of_calls.observe(folder_hand(number))
    for hole in ("7c2d", "8c3d", "AsAd"):
        view = open_view(hole)
        # A raise wins nothing more from him than a call, and costs more when he shoves.
        assert knowing.decide(view, random.Random(1)) == CALL
    assert fresh.decide(open_view("7c2d"), random.Random(1)) == FOLD
    assert fresh.decide(open_view("AsAd"), random.Random(1)).move is Move.RAISE
    # One who also calls is played the usual way.
    assert told_of_calls.decide(open_view("AsAd"), random.Random(1)).move is Move.RAISE


def bettor_hand(number: int) -> HandSeen:
    """He raises first in, is called, bets the flop when checked to, and the hero folds."""
    flop = Street.FLOP
    return seen_with(
        [
            Seen(1, ActionKind.RAISE, Street.PREFLOP, 6, False),
            Seen(0, ActionKind.CALL, Street.PREFLOP, 4, False),
            Seen(0, ActionKind.CHECK, flop, 0, False),
            Seen(1, ActionKind.BET, flop, 12, False),
            Seen(0, ActionKind.FOLD, flop, 0, False),
        ],
        number,
    )


def checker_hand(number: int) -> HandSeen:
    """He limps, and checks the flop behind."""
    flop = Street.FLOP
    return seen_with(
        [
            Seen(1, ActionKind.CALL, Street.PREFLOP, 1, False),
            Seen(0, ActionKind.CHECK, Street.PREFLOP, 0, False),
            Seen(0, ActionKind.CHECK, flop, 0, False),
            Seen(1, ActionKind.CHECK, flop, 0, False),
        ],
        number,
    )


def test_how_wide_he_opens_and_whether_he_always_bets_are_read_from_enough_hands() -> None:
    memory = Memory()
    for number in range(7):
        memory.learn(bettor_hand(number))
    assert memory.open_width(SHOVER) is None and not memory.always_bets(SHOVER)
    for number in range(7, 60):
        memory.learn(bettor_hand(number))
    width = memory.open_width(SHOVER)
    assert width is not None and width > 0.8  # he raised every hand he could open
    assert memory.always_bets(SHOVER)
    for number in range(60, 120):  # now he checks behind half the time
        memory.learn(checker_hand(number) if number % 2 else bettor_hand(number))
    assert not memory.always_bets(SHOVER)
    width = memory.open_width(SHOVER)
    assert width is not None and width < 0.8


def bet_into_view(hole: str, board: str) -> BotView:
    """Heads-up: he (the button) raised to 6, the hero called in the big blind, checked the
    flop, and he bet the pot, 12."""
    deck = deck_from_cards(2, [parse_cards(hole), None], parse_cards(board))
    hand = Hand(HandConfig.standard((200, 200), 1, 2), deck)
    for action in (Action(ActionKind.RAISE, 1, 6), Action(ActionKind.CALL, 0),
                   Action(ActionKind.CHECK, 0), Action(ActionKind.BET, 1, 12)):
        hand.apply(action)
    return view_of(hand, 0, (HERO, SHOVER), 1000)


def checked_view(hole: str, board: str) -> BotView:
    """As :func:`bet_into_view`, the hero first to act on the flop."""
    deck = deck_from_cards(2, [parse_cards(hole), None], parse_cards(board))
    hand = Hand(HandConfig.standard((200, 200), 1, 2), deck)
    hand.apply(Action(ActionKind.RAISE, 1, 6))
    hand.apply(Action(ActionKind.CALL, 0))
    return view_of(hand, 0, (HERO, SHOVER), 1000)


def test_the_strong_level_reads_a_player_who_bets_whenever_checked_to() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(bettor_hand(number))
    # His bet says nothing: ace high is worth a call against his whole opening range.
    ace_high = bet_into_view("Ac2d", "Kh9s4c")
    assert fresh.decide(ace_high, random.Random(1)) == FOLD
    assert knowing.decide(ace_high, random.Random(1)) == CALL
    assert knowing.decide(bet_into_view("3c2d", "Kh9s4c"), random.Random(1)) == FOLD
    # A hand worth a bet is checked to him: he will bet it for the hero.
    top_pair = checked_view("KcJd", "Kh9s4c")
    told = {knowing.decide(top_pair, random.Random(seed)).move for seed in range(10)}
    usual = {fresh.decide(top_pair, random.Random(seed)).move for seed in range(10)}
    assert told == {Move.CHECK}
    assert Move.RAISE in usual or Move.ALL_IN in usual


def raised_hand(number: int, gives_up: bool) -> HandSeen:
    """He bets the flop when checked to, the hero raises, and he folds (``gives_up``) or
    raises again."""
    flop = Street.FLOP
    answer = Seen(1, ActionKind.FOLD, flop, 0, False)
    if not gives_up:
        answer = Seen(1, ActionKind.RAISE, flop, 120, False)
    return seen_with(
        [
            Seen(1, ActionKind.RAISE, Street.PREFLOP, 6, False),
            Seen(0, ActionKind.CALL, Street.PREFLOP, 4, False),
            Seen(0, ActionKind.CHECK, flop, 0, False),
            Seen(1, ActionKind.BET, flop, 12, False),
            Seen(0, ActionKind.RAISE, flop, 40, False),
            answer,
        ],
        number,
    )


def test_the_strong_level_raises_the_bet_of_a_player_who_gives_his_bets_up() -> None:
    fresh, knowing, warned = strong(WidthChart()), strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(raised_hand(number, True))
        warned.observe(raised_hand(number, False))
    assert knowing.memory.folds_when_raised(SHOVER) is not None
    air = bet_into_view("7c2d", "Kh9s4c")
    assert fresh.decide(air, random.Random(1)) == FOLD
    assert knowing.decide(air, random.Random(1)).move in {Move.RAISE, Move.ALL_IN}
    # Folding to other players' bets is not giving up his own: one who goes on is not raised.
    assert warned.decide(air, random.Random(1)) == FOLD
    folder = strong(WidthChart())
    for number in range(100):
        folder.observe(folder_hand(number))
    assert folder.decide(air, random.Random(1)) == FOLD


def re_raised_hand(number: int, opened: int = 6, re_raised: int = 18) -> HandSeen:
    """Heads-up: the hero opens on the button and he re-raises (a pot in Pot-Limit Omaha by
    default)."""
    actions = (
        Seen(1, ActionKind.RAISE, Street.PREFLOP, opened, False),
        Seen(0, ActionKind.RAISE, Street.PREFLOP, re_raised, False),
        Seen(1, ActionKind.FOLD, Street.PREFLOP, 0, False),
    )
    return HandSeen(number, (SHOVER, HERO), 2, (200, 200), actions, (), ())


def re_raised_view(hole: str, game: Game = PLO, opened: int = 6, re_raised: int = 18) -> BotView:
    """The hero's turn on the button, facing the re-raise of :func:`re_raised_hand`."""
    deck = deck_from_cards(2, [None, parse_cards(hole)], (), hole_count=game.hole_count)
    hand = Hand(HandConfig.standard((200, 200), 1, 2, game=game), deck)
    hand.apply(Action(ActionKind.RAISE, 1, opened))
    hand.apply(Action(ActionKind.RAISE, 0, re_raised))
    return view_of(hand, 1, (SHOVER, HERO), 1000)


def test_the_strong_level_answers_a_player_who_re_raises_every_raise_as_an_open() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(60):
        knowing.observe(re_raised_hand(number))
    share = knowing.memory.re_raises(SHOVER)
    assert share is not None and share > 0.8
    medium = re_raised_view("KcQdJh9s")
    assert fresh.decide(medium, random.Random(1)) == FOLD  # a re-raise shows the top hands
    assert knowing.decide(medium, random.Random(1)).move in {Move.CALL, Move.RAISE}
    # Not any hand: the worst still folds.
    assert knowing.decide(re_raised_view("7c2d2h2s"), random.Random(1)) == FOLD


def three_bet_hand(number: int) -> HandSeen:
    """Hold'em heads-up: the hero opens to 5 on the button and he re-raises to 15."""
    return re_raised_hand(number, 5, 15)


def three_bet_view(hole: str) -> BotView:
    return re_raised_view(hole, NLHE, 5, 15)


def test_the_strong_level_answers_a_hold_em_re_raiser_of_every_open_as_an_opener() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(60):
        knowing.observe(three_bet_hand(number))
    weak = three_bet_view("Qc5d")
    assert fresh.decide(weak, random.Random(1)) == FOLD  # a re-raise shows the better hands
    assert knowing.decide(weak, random.Random(1)).move is Move.CALL
    strong_enough = three_bet_view("Ac5d")  # called by the usual reading, re-raised now
    assert fresh.decide(strong_enough, random.Random(1)).move is Move.CALL
    assert knowing.decide(strong_enough, random.Random(1)).move in {Move.RAISE, Move.ALL_IN}
    assert knowing.decide(three_bet_view("7c2d"), random.Random(1)) == FOLD


def button_view(hole: str) -> BotView:
    """Three-handed, 100 big blinds: the hero on the button first to act, the shover in the
    small blind and a player nothing is known of in the big blind."""
    deck = deck_from_cards(3, [None, None, parse_cards(hole)], ())
    hand = Hand(HandConfig.standard((200, 200, 200), 1, 2), deck)
    return view_of(hand, 2, (SHOVER, 99, HERO), 1000)


def test_the_strong_level_opens_only_what_calls_a_shover_behind_it() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(shove_hand(number, number % 2 == 0))  # half his hands
    for hole in ("Kc7d", "Tc9c", "Qc9d"):
        assert fresh.decide(button_view(hole), random.Random(1)).move is Move.RAISE
        # Shoved over half the time, folded: the open would pay for nothing.
        assert knowing.decide(button_view(hole), random.Random(1)) == FOLD
    for hole in ("AcQd", "JcJd", "5c5d"):
        assert knowing.decide(button_view(hole), random.Random(1)).move is Move.RAISE


def squeezed_view(hole: str) -> BotView:
    """Three-handed, 100 big blinds: a player nothing is known of opens on the button, the
    re-raiser moves all in from the small blind, and the hero is in the big blind."""
    deck = deck_from_cards(3, [None, parse_cards(hole), None], ())
    hand = Hand(HandConfig.standard((200, 200, 200), 1, 2), deck)
    hand.apply(Action(ActionKind.RAISE, 2, 5))
    hand.apply(Action(ActionKind.ALL_IN, 0))
    return view_of(hand, 1, (SHOVER, HERO, 99), 1000)


def test_for_the_stack_the_strong_level_reads_a_re_raiser_of_most_raises_wide() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(60):
        knowing.observe(three_bet_hand(number))
    calls = {h for h in ("AcJd", "KcQd", "TcTd", "7c7d", "Ac8d", "KcTd", "7c2d")
             if knowing.decide(squeezed_view(h), random.Random(1)) != FOLD}
    usual = {h for h in ("AcJd", "KcQd", "TcTd", "7c7d", "Ac8d", "KcTd", "7c2d")
             if fresh.decide(squeezed_view(h), random.Random(1)) != FOLD}
    assert usual < calls  # every hand called by the usual reading, and more
    assert "7c2d" not in calls


def rock_hand(number: int, opens: bool) -> HandSeen:
    """Heads-up: he is first in on the button and raises (``opens``) or folds."""
    actions = [Seen(1, ActionKind.RAISE if opens else ActionKind.FOLD, Street.PREFLOP, 6, False)]
    if opens:
        actions.append(Seen(0, ActionKind.FOLD, Street.PREFLOP, 0, False))
    return HandSeen(number, (HERO, SHOVER), 2, (200, 200), tuple(actions), (), ())


def opened_view(hole: str) -> BotView:
    """Heads-up: he opened to 6 on the button; the hero is in the big blind."""
    deck = deck_from_cards(2, [parse_cards(hole), None], ())
    hand = Hand(HandConfig.standard((200, 200), 1, 2), deck)
    hand.apply(Action(ActionKind.RAISE, 1, 6))
    return view_of(hand, 0, (HERO, SHOVER), 1000)


def test_a_tight_opener_is_read_as_narrow_as_he_opens() -> None:
    memory = Memory()
    for number in range(200):
        memory.learn(rock_hand(number, number % 30 == 0))
    width = memory.tight_opens(SHOVER)
    assert width is not None and width <= TIGHT_OPENS
    assert memory.open_width(SHOVER) is None  # not a wide one
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(200):
        knowing.observe(rock_hand(number, number % 30 == 0))
    folded = {h for h in ("AcJd", "TcTd", "KcQd", "9c9d", "AcQd")
              if knowing.decide(opened_view(h), random.Random(1)) == FOLD}
    usual = {h for h in ("AcJd", "TcTd", "KcQd", "9c9d", "AcQd")
             if fresh.decide(opened_view(h), random.Random(1)) == FOLD}
    assert usual < folded  # against the best hands only, more of the middling ones go
    assert knowing.decide(opened_view("AcAd"), random.Random(1)) != FOLD


def station_hand(number: int) -> HandSeen:
    """He calls before the flop, checks, and calls the hero's bet on every street."""
    actions = [Seen(1, ActionKind.CALL, Street.PREFLOP, 1, False),
               Seen(0, ActionKind.CHECK, Street.PREFLOP, 0, False)]
    for street in (Street.FLOP, Street.TURN, Street.RIVER):
        actions += [Seen(0, ActionKind.BET, street, 4, False),
                    Seen(1, ActionKind.CALL, street, 4, False)]
    return seen_with(actions, number)


def test_the_strong_level_bets_the_pot_for_value_into_a_player_who_never_folds() -> None:
    fresh, knowing = strong(WidthChart()), strong(WidthChart())
    for number in range(100):
        knowing.observe(station_hand(number))
    view = checked_view("KcJd", "Kh9s4c")  # top pair, first to act
    usual = fresh.decide(view, random.Random(1))
    told = knowing.decide(view, random.Random(1))
    assert told.move is Move.RAISE and told.to is not None
    assert usual.move is not Move.RAISE or (usual.to or 0) < told.to
    assert told.to == view.pot  # the pot: every one of his hands pays it
