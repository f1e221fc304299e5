"""Heads-up push or fold at 15 big blinds or less, from an equilibrium the project computes.

The game
--------
Both players start with ``S`` big blinds (the effective stack, counted before the blinds). The
small blind, on the button, posts 1/2 and either folds or goes all in; facing that, the big
blind, who posted 1, folds or calls. There is no ante. Hands are dealt from one deck, so the two
hands share no card: a class pair ``(a, b)`` comes up as often as it has compatible combination
pairs (:mod:`engine.bots.allin`), and its all-in equity is the exact class-against-class one of
that module. In big blinds won from the stack the small blind started with, folding is worth
-1/2, a fold to its push +1 and a call ``S * (2 * eq - 1)``.

A strategy gives each of the 169 classes a probability: to push for the small blind, to call
for the big blind. Renaming suits maps the deal onto itself, so the combinations of a class are
alike and nothing is lost by deciding class by class.

The equilibrium
---------------
CFR+ over the 169 classes of each side: each class keeps the positive part of its regret for
either action and plays them in proportion (regret matching+), the players update in turn, and
the answer is the average of the strategies played, iteration ``t`` weighing ``t``. Nothing is
set by hand: the equities, the stack and the rules of the game are all it reads. It stops,
looking every :data:`CHECK_EVERY` iterations, once the average strategies, rounded to the
:data:`DECIMALS` decimals stored, are within :data:`TARGET` of an equilibrium (1,000 to 36,000
iterations a stack).

**Exploitability.** Against a strategy pair, a best-responding small blind gains
``sb_gain`` = (its best response's value - the pair's value), a best-responding big blind
``bb_gain`` likewise; both are 0 exactly at an equilibrium. Heads-up the seats alternate, so a
best-responding opponent wins half their sum a hand on average: that is the *exploitability*,
in big blinds (the chart shows milli-big-blinds, mbb).

The bot
-------
:func:`push` and :func:`call` read the solution of the nearest solved stack (1 to 15 big blinds
by halves; a stack half-way between two goes to the deeper; smaller and larger stacks are
clamped to the range). Without ``rng`` a hand is played if its class's probability is at least
1/2: in each solution at most a class or two mix, and the chart gives the exploitability of
these pure ranges as well. With ``rng`` the mix itself is played.

Built, with the equities, by ``python -m engine.bots.pushfold build`` (``--solve`` solves again
from the stored equities, in seconds); ``python -m engine.bots.pushfold chart`` prints the chart
of ``docs/bots.md``.

>>> from engine.cards import parse_cards
>>> push(parse_cards("AsAd"), 15), push(parse_cards("7c2d"), 15), call(parse_cards("7c2d"), 15)
(True, False, False)
>>> f"{push_percent(10):.1f}", f"{call_percent(10):.1f}"
('58.3', '37.4')
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from engine.bots import allin
from engine.bots.preflop import CLASS_NAMES, CLASSES, class_combos, hand_class
from engine.cards import Card

__all__ = [
    "CHECK_EVERY",
    "DATA",
    "DECIMALS",
    "STACKS",
    "TARGET",
    "Game",
    "Solution",
    "call",
    "call_percent",
    "chart_markdown",
    "load",
    "push",
    "push_percent",
    "solution_at",
    "solve",
    "write",
]

STACKS: Final[tuple[float, ...]] = tuple(1 + k / 2 for k in range(29))
"""The solved stacks, in big blinds: 1, 1.5, ..., 15."""
TARGET: Final = 1e-8
"""Exploitability, in big blinds a hand, the solver stops under (0.00001 mbb)."""
CHECK_EVERY: Final = 1000
DECIMALS: Final = 4
"""Decimals of the stored probabilities."""
DATA: Final = Path(__file__).with_name("data") / "pushfold.json"

Vector = npt.NDArray[np.float64]
_COMBOS: Final = np.array([class_combos(c) for c in range(CLASSES)], dtype=np.float64)
_MOST_ITERATIONS: Final = 1_000_000


class Game:
    """The push-or-fold game at ``stack`` big blinds, over a table of class equities.

    The small blind's value is ``-1/2 + base @ push + push @ gain @ call``: ``base[a]`` is what
    pushing ``a`` wins over folding it when every push is folded to (the chance of being dealt
    ``a`` times 3/2), ``gain[a, b]`` what a call of ``b`` changes (``S * (2 * eq - 1) - 1``
    times the chance of the deal ``(a, b)``).
    """

    def __init__(self, table: allin.AllIn, stack: float) -> None:
        chance = table.pairs / float(table.pairs.sum())
        self.stack = stack
        self.base: Vector = 1.5 * chance.sum(axis=1)
        self.gain: npt.NDArray[np.float64] = chance * (stack * (2 * table.equity() - 1) - 1)

    def value(self, push: Vector, call: Vector) -> float:
        """The small blind's expected winnings, in big blinds."""
        return float(-0.5 + self.base @ push + push @ self.gain @ call)

    def push_gains(self, call: Vector) -> Vector:
        """What pushing each class wins over folding it (weighed by the chance of the class)."""
        return self.base + self.gain @ call

    def call_gains(self, push: Vector) -> Vector:
        """What calling each class wins the big blind over folding it, likewise weighed."""
        result: Vector = -(push @ self.gain)
        return result

    def best_response_gains(self, push: Vector, call: Vector) -> tuple[float, float]:
        """``(sb_gain, bb_gain)``: what a best response of each side wins over the pair."""
        value = self.value(push, call)
        # Each side's best response plays a class exactly when that gains over folding it.
        best_for_sb = -0.5 + float(np.maximum(self.push_gains(call), 0).sum())
        worst_for_sb = -0.5 + float(self.base @ push)
        worst_for_sb -= float(np.maximum(self.call_gains(push), 0).sum())
        return best_for_sb - value, value - worst_for_sb


