"""All-in equity benchmark: engine.equity against plain loops over the same boards.

    python -m bench.equity              # 2..6 players, pre-flop, flop and turn
    python -m bench.equity --repeat 5   # best of 5 runs each (the least disturbed)

For each case the engine's time is printed beside two peers measured in the same run on the
same hands and the same number of boards (every board on the flop and turn, as many random
boards as the engine samples pre-flop): a loop ranking each hand on each board with
``engine.evaluator.rank_value``, and the same loop with eval7's evaluator when it is
installed. Times are the process's CPU time, best of ``--repeat`` runs, so other processes
on a busy machine disturb them less than wall time; ratios are peer time / engine time, which
hold on any machine even though the milliseconds do not. The budget (200 ms for up to six
players) is reported, never asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from itertools import combinations

from engine.cards import FULL_DECK, RANKS, SUITS, Card
from engine.equity import SAMPLES, equity
from engine.evaluator import rank_value

BUDGET_MS = 200.0
STREETS = (("pre-flop", 0), ("flop", 3), ("turn", 4))


def best_ms(run: Callable[[], object], repeat: int) -> float:
    fastest = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        run()
        fastest = min(fastest, time.process_time() - started)
    return fastest * 1000


def boards_for(
    holes: Sequence[tuple[Card, ...]], board: tuple[Card, ...], rng: random.Random
) -> list[tuple[Card, ...]]:
    """What a caller would loop over: every board, or ``SAMPLES`` random ones pre-flop."""
    used = {c for h in holes for c in h} | set(board)
    rest = [c for c in FULL_DECK if c not in used]
    if board:
        return [board + tail for tail in combinations(rest, 5 - len(board))]
    return [tuple(rng.sample(rest, 5)) for _ in range(SAMPLES)]


def loop_counting(
    holes: Sequence[tuple[Card, ...]], boards: list[tuple[Card, ...]], rank: Callable[..., int]
) -> list[float]:
    """Win shares by the obvious loop: rank every hand on every board, split the ties."""
    shares = [0.0] * len(holes)
    for board in boards:
        values = [rank(hole + board) for hole in holes]
        best = max(values)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            shares[i] += 1 / len(winners)
    return [s / len(boards) for s in shares]


def eval7_rank() -> Callable[..., int] | None:
    try:
        import eval7
    except ImportError:
        print("eval7 not installed: skipped", file=sys.stderr)
        return None
    table = tuple(eval7.Card(RANKS[c >> 2] + SUITS[c & 3]) for c in FULL_DECK)
    evaluate = eval7.evaluate
    return lambda cards: evaluate([table[c] for c in cards])


def peer(
    holes: Sequence[tuple[Card, ...]],
    board: tuple[Card, ...],
    rank: Callable[..., int],
    rng: random.Random,
) -> Callable[[], object]:
    """A peer's whole job, drawing its boards included, as the engine's time includes its own."""
    return lambda: loop_counting(holes, boards_for(holes, board, rng), rank)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    ranks: list[tuple[str, Callable[..., int]]] = [("rank_value loop", rank_value)]
    other = eval7_rank()
    if other is not None:
        ranks.append(("eval7 loop", other))
    print(f"engine.equity vs per-hand loops on the same boards ({SAMPLES:,} sampled pre-flop)")
    print(
        f"{'players':>7} {'street':>8} {'boards':>7} {'engine cpu ms':>14}"
        + "".join(f" {label:>22}" for label, _ in ranks)
    )
    worst = 0.0
    for players in range(2, 7):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        holes = [tuple(deck[2 * i : 2 * i + 2]) for i in range(players)]
        for name, count in STREETS:
            board = tuple(deck[2 * players : 2 * players + count])
            result = equity(holes, board)
            ours = best_ms(lambda h=holes, b=board: equity(h, b), args.repeat)
            worst = max(worst, ours)
            line = f"{players:>7} {name:>8} {result.boards:>7,} {ours:>14.1f}"
            for _, rank in ranks:
                theirs = best_ms(peer(holes, board, rank, rng), args.repeat)
                line += f" {theirs:>10.1f} ms ({theirs / ours:>5.1f}x)"
            print(line)
    verdict = "within" if worst <= BUDGET_MS else "OVER"
    print(f"slowest engine case {worst:.1f} ms: {verdict} the {BUDGET_MS:.0f} ms budget")


if __name__ == "__main__":
    main()
