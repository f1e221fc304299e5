"""The card art: 52 faces and a back per deck style, drawn from shapes.

``python -m bot.render cards`` writes them to ``card_images/<style>/`` (``As.png`` … ``back.png``)
at :data:`MASTER_SIZE`, the size of the private hole-card image; the table pastes copies scaled
down once at load. Suits are polygons and ellipses, never font glyphs, so no font can turn them
into boxes. Everything is drawn at :data:`SUPERSAMPLE` times the size and scaled down, which
anti-aliases Pillow's hard-edged polygons.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.render.model import RANKS, SUITS, DeckStyle

__all__ = [
    "MASTER_SIZE",
    "SUIT_COLORS",
    "card_codes",
    "draw_back",
    "draw_face",
    "draw_suit",
    "write_deck",
]

MASTER_SIZE = (160, 224)
SUPERSAMPLE = 4
FONT_PATH = Path(__file__).resolve().parent.parent / "fonts" / "NotoSans-Bold.ttf"

Color = tuple[int, int, int]
Point = tuple[float, float]

_BLACK: Color = (22, 22, 28)
_RED: Color = (204, 22, 42)
_BLUE: Color = (24, 84, 204)
_GREEN: Color = (20, 130, 50)

SUIT_COLORS: dict[DeckStyle, dict[str, Color]] = {
    DeckStyle.CLASSIC: {"s": _BLACK, "c": _BLACK, "h": _RED, "d": _RED},
    DeckStyle.FOUR_COLOR: {"s": _BLACK, "c": _GREEN, "h": _RED, "d": _BLUE},
}
# Backs differ per deck so a glance at the table tells which deck it is.
_BACK_COLORS: dict[DeckStyle, tuple[Color, Color]] = {
    DeckStyle.CLASSIC: ((150, 24, 40), (182, 52, 66)),
    DeckStyle.FOUR_COLOR: ((26, 62, 138), (56, 96, 176)),
}
_FACE = (253, 253, 250)
_EDGE = (150, 150, 156)


def card_codes() -> list[str]:
    """Every card string, ``"2c"`` … ``"As"``, in engine order (rank-major, suits c d h s)."""
    return [rank + suit for rank in RANKS for suit in SUITS]


# --- suit shapes, in a unit square (0..1), y down -------------------------------------------


def _heart_outline(samples: int = 96) -> list[Point]:
    # The classic parametric heart; its lobes and point read as a heart even at 8 px.
    pts = []
    for i in range(samples):
        t = 2 * math.pi * i / samples
        x = 16 * math.sin(t) ** 3
        y = -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t))
        pts.append((x, y))
    return _normalise(pts)


def _normalise(pts: list[Point]) -> list[Point]:
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    return [((x - x0) / (x1 - x0), (y - y0) / (y1 - y0)) for x, y in pts]


def _quad(p0: Point, c: Point, p1: Point, steps: int = 12) -> list[Point]:
    out = []
    for i in range(steps):
        t = i / steps
        a, b, d = (1 - t) ** 2, 2 * (1 - t) * t, t * t
        out.append((a * p0[0] + b * c[0] + d * p1[0], a * p0[1] + b * c[1] + d * p1[1]))
    return out


def _stem(top: float, half_top: float, half_bottom: float) -> list[Point]:
    # A flared foot with concave sides, the way printed spades and clubs stand.
    left, right = [], []
    steps = 12
    for i in range(steps + 1):
        s = i / steps
        half = half_top + (half_bottom - half_top) * s**2.2
        y = top + (1.0 - top) * s
        left.append((0.5 - half, y))
        right.append((0.5 + half, y))
    return left + right[::-1]


_HEART = _heart_outline()
_SPADE_BODY = [(x, 1.0 - y) for x, y in _HEART]


def _diamond() -> list[Point]:
    top, right, bottom, left = (0.5, 0.0), (0.9, 0.5), (0.5, 1.0), (0.1, 0.5)
    pull = 0.1  # concave sides: the control point sits inside the straight edge

    def ctrl(a: Point, b: Point) -> Point:
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        return (mx + (0.5 - mx) * pull * 2, my + (0.5 - my) * pull * 2)

    pts: list[Point] = []
    for a, b in ((top, right), (right, bottom), (bottom, left), (left, top)):
        pts += _quad(a, ctrl(a, b), b)
    return pts


_DIAMOND = _diamond()


def draw_suit(
    draw: ImageDraw.ImageDraw, suit: str, box: tuple[float, float, float, float], fill: Color
) -> None:
    """Draw one suit shape filling ``box`` (x0, y0, x1, y1), aspect kept, centred."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    aspect = {"h": 1.08, "d": 0.8, "s": 0.92, "c": 1.0}[suit]  # width / height
    if w / h > aspect:
        nw, nh = h * aspect, h
    else:
        nw, nh = w, w / aspect
    ox, oy = x0 + (w - nw) / 2, y0 + (h - nh) / 2

    def tr(points: Iterable[Point], sx: float = 1.0, sy: float = 1.0,
           dy: float = 0.0) -> list[Point]:
        return [(ox + px * sx * nw, oy + (py * sy + dy) * nh) for px, py in points]

    if suit == "h":
        draw.polygon(tr(_HEART), fill=fill)
    elif suit == "d":
        draw.polygon(tr(_DIAMOND), fill=fill)
    elif suit == "s":
        draw.polygon(tr(_SPADE_BODY, sy=0.8), fill=fill)
        draw.polygon(tr(_stem(0.55, 0.035, 0.2)), fill=fill)
    elif suit == "c":
        r = 0.235
        for cx, cy in ((0.5, 0.25), (0.255, 0.56), (0.745, 0.56)):
            draw.ellipse(
                (ox + (cx - r) * nw, oy + (cy - r) * nh, ox + (cx + r) * nw, oy + (cy + r) * nh),
                fill=fill,
            )
        draw.polygon(tr([(0.5, 0.3), (0.3, 0.6), (0.7, 0.6)]), fill=fill)
        draw.polygon(tr(_stem(0.5, 0.04, 0.2)), fill=fill)
    else:
        raise ValueError(f"unknown suit {suit!r}")


