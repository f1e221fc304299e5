"""Hand-evaluator benchmark: the engine's batch API against the native evaluators it could wrap.

    python -m bench.evaluator            # 7-card evaluations/s and ratios, same hands for all
    python -m bench.evaluator --all7     # all 133,784,560 seven-card hands, exact category counts

Every peer evaluates the same random hands in the same process, so the ratios hold on any machine
even though the absolute figures do not.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import combinations, islice, pairwise, starmap
from typing import Any

from engine.cards import FULL_DECK, RANKS, SUITS, Card
from engine.evaluator import Category, category_of, rank_value, rank_values

BUDGET = 2_000_000  # DESIGN.md: 7-card evaluations per second through the batch API

ALL7_COUNTS = {
    Category.STRAIGHT_FLUSH: 41_584,
    Category.FOUR_OF_A_KIND: 224_848,
    Category.FULL_HOUSE: 3_473_184,
    Category.FLUSH: 4_047_644,
    Category.STRAIGHT: 6_180_020,
    Category.THREE_OF_A_KIND: 6_461_620,
    Category.TWO_PAIR: 31_433_400,
    Category.PAIR: 58_627_800,
    Category.HIGH_CARD: 23_294_460,
}
ALL7_TOTAL = 133_784_560

Hand = tuple[Card, ...]


def random_hands(n: int, seed: int) -> list[Hand]:
    rnd = random.Random(seed)
    return [tuple(rnd.sample(FULL_DECK, 7)) for _ in range(n)]


def best_rate(run: Callable[[], object], n: int, repeat: int) -> float:
    """Evaluations per second of the fastest of ``repeat`` runs (the least disturbed one)."""
    fastest = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        fastest = min(fastest, time.perf_counter() - started)
    return n / fastest


def peers(hands: list[Hand]) -> list[tuple[str, Callable[[], object]]]:
    """(label, run) for every evaluator installed; conversions are done where a caller would."""
    runs: list[tuple[str, Callable[[], object]]] = [
        ("engine rank_values (batch API)", lambda: rank_values(hands)),
        ("engine rank_value, one call per hand", lambda: [rank_value(h) for h in hands]),
    ]
    try:
        import eval7
    except ImportError:
        print("eval7 not installed: skipped", file=sys.stderr)
    else:
        table = tuple(eval7.Card(RANKS[c >> 2] + SUITS[c & 3]) for c in FULL_DECK)
        prebuilt = [[table[c] for c in hand] for hand in hands]
        evaluate7 = eval7.evaluate

        def eval7_converting() -> list[int]:
            return [
                evaluate7([table[a], table[b], table[c], table[d], table[e], table[f], table[g]])
                for a, b, c, d, e, f, g in hands
            ]

        runs += [
            ("eval7.evaluate on prebuilt eval7 cards", lambda: list(map(evaluate7, prebuilt))),
            ("eval7.evaluate converting our ints", eval7_converting),
        ]
    try:
        from phevaluator import _pheval, evaluate_7cards
    except ImportError:
        print("phevaluator not installed: skipped", file=sys.stderr)
    else:
        native = _pheval.evaluate_7cards
        runs += [
            ("phevaluator C function on our ints", lambda: list(starmap(native, hands))),
            ("phevaluator public evaluate_7cards", lambda: list(starmap(evaluate_7cards, hands))),
        ]
    return runs


def check_against_eval7(hands: list[Hand]) -> str:
    """Whether our values order the hands exactly as eval7 does (an independent evaluator)."""
    try:
        import eval7
    except ImportError:
        return "eval7 not installed"
    table = tuple(eval7.Card(RANKS[c >> 2] + SUITS[c & 3]) for c in FULL_DECK)
    theirs = [eval7.evaluate([table[c] for c in hand]) for hand in hands]
    pairs = sorted(set(zip(rank_values(hands), theirs, strict=True)))
    ours_distinct = len({ours for ours, _ in pairs})
    theirs_distinct = len({other for _, other in pairs})
    monotone = all(a[1] < b[1] for a, b in pairwise(pairs))
    same = monotone and ours_distinct == theirs_distinct == len(pairs)
    return f"{'same' if same else 'DIFFERENT'} order as eval7 on {len(hands):,} hands"


def speed(n: int, repeat: int, seed: int) -> int:
    hands = random_hands(n, seed)
    print(f"7-card evaluations per second, {n:,} random hands (seed {seed}), best of {repeat}")
    results: list[tuple[str, float]] = []
    for label, run in peers(hands):
        results.append((label, best_rate(run, n, repeat)))
    ours = results[0][1]
    for label, rate in results:
        print(f"  {label:40s} {rate / 1e6:6.2f} M/s   batch API = {ours / rate:5.2f}x this")
    print(f"  {check_against_eval7(hands[:200_000])}")
    ok = ours >= BUDGET
    print(f"budget >= {BUDGET:,}/s through the batch API: {'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


def chunked(hands: Iterator[Hand], size: int) -> Iterator[list[Hand]]:
    while chunk := list(islice(hands, size)):
        yield chunk


def all7(chunk_size: int) -> int:
    print(f"enumerating all {ALL7_TOTAL:,} seven-card hands through rank_values ...", flush=True)
    started = time.perf_counter()
    by_value: Counter[int] = Counter()
    done = 0
    next_report = ALL7_TOTAL // 10
    for chunk in chunked(combinations(FULL_DECK, 7), chunk_size):
        by_value.update(rank_values(chunk))
        done += len(chunk)
        if done >= next_report:
            elapsed = time.perf_counter() - started
            print(f"  {done / ALL7_TOTAL:4.0%}  {elapsed:6.1f} s", flush=True)
            next_report += ALL7_TOTAL // 10
    elapsed = time.perf_counter() - started

    counts: Counter[Category] = Counter()
    for value, n in by_value.items():
        counts[category_of(value)] += n
    failed = False
    for category in sorted(Category, reverse=True):
        got, want = counts[category], ALL7_COUNTS[category]
        failed |= got != want
        mark = "ok" if got == want else f"EXPECTED {want:,}"
        print(f"  {category.code:16s} {got:>12,}  {mark}")
    total = by_value.total()
    failed |= total != ALL7_TOTAL
    print(f"  {'total':16s} {total:>12,}  {'ok' if total == ALL7_TOTAL else 'WRONG'}")
    print(f"elapsed {elapsed:.1f} s, {total / elapsed / 1e6:.2f} M hands/s (enumeration included)")
    print("FAILED" if failed else "all counts match")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.evaluator", description=__doc__)
    parser.add_argument("--all7", action="store_true", help="enumerate every 7-card hand")
    parser.add_argument("-n", type=int, default=1_000_000, help="random hands (default 1e6)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per peer, best counts")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--chunk", type=int, default=1 << 18, help="hands per batch for --all7")
    args: Any = parser.parse_args(argv)
    if args.all7:
        return all7(args.chunk)
    return speed(args.n, args.repeat, args.seed)


if __name__ == "__main__":
    raise SystemExit(main())
