"""Omaha hands (four or five hole cards) in the private hole-card image and its alt text."""

from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image

from bot.render import HoleCardsView, render_hole_cards
from bot.render.alttext import hole_cards_alt_text
from bot.render.cardart import MASTER_SIZE
from bot.render.holecards import HOLE_WIDTH, draw_hole_cards, hole_card_boxes, hole_width
from bot.render.layout import INDEX_HEIGHT, INDEX_WIDTH

HANDS = {
    2: ("Ad", "Kc"),
    4: ("Ad", "Kc", "Th", "7s"),
    5: ("Ad", "Kc", "Th", "7s", "2d"),
}


@pytest.mark.parametrize("count", sorted(HANDS))
def test_the_hole_card_image_holds_every_card_within_a_phone_width(count: int) -> None:
    view = HoleCardsView(cards=HANDS[count], hand_name="Pair of aces", caption="#t · Hand #1")
    image = render_hole_cards(view)
    with Image.open(io.BytesIO(image.png)) as png:
        assert png.size == (image.width, image.height) == draw_hole_cards(view).size
    assert image.width == hole_width(count)
    assert HOLE_WIDTH == hole_width(2) <= image.width <= 520
    assert len(image.png) <= 32 * 1024
    boxes = hole_card_boxes(view)
    assert len(boxes) == count
    for box in boxes:
        assert box[2] - box[0] == MASTER_SIZE[0]  # no card is shrunk: they overlap instead
        assert box[0] > 0 and box[1] > 0 and box[2] < image.width and box[3] < image.height


@pytest.mark.parametrize("count", sorted(HANDS))
def test_every_hole_cards_rank_and_suit_show(count: int) -> None:
    boxes = hole_card_boxes(HoleCardsView(cards=HANDS[count]))
    w, h = MASTER_SIZE
    for box, after in itertools.pairwise(boxes):
        assert after[0] >= box[0] + w * INDEX_WIDTH + 1
        assert after[1] == box[1] and box[3] - box[1] > h * INDEX_HEIGHT


@pytest.mark.parametrize("count", sorted(HANDS))
def test_each_card_is_drawn(count: int) -> None:
    """Changing any one card changes the picture."""
    cards = HANDS[count]
    base = draw_hole_cards(HoleCardsView(cards=cards))
    for i in range(count):
        other = (*cards[:i], "9c", *cards[i + 1:])
        changed = draw_hole_cards(HoleCardsView(cards=other))
        assert base.tobytes() != changed.tobytes(), f"card {i} is not drawn"


@pytest.mark.parametrize("count", sorted(HANDS))
def test_the_alt_text_names_every_own_card(count: int) -> None:
    text = hole_cards_alt_text(HoleCardsView(cards=HANDS[count]))
    words = ["ace of diamonds", "king of clubs", "ten of hearts", "seven of spades",
             "two of diamonds"][:count]
    assert text == "Your cards: " + ", ".join(words) + "."