# --- faces -----------------------------------------------------------------------------------


def _rank_label(rank: str) -> str:
    return "10" if rank == "T" else rank


def _rank_image(rank: str, color: Color, height: int, max_width: int) -> Image.Image:
    """The rank index as an RGBA sprite of the given cap height, squeezed if too wide.

    "10" is two glyphs in a one-glyph column; printed decks condense it, so do we.
    """
    font = ImageFont.truetype(str(FONT_PATH), int(height / 0.714))
    text = _rank_label(rank)
    left, top, right, bottom = (round(v) for v in font.getbbox(text, anchor="ls"))
    sprite = Image.new("RGBA", (right - left + 2, bottom - top + 2), (*color, 0))
    ImageDraw.Draw(sprite).text((1 - left, 1 - top), text, font=font, fill=(*color, 255),
                                anchor="ls")
    if sprite.width > max_width:
        sprite = sprite.resize((max_width, sprite.height), Image.Resampling.LANCZOS)
    return sprite


def _crown(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: Color,
           points: int) -> None:
    # A small crown over the court cards' pip: enough to tell K/Q/J panels apart at a glance.
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    base = y1 - h * 0.3
    pts: list[Point] = [(x0, y1), (x0, base)]
    for i in range(points):
        px = x0 + w * (i + 0.5) / points
        pts += [(px - w * 0.5 / points * 0.55, y0 + h * 0.45), (px, y0 + h * 0.12),
                (px + w * 0.5 / points * 0.55, y0 + h * 0.45)]
    pts += [(x1, base), (x1, y1)]
    draw.polygon(pts, fill=fill)
    r = h * 0.12
    for i in range(points):
        px = x0 + w * (i + 0.5) / points
        draw.ellipse((px - r, y0 + h * 0.12 - r, px + r, y0 + h * 0.12 + r), fill=fill)


def _tint(color: Color, amount: float) -> Color:
    r, g, b = color
    return (
        round(_FACE[0] + (r - _FACE[0]) * amount),
        round(_FACE[1] + (g - _FACE[1]) * amount),
        round(_FACE[2] + (b - _FACE[2]) * amount),
    )


def _blank(size: tuple[int, int], fill: Color, edge: Color) -> tuple[Image.Image, float]:
    ss = SUPERSAMPLE
    w, h = size[0] * ss, size[1] * ss
    img = Image.new("RGBA", (w, h), (*fill, 0))
    radius = size[0] * 0.08 * ss
    ImageDraw.Draw(img).rounded_rectangle(
        (0, 0, w - 1, h - 1), radius=radius, fill=(*fill, 255), outline=(*edge, 255),
        width=max(ss, round(size[0] / 80 * ss)),
    )
    return img, ss * size[0] / MASTER_SIZE[0]


