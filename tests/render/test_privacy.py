"""The renderer never draws a card face it was not given face up.

Hidden cards are ``None``: the pixels where they go must be exactly the card back over the
felt. Folded and mucked hands are never drawn at all, even when the faces are (wrongly) given.
"""

from __future__ import annotations

import dataclasses
import io

import pytest
from PIL import Image, ImageChops

from bot.render import assets, render_table, samples
from bot.render.layout import SEAT_CARD, Box, table_layout
from bot.render.model import DeckStyle, SeatState, SeatView, TableView
from bot.render.palettes import table_palette
from bot.render.table import _background, draw_table

from .conftest import replace_seat


def _expected_back(box: Box, deck: DeckStyle) -> Image.Image:
    """The card back pasted over the empty table, cropped to ``box``."""
    scene = _background().copy()
    back = assets.card_image(None, deck, SEAT_CARD)
    scene.paste(back, box[:2], back)
    return scene.crop(box)


def _hidden_boxes(view: TableView) -> list[tuple[int, int, Box]]:
    layout = table_layout(view.seat_count)
    out = []
    for i, seat in enumerate(view.seats):
        if seat is None:
            continue
        for j, card in enumerate(seat.visible_cards):
            if card is None:
                out.append((i, j, layout.seats[i].cards_visible[j]))
    return out


@pytest.mark.parametrize("deck", list(DeckStyle))
@pytest.mark.parametrize("factory", [samples.heads_up_preflop, samples.six_seat_flop,
                                     samples.nine_seat_river, samples.ten_seat_scripts])
def test_hidden_cards_are_drawn_as_the_back(factory, deck: DeckStyle) -> None:  # type: ignore[no-untyped-def]
    view = dataclasses.replace(factory(), deck=deck)
    image = draw_table(view)
    boxes = _hidden_boxes(view)
    assert boxes, "the sample must hold hidden cards"
    for seat, card, box in boxes:
        diff = ImageChops.difference(image.crop(box), _expected_back(box, deck))
        assert diff.getbbox() is None, f"seat {seat} card {card} is not the back at {box}"


def test_hidden_cards_survive_png_encoding(river: TableView) -> None:
    """In the PNG sent to Discord, too: palette mapping is per pixel, so the back's region is
    exactly the back mapped through the same palette."""
    decoded = Image.open(io.BytesIO(render_table(river).png)).convert("RGB")
    palette = table_palette()
    for _, _, box in _hidden_boxes(river):
        expected = _expected_back(box, river.deck).quantize(palette=palette,
                                                            dither=Image.Dither.NONE)
        diff = ImageChops.difference(decoded.crop(box), expected.convert("RGB"))
        assert diff.getbbox() is None, f"not the back at {box}"


@pytest.mark.parametrize("change", [
    {"state": SeatState.FOLDED},
    {"mucked": True},
])
def test_folded_or_mucked_faces_are_never_drawn(river: TableView,
                                                change: dict[str, object]) -> None:
    faces = replace_seat(river, 0, cards=("Ah", "Ad"), **change)
    nothing = replace_seat(river, 0, cards=(), **change)
    assert ImageChops.difference(draw_table(faces), draw_table(nothing)).getbbox() is None


def test_faces_given_are_not_the_back(river: TableView) -> None:
    """The check above means something: a face-up card does change those pixels."""
    shown = replace_seat(river, 0, cards=("Ah", "Ad"))
    box = table_layout(river.seat_count).seats[0].cards_visible[0]
    diff = ImageChops.difference(draw_table(shown).crop(box), _expected_back(box, river.deck))
    assert diff.getbbox() is not None


def test_a_seat_with_no_cards_draws_no_card(river: TableView) -> None:
    """Sitting out with no cards: the card area is just the table behind it."""
    view = replace_seat(river, 5, cards=())
    image = draw_table(view)
    box = table_layout(view.seat_count).seats[5].cards_visible[0]
    assert ImageChops.difference(image.crop(box), _background().crop(box)).getbbox() is None


def test_one_hidden_card_next_to_a_shown_one() -> None:
    view = TableView(seats=(SeatView("a", 10, cards=("As", None)), SeatView("b", 10)))
    image = draw_table(view)
    boxes = table_layout(2).seats[0].cards_visible
    assert ImageChops.difference(image.crop(boxes[1]),
                                 _expected_back(boxes[1], view.deck)).getbbox() is None
    assert ImageChops.difference(image.crop(boxes[0]),
                                 _expected_back(boxes[0], view.deck)).getbbox() is not None
