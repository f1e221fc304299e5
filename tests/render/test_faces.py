"""Images in Traditional Chinese are drawn in Taiwan's shapes: the Traditional face for zh-TW,
the Simplified face for zh-CN and every other language, as before."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image, ImageChops, ImageDraw

from bot.fonts.build import catalog_characters, common_characters
from bot.render import TableView, render_hole_cards, render_table, samples
from bot.render.fonts import (
    FONT_DIR,
    TRADITIONAL_FACES,
    Han,
    Weight,
    chain,
    covering_font,
    faces_for,
    font,
    font_covers,
    placeholder_clusters,
    text_sprite,
)
from bot.render.labels import catalog_labels
from tests.render.conftest import replace_seat

# Characters whose standard shapes differ between Taiwan and the mainland. (直 is often named
# with them, but Noto Sans CJK draws it alike in both: only its Hong Kong and Japanese shapes
# differ.)
REGIONAL = "骨角說過這令"
SIMPLIFIED = {Weight.REGULAR: "NotoSansCJKsc-Regular.otf", Weight.BOLD: "NotoSansCJKsc-Bold.otf"}


def ink(image: Image.Image) -> bytes:
    """The inked part of a mask, cropped to its box, as bytes with its size."""
    box = image.getbbox()
    assert box is not None
    cropped = image.crop(box)
    return f"{cropped.size}".encode() + cropped.tobytes()


def drawn_with(filename: str, text: str, size: int) -> bytes:
    """``text`` drawn by one font file straight, as FreeType draws it."""
    canvas = Image.new("L", (size * (len(text) + 2), size * 3), 0)
    ImageDraw.Draw(canvas).text((size, size * 2), text, font=font(filename, size), fill=255,
                                anchor="ls")
    return ink(canvas)


def sprite(text: str, locale: str | None, weight: Weight = Weight.BOLD, size: int = 48) -> bytes:
    with faces_for(locale):
        return ink(text_sprite(text, size, weight).mask)


@pytest.mark.parametrize("weight", list(Weight))
@pytest.mark.parametrize("char", REGIONAL)
def test_a_regional_character_takes_taiwans_shape_in_zh_TW_only(char: str, weight: Weight) -> None:
    traditional, simplified = TRADITIONAL_FACES[weight], SIMPLIFIED[weight]
    assert drawn_with(traditional, char, 48) != drawn_with(simplified, char, 48), char
    assert sprite(char, "zh-TW", weight) == drawn_with(traditional, char, 48)
    # zh-CN, English and the default draw it as before: the Simplified face's shape.
    for locale in ("zh-CN", "en", None):
        assert sprite(char, locale, weight) == drawn_with(simplified, char, 48), locale


def test_the_table_image_draws_names_and_words_in_the_images_language() -> None:
    view = replace_seat(samples.nine_seat_river(), 0, name="黃骨說")
    tw = catalog_labels("zh-TW")
    in_taiwan = render_table(view, tw).png
    in_mainland_shapes = render_table(view, dataclasses.replace(tw, locale="zh-CN")).png
    assert in_taiwan != in_mainland_shapes
    cn = catalog_labels("zh-CN")
    assert cn.locale == "zh-CN" and tw.locale == "zh-TW"
    # The Simplified words need no face but the one they always had.
    with faces_for("zh-CN"):
        mainland = render_table(view, cn).png
    assert render_table(view, cn).png == mainland


def test_the_hole_cards_caption_in_zh_TW_takes_taiwans_shapes() -> None:
    hole = samples.hole_cards(locale="zh-TW")
    hole = dataclasses.replace(hole, caption="說 " + hole.caption)
    tw = catalog_labels("zh-TW")
    assert render_hole_cards(hole, tw).png != render_hole_cards(
        hole, dataclasses.replace(tw, locale="zh-CN")).png


def test_faces_never_leak_between_threads() -> None:
    views: list[tuple[TableView, str]] = [
        (replace_seat(samples.heads_up_preflop(), 1, name=f"骨說角 {i}"), locale)
        for i in range(12) for locale in ("zh-TW", "zh-CN")
    ]
    expected = [render_table(v, catalog_labels(tag)).png for v, tag in views]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda item: render_table(item[0], catalog_labels(item[1])).png,
                            views))
    assert got == expected
    assert expected[0] != expected[1]  # the same name, the two shapes


@pytest.mark.parametrize("weight", list(Weight))
def test_the_traditional_face_covers_the_zh_TW_catalog(weight: Weight) -> None:
    """Every character of the catalog is drawn in its Taiwan shape: the subset holds it, or it
    is one of the common characters (Big5's level 1 and symbols) the subset leaves to the
    Simplified face because their shapes are the same there. A character outside both, new in
    the catalog: run ``python -m bot.fonts.build`` (see ``bot/fonts/README.md``)."""
    missing = sorted(
        c for c in catalog_characters("zh-TW")
        if not font_covers(TRADITIONAL_FACES[weight], c) and c not in common_characters()
    )
    assert not missing, f"not in {TRADITIONAL_FACES[weight]}: {''.join(missing)}"
    # Today the subset holds every one of them, so the catalog's words are drawn by one face.
    with faces_for("zh-TW"):
        assert placeholder_clusters("".join(sorted(catalog_characters("zh-TW"))), weight) == []
    words = [c for c in catalog_characters("zh-TW") if "\u4e00" <= c <= "\u9fff"]
    assert all(
        covering_font(c, weight, Han.TRADITIONAL) == TRADITIONAL_FACES[weight] for c in words
    )


@pytest.mark.parametrize("weight", list(Weight))
def test_zh_CN_never_reaches_for_the_traditional_face(weight: Weight) -> None:
    assert TRADITIONAL_FACES[weight] not in chain(weight, Han.SIMPLIFIED)
    for c in catalog_characters("zh-CN"):
        assert covering_font(c, weight, Han.SIMPLIFIED) != TRADITIONAL_FACES[weight], c


def test_the_traditional_face_keeps_the_wheel_small() -> None:
    """Only the characters whose Taiwan shape differs (and the catalog's) are kept: well
    under a megabyte a weight, against 8.8 MB for the whole Simplified face."""
    for filename in TRADITIONAL_FACES.values():
        assert (FONT_DIR / filename).stat().st_size < 1_000_000, filename
    assert (FONT_DIR / "OFL.txt").read_text().count("NotoSansCJKtc") >= 1


def test_a_traditional_name_outside_the_subset_falls_back_without_a_box() -> None:
    rare = "龘"  # not a common character: drawn by the Simplified face
    assert not font_covers(TRADITIONAL_FACES[Weight.BOLD], rare)
    assert covering_font(rare, Weight.BOLD, Han.TRADITIONAL) == SIMPLIFIED[Weight.BOLD]
    with faces_for("zh-TW"):
        image = text_sprite("陳" + rare, 24).mask
    assert ImageChops.difference(image, Image.new("L", image.size)).getbbox() is not None
