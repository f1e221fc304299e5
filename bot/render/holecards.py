"""The private hole-card image: the player's cards at full size on a strip of felt, the current
hand in words underneath once there is a board, and an optional caption naming the table.

Two cards stand side by side; an Omaha hand's four or five overlap as a hand is held, each
card's rank and suit in view (the same row rule as the table's seats, :func:`card_row`), so
the image grows from 376 to about 520 px wide rather than to 900.
"""

from __future__ import annotations

import functools

from PIL import Image, ImageChops, ImageDraw

from bot.render import assets
from bot.render.cardart import MASTER_SIZE
from bot.render.fonts import Weight, draw_text
from bot.render.layout import Box, CardRow, card_row
from bot.render.model import HoleCardsView
from bot.render.theme import FELT_RAMP, RAIL_RAMP, through_ramp

__all__ = ["HOLE_WIDTH", "draw_hole_cards", "hole_card_boxes", "hole_width"]

MARGIN = 20
GAP = 16
# Four or five cards overlap within this: about what a phone shows of an image at full size.
ROW_WIDTH = 480
CAPTION_HEIGHT = 34
HAND_HEIGHT = 48
CAPTION_SIZE = 18
HAND_SIZE = 24


def _row(count: int, center_x: int = 0, top: int = 0) -> CardRow:
    return card_row(count, MASTER_SIZE, GAP, ROW_WIDTH, center_x, top)


def hole_width(count: int) -> int:
    """The image's width for a hand of ``count`` cards."""
    x0, _, x1, _ = _row(count).extent()
    return 2 * MARGIN + x1 - x0


HOLE_WIDTH = hole_width(2)  # the narrowest image, two cards': the room its words must fit


def _height(caption: bool, hand: bool) -> int:
    return MARGIN + (CAPTION_HEIGHT if caption else 0) + MASTER_SIZE[1] + (
        HAND_HEIGHT if hand else 0) + MARGIN


@functools.lru_cache(maxsize=12)
def _background(width: int, caption: bool, hand: bool) -> Image.Image:
    w, h = width, _height(caption, hand)
    light = ImageChops.invert(Image.radial_gradient("L").resize((w, h)))
    bg = through_ramp(light.point(lambda v: 60 + v * 3 // 4), FELT_RAMP)
    ImageDraw.Draw(bg).rectangle((0, 0, w - 1, h - 1), outline=RAIL_RAMP[len(RAIL_RAMP) // 2],
                                 width=4)
    return bg


def _cards(view: HoleCardsView) -> CardRow:
    count = len(view.cards)
    top = MARGIN + (CAPTION_HEIGHT if view.caption else 0)
    return _row(count, hole_width(count) // 2, top)


def hole_card_boxes(view: HoleCardsView) -> tuple[Box, ...]:
    """Where the cards are drawn, left to right, each over the one before when they overlap
    (for tests and anyone compositing the image)."""
    return _cards(view).boxes


def draw_hole_cards(view: HoleCardsView) -> Image.Image:
    """The image as RGB."""
    width = hole_width(len(view.cards))
    canvas = _background(width, bool(view.caption), bool(view.hand_label or view.hand_name)).copy()
    if view.caption:
        draw_text(canvas, (width / 2, MARGIN + 18), view.caption, CAPTION_SIZE,
                  (214, 226, 218), weight=Weight.REGULAR, align="center",
                  max_width=width - 2 * MARGIN)
    row = _cards(view)
    for card, box in zip(view.cards, row.boxes, strict=True):
        assets.blit(canvas, assets.card_image(card, view.deck, row.size), (box[0], box[1]))
    hand = view.hand_label or view.hand_name
    if hand:
        y = row.boxes[0][3] + 34
        draw_text(canvas, (width / 2, y), hand, HAND_SIZE, (255, 204, 77),
                  align="center", max_width=width - 2 * MARGIN, shadow=(10, 30, 18))
    return canvas
