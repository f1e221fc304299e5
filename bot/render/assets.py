"""Card images, loaded once and scaled once per size.

The committed PNGs in ``card_images/`` are used when present (a source checkout or an editable
install). A wheel does not carry that top-level folder, so when it is missing the same art is
drawn in memory by :mod:`bot.render.cardart` — slower to start, identical to look at.

Every image handed out is shared between threads and must be treated as read-only.
"""

from __future__ import annotations

import threading
from pathlib import Path

from PIL import Image

from bot.render import cardart
from bot.render.model import DeckStyle

__all__ = ["CARD_DIR", "blit", "card_alpha", "card_image", "deck"]

CARD_DIR = Path(__file__).resolve().parents[2] / "card_images"

_lock = threading.Lock()
_decks: dict[tuple[DeckStyle, tuple[int, int]], dict[str, Image.Image]] = {}


def _load_master(style: DeckStyle) -> dict[str, Image.Image]:
    folder = CARD_DIR / style.value
    names = [*cardart.card_codes(), "back"]
    if all((folder / f"{name}.png").is_file() for name in names):
        out = {}
        for name in names:
            with Image.open(folder / f"{name}.png") as img:
                out[name] = img.convert("RGBA")  # convert() also forces the lazy load
        return out
    return cardart.deck_images(style)


def deck(style: DeckStyle, size: tuple[int, int] = cardart.MASTER_SIZE) -> dict[str, Image.Image]:
    """Every card face (``"As"``…) and ``"back"`` of a style at ``size``, as RGBA."""
    key = (style, size)
    found = _decks.get(key)
    if found is not None:
        return found
    with _lock:
        found = _decks.get(key)
        if found is None:
            master_key = (style, cardart.MASTER_SIZE)
            master = _decks.get(master_key)
            if master is None:
                master = _load_master(style)
                _decks[master_key] = master
            if size == cardart.MASTER_SIZE:
                found = master
            else:
                found = {
                    name: img.resize(size, Image.Resampling.LANCZOS)
                    for name, img in master.items()
                }
            _decks[key] = found
    return found


def card_image(card: str | None, style: DeckStyle, size: tuple[int, int]) -> Image.Image:
    """One card at ``size``; ``None`` gives the back."""
    return deck(style, size)["back" if card is None else card]


_alphas: dict[tuple[tuple[int, int], int], Image.Image] = {}


def card_alpha(size: tuple[int, int], opacity: int) -> Image.Image:
    """The card outline (rounded corners) as an ``L`` mask scaled to ``opacity`` (0-255):
    pasting black through it dims a card without darkening the felt at its corners."""
    key = (size, opacity)
    found = _alphas.get(key)
    if found is None:
        alpha = deck(DeckStyle.CLASSIC, size)["back"].getchannel("A")
        found = alpha.point(lambda v: v * opacity // 255)
        _alphas[key] = found
    return found


class _Parts:
    """A sprite cut into its fully opaque middle band, pasted as a plain copy, and the two
    side strips that hold the rounded corners, pasted through their alpha.

    Blending costs several times a copy, and cards and name plates are opaque but for their
    corners: this keeps most of their pixels on the fast path. The result is identical.
    """

    __slots__ = ("core", "core_x", "left", "right", "right_x", "source")

    def __init__(self, sprite: Image.Image) -> None:
        self.source = sprite  # held so that the id() key below is never reused
        alpha = sprite.getchannel("A")
        w, h = sprite.size
        full = [alpha.crop((x, 0, x + 1, h)).getextrema() == (255, 255) for x in range(w)]
        x0 = next((x for x in range(w) if full[x]), w)
        x1 = next((x for x in range(w - 1, -1, -1) if full[x]), -1) + 1
        if x1 <= x0 or not all(full[x0:x1]):
            x0 = x1 = 0
        self.core = sprite.crop((x0, 0, x1, h)).convert("RGB") if x1 > x0 else None
        self.core_x = x0
        self.left = sprite.crop((0, 0, x0, h)) if x0 else None
        self.right = sprite.crop((x1, 0, w, h)) if x1 and x1 < w else None
        self.right_x = x1
        if self.core is None:
            self.left, self.right = sprite, None


_parts: dict[int, _Parts] = {}


def blit(canvas: Image.Image, sprite: Image.Image, xy: tuple[int, int]) -> None:
    """Paste an RGBA sprite that never changes (cards, plates) at ``xy`` through its alpha."""
    parts = _parts.get(id(sprite))
    if parts is None or parts.source is not sprite:
        parts = _parts[id(sprite)] = _Parts(sprite)
    x, y = xy
    if parts.left is not None:
        canvas.paste(parts.left, (x, y), parts.left)
    if parts.core is not None:
        canvas.paste(parts.core, (x + parts.core_x, y))
    if parts.right is not None:
        canvas.paste(parts.right, (x + parts.right_x, y), parts.right)
