"""``python -m bot.fonts.build DIR``: make the Traditional Chinese face,
``NotoSansCJKtc-{Regular,Bold}.otf``, from the Noto Sans CJK collections in ``DIR`` (Debian's
``fonts-noto-cjk``: ``NotoSansCJK-Regular.ttc`` and ``NotoSansCJK-Bold.ttc``), as the files
committed here were made. It needs fontTools, which is not a dependency of the bot::

    apt-get download fonts-noto-cjk && dpkg-deb -x fonts-noto-cjk_*.deb x
    python -m venv /tmp/fonttools && /tmp/fonttools/bin/pip install fonttools
    /tmp/fonttools/bin/python -m bot.fonts.build x/usr/share/fonts/opentype/noto

The collection's faces share their glyphs; each face maps characters to the shapes of its
region. The bundled Simplified Chinese face draws every character in the mainland's shapes, so
the Traditional face needs only the characters whose Taiwan shape differs (骨, 角, 說, the
centred 「，。」 …): the rest would be the same glyphs twice. What is kept
(:func:`wanted` and :func:`kept`):

- every character of the zh-TW catalog, so the bot's own words are drawn by one face;
- the common Traditional characters, Big5's level 1 (5,401, the characters of everyday
  Taiwanese text, names included) and its symbols (406), where the Taiwan shape differs from
  the one the Simplified face has.

A character outside both is drawn by the Simplified face (then by the other fallbacks).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bot.i18n import catalog

FONT_DIR = Path(__file__).resolve().parent
TRADITIONAL = "Noto Sans CJK TC"
SIMPLIFIED = "Noto Sans CJK SC"
WEIGHTS = ("Regular", "Bold")
# Big5 ranges: symbols A140-A3BF, level 1 (common characters) A440-C67E.
BIG5_SYMBOLS = (0xA140, 0xA3BF)
BIG5_LEVEL_1 = (0xA440, 0xC67E)
# What horizontal text needs; the same features as the Simplified face's subset keeps.
LAYOUT_FEATURES = ("ccmp", "kern", "liga", "calt")


def traditional_file(weight: str) -> str:
    return f"NotoSansCJKtc-{weight}.otf"


def big5(first: int, last: int) -> frozenset[str]:
    """The characters of a range of Big5 codes.

    >>> sorted(big5(0xA440, 0xA442)), len(big5(*BIG5_LEVEL_1))
    (['一', '丁', '乙'], 5401)
    """
    found = set()
    for code in range(first, last + 1):
        try:
            found.add(code.to_bytes(2, "big").decode("big5"))
        except UnicodeDecodeError:
            continue  # not a code Big5 assigns
    return frozenset(found)


def catalog_characters(tag: str = "zh-TW") -> frozenset[str]:
    """Every character of a catalog's messages beyond ASCII (which Noto Sans draws first)."""
    return frozenset(c for text in catalog(tag).values() for c in text if ord(c) > 0x7F)


def common_characters() -> frozenset[str]:
    return big5(*BIG5_SYMBOLS) | big5(*BIG5_LEVEL_1)


def wanted() -> frozenset[str]:
    """Every character the Traditional face is asked for (before the shapes are compared)."""
    return catalog_characters() | common_characters()


def kept(traditional: dict[int, str], simplified: dict[int, str]) -> list[int]:
    """The code points the subset keeps, from each face's map of code point to glyph: the
    catalog's that the face has, and the common ones whose glyph differs between the faces."""
    words = catalog_characters()
    out = []
    for char in sorted(wanted()):
        cp = ord(char)
        glyph = traditional.get(cp)
        if glyph is not None and (char in words or glyph != simplified.get(cp)):
            out.append(cp)
    return out


def _face(collection: Any, name: str) -> tuple[int, Any]:
    for number, face in enumerate(collection.fonts):
        full = str(face["name"].getDebugName(4))
        if full in (name, f"{name} Bold"):
            return number, face
    raise SystemExit(f"no face {name!r} in the collection")


def build(source: Path, out: Path = FONT_DIR, *, weights: Iterable[str] = WEIGHTS) -> list[Path]:
    try:
        subset = importlib.import_module("fontTools.subset")
        tt = importlib.import_module("fontTools.ttLib")
    except ImportError:
        raise SystemExit(
            "fontTools is needed: pip install fonttools (see this module's help)"
        ) from None
    written = []
    for weight in weights:
        path = source / f"NotoSansCJK-{weight}.ttc"
        collection = tt.TTCollection(str(path), lazy=True)
        number, face = _face(collection, TRADITIONAL)
        _, mainland = _face(collection, SIMPLIFIED)
        codes = kept(face.getBestCmap(), mainland.getBestCmap())
        options = subset.Options()
        options.font_number = number
        options.layout_features = list(LAYOUT_FEATURES)
        options.hinting = False  # no visible difference at the sizes drawn
        font = subset.load_font(str(path), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codes)
        subsetter.subset(font)
        target = out / traditional_file(weight)
        subset.save_font(font, str(target), options)
        written.append(target)
        print(f"{target.name}: {len(codes):,} characters, {target.stat().st_size:,} bytes")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.fonts.build", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path,
                        help="the folder holding NotoSansCJK-Regular.ttc and NotoSansCJK-Bold.ttc")
    parser.add_argument("--out", type=Path, default=FONT_DIR)
    args = parser.parse_args(argv)
    build(args.source, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
