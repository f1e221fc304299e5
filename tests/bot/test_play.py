"""The toggle rules every table shares (cash and tournament): a double click acts once."""

from __future__ import annotations

from bot.runtime.play import Clicks, preselected, preselection
from engine.cards import shuffled_deck
from engine.hand import Hand, HandConfig, PreAction


def test_the_second_click_of_a_double_click_changes_nothing() -> None:
    clicks = Clicks()
    assert not clicks.second(1, "straddle_next")  # takes effect
    assert clicks.second(1, "straddle_next")  # the same double click
    assert not clicks.second(2, "straddle_next")  # another player's own click
    assert not clicks.second(1, "straddle_always")  # another toggle
    clicks.forget(1)
    assert not clicks.second(1, "straddle_next")  # a player who left starts afresh


def test_a_pre_selection_double_clicked_is_set_once_and_cancelled_by_a_later_press() -> None:
    hand = Hand(HandConfig.standard((1_000, 1_000, 1_000), 5, 10), shuffled_deck())
    waiting = next(i for i in range(3) if i != hand.to_act)
    clicks = Clicks()
    chosen = preselection(hand, waiting, PreAction.CALL_ANY, clicks, 7)
    assert chosen is PreAction.CALL_ANY
    hand.preselect(waiting, chosen)
    assert preselection(hand, waiting, PreAction.CALL_ANY, clicks, 7) is None
    assert preselected(hand, waiting) is PreAction.CALL_ANY
    clicks.forget(7)  # as if the window had passed: the press is deliberate
    assert preselection(hand, waiting, PreAction.CALL_ANY, clicks, 7) is PreAction.NONE
