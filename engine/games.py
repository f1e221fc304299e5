"""The games the engine deals, as data: how many hole cards, how a hand is made, how much a
player may bet, and who the pot goes to.

Every rule that differs between Texas Hold'em and the Omaha family is a field of :class:`Game`,
and the engine reads it there; nothing else in the engine asks which game it is playing. What
the games share (blinds, antes, the order of play, side pots, odd chips, showing) is RULES.md
and is the same code for all of them.

- **Hand making** (:class:`HandMaking`): ``ANY_FIVE`` is Hold'em's best five of seven (two, one
  or no hole cards); ``TWO_PLUS_THREE`` is Omaha's exactly two hole cards and exactly three
  board cards, the best of the 60 such fives with four hole cards (100 with five).
- **Betting** (:class:`Betting`): ``NO_LIMIT``, or ``POT_LIMIT``: a bet or raise may be at most
  the pot after the raiser's call, i.e. the raise-to total is at most ``high bet + pot + call``
  where the pot counts every chip in the middle (this street's bets and dead money included).
- **Split** (:class:`Split`): ``HIGH`` gives each pot to its best hand; ``HIGH_LOW_8`` halves
  each pot between the best high hand and the best eight-or-better low (:mod:`engine.low`), the
  odd chip unit to the high half, and gives the whole pot to the high hand when no player in it
  has a low.

The registered games are :data:`NLHE` (the default, unchanged), :data:`PLO`, :data:`PLO5` and
:data:`PLO8`; :func:`game_by_code` finds one by its stored code.

>>> PLO.hole_count, PLO.betting.value, PLO8.split.value, game_by_code("plo5").name
(4, 'pot_limit', 'high_low_8', 'Pot-Limit Omaha (5 cards)')
>>> NLHE.max_players, PLO.max_players, PLO5.max_players
(23, 11, 9)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from engine.cards import Card
from engine.errors import EngineError
from engine.evaluator import HandRank, evaluate, evaluate_omaha, omaha_rank_value, rank_value
from engine.limits import MAX_SEATS
from engine.low import LowRank, evaluate_low, low_value

__all__ = [
    "GAMES",
    "NLHE",
    "PLO",
    "PLO5",
    "PLO8",
    "Betting",
    "Game",
    "HandMaking",
    "Split",
    "game_by_code",
]

BOARD_CARDS: Final = 5


class HandMaking(StrEnum):
    ANY_FIVE = "any_five"  # the best five of hole and board cards together
    TWO_PLUS_THREE = "two_plus_three"  # exactly two hole cards and three board cards


class Betting(StrEnum):
    NO_LIMIT = "no_limit"
    POT_LIMIT = "pot_limit"


class Split(StrEnum):
    HIGH = "high"
    HIGH_LOW_8 = "high_low_8"  # half to the best high, half to the best eight-or-better low


# Read by every hand (engine.hand): under Python 3.11 an Enum member read off its class goes
# through EnumType's ``__getattr__`` hook, several times the cost of a module global.
_ANY_FIVE: Final = HandMaking.ANY_FIVE
_POT_LIMIT: Final = Betting.POT_LIMIT
_HIGH_LOW_8: Final = Split.HIGH_LOW_8


@dataclass(frozen=True, slots=True)
class Game:
    """One game's rules. ``code`` is what hand and table JSON store; ``name`` is English for
    logs (the bot names a game from its catalog, by code); ``phh_variant`` is the variant code
    of its hand histories (:mod:`engine.phh`)."""

    code: str
    name: str
    hole_count: int
    hand_making: HandMaking
    betting: Betting
    split: Split
    phh_variant: str

    @property
    def max_players(self) -> int:
        """The most players one deck deals to: every hole card and a whole board."""
        return min(MAX_SEATS, (52 - BOARD_CARDS) // self.hole_count)

    @property
    def pot_limit(self) -> bool:
        return self.betting is _POT_LIMIT

    @property
    def has_low(self) -> bool:
        return self.split is _HIGH_LOW_8

    def high_value(self, hole: Sequence[Card], board: Sequence[Card]) -> int:
        """The high hand's value (:mod:`engine.evaluator`: bigger is better, equal ties).

        >>> from engine.cards import parse_cards
        >>> board = parse_cards("Ah Kh Qh 7c 2d")
        >>> NLHE.high_value(parse_cards("Jh 3s"), board) > PLO.high_value(
        ...     parse_cards("Jh 3s 4s 5s"), board)             # the flush needs two hearts
        True
        """
        if self.hand_making is _ANY_FIVE:
            return rank_value((*hole, *board))
        return omaha_rank_value(hole, board)

    def high_rank(self, hole: Sequence[Card], board: Sequence[Card]) -> HandRank:
        """The high hand, named, with its best five cards."""
        if self.hand_making is _ANY_FIVE:
            return evaluate((*hole, *board))
        return evaluate_omaha(hole, board)

    def low_value(self, hole: Sequence[Card], board: Sequence[Card]) -> int:
        """The low hand's value (:mod:`engine.low`), 0 for none or in a game without a low."""
        return low_value(hole, board) if self.has_low else 0

    def low_rank(self, hole: Sequence[Card], board: Sequence[Card]) -> LowRank | None:
        """The low hand, named, with its five cards; None for none or without a low."""
        return evaluate_low(hole, board) if self.has_low else None


NLHE: Final = Game(
    "nlhe",
    "No-Limit Texas Hold'em",
    2,
    HandMaking.ANY_FIVE,
    Betting.NO_LIMIT,
    Split.HIGH,
    "NT",
)
PLO: Final = Game(
    "plo",
    "Pot-Limit Omaha",
    4,
    HandMaking.TWO_PLUS_THREE,
    Betting.POT_LIMIT,
    Split.HIGH,
    "PO",
)
PLO5: Final = Game(
    "plo5",
    "Pot-Limit Omaha (5 cards)",
    5,
    HandMaking.TWO_PLUS_THREE,
    Betting.POT_LIMIT,
    Split.HIGH,
    "PO5",
)
PLO8: Final = Game(
    "plo8",
    "Pot-Limit Omaha Hi-Lo (eight or better)",
    4,
    HandMaking.TWO_PLUS_THREE,
    Betting.POT_LIMIT,
    Split.HIGH_LOW_8,
    "PO/8",
)

GAMES: Final[dict[str, Game]] = {game.code: game for game in (NLHE, PLO, PLO5, PLO8)}
"""Every game the engine deals, by code."""


def game_by_code(code: object) -> Game:
    """The registered game of ``code``; ``EngineError("bad_config", field="game")`` otherwise.

    >>> game_by_code("plo8") is PLO8
    True
    """
    game = GAMES.get(code) if isinstance(code, str) else None
    if game is None:
        raise EngineError("bad_config", field="game", value=repr(code))
    return game
