"""How much can anybody win from the wide all-in player, and how much of it do the levels win?

    python -m bench.shover_ceiling                  # 20,000 hands, seed 0
    python -m bench.shover_ceiling --hands 4000

The shover (``engine.bots.baselines:shover``) moves all in before the flop for 100 big blinds
with any pair, any ace or two picture cards, and folds the rest: 318 of the 1,326 hands. Heads-up
nothing else can happen before the flop, so the most any opponent can win from him is a sum over
the 169 starting-hand classes, exact from the project's all-in equity table
(:mod:`engine.bots.allin`, card removal counted):

- in the big blind he shoves (the caller's class decides how often, by card removal) and the
  best answer calls when its equity against his range pays the 99 big blinds asked, else folds;
  when he folds, the big blind wins his half;
- on the button the best play calls the big blind with every hand (a raise costs more when he
  shoves and wins no more when he folds), answers his shove the same way, and when he checks
  bets the flop, which he always folds to.

:func:`ceiling` counts it; then the same deals are played (duplicate, as ``engine.bots duel``
plays them) by :class:`Exploiter`, that best answer written out with his exact range, and by each
level, so the levels' figures are read beside the most that is there to win, in the same run.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from engine.bots import (
    CALL,
    CHECK,
    FOLD,
    Bot,
    BotView,
    Decision,
    allin,
    beginner,
    regular,
    strong,
)
from engine.bots.baselines import pot_raise, shover, wide_shove
from engine.bots.match import play_deals, score
from engine.bots.preflop import CLASSES, hand_class
from engine.cards import FULL_DECK, Card
from engine.hand import Street

STACK_BB = 100
Floats = npt.NDArray[np.float64]


def _shove_range() -> npt.NDArray[np.bool_]:
    first: dict[int, tuple[Card, ...]] = {}
    for hole in itertools.combinations(FULL_DECK, 2):
        first.setdefault(hand_class(hole), hole)
    return np.array([wide_shove(first[c]) for c in range(CLASSES)])


def _against_range() -> tuple[Floats, Floats, Floats]:
    """Per class: its weight among deals, the chance he shoves against it, and its all-in
    equity against his range (card removal counted)."""
    table = allin.load()
    equity = table.equity()
    pairs = allin.compatible_pairs()
    shoves = _shove_range()
    total = pairs.sum(axis=1)
    facing = pairs[:, shoves].sum(axis=1)
    against = (pairs[:, shoves] * equity[:, shoves]).sum(axis=1) / np.maximum(facing, 1)
    return total / total.sum(), facing / total, against


def ceiling() -> float:
    """The most an opponent wins from the shover heads-up at 100 big blinds, in bb/100."""
    weight, shoves, against = _against_range()
    called = np.maximum(STACK_BB * (2 * against - 1), -1.0)  # call his shove, or fold for 1 bb
    button = (1 - shoves) * 1.0 + shoves * called  # he checks and folds to the flop bet
    big_blind = (1 - shoves) * 0.5 + shoves * called  # he folds his small blind
    return float(100 * (weight * (button + big_blind) / 2).sum())


class Exploiter:
    """The best answer to the shover, knowing his exact range (see the module doc)."""

    def __init__(self) -> None:
        _, _, self._against = _against_range()

    def decide(self, view: BotView, rng: random.Random) -> Decision:
        if view.street is not Street.PREFLOP:
            return pot_raise(view) if view.to_call == 0 else FOLD
        if view.to_call <= view.big_blind:
            return CALL if view.to_call else CHECK
        pot = view.pot + view.to_call
        return CALL if self._against[hand_class(view.hole)] * pot >= view.to_call else FOLD


def _duel(bot: Bot, hands: int, seed: int) -> str:
    mine, _ = play_deals(bot, shover(), players=2, seed=seed, start=0, stop=hands // 2)
    result = score(mine, 1)
    low, high = result.ci95
    return f"{result.bb_per_100:+7.1f} bb/100  [{low:+.1f}, {high:+.1f}]"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.hands < 4 or args.hands % 2:
        parser.error("--hands must be even and at least 4")
    print(f"the most there is to win from the shover, exact: {ceiling():+.1f} bb/100")
    print(f"heads-up, duplicate, {args.hands} hands, seed {args.seed}, against the shover:")
    players: list[tuple[str, Bot]] = [("exploiter (knows his range)", Exploiter())]
    players += [(name, make()) for name, make in (("strong", strong), ("regular", regular),
                                                  ("beginner", beginner))]
    for name, bot in players:
        started = time.perf_counter()
        line = _duel(bot, args.hands, args.seed)
        print(f"  {name:28} {line}   ({time.perf_counter() - started:.0f} s)", flush=True)
    print("read each level against the exploiter's line: the same deals, the same run")


if __name__ == "__main__":
    main()
