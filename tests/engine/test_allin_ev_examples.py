"""The numbered all-in EV examples of docs/rules.md section 11 (A1-A3), figure for figure, and
how a player's totals count them (``bot.storage.stats``' reading of the stored figures)."""

from __future__ import annotations

from fractions import Fraction

from bot.runtime.results import player_results
from engine.allin_ev import all_in_ev
from engine.cards import parse_cards
from engine.hand import Hand, HandConfig, deck_from_cards


def dealt(stacks: tuple[int, ...], holes: list[str], board: str) -> Hand:
    deck = deck_from_cards(len(stacks), [parse_cards(h) for h in holes], parse_cards(board))
    return Hand(HandConfig.standard(stacks, 1, 2), deck)


def test_a1_aces_against_kings() -> None:
    hand = dealt((100, 100), ["AsAh", "KsKh"], "2c7d9h 4s 5d")
    hand.go_all_in(1), hand.call(0)
    ev = all_in_ev(hand)
    assert ev is not None
    assert f"{float(ev.pots[0].share(0)):.2%}" == "82.64%"
    assert f"{float(ev.won[0]):.2f}" == "165.27" and sum(ev.won) == 200
    assert ev.ev_net_chips() == (65, -65)
    assert hand.result is not None and hand.result.net == (100, -100)
    assert ev.luck_chips() == (35, -35)


def test_a2_a_folded_blind_has_no_luck() -> None:
    # Player 0 is the small blind, 1 the big blind, 2 the button.
    hand = dealt((100, 100, 100), ["7c2d", "KsKh", "AsAh"], "Kd7d9h 4s 5d")
    hand.go_all_in(2), hand.fold(0), hand.call(1)
    ev = all_in_ev(hand)
    assert ev is not None and [p.amount for p in ev.pots] == [201]
    assert ev.ev_net_chips() == (-1, -65, 66)
    assert hand.result is not None and hand.result.net == (-1, 101, -100)
    assert ev.luck_chips() == (0, 166, -166)
    assert sum(ev.ev_net) == 0 and sum(ev.luck) == Fraction(0)
    # Stored, the folded blind has no all-in EV of his own: his totals count his net.
    stored = [r.all_in_ev_net for r in player_results(hand, ev)]
    assert stored == [None, -65, 66]


def test_a3_no_moment_counts_at_its_net() -> None:
    folded = dealt((100, 100, 100), ["7c2d", "KsKh", "AsAh"], "Kd7d9h 4s 5d")
    folded.go_all_in(2), folded.fold(0), folded.fold(1)
    assert all_in_ev(folded) is None
    river = dealt((100, 100, 100), ["7c2d", "KsKh", "AsAh"], "Kd7d9h 4s 5d")
    river.call(2), river.call(0), river.check(1)
    for _ in range(2):
        river.check(0), river.check(1), river.check(2)
    river.bet(0, 10), river.go_all_in(1), river.fold(2), river.call(0)
    assert river.result is not None and river.result.showdown
    assert all_in_ev(river) is None
    for hand in (folded, river):
        assert all(r.all_in_ev_net is None for r in player_results(hand, None))
