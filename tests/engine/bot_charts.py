"""Push/fold charts for the tests, in place of the project's equilibrium chart.

The strong level takes its chart as an argument; these stand in for ``engine.bots.pushfold`` so
that the tests say what the level does with a chart, whatever the chart's figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.bots.strength import hand_class, strengths
from engine.cards import Card


@dataclass
class WidthChart:
    """Shoves the top ``push_at(stack)`` of hands and calls with the top ``call_at(stack)``,
    shrinking with the stack as an equilibrium does; every question asked is recorded."""

    asked: list[tuple[str, float]] = field(default_factory=list)

    def push(self, hole: Sequence[Card], stack_bb: float) -> bool:
        self.asked.append(("push", stack_bb))
        return bool(strengths().top(1)[hand_class(hole)] <= max(0.3, 1.0 - 0.045 * stack_bb))

    def call(self, hole: Sequence[Card], stack_bb: float) -> bool:
        self.asked.append(("call", stack_bb))
        return bool(strengths().top(1)[hand_class(hole)] <= max(0.15, 0.6 - 0.03 * stack_bb))


@dataclass
class FixedChart:
    """Answers every question the same way."""

    answer: bool

    def push(self, hole: Sequence[Card], stack_bb: float) -> bool:
        return self.answer

    def call(self, hole: Sequence[Card], stack_bb: float) -> bool:
        return self.answer
