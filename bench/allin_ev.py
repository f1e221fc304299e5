"""All-in EV per hand: four players all-in before the flop, in every game, against peers
measured in the same run on the same hands.

    python -m bench.allin_ev [--hands N] [--peer-hands M] [--seed S]

For each game (Hold'em, PLO, PLO5, PLO8) ``--hands`` random hands are played to a four-way
all-in before the flop by the engine, with uneven stacks (side pots) and odd chip units, and
``engine.allin_ev.all_in_ev`` is timed on each: every board counted exactly (up to 1,086,008 of
them four-way), every pot paid by the rule book. Reported: the p50, p99 and worst time per hand
against the budget of DESIGN.md (20 ms at the 99th percentile), and the first call of the
process, which fills the lookup tables of ``engine.bulk_eval`` (once a process).

Peers, on the same hands:

- **sampled equity**: ``engine.equity.equity`` on the four hands, the engine's all-in chances as
  the replay shows them (66,349 boards drawn at random; chances only, no pots);
- **every board**: the same exact all-in EV with each board listed and valued one by one
  through ``engine.bulk_eval`` (``count_boards(..., by_ranks=False)``), the obvious exact way, on
  ``--peer-hands`` of the hands (it takes a few hundred milliseconds each); its figures are
  checked equal to ours.

Times are the process's CPU time, so other processes on a busy machine disturb them less than
wall time; ratios are peer time over ours. Nothing is asserted: the tests never time anything.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from functools import partial

from engine.allin_ev import all_in_ev, expected_chips
from engine.cards import FULL_DECK
from engine.equity import count_boards, equity, run_out_start
from engine.games import NLHE, PLO, PLO5, PLO8, Game
from engine.hand import Action, ActionKind, Hand, HandConfig

BUDGET_MS = 20.0
PLAYERS = 4


def four_way_all_in(game: Game, rng: random.Random) -> Hand:
    """Four uneven stacks all-in before the flop (pot-limit games raise the pot until they
    are)."""
    unit = rng.choice([1, 5])
    stacks = tuple(unit * rng.randint(20, 400) for _ in range(PLAYERS))
    config = HandConfig.standard(stacks, unit, 2 * unit, chip_unit=unit, game=game)
    hand = Hand(config, rng.sample(FULL_DECK, 52))
    while not hand.is_over:
        legal = hand.legal()
        assert legal is not None
        kind = ActionKind.ALL_IN if legal.can_raise else ActionKind.CALL
        hand.apply(Action(kind, legal.player))
    assert run_out_start(hand) == 0 and not any(hand.folded)
    return hand


def cpu_ms(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return (time.process_time() - started) * 1000


def percentile(sorted_ms: Sequence[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def every_board(hand: Hand) -> list[tuple[object, ...]]:
    """The peer: the same figures from every board listed one by one."""
    live = list(range(hand.n))
    count = count_boards([hand.hole_cards(j) for j in live], game=hand.game, by_ranks=False)
    runs, unit = len(hand.boards), hand.config.chip_unit
    return [expected_chips(pot, live, count, runs, unit) for pot in hand.pots()]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--peer-hands", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"all-in EV of a {PLAYERS}-way all-in before the flop, {args.hands} hands a game")
    print(
        f"{'game':>5} {'boards':>9} {'first ms':>9} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}"
        f" {'sampled equity p50':>19} {'every board p50':>16} {'pots':>5}"
    )
    worst = 0.0
    for game in (NLHE, PLO, PLO5, PLO8):
        hands = [four_way_all_in(game, rng) for _ in range(args.hands)]
        first = cpu_ms(partial(all_in_ev, hands[0]))
        ours = sorted(cpu_ms(partial(all_in_ev, hand)) for hand in hands)
        p99 = percentile(ours, 0.99)
        worst = max(worst, p99)
        sampled = sorted(
            cpu_ms(partial(equity, [hand.hole_cards(j) for j in range(PLAYERS)], game=game))
            for hand in hands[: max(args.peer_hands, 20)]
        )
        listed: list[float] = []
        for hand in hands[: args.peer_hands]:
            ev = all_in_ev(hand)
            assert ev is not None
            started = time.process_time()
            figures = every_board(hand)
            listed.append((time.process_time() - started) * 1000)
            assert figures == [p.chips for p in ev.pots], "the peer disagrees"
        listed.sort()
        p50 = percentile(ours, 0.5)
        pots = sum(len(h.pots()) for h in hands) / len(hands)
        counted = all_in_ev(hands[0])
        assert counted is not None
        sampled_p50, listed_p50 = percentile(sampled, 0.5), percentile(listed, 0.5)
        print(
            f"{game.code:>5} {counted.boards:>9,} {first:>9.1f} {p50:>7.1f} {p99:>7.1f}"
            f" {ours[-1]:>7.1f} {sampled_p50:>8.1f} ({sampled_p50 / p50:>5.1f}x)"
            f" {listed_p50:>7.1f} ({listed_p50 / p50:>5.1f}x) {pots:>5.1f}"
        )
    verdict = "within" if worst <= BUDGET_MS else "OVER"
    print(f"slowest p99 {worst:.1f} ms: {verdict} the {BUDGET_MS:.0f} ms budget")


if __name__ == "__main__":
    main()
