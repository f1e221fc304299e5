"""Decision times of the computer players (engine.bots) on spots from real play.

    python -m bench.bot_decisions                 # 3,000 spots, every level
    python -m bench.bot_decisions --spots 10000   # more
    python -m bench.bot_decisions --profile strong
    python -m bench.bot_decisions --game plo      # in Pot-Limit Omaha (plo5, plo8 too)

The spots are every decision of seeded hands played out by the three levels together at tables
of 2 to 9 seats, stacks from 8 to 250 big blinds (a third of the hands with a big blind ante),
so pre-flop folds, short-stack shoves and multi-way river calls come about as often as they do
at a table. Each level then decides every spot once, timed one decision at a time with
``perf_counter``, a fresh generator seeded by the spot's number each time.

Beside each level's figures is a peer measured in the same run on the same spots: one
``engine.equity.equity`` call over the live hands and the board of the spot (every board on the
flop and turn, 66,349 sampled before the flop), the engine's own all-in equity. Ratios are peer
time / level time, which hold on any machine when the milliseconds do not. The decision budget
(20 ms at the 99th percentile) is reported, never asserted.

The first decision of a process builds the tables the levels share (the starting-hand
strengths and the evaluator's own); that one-time cost is reported on its own line and left
out of the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.bots import Bot, BotView, beginner, regular, strong, to_action, view_of
from engine.cards import FULL_DECK, Card
from engine.equity import equity
from engine.games import GAMES, NLHE, Game
from engine.hand import AnteKind, Hand, HandConfig, Street

BUDGET_MS = 20.0
BIG_BLIND = 100
DEPTHS = (8, 12, 15, 20, 30, 50, 100, 100, 150, 250)


@dataclass(frozen=True, slots=True)
class Spot:
    view: BotView
    holes: tuple[tuple[Card, ...], ...]  # the live hands, for the peer only


LEVELS: dict[str, Callable[[], Bot]] = {"beginner": beginner, "regular": regular, "strong": strong}


def collect(
    count: int, seed: int, makers: dict[str, Callable[[], Bot]], game: Game = NLHE
) -> list[Spot]:
    """Every decision of hands of ``game`` played by a random mix of the levels, until
    ``count``."""
    rng = random.Random(seed)
    spots: list[Spot] = []
    while len(spots) < count:
        players = rng.randint(2, min(9, game.max_players))
        bots = [rng.choice(list(makers.values()))() for _ in range(players)]
        stacks = [rng.choice(DEPTHS) * BIG_BLIND + rng.randint(0, 99) for _ in range(players)]
        ante = rng.random() < 1 / 3
        config = HandConfig.standard(
            stacks,
            BIG_BLIND // 2,
            BIG_BLIND,
            ante_kind=AnteKind.BIG_BLIND if ante else AnteKind.NONE,
            ante=BIG_BLIND if ante else 0,
            game=game,
        )
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand = Hand(config, deck)
        while not hand.is_over and hand.to_act is not None and len(spots) < count:
            seat = hand.to_act
            view = view_of(hand, seat)
            live = tuple(hand.hole_cards(j) for j in view.live)
            spots.append(Spot(view, live))
            hand.apply(to_action(bots[seat].decide(view, rng), view))
    return spots


def time_level(bot: Bot, spots: Sequence[Spot]) -> list[float]:
    """Milliseconds of each decision."""
    times = []
    for number, spot in enumerate(spots):
        rng = random.Random(number)
        started = time.perf_counter()
        bot.decide(spot.view, rng)
        times.append((time.perf_counter() - started) * 1000)
    return times


def time_peer(spots: Sequence[Spot]) -> list[float]:
    times = []
    for spot in spots:
        started = time.perf_counter()
        equity(spot.holes, spot.view.board, game=spot.view.game)
        times.append((time.perf_counter() - started) * 1000)
    return times


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--spots", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", choices=("beginner", "regular", "strong"))
    parser.add_argument("--game", choices=sorted(GAMES), default=NLHE.code)
    args = parser.parse_args(argv)
    makers = LEVELS
    started = time.perf_counter()
    spots = collect(args.spots, args.seed, makers, GAMES[args.game])
    first = time.perf_counter() - started
    print(f"{len(spots):,} spots from play in {first:.1f} s, the first decision building the")
    print("shared tables (starting-hand strengths, evaluator lookups) once for the process")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(time_level, makers[args.profile](), spots)
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
        return
    postflop = [s.view.street is not Street.PREFLOP for s in spots]
    print(f"{sum(postflop):,} of them after the flop")
    peer = time_peer(spots)
    peer_mean = statistics.fmean(peer)
    print(f"peer: engine.equity.equity on the same spots, mean {peer_mean:.3f} ms")
    header = f"{'level':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'mean ms':>8}"
    print(header + f" {'pre-flop':>9} {'post-flop':>9} {'peer/level':>10}")
    worst = 0.0
    for name, make in makers.items():
        times = time_level(make(), spots)
        before = [t for t, after in zip(times, postflop, strict=True) if not after]
        after = [t for t, after in zip(times, postflop, strict=True) if after]
        mean = statistics.fmean(times)
        p99 = percentile(times, 0.99)
        worst = max(worst, p99)
        print(
            f"{name:>9} {percentile(times, 0.5):>8.3f} {p99:>8.3f} {max(times):>8.3f}"
            f" {mean:>8.3f} {statistics.fmean(before):>9.3f} {statistics.fmean(after):>9.3f}"
            f" {peer_mean / mean:>9.1f}x"
        )
    verdict = "within" if worst <= BUDGET_MS else "OVER"
    print(f"slowest p99 {worst:.3f} ms: {verdict} the {BUDGET_MS:.0f} ms budget")


if __name__ == "__main__":
    main()