@dataclass(frozen=True)
class Solution:
    """One stack's equilibrium: each class's probability to push and to call, what a best
    response gains against it and against its pure rounding, and the iterations it took."""

    stack: float
    push: tuple[float, ...]
    call: tuple[float, ...]
    iterations: int
    sb_gain: float
    bb_gain: float
    pure_sb_gain: float
    pure_bb_gain: float

    @property
    def exploitability(self) -> float:
        return (self.sb_gain + self.bb_gain) / 2

    @property
    def pure_exploitability(self) -> float:
        return (self.pure_sb_gain + self.pure_bb_gain) / 2

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "iterations": self.iterations,
            "sb_gain": self.sb_gain,
            "bb_gain": self.bb_gain,
            "pure_sb_gain": self.pure_sb_gain,
            "pure_bb_gain": self.pure_bb_gain,
            "push": [_compact(p) for p in self.push],
            "call": [_compact(q) for q in self.call],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Solution:
        return cls(
            float(data["stack"]),
            tuple(float(p) for p in data["push"]),
            tuple(float(q) for q in data["call"]),
            int(data["iterations"]),
            float(data["sb_gain"]),
            float(data["bb_gain"]),
            float(data["pure_sb_gain"]),
            float(data["pure_bb_gain"]),
        )


def _compact(probability: float) -> float | int:
    # The pure classes, nearly all of them, written 0 and 1 keep the file short.
    return int(probability) if probability in (0.0, 1.0) else probability


def _regret_matched(regrets: npt.NDArray[np.float64]) -> Vector:
    """Each class's probability of its first action, in proportion to the positive regrets;
    1/2 while it has none."""
    total = regrets.sum(axis=0)
    share: Vector = np.divide(regrets[0], total, out=np.full(CLASSES, 0.5), where=total > 0)
    return share


def solve(table: allin.AllIn, stack: float, target: float = TARGET) -> Solution:
    """The equilibrium at ``stack`` big blinds, by CFR+ (see the module doc), to ``target``."""
    game = Game(table, stack)
    push_regret = np.zeros((2, CLASSES))  # [push, fold] by class
    call_regret = np.zeros((2, CLASSES))  # [call, fold]
    push_sum = np.zeros(CLASSES)
    call_sum = np.zeros(CLASSES)
    for t in range(1, _MOST_ITERATIONS + 1):
        push_now = _regret_matched(push_regret)
        call_now = _regret_matched(call_regret)
        _regret_step(call_regret, call_now, game.call_gains(push_now))
        call_now = _regret_matched(call_regret)
        _regret_step(push_regret, push_now, game.push_gains(call_now))
        push_sum += t * push_now
        call_sum += t * call_now
        if t % CHECK_EVERY == 0:
            weight = t * (t + 1) / 2
            push_avg = np.round(push_sum / weight, DECIMALS)
            call_avg = np.round(call_sum / weight, DECIMALS)
            sb_gain, bb_gain = game.best_response_gains(push_avg, call_avg)
            if (sb_gain + bb_gain) / 2 <= target:
                break
    else:
        raise RuntimeError(f"no equilibrium within {target} bb after {t} iterations")
    push_pure = (push_avg >= 0.5).astype(np.float64)
    call_pure = (call_avg >= 0.5).astype(np.float64)
    pure_sb_gain, pure_bb_gain = game.best_response_gains(push_pure, call_pure)
    return Solution(
        stack,
        tuple(push_avg.tolist()),
        tuple(call_avg.tolist()),
        t,
        sb_gain,
        bb_gain,
        pure_sb_gain,
        pure_bb_gain,
    )


