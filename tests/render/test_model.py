"""The model rejects what cannot be drawn truthfully and hides what must stay hidden."""

from __future__ import annotations

import pytest

from bot.render.model import (
    HoleCardsView,
    PotView,
    SeatState,
    SeatView,
    TableView,
    is_card,
)


def _seats(n: int) -> tuple[SeatView, ...]:
    return tuple(SeatView(f"P{i}", 100) for i in range(n))


def test_card_strings() -> None:
    assert is_card("As") and is_card("Td") and is_card("2c")
    assert not is_card("10s") and not is_card("as") and not is_card("AS") and not is_card(None)


@pytest.mark.parametrize("n", [0, 1, 11])
def test_table_size_is_two_to_ten(n: int) -> None:
    with pytest.raises(ValueError):
        TableView(seats=_seats(n))


def test_bad_and_duplicate_cards_are_rejected() -> None:
    with pytest.raises(ValueError):
        SeatView("a", 1, cards=("Zz", None))
    with pytest.raises(ValueError):
        TableView(seats=_seats(2), board=("As", "As", "Kd"))
    with pytest.raises(ValueError):
        TableView(seats=(SeatView("a", 1, cards=("As", "Kd")), SeatView("b", 1)),
                  board=("As", "7c", "2d"))
    with pytest.raises(ValueError):
        HoleCardsView(cards=("As", "As"))


def test_winners_must_sit_at_the_table() -> None:
    with pytest.raises(ValueError):
        TableView(seats=(SeatView("a", 1), None), pots=(PotView(10, winners=(1,)),))


def test_only_one_player_to_act() -> None:
    with pytest.raises(ValueError):
        TableView(seats=(SeatView("a", 1, to_act=True), SeatView("b", 1, to_act=True)))


def test_folded_and_mucked_hands_have_no_visible_cards() -> None:
    folded = SeatView("a", 1, cards=("As", "Kd"), state=SeatState.FOLDED)
    mucked = SeatView("b", 1, cards=("Qs", "Qd"), mucked=True)
    shown = SeatView("c", 1, cards=("2s", "7d"))
    assert folded.visible_cards == ()
    assert mucked.visible_cards == ()
    assert shown.visible_cards == ("2s", "7d")
