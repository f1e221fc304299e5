"""Renderer speed against its budgets, with a plain-Pillow peer measured in the same run.

    python -m bench.render [--runs N]

Budgets (DESIGN.md): a 9-seat table drawn and PNG-encoded in at most 15 ms median and at most
100 KB; a hole-card image in at most 3 ms. The peer is what any Pillow bot pays at the least:
``Image.new`` of the same size and a default PNG save, so the ratio says how much the drawing
adds on this machine, whatever its speed or load.
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
from bot.render.table import draw_table


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
    ok = table_ms <= 15 and kb <= 100 and hole_ms <= 3
    print("within budget" if ok else "OVER BUDGET")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
