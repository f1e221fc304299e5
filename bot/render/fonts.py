"""Text in any script without missing-glyph boxes.

Player names arrive in every script Discord allows. Pillow draws one font at a time and shows a
box (".notdef") for any character that font lacks, so text is split into grapheme clusters, each
cluster goes to the first bundled font whose character map covers it, and a cluster no font
covers (emoji, rare scripts) is drawn as a placeholder shape: a smiley disc for emoji, a dot
otherwise. Character maps are read from the font files themselves (``cmap`` formats 4 and 12),
so coverage can never drift from the fonts shipped in ``bot/fonts``.

Rendered text is cached as ``L`` masks keyed by (text, size, weight, width limit, faces): a
table is redrawn many times a hand with the same names and mostly the same numbers, and
FreeType is the slowest thing the renderer calls.

Chinese characters take the shapes of a region: Taiwan's standard writes 骨, 角 and 說 (and
centres its 「，。」) otherwise than the mainland's. An image is drawn in the faces of its
language: inside :func:`faces_for` ``"zh-TW"``, the Traditional Chinese face comes before the
Simplified one, which draws everything else (kana, hangul, the characters the Traditional
subset leaves out because their shapes are the same; see ``bot/fonts/README.md``).

FreeType faces are not safe to use from two threads at once, and rendering runs in a worker
thread pool, so every call into a font goes through ``_FT_LOCK``. Cached masks are never mutated
after creation, so sharing them between threads is safe.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import struct
import threading
import unicodedata
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont, features

__all__ = [
    "FONT_DIR",
    "Han",
    "TextSprite",
    "Weight",
    "chain",
    "clusters",
    "covering_font",
    "draw_text",
    "faces_for",
    "font",
    "han_for",
    "placeholder_clusters",
    "text_sprite",
]

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"


class Weight(StrEnum):
    REGULAR = "regular"
    BOLD = "bold"


class Han(StrEnum):
    """Whose standard shapes Chinese characters are drawn in."""

    SIMPLIFIED = "sc"
    TRADITIONAL = "tc"


# Scripts beyond Latin/Greek/Cyrillic/CJK come in one weight: names are drawn bold, and one
# weight keeps the bundle small. NotoSansMath is last: it holds the "𝓯𝓪𝓷𝓬𝔂" letters of the
# Mathematical Alphanumeric block that decorated Discord names are so fond of.
_EXTRA_SCRIPTS = (
    "NotoSansArabic-Bold.ttf",
    "NotoSansHebrew-Bold.ttf",
    "NotoSansThai-Bold.ttf",
    "NotoSansDevanagari-Bold.ttf",
    "NotoSansBengali-Bold.ttf",
    "NotoSansTamil-Bold.ttf",
    "NotoSansArmenian-Bold.ttf",
    "NotoSansGeorgian-Bold.ttf",
    "NotoSansKhmer-Bold.ttf",
    "NotoSansLao-Bold.ttf",
    "NotoSansMath-Regular.ttf",
)
FALLBACK_CHAINS: dict[Weight, tuple[str, ...]] = {
    Weight.REGULAR: ("NotoSans-Regular.ttf", "NotoSansCJKsc-Regular.otf", *_EXTRA_SCRIPTS),
    Weight.BOLD: ("NotoSans-Bold.ttf", "NotoSansCJKsc-Bold.otf", *_EXTRA_SCRIPTS),
}
# The Traditional face goes right after Noto Sans: Latin letters and digits keep their face.
TRADITIONAL_FACES: dict[Weight, str] = {
    Weight.REGULAR: "NotoSansCJKtc-Regular.otf",
    Weight.BOLD: "NotoSansCJKtc-Bold.otf",
}
_CHAINS: dict[tuple[Weight, Han], tuple[str, ...]] = {
    **{(weight, Han.SIMPLIFIED): names for weight, names in FALLBACK_CHAINS.items()},
    **{
        (weight, Han.TRADITIONAL): (names[0], TRADITIONAL_FACES[weight], *names[1:])
        for weight, names in FALLBACK_CHAINS.items()
    },
}
# The languages written in Taiwan's shapes (the catalogs' tags, as ``resolve_locale`` gives).
TRADITIONAL_LOCALES = frozenset({"zh-TW"})
_HAN: ContextVar[Han] = ContextVar("han", default=Han.SIMPLIFIED)

_LAYOUT = ImageFont.Layout.RAQM if features.check("raqm") else ImageFont.Layout.BASIC
_FT_LOCK = threading.RLock()
_ELLIPSIS = "…"
EMOJI = "emoji"
UNKNOWN = "unknown"


def chain(weight: Weight, han: Han = Han.SIMPLIFIED) -> tuple[str, ...]:
    """The font files tried in turn for a character, first to last."""
    return _CHAINS[(weight, han)]


def han_for(locale: str | None) -> Han:
    """
    >>> [han_for(tag).value for tag in ("zh-TW", "zh-CN", "en", None)]
    ['tc', 'sc', 'sc', 'sc']
    """
    return Han.TRADITIONAL if locale in TRADITIONAL_LOCALES else Han.SIMPLIFIED


@contextlib.contextmanager
def faces_for(locale: str | None) -> Iterator[Han]:
    """Draw text in the faces of ``locale`` inside the block (each image is drawn in one
    language; the renderer's entry points open the block with their words' language)."""
    token = _HAN.set(han_for(locale))
    try:
        yield _HAN.get()
    finally:
        _HAN.reset(token)


# --- character maps --------------------------------------------------------------------------


def _read_cmap_ranges(path: Path) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sorted (starts, ends) of the code points the font maps to a real glyph (inclusive)."""
    with path.open("rb") as fh:
        head = fh.read(12)
        (num_tables,) = struct.unpack(">H", head[4:6])
        records = fh.read(16 * num_tables)
        cmap_offset = cmap_length = None
        for i in range(num_tables):
            tag, _, offset, length = struct.unpack(">4sIII", records[16 * i : 16 * i + 16])
            if tag == b"cmap":
                cmap_offset, cmap_length = offset, length
        if cmap_offset is None or cmap_length is None:
            raise ValueError(f"{path.name}: no cmap table")
        fh.seek(cmap_offset)
        cmap = fh.read(cmap_length)
    (count,) = struct.unpack(">H", cmap[2:4])
    subtables: dict[tuple[int, int], int] = {}
    for i in range(count):
        platform, encoding, offset = struct.unpack(">HHI", cmap[4 + 8 * i : 12 + 8 * i])
        subtables[(platform, encoding)] = offset
    for key in ((3, 10), (0, 4), (0, 6)):
        if key in subtables:
            return _ranges(_format12(cmap, subtables[key]))
    for key in ((3, 1), (0, 3), (0, 1), (0, 0)):
        if key in subtables:
            return _ranges(_format4(cmap, subtables[key]))
    raise ValueError(f"{path.name}: no Unicode cmap subtable")


