"""Names in any script draw without missing-glyph boxes; long names end in an ellipsis."""

from __future__ import annotations

import unicodedata

import pytest
from PIL import Image, ImageChops

from bot.render.fonts import (
    Han,
    Weight,
    chain,
    clusters,
    covering_font,
    faces_for,
    font,
    font_covers,
    placeholder_clusters,
    text_sprite,
)

NAMES = {
    "chinese": "张伟 王芳",
    "traditional": "陳大文",
    "japanese": "さくら サクラ 桜",
    "korean": "김민준",
    "accents": "Zoë Çelik-Øresund Ðặng Thị Huyền Łukasz Ñandú",
    "decomposed": "e\u0301cole",
    "cyrillic": "Владимир",
    "greek": "Ελένη",
    "arabic": "محمد",
    "hebrew": "שלום",
    "thai": "สมชาย",
    "devanagari": "राहुल",
    "fancy": "𝓐𝓵𝓲𝓬𝓮",
    "symbols": "★ ♠♥♦♣ ☆",
}
NOT_A_CHARACTER = chr(0x10FFFD)  # private use, plane 16: no font maps it, so .notdef


def _notdef(filename: str, size: int = 40) -> bytes:
    with_lock = font(filename, size)
    return bytes(with_lock.getmask(NOT_A_CHARACTER))


def _glyph(filename: str, text: str, size: int = 40) -> bytes:
    return bytes(font(filename, size).getmask(text))


@pytest.mark.parametrize("script", sorted(NAMES))
@pytest.mark.parametrize("weight", list(Weight))
@pytest.mark.parametrize("locale", ["en", "zh-TW"])
def test_every_character_has_a_real_glyph(script: str, weight: Weight, locale: str) -> None:
    name = NAMES[script]
    with faces_for(locale) as han:
        assert placeholder_clusters(name, weight) == []
    for cluster in clusters(name):
        if cluster == " ":
            continue
        filename = covering_font(cluster, weight, han)
        assert filename is not None
        assert _glyph(filename, cluster) != _notdef(filename), (
            f"{cluster!r} drawn by {filename} is the missing-glyph box")


@pytest.mark.parametrize("text", ["😀", "👨‍👩‍👧", "🇫🇷", "👍🏽", "❤️", "🃏"])
def test_emoji_become_a_round_placeholder_not_a_box(text: str) -> None:
    assert placeholder_clusters(f"a{text}b") == [text]
    sprite = text_sprite(text, 48)
    box = sprite.mask.getbbox()
    assert box is not None
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1 - 1, y0), (x0, y1 - 1), (x1 - 1, y1 - 1)]
    # A box is inked into its corners; the smiley disc leaves them empty.
    assert all(sprite.mask.getpixel(c) == 0 for c in corners)


def test_unknown_scripts_get_a_dot_not_a_box() -> None:
    runes = "ᚠᚢᚦ"
    assert placeholder_clusters(runes) == list(runes)
    sprite = text_sprite(runes, 48)
    assert sprite.mask.getbbox() is not None


def test_invisible_controls_are_dropped() -> None:
    assert clusters("a\u202eb\u200bc\x00") == ["a", "b", "c"]
    assert clusters("x\ty\nz") == ["x", " ", "y", " ", "z"]


def test_clusters_keep_marks_and_sequences_whole() -> None:
    assert clusters("e\u0301") == ["é"]  # NFC
    assert clusters("q\u0307\u0323") == [unicodedata.normalize("NFC", "q\u0307\u0323")]
    assert clusters("👨‍👩‍👧x") == ["👨‍👩‍👧", "x"]
    assert clusters("🇫🇷🇩🇪") == ["🇫🇷", "🇩🇪"]
    assert clusters("👍🏽") == ["👍🏽"]


def test_long_names_end_in_an_ellipsis() -> None:
    name = "A name much too long to fit on any seat plate at all"
    sprite = text_sprite(name, 24, Weight.BOLD, 180)
    assert sprite.truncated
    assert sprite.text.endswith("…")
    assert sprite.width <= 180
    assert name.startswith(sprite.text[:-1])
    short = text_sprite("Alice", 24, Weight.BOLD, 180)
    assert not short.truncated and short.text == "Alice"


def test_cjk_names_are_shortened_by_whole_characters() -> None:
    sprite = text_sprite("张伟王芳李娜刘洋陈静杨磊赵敏黄勇周杰吴昊", 24, Weight.BOLD, 150)
    assert sprite.truncated and sprite.width <= 150
    assert sprite.text.endswith("…")


def test_emoji_sequences_are_not_split_by_the_ellipsis() -> None:
    sprite = text_sprite("👨‍👩‍👧" * 12, 24, Weight.BOLD, 100)
    kept = sprite.text[:-1]
    assert kept and kept == "👨‍👩‍👧" * (len(kept) // len("👨‍👩‍👧"))


@pytest.mark.parametrize("filename", sorted({name for weight in Weight for han in Han
                                             for name in chain(weight, han)}))
def test_cmap_reader_agrees_with_freetype(filename: str) -> None:
    """Spot-check the character-map parser against what FreeType actually draws."""
    notdef = _notdef(filename, 20)
    blank = bytes(font(filename, 20).getmask(" "))
    step = 211
    for cp in range(0x21, 0x30000, step):
        char = chr(cp)
        if char.isspace() or not char.isprintable():
            continue
        drawn = _glyph(filename, char, 20)
        if font_covers(filename, char):
            assert drawn != notdef, f"{filename} claims U+{cp:04X} but draws the box"
        elif not unicodedata.category(char).startswith("M") and not unicodedata.decomposition(
                char):
            # (Marks get a dotted circle, decomposable letters may be composed by the shaper:
            # both draw something without being in the map, harmlessly.)
            assert drawn in (notdef, blank), f"{filename} misses U+{cp:04X} but has a glyph"


def test_text_renders_on_a_canvas() -> None:
    from bot.render.fonts import draw_text

    canvas = Image.new("RGB", (300, 40))
    sprite = draw_text(canvas, (10, 30), "张伟 Zoë 😀", 24, (255, 255, 255))
    assert sprite.width > 0
    assert ImageChops.difference(canvas, Image.new("RGB", (300, 40))).getbbox() is not None
