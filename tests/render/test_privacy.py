"""The renderer never draws a card face it was not given face up.

Hidden cards are ``None``: the pixels where they go must be exactly the card back over the
felt. Folded and mucked hands are never drawn at all, even when the faces are (wrongly) given.
"""

from __future__ import annotations

import dataclasses
import functools
import io

import pytest
from PIL import Image, ImageChops

from bot.render import assets, render_table, samples
from bot.render.layout import Box, table_layout
from bot.render.model import HOLE_COUNTS, DeckStyle, SeatState, SeatView, TableView
from bot.render.palettes import table_palette
from bot.render.table import _background, draw_table

from .conftest import replace_seat


def _expected_back(view: TableView, seat: int, card: int) -> Image.Image:
    """Seat ``seat``'s hand over the empty table, every hidden card a back, cropped to the
    part of card ``card`` in view (the cards before it show at its rounded corners)."""
    hand = view.seats[seat]
    assert hand is not None
    row = table_layout(view.seat_count).seats[seat].cards(len(hand.cards))
    scene = _background().copy()
    for given, box in zip(hand.cards, row.boxes, strict=True):
        face = assets.card_image(given, view.deck, row.size)
        scene.paste(face, box[:2], face)
    return scene.crop(row.visible[card])


def _hidden_boxes(view: TableView) -> list[tuple[int, int, Box]]:
    layout = table_layout(view.seat_count)
    out = []
    for i, seat in enumerate(view.seats):
        if seat is None:
            continue
        row = layout.seats[i].cards(len(seat.visible_cards))
        for j, card in enumerate(seat.visible_cards):
            if card is None:
                out.append((i, j, row.visible[j]))
    return out


def _omaha(holes: int) -> TableView:
    """The nine-seat river with every hand dealt as ``holes`` face-down cards."""
    view = samples.nine_seat_river()
    return dataclasses.replace(view, seats=tuple(
        dataclasses.replace(seat, cards=(None,) * holes) if seat and seat.cards else seat
        for seat in view.seats))


@pytest.mark.parametrize("deck", list(DeckStyle))
@pytest.mark.parametrize("factory", [samples.heads_up_preflop, samples.six_seat_flop,
                                     samples.nine_seat_river, samples.ten_seat_scripts,
                                     *(functools.partial(_omaha, n) for n in HOLE_COUNTS[1:])])
def test_hidden_cards_are_drawn_as_the_back(factory, deck: DeckStyle) -> None:  # type: ignore[no-untyped-def]
    view = dataclasses.replace(factory(), deck=deck)
    image = draw_table(view)
    boxes = _hidden_boxes(view)
    assert boxes, "the sample must hold hidden cards"
    for seat, card, box in boxes:
        diff = ImageChops.difference(image.crop(box), _expected_back(view, seat, card))
        assert diff.getbbox() is None, f"seat {seat} card {card} is not the back at {box}"


def test_hidden_cards_survive_png_encoding(river: TableView) -> None:
    """In the PNG sent to Discord, too: palette mapping is per pixel, so the back's region is
    exactly the back mapped through the same palette."""
    decoded = Image.open(io.BytesIO(render_table(river).png)).convert("RGB")
    palette = table_palette()
    for seat, card, box in _hidden_boxes(river):
        expected = _expected_back(river, seat, card).quantize(palette=palette,
                                                              dither=Image.Dither.NONE)
        diff = ImageChops.difference(decoded.crop(box), expected.convert("RGB"))
        assert diff.getbbox() is None, f"not the back at {box}"


HANDS = [("Ah", "Ad"), ("Ah", "Ad", "Kc", "Qs"), ("Ah", "Ad", "Kc", "Qs", "Js")]


@pytest.mark.parametrize("change", [
    {"state": SeatState.FOLDED},
    {"mucked": True},
])
@pytest.mark.parametrize("hand", HANDS)
def test_folded_or_mucked_faces_are_never_drawn(river: TableView, change: dict[str, object],
                                                hand: tuple[str, ...]) -> None:
    faces = replace_seat(river, 0, cards=hand, **change)
    nothing = replace_seat(river, 0, cards=(), **change)
    assert ImageChops.difference(draw_table(faces), draw_table(nothing)).getbbox() is None


@pytest.mark.parametrize("hand", HANDS)
def test_faces_given_are_not_the_back(river: TableView, hand: tuple[str, ...]) -> None:
    """The check above means something: a face-up card does change those pixels."""
    shown = replace_seat(river, 0, cards=hand)
    backs = replace_seat(river, 0, cards=(None,) * len(hand))
    rows = table_layout(river.seat_count).seats[0].cards(len(hand))
    for card, box in enumerate(rows.visible):
        diff = ImageChops.difference(draw_table(shown).crop(box), _expected_back(backs, 0, card))
        assert diff.getbbox() is not None


def test_a_seat_with_no_cards_draws_no_card(river: TableView) -> None:
    """Sitting out with no cards: the card area is just the table behind it."""
    view = replace_seat(river, 5, cards=())
    image = draw_table(view)
    for holes in HOLE_COUNTS:
        row = table_layout(view.seat_count).seats[5].cards(holes)
        box = (row.visible[0][0], row.visible[0][1] - row.lift, *row.visible[-1][2:])
        assert ImageChops.difference(image.crop(box), _background().crop(box)).getbbox() is None


@pytest.mark.parametrize("hand", [("As", None), ("As", None, "Kd", None),
                                  (None, "As", None, None, "Kd")])
def test_hidden_cards_next_to_shown_ones(hand: tuple[str | None, ...]) -> None:
    view = TableView(seats=(SeatView("a", 10, cards=hand), SeatView("b", 10)))
    image = draw_table(view)
    boxes = table_layout(2).seats[0].cards(len(hand)).visible
    backs = replace_seat(view, 0, cards=(None,) * len(hand))
    for card, (given, box) in enumerate(zip(hand, boxes, strict=True)):
        same = ImageChops.difference(image.crop(box), _expected_back(view, 0, card)).getbbox()
        assert same is None, f"card {card} at {box}"
        if given is not None:
            back = ImageChops.difference(image.crop(box), _expected_back(backs, 0, card))
            assert back.getbbox() is not None, f"card {card} at {box}"
