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


@pytest.mark.parametrize("cards", [
    (), (None, None), ("As", "Kd"), ("As", None),
    (None,) * 4, ("As", "Kd", "Qh", "Jc"), ("As", None, "Qh", None),
    (None,) * 5, ("As", "Kd", "Qh", "Jc", "Ts"),
])
def test_a_seat_holds_hold_em_or_omaha_hands(cards: tuple[str | None, ...]) -> None:
    assert SeatView("a", 1, cards=cards).cards == cards


@pytest.mark.parametrize("cards", [
    ("As",), (None,), ("As", "Kd", "Qh"), (None,) * 3, (None,) * 6,
    ("As", "Kd", "Qh", "Jc", "Ts", "9s"),
])
def test_other_counts_of_hole_cards_are_refused(cards: tuple[str | None, ...]) -> None:
    with pytest.raises(ValueError, match="2, 4 or 5"):
        SeatView("a", 1, cards=cards)


def test_a_seat_cannot_hold_one_card_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        SeatView("a", 1, cards=("As", "Kd", "As", None))
    SeatView("a", 1, cards=("As", None, None, None))  # backs are no card in particular


@pytest.mark.parametrize("cards", [("As", "Kd"), ("As", "Kd", "Qh", "Jc"),
                                   ("As", "Kd", "Qh", "Jc", "Ts")])
def test_hole_cards_view_takes_two_four_or_five(cards: tuple[str, ...]) -> None:
    assert HoleCardsView(cards=cards).cards == cards


@pytest.mark.parametrize("cards", [(), ("As",), ("As", "Kd", "Qh"), ("As", "Kd", "Qh", "Jc", "Ts",
                                                                      "9s"),
                                   ("As", "Kd", "Qh", "As"), ("As", None, "Qh", "Jc")])
def test_hole_cards_view_refuses_other_hands(cards: tuple[str, ...]) -> None:
    with pytest.raises(ValueError):
        HoleCardsView(cards=cards)