def draw_face(card: str, style: DeckStyle, size: tuple[int, int] = MASTER_SIZE) -> Image.Image:
    """One card face as RGBA at ``size``: big rank and suit top-left, a large pip bottom-right
    (on a framed panel with a crown for the court cards) — readable on a phone at 40 px wide."""
    rank, suit = card[0], card[1]
    color = SUIT_COLORS[style][suit]
    img, u = _blank(size, _FACE, _EDGE)  # u: supersampled pixels per master pixel
    draw = ImageDraw.Draw(img)

    rank_sprite = _rank_image(rank, color, round(54 * u), round(60 * u))
    col_center = 37 * u
    img.alpha_composite(rank_sprite, (round(col_center - rank_sprite.width / 2), round(12 * u)))
    draw_suit(draw, suit, (col_center - 22 * u, 78 * u, col_center + 22 * u, 120 * u), color)

    if rank in "JQK":
        panel = (72 * u, 110 * u, 150 * u, 214 * u)
        draw.rounded_rectangle(panel, radius=10 * u, fill=_tint(color, 0.12),
                               outline=color, width=round(3 * u))
        _crown(draw, (88 * u, 120 * u, 134 * u, 146 * u), color, {"K": 5, "Q": 4, "J": 3}[rank])
        draw_suit(draw, suit, (84 * u, 152 * u, 138 * u, 204 * u), color)
    elif rank == "A":
        draw_suit(draw, suit, (68 * u, 110 * u, 152 * u, 212 * u), color)
    else:
        draw_suit(draw, suit, (78 * u, 124 * u, 148 * u, 208 * u), color)
    return img.resize(size, Image.Resampling.LANCZOS)


def draw_back(style: DeckStyle, size: tuple[int, int] = MASTER_SIZE) -> Image.Image:
    """The card back: a white border round a lattice, a spade medallion in the middle."""
    dark, light = _BACK_COLORS[style]
    img, u = _blank(size, (250, 250, 248), _EDGE)
    draw = ImageDraw.Draw(img)
    inset = 9 * u
    w, h = img.size
    inner = (inset, inset, w - 1 - inset, h - 1 - inset)
    field = Image.new("RGBA", img.size, (0, 0, 0, 0))
    fdraw = ImageDraw.Draw(field)
    fdraw.rectangle((0, 0, w, h), fill=(*dark, 255))
    step = 16 * u
    line = max(1, round(2.2 * u))
    span = w + h
    k: float = -span
    while k < span:
        fdraw.line((k, 0, k + h, h), fill=(*light, 255), width=line)
        fdraw.line((k + h, 0, k, h), fill=(*light, 255), width=line)
        k += step
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle(inner, radius=7 * u, fill=255)
    img.paste(field, (0, 0), mask)
    cx, cy = w / 2, h / 2
    rx, ry = 40 * u, 52 * u
    draw.ellipse((cx - rx, cy - ry, cx + rx, cy + ry), fill=(*dark, 255),
                 outline=(250, 250, 248, 255), width=round(4 * u))
    draw_suit(draw, "s", (cx - 24 * u, cy - 28 * u, cx + 24 * u, cy + 28 * u), (250, 250, 248))
    return img.resize(size, Image.Resampling.LANCZOS)


def deck_images(style: DeckStyle, size: tuple[int, int] = MASTER_SIZE) -> dict[str, Image.Image]:
    """All 52 faces and ``"back"`` for one style, drawn now (no files involved)."""
    out = {code: draw_face(code, style, size) for code in card_codes()}
    out["back"] = draw_back(style, size)
    return out


def write_deck(out_dir: Path, progress: Callable[[str], None] | None = None) -> list[Path]:
    """Draw both decks into ``out_dir/<style>/<card>.png``; returns the files written.

    Output is deterministic for a given Pillow/FreeType: the same inputs give the same bytes.
    """
    written = []
    for style in DeckStyle:
        folder = out_dir / style.value
        folder.mkdir(parents=True, exist_ok=True)
        for code, image in deck_images(style).items():
            path = folder / f"{code}.png"
            image.save(path, "PNG", optimize=True)
            written.append(path)
        if progress is not None:
            progress(f"{folder}: {len(card_codes()) + 1} images")
    return written
