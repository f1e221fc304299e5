"""League points: what one finish in a tournament is worth, fixed to the hundredth.

A league's points rule is one of three, given as text when the league is made:

- ``standard``: ``10 × √(n / k) × (1 + log10(b + 0.25))``, with ``n`` the entries, ``k`` the
  place and ``b`` the buy-in in big blinds of the first level. The square root rewards a deep
  finish in a big field without letting one win dwarf a season of steady results; the logarithm
  makes a dearer tournament worth more, but only a little more (ten times the buy-in adds one
  step, not ten times the points), and the 0.25 keeps a freeroll worth something (b = 0 gives
  a factor of 0.40, never zero or negative);
- ``flat``: one point per entry finishing behind;
- points by place, ``"25, 18, 15, 12"``: the first place 25, the second 18, ...; a place past
  the list 0. A list never rises (a worse place cannot be worth more), has no negative value,
  at most two decimals, and no more places than a tournament can have players.

Players who share places (eliminated in the same hand with the same stack) share the points of
the places they span, as they share the prizes: the mean, rounded once.

Points are integers of hundredths (``1234`` is 12.34), rounded half up from an exact decimal
computation, so every process and both databases agree on them to the hundredth.

>>> rule = read_points("standard")
>>> points_of(rule, entrants=10, place=1, buy_in=100, big_blind=20)  # n 10, k 1, b 5
5440
>>> points_of(read_points("flat"), entrants=10, place=3)
700
>>> points_of(read_points("25, 18, 15, 12"), entrants=8, place=2, tied=2)  # (18 + 15) / 2
1650
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from itertools import pairwise

from engine.errors import EngineError
from engine.limits import MAX_CHIPS, MAX_TOURNAMENT_PLAYERS

STANDARD = "standard"
FLAT = "flat"
PRESETS = (STANDARD, FLAT)
# Points by place: as many places as a tournament can have players, each worth at most this.
MAX_PLACE_POINTS = 1_000_000
MAX_POINTS_TEXT = 4000
HUNDREDTH = Decimal("0.01")
# Exact enough that rounding to the hundredth never depends on the last digit computed.
_EXACT = Context(prec=40)
_NUMBER = re.compile(r"^\d{1,7}(?:\.\d{1,2})?$")


@dataclass(frozen=True, slots=True)
class PointsRule:
    """A league's points: ``kind`` ``standard``, ``flat`` or ``places`` (``places``: each
    place's points in hundredths, best first)."""

    kind: str
    places: tuple[int, ...] = ()

    @property
    def text(self) -> str:
        """As stored and shown: ``standard``, ``flat``, or ``25, 18, 15.5``."""
        if self.kind != "places":
            return self.kind
        return ", ".join(hundredths_text(p) for p in self.places)


def hundredths_text(value: int) -> str:
    """``1650`` -> ``16.5``; ``2500`` -> ``25``: points as a person writes them.

    >>> hundredths_text(1650), hundredths_text(2500), hundredths_text(7)
    ('16.5', '25', '0.07')
    """
    whole, part = divmod(value, 100)
    if not part:
        return str(whole)
    return f"{whole}.{part:02d}".rstrip("0")


def read_points(text: object) -> PointsRule:
    """A league's points rule from its text, or the refusal that says what is wrong."""
    if not isinstance(text, str) or len(text) > MAX_POINTS_TEXT:
        raise EngineError("bad_league_points", maximum=MAX_TOURNAMENT_PLAYERS)
    word = text.strip().lower()
    if word in PRESETS:
        return PointsRule(word)
    parts = [p.strip() for p in word.replace("，", ",").split(",")]
    if parts and not parts[-1]:
        parts.pop()  # "25, 18, 15," is the same list
    if not parts or not all(parts):
        raise EngineError("bad_league_points", maximum=MAX_TOURNAMENT_PLAYERS)
    if len(parts) > MAX_TOURNAMENT_PLAYERS:
        raise EngineError("league_too_many_places", places=len(parts),
                          maximum=MAX_TOURNAMENT_PLAYERS)
    values: list[int] = []
    for part in parts:
        if part.startswith("-"):
            raise EngineError("league_points_negative", value=part)
        if not _NUMBER.match(part):
            raise EngineError("bad_league_points", maximum=MAX_TOURNAMENT_PLAYERS)
        value = int((Decimal(part) * 100).to_integral_value())
        if value > MAX_PLACE_POINTS * 100:
            raise EngineError("league_points_too_large", maximum=MAX_PLACE_POINTS)
        values.append(value)
    for place, (better, worse) in enumerate(pairwise(values), start=2):
        if worse > better:
            raise EngineError("league_points_rising", place=place)
    if not any(values):
        raise EngineError("bad_league_points", maximum=MAX_TOURNAMENT_PLAYERS)
    return PointsRule("places", tuple(values))


def _place_value(rule: PointsRule, entrants: int, place: int, buy_in: int,
                 big_blind: int) -> Decimal:
    """One place's points, unrounded."""
    if rule.kind == FLAT:
        return Decimal(entrants - place)
    if rule.kind == "places":
        return Decimal(rule.places[place - 1] if place <= len(rule.places) else 0) / 100
    b = _EXACT.divide(Decimal(buy_in), Decimal(big_blind))
    depth = _EXACT.divide(Decimal(entrants), Decimal(place)).sqrt(_EXACT)
    stakes = 1 + _EXACT.add(b, Decimal("0.25")).log10(_EXACT)
    return _EXACT.multiply(_EXACT.multiply(Decimal(10), depth), stakes)


def points_of(
    rule: PointsRule,
    *,
    entrants: int,
    place: int,
    tied: int = 1,
    buy_in: int = 0,
    big_blind: int = 1,
) -> int:
    """A finish's points in hundredths: ``place`` among ``entrants`` entries, shared by
    ``tied`` entries (the places ``place`` to ``place + tied - 1``); ``buy_in`` and the first
    level's ``big_blind`` give the standard rule its b. A finish that cannot exist (a place
    past the entries, no entries, a negative buy-in) is refused: such points mean nothing."""
    for value in (entrants, place, tied, big_blind):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise EngineError("bad_league_finish", entrants=entrants, place=place)
    if (isinstance(buy_in, bool) or not isinstance(buy_in, int) or not 0 <= buy_in <= MAX_CHIPS
            or entrants > MAX_TOURNAMENT_PLAYERS * MAX_TOURNAMENT_PLAYERS
            or place + tied - 1 > entrants):
        raise EngineError("bad_league_finish", entrants=entrants, place=place)
    total = Decimal(0)
    for shared in range(place, place + tied):
        total = _EXACT.add(total, _place_value(rule, entrants, shared, buy_in, big_blind))
    mean = _EXACT.divide(total, Decimal(tied))
    return int(mean.quantize(HUNDREDTH, rounding=ROUND_HALF_UP, context=_EXACT) * 100)


__all__ = [
    "FLAT",
    "MAX_PLACE_POINTS",
    "PRESETS",
    "STANDARD",
    "PointsRule",
    "hundredths_text",
    "points_of",
    "read_points",
]