def _format12(cmap: bytes, offset: int) -> list[tuple[int, int]]:
    fmt, _, _, _, groups = struct.unpack(">HHIII", cmap[offset : offset + 16])
    if fmt != 12:
        raise ValueError(f"expected cmap format 12, got {fmt}")
    out = []
    for i in range(groups):
        start, end, glyph = struct.unpack(">III", cmap[offset + 16 + 12 * i : offset + 28 + 12 * i])
        if glyph == 0:
            start += 1  # only the first code point of a group can land on .notdef
        if start <= end:
            out.append((start, end))
    return out


def _format4(cmap: bytes, offset: int) -> list[tuple[int, int]]:
    fmt, _, _, seg_x2 = struct.unpack(">HHHH", cmap[offset : offset + 8])
    if fmt != 4:
        raise ValueError(f"expected cmap format 4, got {fmt}")
    segs = seg_x2 // 2
    base = offset + 14
    ends = struct.unpack(f">{segs}H", cmap[base : base + seg_x2])
    starts = struct.unpack(f">{segs}H", cmap[base + seg_x2 + 2 : base + 2 * seg_x2 + 2])
    deltas = struct.unpack(f">{segs}h", cmap[base + 2 * seg_x2 + 2 : base + 3 * seg_x2 + 2])
    ro_base = base + 3 * seg_x2 + 2
    range_offsets = struct.unpack(f">{segs}H", cmap[ro_base : ro_base + seg_x2])
    out = []
    for i in range(segs):
        start, end, delta, ro = starts[i], ends[i], deltas[i], range_offsets[i]
        if start == 0xFFFF:
            continue
        if ro == 0:
            for cp in range(start, end + 1):
                if (cp + delta) & 0xFFFF:
                    out.append((cp, cp))
            continue
        for cp in range(start, end + 1):
            at = ro_base + 2 * i + ro + 2 * (cp - start)
            (glyph,) = struct.unpack(">H", cmap[at : at + 2])
            if glyph and (glyph + delta) & 0xFFFF:
                out.append((cp, cp))
    return out


