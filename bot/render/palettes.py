"""The fixed palettes the PNG encoder maps colours to (see :mod:`bot.render.encode`).

Palettes are not computed per image (adaptive quantizing would blow the time budget) but
once per process:

* the shades of the background ramps (:mod:`bot.render.theme`) are reserved exactly — the
  backgrounds are drawn in those shades only — so gradients never band;
* the other entries come from sample images that use every colour the renderer draws (both
  decks, every badge, glow and marker). Colours count once each, with a weight growing slowly
  with their pixel count, so the anti-aliasing ramps of small text count as much as large
  areas; median cut plus a little k-means then gives a worst error on the samples of about
  twenty levels out of 255, with no visible difference.

Palettes are deterministic, so the same view always gives the same bytes. Building one means
drawing a set of sample tables, which costs seconds and tens of megabytes that the process never
gives back; so ``python -m bot.render cards`` writes them next to the card art (768 bytes each)
and the bot loads those, building in memory only when the files are missing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from PIL import Image

from bot.render import samples
from bot.render.assets import CARD_DIR
from bot.render.holecards import draw_hole_cards
from bot.render.model import DeckStyle
from bot.render.table import draw_table
from bot.render.theme import BACKGROUND_SHADES, FELT_RAMP, RAIL_RAMP, RGB

__all__ = ["build_palettes", "hole_palette", "palette_file", "table_palette", "write_palettes"]

_lock = threading.Lock()
_palettes: dict[str, Image.Image] = {}


def _palette_from(images: Iterable[Image.Image], reserved: Sequence[RGB]) -> Image.Image:
    keep = list(dict.fromkeys(reserved))
    taken = set(keep)
    colours: dict[RGB, int] = {}
    for image in images:
        found = image.convert("RGB").getcolors(1 << 24)
        assert found is not None  # getcolors only gives up above maxcolors
        for count, colour in found:
            rgb = (int(colour[0]), int(colour[1]), int(colour[2]))  # type: ignore[index]
            if rgb not in taken:
                colours[rgb] = colours.get(rgb, 0) + count
    pixels: list[RGB] = []
    for rgb, count in sorted(colours.items()):
        pixels.extend([rgb] * (1 + int(count**0.5)))
    strip = Image.new("RGB", (len(pixels), 1))
    strip.putdata(pixels)
    free = 256 - len(keep)
    rest = strip.quantize(free, method=Image.Quantize.MEDIANCUT, kmeans=2,
                          dither=Image.Dither.NONE)
    flat = [v for rgb in keep for v in rgb] + (rest.getpalette() or [])[: 3 * free]
    flat += [0] * (768 - len(flat))
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat)
    return palette


def palette_file(name: str, folder: Path = CARD_DIR) -> Path:
    return folder / "palettes" / f"{name}.pal"


def _from_bytes(raw: bytes) -> Image.Image:
    palette = Image.new("P", (1, 1))
    palette.putpalette(list(raw))
    return palette


def _cached(name: str, build: Callable[[], Image.Image]) -> Image.Image:
    found = _palettes.get(name)
    if found is None:
        with _lock:
            found = _palettes.get(name)
            if found is None:
                path = palette_file(name)
                raw = path.read_bytes() if path.is_file() else b""
                found = _from_bytes(raw) if len(raw) == 768 else build()
                _palettes[name] = found
    return found


def build_palettes() -> dict[str, bytes]:
    """Both palettes computed afresh from the sample drawings (what the committed files hold)."""
    table = _palette_from(_table_samples(), BACKGROUND_SHADES)
    hole = _palette_from(_hole_samples(), (*FELT_RAMP, *RAIL_RAMP))
    return {
        "table": bytes((table.getpalette() or [])[:768]),
        "hole": bytes((hole.getpalette() or [])[:768]),
    }


def write_palettes(folder: Path = CARD_DIR) -> list[Path]:
    written = []
    for name, raw in build_palettes().items():
        path = palette_file(name, folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        written.append(path)
    return written


def _table_samples() -> list[Image.Image]:
    return [draw_table(view) for view in samples.palette_views()]


def _hole_samples() -> list[Image.Image]:
    images = []
    for deck in DeckStyle:
        images.append(samples.deck_sheet(deck))
        images.append(draw_hole_cards(samples.hole_cards(deck)))
    return images


def table_palette() -> Image.Image:
    """The table images' palette (mode ``P``), built on first use (about a second)."""
    return _cached("table", lambda: _palette_from(_table_samples(), BACKGROUND_SHADES))


def hole_palette() -> Image.Image:
    """The hole-card images' palette (mode ``P``), built on first use."""
    return _cached("hole", lambda: _palette_from(_hole_samples(), (*FELT_RAMP, *RAIL_RAMP)))


