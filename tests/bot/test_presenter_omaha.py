"""The Omaha games in words: the game in the title, the "Pot" button of pot limit, lows named
as players write them, and a high-low pot's halves in the result and the chances."""

from __future__ import annotations

import random

from bot.presenter import (
    Scene,
    action_buttons,
    describe_rank,
    equity_view,
    hole_cards_text,
    result_content,
    table_message,
)
from engine.cards import parse_cards
from engine.equity import run_out_equities
from engine.games import PLO, PLO5, PLO8, Game
from engine.hand import Hand, deck_from_cards
from engine.low import evaluate_low
from engine.table import Table, TableOptions

BOARD = "3c 5d 7h Kc Ks"
LOW = "As 2s 9d 9h"  # 7-5-3-2-A low, two pair kings and nines high
HIGH = "Kd Qh Jc Tc"  # three kings, no low
MIDDLE = "Qd Qc Jd Jh"  # two pair, kings and queens, no low


def dealt(game: Game, holes: list[str], stack: int = 1000, board: str = BOARD) -> Table:
    options = TableOptions(small_blind=5, big_blind=10, game=game, seats=6, min_buy_in=10)
    table = Table(options, random.Random(7))
    for seat in range(1, len(holes) + 1):
        table.join(seat, stack, seat=seat)
    deck = deck_from_cards(len(holes), [parse_cards(h) for h in holes], parse_cards(board),
                           hole_count=game.hole_count)
    table.start_hand(deck)
    return table


def play_passively(hand: Hand) -> None:
    while not hand.is_over:
        legal = hand.legal()
        if legal is None:
            break
        (hand.call if legal.to_call else hand.check)(legal.player)


def scene(table: Table, locale: str = "en-US") -> Scene:
    names = {int(p): f"P{i}" for i, p in enumerate(table.hand_players)}
    return Scene(table=table, names=names, hand_number=1, dealing=True, locale=locale)


def test_the_title_names_the_game_in_each_language() -> None:
    table = dealt(PLO8, [LOW, HIGH, MIDDLE])
    assert table_message(scene(table)).content.startswith("**Pot-Limit Omaha Hi-Lo** · Hand #1")
    assert table_message(scene(table, "zh-TW")).content.startswith("**底池限注奧馬哈高低牌**")
    assert table_message(scene(table, "zh-CN")).content.startswith("**底池限注奥马哈高低牌**")


def test_under_pot_limit_the_largest_raise_is_a_pot_button_not_all_in() -> None:
    table = dealt(PLO, [LOW, HIGH, MIDDLE])
    hand = table.hand
    assert hand is not None
    legal = hand.legal()
    assert legal is not None and legal.pot_limited
    labels = {b.label for b in action_buttons(scene(table), hand)}
    # Call 10, then the pot (5 + 10 + 10) on top: 35, the most the first player may raise to.
    assert "Pot 35" in labels
    assert not any(label.startswith("All-in") for label in labels)
    # A stack smaller than the pot goes all-in: the button says so.
    short = dealt(PLO, [LOW, HIGH, MIDDLE], stack=20)
    assert short.hand is not None
    labels = {b.label for b in action_buttons(scene(short), short.hand)}
    assert "All-in 20" in labels and "Pot 20" not in labels


def test_lows_are_written_by_their_ranks_top_first() -> None:
    low = evaluate_low(parse_cards(LOW), parse_cards(BOARD))
    assert low is not None
    assert describe_rank(low, "en-US") == "7-5-3-2-A low"
    assert describe_rank(low, "zh-TW") == "7-5-3-2-A 低牌"
    assert describe_rank(low, "en-US", short=True) == "7-5-3-2-A low"


def test_a_high_low_pot_is_split_in_the_result_with_each_half_named() -> None:
    table = dealt(PLO8, [LOW, HIGH, MIDDLE])
    hand = table.hand
    assert hand is not None
    play_passively(hand)
    text = result_content(scene(table))
    assert "P1 wins 15 from the high half of the pot with Three of a kind, kings" in text
    assert "P0 wins 15 from the low half of the pot with 7-5-3-2-A low" in text
    assert "P2 wins" not in text
    # The low player's own view names his high and his low.
    assert hole_cards_text(hand, 0, "en-US") == (
        "Your cards: A♠ 2♠ 9♦ 9♥ · Two pair, kings and nines, seven kicker · 7-5-3-2-A low")


def test_with_no_low_the_whole_pot_goes_high_and_no_half_is_named() -> None:
    table = dealt(PLO8, [HIGH, MIDDLE], board="Ts Js Qs Ah 9s")
    hand = table.hand
    assert hand is not None
    play_passively(hand)
    text = result_content(scene(table))
    assert "half" not in text
    assert "wins 20 from the pot with" in text


def test_all_in_chances_of_a_high_low_hand_give_the_low_too() -> None:
    table = dealt(PLO8, [LOW, HIGH], stack=20)
    hand = table.hand
    assert hand is not None
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        if legal.can_raise:
            hand.go_all_in(legal.player)
        else:
            hand.call(legal.player)
    stages = run_out_equities(hand)
    assert stages and stages[0].equity.high_low
    lines = equity_view(scene(table), stages[0]).lines
    assert any("to win high" in line and "to win or share low" in line for line in lines)


def test_five_card_omaha_shows_five_cards_to_their_owner() -> None:
    holes = ["As 2s 9d 9h 4c", "Kd Qh Jc Tc 8s"]
    table = dealt(PLO5, holes)
    hand = table.hand
    assert hand is not None
    assert hole_cards_text(hand, 1, "en-US") == "Your cards: K♦ Q♥ J♣ 10♣ 8♠"