def _ranges(pairs: list[tuple[int, int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    pairs.sort()
    merged: list[list[int]] = []
    for start, end in pairs:
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple(m[0] for m in merged), tuple(m[1] for m in merged)


@functools.cache
def _coverage(filename: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return _read_cmap_ranges(FONT_DIR / filename)


def font_covers(filename: str, char: str) -> bool:
    starts, ends = _coverage(filename)
    cp = ord(char)
    i = bisect.bisect_right(starts, cp) - 1
    return i >= 0 and cp <= ends[i]


# --- clusters --------------------------------------------------------------------------------


def _is_extender(char: str) -> bool:
    """Characters that belong to the cluster before them rather than starting one."""
    cp = ord(char)
    return (
        unicodedata.category(char) in ("Mn", "Me", "Mc")
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors (emoji/text presentation)
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag sequences (subdivision flags)
        or 0xE0100 <= cp <= 0xE01EF
        or cp == 0x20E3  # keycap
    )


def _is_ignorable(char: str) -> bool:
    # Invisible when they stand alone; drawn as nothing rather than as a box.
    return unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Cn") and char != "\u200d"


def _is_regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def clusters(text: str) -> list[str]:
    """Split text into user-perceived characters, near enough for drawing and truncating:
    combining marks, variation selectors, skin tones, ZWJ sequences and flag pairs stay whole.
    Control and format characters are dropped; any whitespace becomes a space."""
    text = unicodedata.normalize("NFC", text)
    out: list[str] = []
    join_next = False
    for char in text:
        if char.isspace():
            char = " "
        if char == "\u200d":
            if out:
                out[-1] += char
                join_next = True
            continue
        if _is_ignorable(char):
            continue
        flag_pair = bool(out) and _is_regional(char) and len(out[-1]) == 1 and _is_regional(
            out[-1])
        if out and (join_next or _is_extender(char) or flag_pair):
            out[-1] += char
        else:
            out.append(char)
        join_next = False
    return out


def _is_emoji(cluster: str) -> bool:
    cp = ord(cluster[0])
    return (
        cp >= 0x1F000
        or 0x2600 <= cp <= 0x27BF
        or 0x2B00 <= cp <= 0x2BFF
        or "\ufe0f" in cluster
        or "\u200d" in cluster
        or "\u20e3" in cluster
    )


def _visible(cluster: str) -> str:
    """The characters of a cluster a font must have (selectors and joiners draw nothing)."""
    return "".join(
        c for c in cluster if not (0xFE00 <= ord(c) <= 0xFE0F or c == "\u200d")
    )


@functools.lru_cache(maxsize=8192)
def covering_font(cluster: str, weight: Weight = Weight.BOLD,
                  han: Han = Han.SIMPLIFIED) -> str | None:
    """The bundled font file that draws this cluster, or None if it needs a placeholder.

    Emoji with a presentation selector or a joiner never go to a text font: "❤️" has a
    black-and-white heart in the CJK font, but "👨‍👩‍👧" drawn glyph by glyph would be three
    boxes or three unrelated people.
    """
    needed = _visible(cluster)
    if not needed:
        return None
    if _is_emoji(cluster) and ("\u200d" in cluster or ord(cluster[0]) >= 0x1F000):
        return None
    names = chain(weight, han)
    for name in names:
        if all(font_covers(name, c) for c in needed):
            return name
    for name in names:
        if font_covers(name, needed[0]):
            return name
    return None


def placeholder_clusters(text: str, weight: Weight = Weight.BOLD) -> list[str]:
    """The clusters of ``text`` that are drawn as placeholder shapes (no bundled font has them)."""
    han = _HAN.get()
    return [c for c in clusters(text) if c != " " and covering_font(c, weight, han) is None]


# --- fonts and sprites -----------------------------------------------------------------------

_fonts: dict[tuple[str, int], ImageFont.FreeTypeFont] = {}


def font(filename: str, size: int) -> ImageFont.FreeTypeFont:
    """A cached FreeType font. Callers must hold ``_FT_LOCK`` while they use it."""
    key = (filename, size)
    found = _fonts.get(key)
    if found is None:
        with _FT_LOCK:
            found = _fonts.get(key)
            if found is None:
                found = ImageFont.truetype(str(FONT_DIR / filename), size, layout_engine=_LAYOUT)
                _fonts[key] = found
    return found


@dataclass(frozen=True, slots=True)
class _Run:
    text: str
    font: str | None  # None: a placeholder shape
    kind: str = ""  # EMOJI or UNKNOWN for placeholders


@dataclass(frozen=True, slots=True)
class TextSprite:
    """Rendered text: an ``L`` mask, the baseline's y inside it, and where the pen starts.

    Paste it with its top-left at ``(x - origin, baseline_y - baseline)``.
    """

    mask: Image.Image
    baseline: int
    origin: int
    width: int
    text: str
    truncated: bool


def _runs(items: list[str], weight: Weight, han: Han) -> list[_Run]:
    runs: list[_Run] = []
    for cluster in items:
        name = covering_font(cluster, weight, han) if cluster != " " else chain(weight)[0]
        if name is None:
            runs.append(_Run(cluster, None, EMOJI if _is_emoji(cluster) else UNKNOWN))
        elif runs and runs[-1].font == name:
            runs[-1] = _Run(runs[-1].text + cluster, name)
        else:
            runs.append(_Run(cluster, name))
    return runs


def _placeholder_width(size: int) -> int:
    return round(size * 0.92)


def _measure(runs: list[_Run], size: int) -> float:
    total = 0.0
    for run in runs:
        if run.font is None:
            total += _placeholder_width(size)
        else:
            total += font(run.font, size).getlength(run.text)
    return total


def _draw_placeholder(draw: ImageDraw.ImageDraw, x: float, baseline: int, size: int,
                      kind: str) -> None:
    w = _placeholder_width(size)
    if kind == EMOJI:
        # A smiley silhouette: a disc with the eyes and mouth cut out — reads as "an emoji".
        d = size * 0.78
        x0 = x + (w - d) / 2
        y0 = baseline - size * 0.74
        draw.ellipse((x0, y0, x0 + d, y0 + d), fill=255)
        e = d * 0.14
        for ex in (0.33, 0.67):
            cx, cy = x0 + d * ex, y0 + d * 0.38
            draw.ellipse((cx - e / 2, cy - e * 0.7, cx + e / 2, cy + e * 0.7), fill=0)
        draw.arc((x0 + d * 0.24, y0 + d * 0.3, x0 + d * 0.76, y0 + d * 0.78), 20, 160, fill=0,
                 width=max(1, round(d * 0.09)))
    else:
        d = size * 0.42
        x0 = x + (w - d) / 2
        y0 = baseline - size * 0.36 - d / 2
        draw.ellipse((x0, y0, x0 + d, y0 + d), fill=255)


def _render(runs: list[_Run], size: int, text: str, truncated: bool) -> TextSprite:
    primary = font(chain(Weight.REGULAR)[0], size)
    ascent, descent = primary.getmetrics()
    for run in runs:
        if run.font is not None:
            a, d = font(run.font, size).getmetrics()
            ascent, descent = max(ascent, a), max(descent, d)
    pad = max(2, size // 6)  # room for glyphs that overhang their advance
    width = _measure(runs, size)
    mask = Image.new("L", (int(width) + 2 * pad + 1, ascent + descent + 2), 0)
    draw = ImageDraw.Draw(mask)
    baseline = ascent + 1
    x: float = pad
    for run in runs:
        if run.font is None:
            _draw_placeholder(draw, x, baseline, size, run.kind)
            x += _placeholder_width(size)
        else:
            face = font(run.font, size)
            draw.text((x, baseline), run.text, font=face, fill=255, anchor="ls")
            x += face.getlength(run.text)
    return TextSprite(mask, baseline, pad, round(width), text, truncated)


def text_sprite(text: str, size: int, weight: Weight = Weight.BOLD,
                max_width: int | None = None) -> TextSprite:
    """Text drawn as a mask, shortened with "…" to fit ``max_width`` pixels if given, in the
    faces of the language being drawn (:func:`faces_for`)."""
    return _text_sprite(text, size, weight, max_width, _HAN.get())


@functools.lru_cache(maxsize=4096)
def _text_sprite(text: str, size: int, weight: Weight, max_width: int | None,
                 han: Han) -> TextSprite:
    items = clusters(text)
    with _FT_LOCK:
        runs = _runs(items, weight, han)
        if max_width is None or _measure(runs, size) <= max_width:
            return _render(runs, size, "".join(items), False)
        ellipsis = [_ELLIPSIS]
        lo, hi = 0, len(items)  # the longest prefix that fits with the ellipsis: binary search
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if _measure(_runs([*items[:mid], *ellipsis], weight, han), size) <= max_width:
                lo = mid
            else:
                hi = mid - 1
        kept = items[:lo]
        while kept and kept[-1] == " ":
            kept.pop()
        shown = [*kept, _ELLIPSIS]
        return _render(_runs(shown, weight, han), size, "".join(shown), True)


def draw_text(canvas: Image.Image, xy: tuple[float, float], text: str, size: int,
              fill: tuple[int, ...], *, weight: Weight = Weight.BOLD, align: str = "left",
              max_width: int | None = None, shadow: tuple[int, ...] | None = None) -> TextSprite:
    """Draw ``text`` with its baseline at ``xy[1]``; ``align`` places ``xy[0]`` at the left,
    centre or right of the text. Returns the sprite (its ``width`` tells the space used)."""
    sprite = text_sprite(text, size, weight, max_width)
    x, y = xy
    if align == "center":
        x -= sprite.width / 2
    elif align == "right":
        x -= sprite.width
    left = round(x) - sprite.origin
    top = round(y) - sprite.baseline
    if shadow is not None:
        canvas.paste(shadow, (left + 1, top + 2), sprite.mask)
    canvas.paste(fill, (left, top), sprite.mask)
    return sprite
