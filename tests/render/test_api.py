"""The public entry points: PNG bytes within budget, alt text, thread safety, determinism."""

from __future__ import annotations

import dataclasses
import io
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from bot.render import (
    DeckStyle,
    HoleCardsView,
    Labels,
    PotView,
    SeatState,
    SeatView,
    Street,
    TableView,
    render_hole_cards,
    render_table,
    samples,
)
from bot.render.alttext import ALT_TEXT_LIMIT, table_alt_text
from bot.render.labels import short_chips

ALL_TABLES = [samples.heads_up_preflop, samples.six_seat_flop, samples.nine_seat_river,
              samples.ten_seat_scripts, samples.showdown_split]


@pytest.mark.parametrize("factory", ALL_TABLES)
def test_table_png_is_small_and_opens(factory) -> None:  # type: ignore[no-untyped-def]
    image = render_table(factory())
    assert image.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert len(image.png) <= 100 * 1024
    with Image.open(io.BytesIO(image.png)) as img:
        assert img.size == (image.width, image.height) == (1280, 800)
    assert 0 < len(image.alt_text) <= ALT_TEXT_LIMIT
    assert image.filename.endswith(".png")


def _crowded() -> TableView:
    """Ten players at showdown, all cards up, long names, many pots: the worst case for size."""
    cards = [("As", "Ks"), ("Ah", "Kh"), ("Ad", "Kd"), ("Ac", "Kc"), ("Qs", "Js"), ("Qh", "Jh"),
             ("Qd", "Jd"), ("Qc", "Jc"), ("9s", "8s"), ("9h", "8h")]
    seats = tuple(
        SeatView(f"Ｐｌａｙｅｒ {i} with a long name 长名字", 1_234_567 * (i + 1), cards=c,
                 is_winner=i % 3 == 0, best_five=c if i % 3 == 0 else (),
                 hand_name="Two pair, jacks and fours, ace kicker", is_button=i == 4)
        for i, c in enumerate(cards)
    )
    pots = tuple(PotView(10_000 * (i + 1), winners=(i,)) for i in range(6))
    return TableView(seats=seats, board=("2c", "3d", "4h", "5s", "7c"), pots=pots,
                     small_blind=5_000, big_blind=10_000, ante=1_000, hand_number=987_654,
                     street=Street.SHOWDOWN, deck=DeckStyle.FOUR_COLOR)


def test_worst_case_table_stays_under_100_kb() -> None:
    image = render_table(_crowded())
    assert len(image.png) <= 100 * 1024
    assert len(image.alt_text) <= ALT_TEXT_LIMIT


def test_same_view_same_bytes() -> None:
    view = samples.nine_seat_river()
    assert render_table(view).png == render_table(view).png


def test_rendering_is_thread_safe() -> None:
    views = [f() for f in ALL_TABLES] * 4
    views += [dataclasses.replace(v, deck=DeckStyle.FOUR_COLOR) for v in views[:5]]
    expected = [render_table(v).png for v in views]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda v: render_table(v).png, views))
    assert got == expected


def test_fresh_names_render_the_same_from_many_threads() -> None:
    """Cache misses (new names) race through FreeType under its lock."""
    names = [f"线程 {i} Zoë 😀 {i * 7919}" for i in range(40)]
    def one(name: str) -> bytes:
        view = TableView(seats=(SeatView(name, 100), SeatView("Bob", 200)))
        return render_table(view).png
    with ThreadPoolExecutor(max_workers=8) as pool:
        first = list(pool.map(one, names))
    assert first == [one(n) for n in names]


def test_hole_cards_image() -> None:
    image = render_hole_cards(samples.hole_cards())
    with Image.open(io.BytesIO(image.png)) as img:
        assert img.size == (image.width, image.height)
    assert "ace of diamonds" in image.alt_text and "king of clubs" in image.alt_text
    assert "Pair of kings" in image.alt_text
    bare = render_hole_cards(HoleCardsView(cards=("7s", "2h")))
    assert bare.height < image.height  # no caption or hand line pre-flop


def test_alt_text_falls_back_to_symbols_then_cuts() -> None:
    text = table_alt_text(_crowded())
    assert len(text) <= ALT_TEXT_LIMIT
    long = table_alt_text(_crowded(), limit=100_000)
    assert "ace of spades" in long


def test_labels_translate_the_image_and_the_alt_text() -> None:
    fr = Labels(pot="Pot", main_pot="Pot principal", side_pot="Pot annexe {n}",
                folded="Couché", to_act="À jouer", alt_to_act="À {name} de jouer.",
                thousands_separator="\u202f", hand="Donne n°{n}")
    view = samples.nine_seat_river()
    text = table_alt_text(view, fr)
    assert "À Eitan de jouer." in text and "Donne n°1287" in text and "12\u202f400" in text
    assert render_table(view, fr).png != render_table(view).png


def test_short_chips() -> None:
    assert short_chips(9_999_999) == "9,999,999"
    assert short_chips(12_500_000) == "12.5M"
    assert short_chips(3_250_000_000) == "3.25B"
    assert short_chips(100_000_000) == "100M"


def test_waiting_table_with_empty_seats() -> None:
    view = TableView(seats=(SeatView("Host", 5_000, state=SeatState.SITTING_OUT), None, None,
                            None, None, None), street=Street.WAITING)
    image = render_table(view)
    assert "Seat 2 empty" in image.alt_text and "Waiting for players" in image.alt_text
