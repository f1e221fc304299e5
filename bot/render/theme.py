"""Shared colour ramps for the backgrounds.

Backgrounds are drawn only in the shades of these ramps, and the palette PNG encoder reserves
exactly these shades, so gradients neither band nor pick up stray colours when quantized.
"""

from __future__ import annotations

from PIL import Image

__all__ = ["BACKGROUND_SHADES", "FELT_RAMP", "RAIL_RAMP", "RGB", "ROOM_RAMP", "through_ramp"]

RGB = tuple[int, int, int]


def _ramp(dark: RGB, light: RGB) -> tuple[RGB, ...]:
    """Shades from ``dark`` to ``light`` moving one channel by 4 at each step.

    Every channel stays a multiple of 4 because Pillow maps colours to a palette through a
    cache of 4x4x4 cells computed at the cells' corners: shades on those corners map to
    themselves exactly, and no two shades share a cell. (Finer steps cannot survive that
    mapping; steps that trade one channel against another to even out brightness were tried
    and showed as rings of shifting hue, which look worse than faint rings of brightness.)
    """
    if any(v % 4 for v in (*dark, *light)):
        raise ValueError("ramp ends must be multiples of 4")
    spans = [(lt - d) // 4 for d, lt in zip(dark, light, strict=True)]
    total = sum(abs(n) for n in spans)
    done = [0, 0, 0]
    shade = list(dark)
    out: list[RGB] = [dark]
    for step in range(1, total + 1):
        progress = step / total
        # Advance the channel furthest behind its share, so the walk hugs the straight line.
        ch = max(range(3), key=lambda c: abs(spans[c]) * progress - done[c] if spans[c] else -1)
        done[ch] += 1
        shade[ch] += 4 if spans[ch] > 0 else -4
        out.append((shade[0], shade[1], shade[2]))
    return tuple(out)


ROOM_RAMP = _ramp((4, 4, 8), (28, 32, 40))
RAIL_RAMP = _ramp((40, 24, 16), (104, 72, 48))
FELT_RAMP = _ramp((12, 64, 36), (36, 128, 72))
BACKGROUND_SHADES = ROOM_RAMP + RAIL_RAMP + FELT_RAMP


def through_ramp(level: Image.Image, ramp: tuple[RGB, ...]) -> Image.Image:
    """Map an ``L`` brightness image (0 dark .. 255 light) onto the ramp's shades."""
    n = len(ramp)
    index = [min(n - 1, v * n // 256) for v in range(256)]
    return Image.merge("RGB", [level.point([ramp[i][ch] for i in index]) for ch in range(3)])
