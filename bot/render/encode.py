"""PNG encoding within the size and time budgets.

A true-colour PNG of the 1280x800 table costs too much to deflate for the 15 ms budget (the
adaptive per-row filters alone take most of it), and even the small hole-card image misses its
3 ms that way. Both images are therefore written as 8-bit palette PNGs: one byte a pixel, no
filtering, each colour mapped to the nearest entry of a fixed palette
(:mod:`bot.render.palettes`, which sits above the drawing modules it samples).
"""

from __future__ import annotations

import io
import threading

from PIL import Image

__all__ = ["encode_palette_png", "encode_png"]

_local = threading.local()


def _own_copy(palette: Image.Image) -> Image.Image:
    """This thread's copy of a palette.

    Pillow fills a palette's colour-lookup cache while mapping, with the GIL released; a copy
    per worker thread keeps two threads from writing one cache at the same time.
    """
    copies: dict[int, Image.Image] | None = getattr(_local, "copies", None)
    if copies is None:
        copies = _local.copies = {}
    mine = copies.get(id(palette))
    if mine is None:
        mine = copies[id(palette)] = palette.copy()
    return mine


def encode_palette_png(img: Image.Image, palette: Image.Image, compress_level: int = 2) -> bytes:
    """RGB image -> palette PNG bytes, each colour mapped to the nearest palette entry."""
    quantized = img.quantize(palette=_own_copy(palette), dither=Image.Dither.NONE)
    out = io.BytesIO()
    quantized.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()


def encode_png(img: Image.Image, compress_level: int = 6) -> bytes:
    """Image -> true-colour PNG bytes (sample sheets, where size matters more than time)."""
    out = io.BytesIO()
    img.save(out, "PNG", compress_level=compress_level)
    return out.getvalue()
