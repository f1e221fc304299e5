"""The committed card art is what the script draws; suits are shapes, never font glyphs."""

from __future__ import annotations

import pytest
from PIL import Image, ImageChops, ImageStat

from bot.render import cardart
from bot.render.assets import CARD_DIR
from bot.render.model import DeckStyle

NAMES = [*cardart.card_codes(), "back"]


def test_there_are_52_faces_and_a_back_per_deck() -> None:
    assert len(cardart.card_codes()) == 52 == len(set(cardart.card_codes()))
    for style in DeckStyle:
        files = sorted(p.stem for p in (CARD_DIR / style.value).glob("*.png"))
        assert files == sorted(NAMES)


def test_the_card_art_stays_small() -> None:
    total = sum(p.stat().st_size for p in CARD_DIR.rglob("*.png"))
    assert total < 2_000_000


@pytest.mark.parametrize("style", list(DeckStyle))
@pytest.mark.parametrize("name", ["As", "Kh", "Qd", "Jc", "Ts", "7d", "2c", "back"])
def test_committed_images_match_the_script(style: DeckStyle, name: str) -> None:
    """Regenerated art matches the committed PNG (exactly with the same Pillow/FreeType; a
    newer FreeType may move an anti-aliasing pixel of the rank by a level or two)."""
    with Image.open(CARD_DIR / style.value / f"{name}.png") as committed:
        assert committed.size == cardart.MASTER_SIZE
        assert committed.mode == "RGBA"
        drawn = cardart.draw_back(style) if name == "back" else cardart.draw_face(name, style)
        diff = ImageChops.difference(committed.convert("RGBA"), drawn)
        assert max(ImageStat.Stat(diff).mean) < 0.5


def test_drawing_is_deterministic(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a = cardart.draw_face("Qs", DeckStyle.FOUR_COLOR).tobytes()
    b = cardart.draw_face("Qs", DeckStyle.FOUR_COLOR).tobytes()
    assert a == b


def test_four_colour_deck_colours_each_suit() -> None:
    colours = cardart.SUIT_COLORS[DeckStyle.FOUR_COLOR]
    assert len(set(colours.values())) == 4
    classic = cardart.SUIT_COLORS[DeckStyle.CLASSIC]
    assert classic["h"] == classic["d"] and classic["s"] == classic["c"] != classic["h"]


def _ink(image: Image.Image, colour: tuple[int, int, int]) -> int:
    found = image.convert("RGB").getcolors(1 << 24) or []
    return sum(count for count, rgb in found if rgb == colour)


@pytest.mark.parametrize("suit", list("cdhs"))
def test_faces_carry_their_suit_colour(suit: str) -> None:
    for style in DeckStyle:
        colour = cardart.SUIT_COLORS[style][suit]
        face = cardart.draw_face(f"9{suit}", style)
        assert _ink(face, colour) > 500  # the big pip and the index, solid


def test_suits_are_shapes_without_any_font() -> None:
    """draw_suit takes no font at all: it paints polygons and ellipses."""
    from PIL import ImageDraw

    for suit in "cdhs":
        img = Image.new("RGB", (64, 64))
        cardart.draw_suit(ImageDraw.Draw(img), suit, (0, 0, 64, 64), (255, 255, 255))
        filled = sum(img.convert("L").histogram()[1:])
        assert 900 < filled < 3500, (suit, filled)


def test_committed_palettes_match_the_art() -> None:
    # The bot loads these instead of sampling tables at start-up; stale ones would band colours.
    from bot.render.palettes import build_palettes, palette_file

    for name, raw in build_palettes().items():
        assert palette_file(name).read_bytes() == raw, f"run python -m bot.render cards ({name})"
