"""Every field of the model reaches the image, the alt text, or both.

Each case changes one field of a busy table and checks the change shows: pixels differ, and
for the facts a blind player needs (names, stacks, bets, board, pots, turn) the alt text says
the new value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from PIL import ImageChops

from bot.render import (
    Blind,
    DeckStyle,
    HoleCardsView,
    PotView,
    SeatState,
    SeatView,
    Street,
    TableView,
    draw_hole_cards,
    draw_table,
)
from bot.render.alttext import hole_cards_alt_text, table_alt_text
from bot.render.model import SeatEquity


def _base() -> TableView:
    """A table mid-showdown with every feature on: the variants each change one field."""
    return TableView(
        seats=(
            SeatView("Alice", 1_200, bet=0, cards=("Ah", "Jd"), is_winner=True,
                     best_five=("Ah", "Ks", "Qd", "Jd", "Tc"), hand_name="Straight, ace high"),
            SeatView("Bob", 800, bet=50, cards=(None, None), is_button=True, to_act=True),
            SeatView("Chen", 0, cards=(None, None), state=SeatState.ALL_IN, blind=Blind.SMALL),
            SeatView("Dana", 300, cards=(), state=SeatState.FOLDED, blind=Blind.BIG),
            None,
            SeatView("Eve", 950, cards=("9h", "9c"), hand_name="Pair of nines"),
        ),
        board=("Ks", "Qd", "Tc", "4h"),
        pots=(PotView(600, winners=(0,)), PotView(200)),
        small_blind=25, big_blind=50, ante=5, hand_number=42, street=Street.RIVER,
        deck=DeckStyle.CLASSIC,
    )


SEAT_CASES: dict[str, list[tuple[int, object, str | None]]] = {
    # field: [(seat index, new value, text the alt text must then contain or None)]
    "name": [(1, "Bartholomew", "Bartholomew")],
    "stack": [(1, 12_345, "12,345")],
    "bet": [(1, 777, "777"), (1, 0, None)],
    "state": [(1, SeatState.AWAY, "away"), (5, SeatState.SITTING_OUT, "sitting out")],
    "cards": [(5, ("2s", "3s"), "two of spades"), (1, ("As", None), "ace of spades")],
    "is_button": [(5, True, "dealer")],
    "blind": [(5, Blind.BIG, "big blind"), (2, Blind.NONE, None)],
    "to_act": [(1, False, None), (5, True, "Eve to act")],
    "mucked": [(5, True, "mucked")],
    "is_winner": [(5, True, None), (0, False, None)],
    "best_five": [(0, ("Ah", "Ks", "Qd", "Jd"), None)],
    "hand_name": [(5, "Two pair, nines and fours", "Two pair, nines and fours")],
    # The badge's words: drawn, while the alt text keeps the whole name.
    "hand_label": [(5, "Nines and fours", None), (0, "Ace-high straight", None)],
    "equity": [(2, SeatEquity(0.25, 0.1), "25.0% to win, 10.0% to tie"),
               (5, SeatEquity(0.5, 0.0, exact=False), "≈50% to win")],
    "low_hand": [(5, "8-6-4-2-A", "Low: 8-6-4-2-A"), (0, "7-5-4-3-2", "Low: 7-5-4-3-2")],
}

# Fields that show only once a low half was won: checked on a high-low table.
HI_LO_SEAT_CASES: dict[str, list[tuple[int, object, str | None]]] = {
    "low_five": [(5, ("7c", "5d", "4h", "3h"), None), (5, (), None)],
}

# Fields that show only once the board was run twice: checked on a table run twice.
TWO_RUN_SEAT_CASES: dict[str, list[tuple[int, object, str | None]]] = {
    "second_best_five": [(5, ("9h", "9c", "Ks", "Qd"), None)],
    "second_hand_name": [(5, "Three of a kind, nines", "Run 2: Three of a kind, nines")],
    "second_hand_label": [(5, "Trip nines", None)],
}

TABLE_CASES: dict[str, list[tuple[object, str | None]]] = {
    "seats": [((SeatView("Solo", 10), SeatView("Duo", 20)), "Solo")],
    "board": [(("Ks", "Qd", "Tc", "4h", "2c"), "two of clubs"), ((), "No board")],
    "pots": [((PotView(600, winners=(0,)), PotView(200), PotView(90)), "Side pot 2 90")],
    "small_blind": [(30, "30/50")],
    "big_blind": [(60, "25/60")],
    "ante": [(0, None), (15, "Ante 15")],
    "hand_number": [(43, "#43"), (None, None)],
    "street": [(Street.SHOWDOWN, "Showdown")],
    "deck": [(DeckStyle.FOUR_COLOR, None)],
    "second_board": [(("Ks", "Qd", "Tc", "4h", "2c"), "Run 2 board: king of spades")],
}

POT_CASES: dict[str, list[tuple[object, str | None]]] = {
    "amount": [(650, "650")],
    "winners": [((0, 5), "split between Alice and Eve"), ((), None)],
    "label": [("Bounty", "Bounty")],
    "half": [("low", "low half")],
}
TWO_RUN_POT_CASES: dict[str, list[tuple[int, object, str | None]]] = {
    # The second half becomes a pot of its own: a second pot named, its winner's cards unringed.
    "run": [(1, 0, "Side pot 1 300 won by Eve")],
}


def _differs(a: TableView, b: TableView) -> bool:
    return ImageChops.difference(draw_table(a), draw_table(b)).getbbox() is not None


def _two_runs() -> TableView:
    """The base table at the showdown of a board run twice: Alice took the first run, Eve
    the second with her nines."""
    base = _base()
    seats = list(base.seats)
    eve = seats[5]
    assert eve is not None
    seats[5] = dataclasses.replace(eve, is_winner=True, second_hand_name="Pair of nines",
                                   second_best_five=("9h", "9c", "Ks", "Qd", "8s"))
    return dataclasses.replace(
        base, seats=tuple(seats), board=("Ks", "Qd", "Tc", "4h", "2c"),
        second_board=("Ks", "Qd", "Tc", "8s", "3d"),
        pots=(PotView(300, winners=(0,), run=1), PotView(300, winners=(5,), run=2)),
        street=Street.SHOWDOWN)


def _hi_lo() -> TableView:
    """The base table as a high-low showdown: Alice's high took one half, Eve's low (7-5-4-3-2
    on a lower board) the other."""
    base = _base()
    seats = list(base.seats)
    eve = seats[5]
    assert eve is not None
    seats[5] = dataclasses.replace(eve, cards=("3h", "2c"), is_winner=True,
                                   hand_name="High card, king", low_hand="7-5-4-3-2",
                                   low_five=("7c", "5d", "4h", "3h", "2c"))
    return dataclasses.replace(
        base, seats=tuple(seats), board=("Ks", "5d", "Tc", "4h", "7c"),
        pots=(PotView(300, winners=(0,), half="high"), PotView(300, winners=(5,), half="low")),
        street=Street.SHOWDOWN)


def test_the_cases_cover_every_field() -> None:
    assert set(SEAT_CASES) | set(TWO_RUN_SEAT_CASES) | set(HI_LO_SEAT_CASES) == {
        f.name for f in dataclasses.fields(SeatView)}
    assert set(TABLE_CASES) == {f.name for f in dataclasses.fields(TableView)}
    assert set(POT_CASES) | set(TWO_RUN_POT_CASES) == {f.name for f in dataclasses.fields(PotView)}


@pytest.mark.parametrize(("table", "field", "index", "value", "said"), [
    (table, field, index, value, said)
    for table, kind in ((_two_runs, TWO_RUN_SEAT_CASES), (_hi_lo, HI_LO_SEAT_CASES))
    for field, cases in kind.items() for index, value, said in cases
])
def test_seat_fields_of_a_board_run_twice_or_a_hi_lo_showdown(
        table: Callable[[], TableView], field: str, index: int, value: object,
        said: str | None) -> None:
    base = table()
    seats = list(base.seats)
    seat = seats[index]
    assert seat is not None
    seats[index] = dataclasses.replace(seat, **{field: value})  # type: ignore[arg-type]
    changed = dataclasses.replace(base, seats=tuple(seats))
    assert _differs(base, changed), f"changing {field} left the image as it was"
    if said is not None:
        assert said in table_alt_text(changed), table_alt_text(changed)


@pytest.mark.parametrize(("field", "which", "value", "said"), [
    (field, which, value, said) for field, cases in TWO_RUN_POT_CASES.items()
    for which, value, said in cases
])
def test_pot_fields_of_a_board_run_twice(field: str, which: int, value: object,
                                         said: str | None) -> None:
    base = _two_runs()
    pots = list(base.pots)
    pots[which] = dataclasses.replace(pots[which], **{field: value})  # type: ignore[arg-type]
    changed = dataclasses.replace(base, pots=tuple(pots))
    assert _differs(base, changed), f"changing pot {which} {field} left the image as it was"
    if said is not None:
        assert said in table_alt_text(changed), table_alt_text(changed)


@pytest.mark.parametrize(("field", "index", "value", "said"), [
    (field, index, value, said) for field, cases in SEAT_CASES.items()
    for index, value, said in cases
])
def test_seat_fields(field: str, index: int, value: object, said: str | None) -> None:
    base = _base()
    seats = list(base.seats)
    if field == "to_act" and value:
        seats = [dataclasses.replace(s, to_act=False) if s else s for s in seats]
    seat = seats[index]
    assert seat is not None
    seats[index] = dataclasses.replace(seat, **{field: value})  # type: ignore[arg-type]
    changed = dataclasses.replace(base, seats=tuple(seats))
    assert _differs(base, changed), f"changing {field} left the image as it was"
    if said is not None:
        assert said in table_alt_text(changed), table_alt_text(changed)


@pytest.mark.parametrize(("field", "value", "said"), [
    (field, value, said) for field, cases in TABLE_CASES.items() for value, said in cases
])
def test_table_fields(field: str, value: object, said: str | None) -> None:
    base = _base()
    changes: dict[str, object] = {field: value}
    if field == "seats":
        changes["pots"] = ()
    changed = dataclasses.replace(base, **changes)  # type: ignore[arg-type]
    assert _differs(base, changed), f"changing {field} left the image as it was"
    if said is not None:
        assert said in table_alt_text(changed), table_alt_text(changed)


@pytest.mark.parametrize(("field", "value", "said", "which"), [
    (field, value, said, which) for field, cases in POT_CASES.items() for value, said in cases
    for which in (0, 1) if getattr(_base().pots[which], field) != value
])
def test_pot_fields(field: str, value: object, said: str | None, which: int) -> None:
    """Pot 0 has been awarded, pot 1 not yet: both kinds must show every change."""
    base = _base()
    pots = list(base.pots)
    pots[which] = dataclasses.replace(pots[which], **{field: value})  # type: ignore[arg-type]
    changed = dataclasses.replace(base, pots=tuple(pots))
    assert _differs(base, changed), f"changing pot {which} {field} left the image as it was"
    if said is not None:
        assert said in table_alt_text(changed), table_alt_text(changed)


def test_alt_text_names_every_seat_stack_and_pot() -> None:
    view = _base()
    text = table_alt_text(view)
    for seat in view.seats:
        if seat is not None:
            assert seat.name in text
            assert f"{seat.stack:,} chips" in text
    assert "Main pot 600 won by Alice" in text
    assert "Side pot 1 200" in text
    assert "Board: king of spades, queen of diamonds, ten of clubs, four of hearts." in text
    assert "Bob to act." in text
    assert "Seat 5 empty" in text
    assert "Hand #42" in text and "Blinds 25/50" in text and "Ante 5" in text


def test_alt_text_never_names_hidden_cards() -> None:
    view = _base()
    text = table_alt_text(view)
    assert "face down" in text
    for rank in ("ace of hearts", "jack of diamonds"):  # Alice's, shown
        assert rank in text


@pytest.mark.parametrize(("field", "value", "said"), [
    ("cards", ("2c", "7d"), "two of clubs, seven of diamonds"),
    ("hand_name", "Two pair, aces and kings", "Two pair, aces and kings"),
    ("caption", "#lounge · Hand #9", "#lounge · Hand #9"),
    ("deck", DeckStyle.FOUR_COLOR, None),
    ("hand_label", "Aces and kings", None),
])
def test_hole_card_fields(field: str, value: object, said: str | None) -> None:
    assert {f.name for f in dataclasses.fields(HoleCardsView)} == {
        "cards", "hand_name", "caption", "deck", "hand_label"}
    base = HoleCardsView(cards=("As", "Kd"), hand_name="High card, ace", caption="#t · Hand #1")
    changed = dataclasses.replace(base, **{field: value})  # type: ignore[arg-type]
    assert ImageChops.difference(draw_hole_cards(base), draw_hole_cards(changed)).getbbox() \
        is not None or draw_hole_cards(base).size != draw_hole_cards(changed).size
    if said is not None:
        assert said in hole_cards_alt_text(changed)
