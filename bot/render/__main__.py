"""``python -m bot.render cards [--out DIR]``: redraw the committed card art (default
``card_images/``) and the two PNG palettes sampled from tables drawn with it.

``python -m bot.render sample --out DIR [--locale zh-TW]``: write sample images (2, 6, 9 and 10
seats, a pre-flop table, a river table with side pots, a showdown with a split pot, all-in
hands with their chances counted and estimated, a board run twice during its run-out and at the
showdown, Omaha tables of four and five cards a hand and a high-low showdown, the end of a
hand's animated replay, hole cards of two, four and five, both decks, names in several
scripts, a tournament's status board before, during and after play, session and net charts)
and ``alt_text.txt`` with every image's alt text, every word in the catalog of ``--locale``
(English by default).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PIL import Image

from bot.render import (
    ChartLabels,
    DeckStyle,
    render_chart,
    render_hole_cards,
    render_table,
    render_tournament,
    samples,
)
from bot.render.assets import CARD_DIR
from bot.render.cardart import write_deck
from bot.render.encode import encode_png
from bot.render.fonts import draw_text, faces_for
from bot.render.labels import catalog_labels, catalog_words
from bot.render.palettes import write_palettes
from bot.render.replay import render_replay
from bot.render.tournament import TournamentLabels

NAMES = (
    "Alice", "张伟 (Zhāng Wěi)", "蔡詩涵 (Cài Shīhán)", "さくら 桜", "김민준", "Zoë Çelik-Øresund",
    "Đặng Thị Huyền", "Владимир", "Ελένη", "محمد", "שלום", "สมชาย", "राहुल", "অমিত", "Արամ",
    "ნინო",
    "𝓕𝓪𝓷𝓬𝔂 𝓝𝓪𝓶𝓮", "😎 Cool 🃏 Cat 🐈", "👨‍👩‍👧 family, 🇫🇷 flag",
    "A name that is much, much too long to fit on one seat plate",
)


def names_sheet() -> Image.Image:
    """Names in many scripts at the seat-plate size, and the same names shortened to fit a
    plate: nothing may come out as a missing-glyph box."""
    row = 34
    sheet = Image.new("RGB", (1100, 20 + row * len(NAMES)), (16, 20, 26))
    for i, name in enumerate(NAMES):
        y = 20 + row * i + 22
        draw_text(sheet, (16, y), name, 24, (244, 244, 240), max_width=700)
        draw_text(sheet, (740, y), name, 24, (255, 204, 77), max_width=182)
    return sheet


def write_samples(out: Path, locale: str | None = None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    labels = catalog_labels(locale)
    written: list[Path] = []
    alt_lines: list[str] = []
    tables = {
        "table_2_seats_preflop.png": samples.heads_up_preflop(),
        "table_6_seats_flop_four_color.png": samples.six_seat_flop(),
        "table_9_seats_river_side_pots.png": samples.nine_seat_river(),
        "table_10_seats_names.png": samples.ten_seat_scripts(),
        "table_showdown_split_pot.png": samples.showdown_split(locale),
        "table_6_seats_all_in_equity.png": samples.all_in_flop_equity(),
        "table_2_seats_all_in_preflop_estimate.png": samples.all_in_preflop_estimate(),
        "table_run_twice_second_run.png": samples.run_twice_second_run(locale),
        "table_run_twice_showdown.png": samples.run_twice_showdown(locale),
        "table_10_seats_plo_showdown.png": samples.plo_ten_seat_showdown(locale),
        "table_9_seats_plo5_flop.png": samples.plo5_nine_seat_flop(),
        "table_9_seats_plo5_all_in_turn.png": samples.plo5_all_in_turn(),
        "table_hi_lo_showdown.png": samples.hi_lo_showdown(locale),
    }
    for name, view in tables.items():
        image = render_table(view, labels)
        (out / name).write_bytes(image.png)
        written.append(out / name)
        alt_lines.append(f"{name} ({len(image.png) // 1024} KB): {image.alt_text}")
    for style in DeckStyle:
        hands = {
            f"hole_cards_{style.value}.png": samples.hole_cards(style, locale),
            f"hole_cards_plo_{style.value}.png": samples.omaha_hole_cards(4, style, locale),
            f"hole_cards_plo5_{style.value}.png": samples.omaha_hole_cards(5, style, locale),
        }
        for name, hand in hands.items():
            image = render_hole_cards(hand, labels)
            (out / name).write_bytes(image.png)
            written.append(out / name)
            alt_lines.append(f"{name} ({image.width} px, {len(image.png) // 1024} KB): "
                             f"{image.alt_text}")
        sheet = out / f"deck_{style.value}.png"
        sheet.write_bytes(encode_png(samples.deck_sheet(style)))
        written.append(sheet)
    boards = {
        "tournament_registering.png": samples.tournament_registering(),
        "tournament_running.png": samples.tournament_running(),
        "tournament_finished.png": samples.tournament_finished(),
    }
    for name, board in boards.items():
        image = render_tournament(board, catalog_words(TournamentLabels, "board", locale))
        (out / name).write_bytes(image.png)
        written.append(out / name)
        alt_lines.append(f"{name} ({len(image.png) // 1024} KB): {image.alt_text}")
    charts = {
        "chart_session_stacks.png": samples.session_chart(locale),
        "chart_session_26_players_3000_hands.png": samples.crowded_session_chart(locale),
        "chart_net_over_time.png": samples.net_chart(locale),
        "chart_empty.png": samples.empty_chart(locale),
    }
    for name, chart in charts.items():
        image = render_chart(chart, catalog_words(ChartLabels, "chart", locale))
        (out / name).write_bytes(image.png)
        written.append(out / name)
        alt_lines.append(f"{name} ({len(image.png) // 1024} KB): {image.alt_text}")
    replay = render_replay(samples.replay_run_twice(locale), labels)
    (out / replay.filename).write_bytes(replay.data)
    written.append(out / replay.filename)
    alt_lines.append(f"{replay.filename} ({len(replay.data) // 1024} KB, {replay.frames} frames): "
                     f"{replay.alt_text}")
    names = out / "names_scripts.png"
    with faces_for(labels.locale):  # Chinese names in the shapes of the samples' language
        names.write_bytes(encode_png(names_sheet()))
    written.append(names)
    (out / "alt_text.txt").write_text("\n\n".join(alt_lines) + "\n", encoding="utf-8")
    written.append(out / "alt_text.txt")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.render")
    sub = parser.add_subparsers(dest="command", required=True)
    cards = sub.add_parser("cards", help="redraw the card art PNGs")
    cards.add_argument("--out", type=Path, default=CARD_DIR)
    sample = sub.add_parser("sample", help="write sample images")
    sample.add_argument("--out", type=Path, required=True)
    sample.add_argument("--locale", default=None,
                        help="the catalog whose words are drawn (en, zh-TW, zh-CN; default en)")
    args = parser.parse_args(argv)
    if args.command == "cards":
        files = write_deck(args.out, progress=print)
        # The palettes are sampled from tables drawn with this art, so they are redone with it.
        files += write_palettes(args.out)
        total = sum(f.stat().st_size for f in files)
        print(f"{len(files)} files, {total // 1024} KB")
    else:
        for path in write_samples(args.out, args.locale):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
