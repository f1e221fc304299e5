"""Pot-Limit Omaha benchmarks, each against a peer measured in the same run.

``python -m bench.omaha [--hands N] [--seed S] [--repeat R] [--evaluations N]``

1. Hands per second: seeded random 6-max PLO hands (stacks of 10 to 250 big blinds, half with a
   big blind ante), replayed by our engine and by PokerKit 0.7.7's ``PotLimitOmahaHoldem``, as
   ``bench.engine`` does for Hold'em: the decisions are made once through the differential
   test's oracle (which proves both engines accept them; hands where PokerKit differs by design
   are left out), then each engine is timed alone. Ours builds a ``Hand`` and applies the
   actions (posting, dealing, pot limits, pots, showdown); PokerKit creates its state with
   every automation and plays its moves. DESIGN.md asks for at least 20 times PokerKit's rate.
2. Omaha evaluations per second: ``engine.evaluator.omaha_rank_value`` (phevaluator's Omaha
   evaluator; five calls of it for five hole cards) against the plain loop over the 60 (or
   100) two-plus-three combinations through phevaluator's 5-card evaluator, on the same hands;
   and the equity path (``engine.bulk_eval.omaha_values_on_boards``) per hand and board.
3. Four-way PLO and PLO8 pre-flop equity (sampled, ``engine.equity.SAMPLES`` boards) against
   the 200 ms budget: a process's first count (which fills the tables) and the best of runs.

Every figure is the best of ``--repeat`` runs; ratios hold on any machine even though the
absolute figures do not. Nothing here is asserted: the tests never time anything.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from itertools import combinations, starmap

from phevaluator import _pheval

from bench.engine import (
    best_rate,
    make_hands,
    run_ours,
    run_pokerkit,
)
from engine.bulk_eval import boards_array, omaha_values_on_boards
from engine.cards import FULL_DECK, Card
from engine.equity import SAMPLES, equity
from engine.evaluator import omaha_rank_value
from engine.games import PLO, PLO8, Game

PLAYERS = 6
SMALL_BLIND, BIG_BLIND = 50, 100
BUDGET_MS = 200.0


# --- evaluation ---------------------------------------------------------------------------


Deal = tuple[tuple[Card, ...], tuple[Card, ...]]  # hole cards, board


def deals(count: int, hole_count: int, seed: int) -> list[Deal]:
    rng = random.Random(seed)
    out: list[Deal] = []
    for _ in range(count):
        cards = tuple(Card(c) for c in rng.sample(range(52), hole_count + 5))
        out.append((cards[:hole_count], cards[hole_count:]))
    return out


def plain_loop(hole: tuple[Card, ...], board: tuple[Card, ...]) -> int:
    """What a caller without an Omaha evaluator writes: every two with every three."""
    five: Callable[..., int] = _pheval.evaluate_5cards
    return 7463 - min(
        five(*two, *three) for two in combinations(hole, 2) for three in combinations(board, 3)
    )


def best_seconds(run: Callable[[], object], repeat: int) -> float:
    fastest = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest


def _evaluate_all(
    evaluate: Callable[[tuple[Card, ...], tuple[Card, ...]], int], hands: Sequence[Deal]
) -> list[int]:
    return list(starmap(evaluate, hands))


def bulk_per_board(hands: Sequence[Deal]) -> Callable[[], object]:
    """The equity path: a few hands on many boards (here 4 hands on every board given)."""
    holes = [hole for hole, _ in hands[:4]]
    used = {c for hole in holes for c in hole}
    rest = [c for c in FULL_DECK if c not in used]
    rng = random.Random(0)
    boards = boards_array(tuple(rng.sample(rest, 5)) for _ in range(len(hands) // 4))
    return lambda: omaha_values_on_boards(holes, boards)


def evaluation_figures(count: int, repeat: int) -> None:
    for hole_count, combos in ((4, 60), (5, 100)):
        hands = deals(count, hole_count, seed=hole_count)
        assert all(omaha_rank_value(h, b) == plain_loop(h, b) for h, b in hands[:2000])
        ours = count / best_seconds(partial(_evaluate_all, omaha_rank_value, hands), repeat)
        loop = count / best_seconds(partial(_evaluate_all, plain_loop, hands), repeat)
        bulk = count / best_seconds(bulk_per_board(hands), repeat)
        print(f"Omaha evaluations, {hole_count} hole cards ({combos} combinations each):")
        print(f"  omaha_rank_value       {ours:12,.0f} /s")
        print(f"  plain loop ({combos:3} x 5-card) {loop:10,.0f} /s")
        print(f"  ratio                  {ours / loop:12.1f}x")
        print(f"  equity path (bulk, hand x board) {bulk:,.0f} /s, {bulk / loop:.0f}x the loop")


# --- equity -------------------------------------------------------------------------------


def equity_figures(repeat: int) -> None:
    rng = random.Random(4)
    cards = [Card(c) for c in rng.sample(range(52), 16)]
    holes = [tuple(cards[k * 4 : (k + 1) * 4]) for k in range(4)]
    print(f"4-way pre-flop equity, {SAMPLES:,} sampled boards (budget {BUDGET_MS:.0f} ms):")
    games: tuple[Game, ...] = (PLO, PLO8)
    for game in games:
        first = time.perf_counter()
        equity(holes, game=game)
        first_ms = (time.perf_counter() - first) * 1000
        best_ms = best_seconds(partial(equity, holes, game=game, seed=1), repeat) * 1000
        print(
            f"  {game.code:5} first count {first_ms:6.1f} ms, best {best_ms:6.1f} ms: "
            f"{BUDGET_MS / best_ms:.1f}x inside the budget"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--evaluations", type=int, default=40_000)
    args = parser.parse_args(argv)

    equity_figures(args.repeat)  # first: its "first count" must find the tables empty
    start = time.perf_counter()
    hands, skipped = make_hands(args.hands, args.seed, PLO)
    actions = sum(len(h.actions) for h in hands)
    print(
        f"{len(hands)} PLO hands of {PLAYERS} players, {actions} decisions, {skipped} "
        f"by-design hands skipped, prepared in {time.perf_counter() - start:.1f}s"
    )
    ours = best_rate(run_ours, hands, args.repeat)
    pokerkit = best_rate(run_pokerkit, hands, args.repeat)
    print(f"  ours      {ours:10.0f} hands/s")
    print(f"  PokerKit  {pokerkit:10.0f} hands/s")
    print(f"  ratio     {ours / pokerkit:10.1f}x (goal: 20x)")
    evaluation_figures(args.evaluations, args.repeat)


if __name__ == "__main__":
    main()
