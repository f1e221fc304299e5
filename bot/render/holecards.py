"""The private hole-card image: two cards at full size on a strip of felt, the current hand
in words underneath once there is a board, and an optional caption naming the table."""

from __future__ import annotations

import functools

from PIL import Image, ImageChops, ImageDraw

from bot.render import assets
from bot.render.cardart import MASTER_SIZE
from bot.render.fonts import Weight, draw_text
from bot.render.model import HoleCardsView
from bot.render.theme import FELT_RAMP, RAIL_RAMP, through_ramp

__all__ = ["HOLE_WIDTH", "draw_hole_cards", "hole_card_boxes"]

MARGIN = 20
GAP = 16
HOLE_WIDTH = 2 * MARGIN + 2 * MASTER_SIZE[0] + GAP
CAPTION_HEIGHT = 34
HAND_HEIGHT = 48
CAPTION_SIZE = 18
HAND_SIZE = 24


def _height(caption: bool, hand: bool) -> int:
    return MARGIN + (CAPTION_HEIGHT if caption else 0) + MASTER_SIZE[1] + (
        HAND_HEIGHT if hand else 0) + MARGIN


@functools.lru_cache(maxsize=4)
def _background(caption: bool, hand: bool) -> Image.Image:
    w, h = HOLE_WIDTH, _height(caption, hand)
    light = ImageChops.invert(Image.radial_gradient("L").resize((w, h)))
    bg = through_ramp(light.point(lambda v: 60 + v * 3 // 4), FELT_RAMP)
    ImageDraw.Draw(bg).rectangle((0, 0, w - 1, h - 1), outline=RAIL_RAMP[len(RAIL_RAMP) // 2],
                                 width=4)
    return bg


def hole_card_boxes(view: HoleCardsView) -> tuple[tuple[int, int, int, int], ...]:
    """Where the two cards are drawn (for tests and anyone compositing the image)."""
    top = MARGIN + (CAPTION_HEIGHT if view.caption else 0)
    w, h = MASTER_SIZE
    return tuple((MARGIN + i * (w + GAP), top, MARGIN + i * (w + GAP) + w, top + h)
                 for i in range(2))


def draw_hole_cards(view: HoleCardsView) -> Image.Image:
    """The image as RGB."""
    canvas = _background(bool(view.caption), bool(view.hand_label or view.hand_name)).copy()
    if view.caption:
        draw_text(canvas, (HOLE_WIDTH / 2, MARGIN + 18), view.caption, CAPTION_SIZE,
                  (214, 226, 218), weight=Weight.REGULAR, align="center",
                  max_width=HOLE_WIDTH - 2 * MARGIN)
    for card, box in zip(view.cards, hole_card_boxes(view), strict=True):
        assets.blit(canvas, assets.card_image(card, view.deck, MASTER_SIZE), (box[0], box[1]))
    hand = view.hand_label or view.hand_name
    if hand:
        y = hole_card_boxes(view)[0][3] + 34
        draw_text(canvas, (HOLE_WIDTH / 2, y), hand, HAND_SIZE, (255, 204, 77),
                  align="center", max_width=HOLE_WIDTH - 2 * MARGIN, shadow=(10, 30, 18))
    return canvas
