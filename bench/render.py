"""Renderer speed against its budgets, with a plain-Pillow peer measured in the same run.

    python -m bench.render [--runs N]

Budgets (DESIGN.md): a 9-seat table drawn and PNG-encoded in at most 15 ms median and at most
100 KB; a hole-card image in at most 3 ms. The peer is what any Pillow bot pays at the least:
``Image.new`` of the same size and a default PNG save, so the ratio says how much the drawing
adds on this machine, whatever its speed or load.

The replay of a six-player hand (``/history replay``: frames built, drawn and written as a GIF)
is timed against the 9-seat table image of the same run, whole and per frame, and must stay
under its megabyte.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable

from PIL import Image

from bot.render import render_hole_cards, render_table, samples, warm_up
from bot.render.encode import encode_palette_png
from bot.render.palettes import table_palette
from bot.render.replay import MAX_BYTES
from bot.render.table import draw_table
from bot.replay import PlayedHand, replay_image
from engine.cards import parse_cards
from engine.hand import Hand, HandConfig, deck_from_cards


def _median_ms(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.9)]


def _peer(size: tuple[int, int]) -> Callable[[], bytes]:
    def run() -> bytes:
        out = io.BytesIO()
        Image.new("RGB", size, (20, 90, 50)).save(out, "PNG")
        return out.getvalue()

    return run


def six_player_hand() -> PlayedHand:
    """A hand as six-handed tables play them: a raise and two calls, a bet on the flop called
    once, the turn checked, a bet and a call on the river, the showdown (20 frames)."""
    holes = [parse_cards(h) for h in ("Td9d", "AsKc", "7h7c", "QsJs", "8c3d", "Ad5d")]
    hand = Hand(HandConfig.standard((2_000, 1_500, 3_000, 800, 2_500, 1_200), 25, 50),
                deck_from_cards(6, holes, parse_cards("Kd 7d 2s Jc 4h")))
    for step in ("raise 2 150", "fold 3", "call 4", "fold 5", "call 0", "fold 1",
                 "check 0", "check 2", "bet 4 250", "call 0", "fold 2",
                 "check 0", "check 4", "bet 0 600", "call 4"):
        kind, player, *amount = step.split()
        if kind in ("raise", "bet"):
            getattr(hand, "raise_to" if kind == "raise" else "bet")(int(player), int(amount[0]))
        else:
            getattr(hand, kind)(int(player))
    names = ("Alice", "Bartholomew", "Chen Wei 陈伟", "Dana", "Eitan", "Farah")
    return PlayedHand(hand, 214, seats=(1, 2, 3, 4, 5, 6), names=names, seat_count=6,
                      button_seat=6)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.render")
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args(argv)
    runs = args.runs

    start = time.perf_counter()
    warm_up()
    print(f"warm-up (fonts, cards, palettes): {(time.perf_counter() - start) * 1000:.0f} ms")

    table = samples.nine_seat_river()
    image = render_table(table)
    drawn = draw_table(table)
    table_ms, table_p90 = _median_ms(lambda: render_table(table), runs)
    draw_ms, _ = _median_ms(lambda: draw_table(table), runs)
    encode_ms, _ = _median_ms(lambda: encode_palette_png(drawn, table_palette()), runs)
    peer_ms, _ = _median_ms(_peer((image.width, image.height)), runs)

    hole = samples.hole_cards()
    hole_image = render_hole_cards(hole)
    hole_ms, hole_p90 = _median_ms(lambda: render_hole_cards(hole), runs * 3)
    hole_peer_ms, _ = _median_ms(_peer((hole_image.width, hole_image.height)), runs * 3)

    played = six_player_hand()
    _, replay = replay_image(played)
    replay_runs = max(3, runs // 60)
    replay_ms, _ = _median_ms(lambda: replay_image(played), replay_runs)

    kb = len(image.png) / 1024
    print(f"9-seat table {image.width}x{image.height}, draw + PNG: median {table_ms:.2f} ms "
          f"(p90 {table_p90:.2f}; draw {draw_ms:.2f} + encode {encode_ms:.2f}), "
          f"{kb:.1f} KB  [budget 15 ms, 100 KB]")
    print(f"  peer Image.new + PNG save, same size: {peer_ms:.2f} ms -> ratio "
          f"{table_ms / peer_ms:.2f}x")
    print(f"hole cards {hole_image.width}x{hole_image.height}: median {hole_ms:.2f} ms "
          f"(p90 {hole_p90:.2f}), {len(hole_image.png) / 1024:.1f} KB  [budget 3 ms]")
    print(f"  peer Image.new + PNG save, same size: {hole_peer_ms:.2f} ms -> ratio "
          f"{hole_ms / hole_peer_ms:.2f}x")
    print(f"replay of a 6-player hand, {replay.frames} frames {replay.width}x{replay.height} "
          f"GIF: median {replay_ms:.0f} ms ({replay_runs} runs), "
          f"{len(replay.data) / 1024:.0f} KB  [budget {MAX_BYTES // 1000} KB]")
    print(f"  against the 9-seat table image: {replay_ms / table_ms:.1f}x whole, "
          f"{replay_ms / replay.frames / table_ms:.2f}x per frame")
    ok = table_ms <= 15 and kb <= 100 and hole_ms <= 3 and len(replay.data) <= MAX_BYTES
    print("within budget" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
