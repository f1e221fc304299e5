"""Computer players: pure decision functions over what one seat may know (see docs/bots.md).

``beginner()``, ``regular()`` and ``strong()`` make a new player of each level (described in
:mod:`engine.bots.levels`); these names are a stable interface, which command lines name as
``engine.bots:beginner`` and so on.
"""

from collections.abc import Callable

from engine.bots.levels import Beginner, PushFoldChart, Regular, Strong
from engine.bots.view import (
    ALL_IN,
    CALL,
    CHECK,
    FOLD,
    Bot,
    BotView,
    Decision,
    Move,
    SeatInfo,
    Seen,
    to_action,
    view_of,
)
from engine.games import GAMES as _DEALT

# The games the levels play: every game the engine deals.
GAMES: frozenset[str] = frozenset(_DEALT)

__all__ = [
    "ALL_IN",
    "CALL",
    "CHECK",
    "FOLD",
    "GAMES",
    "Beginner",
    "Bot",
    "BotView",
    "Decision",
    "Move",
    "PushFoldChart",
    "Regular",
    "SeatInfo",
    "Seen",
    "Strong",
    "beginner",
    "make",
    "regular",
    "strong",
    "to_action",
    "view_of",
]


def beginner() -> Beginner:
    """A new beginner: loose and passive."""
    return Beginner()


def regular() -> Regular:
    """A new regular: tight and aggressive by the book."""
    return Regular()


def strong(chart: PushFoldChart | None = None) -> Strong:
    """A new strong player; ``chart`` replaces the project's push/fold chart (for tests)."""
    return Strong(chart)


def make(level: str) -> Bot:
    """A new player of the level named (one of :data:`engine.bots.ids.LEVELS`)."""
    factories: dict[str, Callable[[], Bot]] = {
        "beginner": beginner,
        "regular": regular,
        "strong": strong,
    }
    factory = factories.get(level)
    if factory is None:
        raise ValueError(f"no bot level {level!r}")
    return factory()