def _regret_step(regrets: npt.NDArray[np.float64], now: Vector, gains: Vector) -> None:
    """Add the iteration's regrets of acting (gain over folding) and folding, and keep their
    positive parts (the "+" of CFR+)."""
    played = now * gains  # the value of the strategy played, folding counted 0
    regrets[0] += gains - played
    regrets[1] -= played
    np.maximum(regrets, 0, out=regrets)


# --- the stored solution --------------------------------------------------------------------


def write(solutions: Sequence[Solution], path: Path = DATA) -> None:
    """One line a stack, so that a new build reads as a diff by stack."""
    lines = [json.dumps(s.to_json(), separators=(",", ":")) for s in solutions]
    path.parent.mkdir(parents=True, exist_ok=True)
    text = '{"classes":' + json.dumps(list(CLASS_NAMES), separators=(",", ":"))
    text += ',\n"solutions":[\n' + ",\n".join(lines) + "\n]}\n"
    path.write_text(text, encoding="utf-8")


@cache
def load(path: Path = DATA) -> tuple[Solution, ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if tuple(data["classes"]) != CLASS_NAMES:
        raise ValueError(f"{path}: classes in another order")
    solutions = tuple(Solution.from_json(s) for s in data["solutions"])
    if tuple(s.stack for s in solutions) != STACKS:
        raise ValueError(f"{path}: not the stacks {STACKS}")
    return solutions


def solution_at(stack_bb: float) -> Solution:
    """The stored solution of the solved stack nearest ``stack_bb`` (see the module doc)."""
    if math.isnan(stack_bb):
        raise ValueError("stack_bb is not a number")
    clamped = min(max(stack_bb, STACKS[0]), STACKS[-1])
    return load()[math.floor((clamped - STACKS[0]) * 2 + 0.5)]


def _plays(probability: float, rng: random.Random | None) -> bool:
    if rng is None:
        return probability >= 0.5
    return rng.random() < probability


def push(hole: Sequence[Card], stack_bb: float, rng: random.Random | None = None) -> bool:
    """Whether the small blind goes all in with ``hole`` at ``stack_bb`` big blinds (else it
    folds)."""
    return _plays(solution_at(stack_bb).push[hand_class(hole)], rng)


def call(hole: Sequence[Card], stack_bb: float, rng: random.Random | None = None) -> bool:
    """Whether the big blind calls the small blind's all-in with ``hole``."""
    return _plays(solution_at(stack_bb).call[hand_class(hole)], rng)


def _percent(probabilities: Sequence[float]) -> float:
    return float(100 * (_COMBOS @ np.array(probabilities)) / _COMBOS.sum())


def push_percent(stack_bb: float) -> float:
    """The equilibrium's share of the 1,326 combinations pushed, in percent (a mixed class
    counted by its probability)."""
    return _percent(solution_at(stack_bb).push)


def call_percent(stack_bb: float) -> float:
    """The share of the 1,326 combinations called, in percent."""
    return _percent(solution_at(stack_bb).call)


def chart_markdown(solutions: Sequence[Solution] | None = None) -> str:
    """The chart by stack: push and call percentages, the equilibrium's exploitability and
    that of the bot's pure ranges, in milli-big-blinds a hand."""
    head = (
        "stack (bb)",
        "push %",
        "call %",
        "exploitability (mbb/hand)",
        "bot's pure ranges (mbb/hand)",
    )
    rows = ["| " + " | ".join(head) + " |", "|---:|---:|---:|---:|---:|"]
    for s in load() if solutions is None else solutions:
        rows.append(
            f"| {s.stack:g} | {_percent(s.push):.1f} | {_percent(s.call):.1f} "
            f"| {1000 * s.exploitability:.6f} | {1000 * s.pure_exploitability:.3f} |"
        )
    return "\n".join(rows) + "\n"


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.bots.pushfold")
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="count the equities, then solve every stack")
    build.add_argument("--solve", action="store_true", help="solve from the stored equities")
    commands.add_parser("chart", help="print the chart (Markdown)")
    args = parser.parse_args(argv)
    if args.command == "chart":
        sys.stdout.write(chart_markdown())
        return
    if not args.solve:
        started = time.process_time()

        def progress(done: int, total: int) -> None:
            print(f"equities: {done:,} of {total:,} boards", file=sys.stderr, flush=True)

        allin.save(allin.build(progress))
        allin.load.cache_clear()
        print(f"equities: {time.process_time() - started:.0f} s of CPU", file=sys.stderr)
    table = allin.load()
    solutions = []
    for stack in STACKS:
        solutions.append(solve(table, stack))
        s = solutions[-1]
        print(f"{stack:g} bb: {s.iterations} iterations", file=sys.stderr)
    write(solutions)
    load.cache_clear()
    sys.stdout.write(chart_markdown())


if __name__ == "__main__":
    main(sys.argv[1:])
