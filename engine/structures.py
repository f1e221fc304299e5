"""Blind structures and payout tables as a host asks for them: named presets, or typed text.

A structure is the schedule of levels (small blind, big blind, ante, minutes, and breaks). The
presets ``turbo``, ``regular`` and ``deep`` are written for a starting stack of 10,000 and scaled
to the one chosen (rounded to amounts a dealer would use), so a preset means the same depth of
play whatever the stack; they use the big blind ante (the seeds' default), or a per-player ante,
or none. A stack so deep that a level's big blind would pass what a table takes is refused,
naming the largest stack the preset allows. A custom structure is typed as levels separated by
commas (or semicolons, or lines)::

    25/50/50 15, 50/100/100 15, break 10, 100/200/200 15

each level ``SB/BB[/ante] [minutes]`` (amounts may end in ``k``; minutes left out take
``level_minutes``), and ``break N`` a break of N minutes after the level before it. Every
mistake is refused with its own code naming the level.

Payouts: the presets ``standard``, ``top-heavy``, ``flat`` and ``winner-takes-all`` pay more
places as the field grows; a custom list of percentages (``50, 30, 20``) must add up to 100,
never pay a lower place more, and pay no more places than players can enter.

>>> [lv.to_json() for lv in parse_structure("25/50/50 15, break 5, 50/100/100 20")]
[[25, 50, 50, 15.0, 5.0], [50, 100, 100, 20.0]]
>>> structure("regular", starting_stack=1_500)[:3] == parse_structure(
...     "4/8/8 15, 6/12/12 15, 10/20/20 15")
True
>>> parse_payouts("50, 30, 20", max_players=9).prizes(1_000, 9)
(500, 300, 200)
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

from engine.errors import EngineError
from engine.hand import AnteKind
from engine.limits import MAX_CHIPS, MAX_LEVELS
from engine.tournament import BlindLevel, PayoutTable, check_levels

__all__ = [
    "PAYOUT_PRESETS",
    "STRUCTURE_PRESETS",
    "format_structure",
    "parse_payouts",
    "parse_structure",
    "payouts",
    "preset_structure",
    "structure",
    "time_limit_until",
]

REFERENCE_STACK = 10_000
MAX_MINUTES = 240.0
MAX_PLACES = 100

# Big blinds at the reference stack, minutes per level, and a break (minutes) every n levels.
_PRESETS: dict[str, tuple[tuple[int, ...], float, int, float]] = {
    "turbo": (
        (100, 150, 200, 300, 400, 500, 600, 800, 1_000, 1_200, 1_500, 2_000, 2_500, 3_000,
         4_000, 5_000, 6_000, 8_000, 10_000, 12_000, 15_000, 20_000, 25_000, 30_000, 40_000,
         50_000),
        8.0,
        0,
        0.0,
    ),
    "regular": (
        (50, 100, 150, 200, 250, 300, 400, 500, 600, 800, 1_000, 1_200, 1_500, 2_000, 2_500,
         3_000, 4_000, 5_000, 6_000, 8_000, 10_000, 12_000, 15_000, 20_000, 25_000, 30_000,
         40_000, 50_000),
        15.0,
        6,
        10.0,
    ),
    "deep": (
        (20, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800, 1_000,
         1_200, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000, 6_000, 8_000, 10_000, 12_000, 15_000,
         20_000, 25_000, 30_000, 40_000, 50_000),
        20.0,
        4,
        15.0,
    ),
}
STRUCTURE_PRESETS = tuple(_PRESETS)

PAYOUT_PRESETS: dict[str, PayoutTable] = {
    "standard": PayoutTable(
        (
            (4, (100,)),
            (7, (65, 35)),
            (10, (50, 30, 20)),
            (15, (45, 27, 17, 11)),
            (20, (40, 25, 16, 11, 8)),
            (30, (35, 22, 15, 11, 9, 8)),
            (50, (30, 20, 14, 10, 8, 7, 6, 5)),
            (100, (25, 16, 12, 10, 8, 7, 6, 6, 5, 5)),
            (None, (22, 14, 10, 8, 7, 6, 5, 5, 4, 4, 3, 3, 3, 3, 3)),
        )
    ),
    "top-heavy": PayoutTable(
        ((6, (100,)), (12, (70, 30)), (20, (60, 25, 15)), (None, (50, 25, 15, 10)))
    ),
    "flat": PayoutTable(
        (
            (3, (100,)),
            (6, (55, 45)),
            (9, (40, 33, 27)),
            (15, (30, 25, 20, 15, 10)),
            (30, (20, 16, 14, 12, 10, 10, 9, 9)),
            (None, (15, 12, 10, 9, 8, 8, 7, 7, 6, 6, 6, 6)),
        )
    ),
    "winner-takes-all": PayoutTable(((None, (100,)),)),
}


def _ladder() -> tuple[int, ...]:
    """Amounts a dealer would use for a big blind: 2, 4, 6, 8, 10, 12, 20, ..., 100, 120,
    150, 200, 250, ... (even, so that the small blind is exactly half)."""
    out = set()
    for k in range(14):
        for m in ("1", "1.2", "1.5", "2", "2.5", "3", "4", "5", "6", "8"):
            value = Decimal(m) * 10**k
            if value == value.to_integral_value() and int(value) % 2 == 0:
                out.add(int(value))
    return tuple(sorted(out))


_LADDER = _ladder()


def _nicest(value: float) -> int:
    """The ladder amount closest to ``value`` on a log scale (at least 2).

    >>> _nicest(37.5), _nicest(140), _nicest(0.4)
    (40, 150, 2)
    """
    if value <= _LADDER[0]:
        return _LADDER[0]
    return min(_LADDER, key=lambda v: abs(math.log(v / value)))


def _ante(big_blind: int, ante_kind: AnteKind, unit: int) -> int:
    if ante_kind is AnteKind.BIG_BLIND:
        return big_blind
    if ante_kind is AnteKind.PER_PLAYER:
        # About a tenth of the big blind each, which costs a full table about one big blind.
        return big_blind // (10 * unit) * unit
    return 0


def preset_structure(
    name: str,
    *,
    starting_stack: int = REFERENCE_STACK,
    ante_kind: AnteKind = AnteKind.BIG_BLIND,
    level_minutes: float | None = None,
    chip_unit: int = 1,
) -> tuple[BlindLevel, ...]:
    """A named preset scaled to ``starting_stack``, in multiples of ``chip_unit``."""
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in _PRESETS:
        raise EngineError("unknown_structure", name=str(name)[:50],
                          choices=", ".join(STRUCTURE_PRESETS))
    minutes = _PRESETS[key][1]
    if level_minutes is not None:
        minutes = _check_minutes(level_minutes, None)
    out = _scaled(key, starting_stack, ante_kind, minutes, chip_unit)
    try:
        check_levels(out, chip_unit, ante_kind)
    except EngineError as exc:
        if exc.code != "structure_big_blind_too_large":
            raise
        # The host typed a stack, not these blinds: name the stack and the largest that works.
        raise EngineError("preset_stack_too_large", name=key, stack=starting_stack,
                          maximum=_largest_stack(key, ante_kind, chip_unit)) from None
    return out


def _scaled(key: str, starting_stack: int, ante_kind: AnteKind, minutes: float,
            chip_unit: int) -> tuple[BlindLevel, ...]:
    blinds, _, every, pause = _PRESETS[key]
    scale = starting_stack / REFERENCE_STACK / chip_unit
    levels: list[BlindLevel] = []
    for bb_ref in blinds:
        bb = _nicest(bb_ref * scale) * chip_unit
        if levels and bb <= levels[-1].big_blind:
            continue  # a small stack rounds neighbouring levels to the same blinds: keep one
        if every and levels and len(levels) % every == 0:
            last = levels[-1]
            levels[-1] = BlindLevel(last.small_blind, last.big_blind, last.ante, last.minutes,
                                    pause)
        levels.append(BlindLevel(bb // 2, bb, _ante(bb, ante_kind, chip_unit), minutes))
    return tuple(levels)


def _largest_stack(key: str, ante_kind: AnteKind, chip_unit: int) -> int:
    """The largest starting stack whose scaled preset every table can play (a big blind the
    table takes at every level), found by bisection: the blinds only grow with the stack."""

    def playable(stack: int) -> bool:
        try:
            check_levels(_scaled(key, stack, ante_kind, 1.0, chip_unit), chip_unit, ante_kind)
        except EngineError:
            return False
        return True

    low, high = 1, MAX_CHIPS  # playable(low); the answer is below high
    while high - low > 1:
        middle = (low + high) // 2
        if playable(middle):
            low = middle
        else:
            high = middle
    # Told to a host: rounded down to two significant digits (still playable: blinds only
    # grow with the stack).
    step: int = 10 ** max(0, len(str(low)) - 2)
    return max(1, low // step * step)


_SEPARATORS = re.compile(r"[,;\n]+")
_NUMBER = r"(\d+(?:\.\d+)?k?)"
_MINUTES = r"(\d+(?:\.\d+)?)\s*(?:m|min|mins|minutes)?"
_LEVEL = re.compile(
    rf"^{_NUMBER}\s*/\s*{_NUMBER}(?:\s*/\s*{_NUMBER})?(?:\s+{_MINUTES})?$", re.IGNORECASE
)
_BREAK = re.compile(rf"^(?:break|pause)\s*{_MINUTES}$", re.IGNORECASE)


def _amount(text: str, item: int, whole: str) -> int:
    """``"25"`` -> 25, ``"1.5k"`` -> 1500; a fraction of a chip is refused."""
    scale = 1000 if text.lower().endswith("k") else 1
    value = Decimal(text.rstrip("kK")) * scale
    if value != value.to_integral_value():
        raise EngineError("structure_syntax", item=item, text=whole[:40])
    return int(value)


def _check_minutes(value: object, item: int | None) -> float:
    """Minutes of a level or break: ``item`` is its place in the typed structure (None: the
    ``level_minutes`` option)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= MAX_MINUTES:
        return float(value)
    if item is None:
        raise EngineError("bad_tournament", field="level_minutes", value=repr(value))
    raise EngineError("structure_minutes", item=item, minutes=value, maximum=MAX_MINUTES)


def parse_structure(
    text: str,
    *,
    level_minutes: float = 15.0,
    ante_kind: AnteKind = AnteKind.BIG_BLIND,
    chip_unit: int = 1,
) -> tuple[BlindLevel, ...]:
    """Levels from the text a host typed (see the module's documentation)."""
    if not isinstance(text, str):
        raise EngineError("structure_empty")
    default = _check_minutes(level_minutes, None)
    items = [part.strip() for part in _SEPARATORS.split(text) if part.strip()]
    if not items:
        raise EngineError("structure_empty")
    levels: list[BlindLevel] = []
    breaks: dict[int, float] = {}  # level index -> break after it
    for item, part in enumerate(items, start=1):
        found = _BREAK.match(part)
        if found:
            minutes = _check_minutes(float(found[1]), item)
            if not levels or len(levels) - 1 in breaks:
                raise EngineError("structure_break_position", level=len(levels))
            breaks[len(levels) - 1] = minutes
            continue
        found = _LEVEL.match(part)
        if not found:
            raise EngineError("structure_syntax", item=item, text=part[:40])
        sb, bb = _amount(found[1], item, part), _amount(found[2], item, part)
        ante = _amount(found[3], item, part) if found[3] else 0
        minutes = _check_minutes(float(found[4]), item) if found[4] else default
        number = len(levels) + 1
        if sb < 1 or bb < 1:
            raise EngineError("structure_syntax", item=item, text=part[:40])
        if sb > bb:
            raise EngineError("structure_small_blind_above_big", level=number, small_blind=sb,
                              big_blind=bb)
        levels.append(BlindLevel(sb, bb, ante, minutes))
        if len(levels) > MAX_LEVELS:
            raise EngineError("structure_too_many_levels", levels=len(items),
                              maximum=MAX_LEVELS)
    out = tuple(
        BlindLevel(lv.small_blind, lv.big_blind, lv.ante, lv.minutes, breaks.get(k, 0.0))
        for k, lv in enumerate(levels)
    )
    check_levels(out, chip_unit, ante_kind)
    return out


def structure(
    spec: str,
    *,
    starting_stack: int = REFERENCE_STACK,
    ante_kind: AnteKind = AnteKind.BIG_BLIND,
    level_minutes: float | None = None,
    chip_unit: int = 1,
) -> tuple[BlindLevel, ...]:
    """A preset's name or a custom structure's text: what the ``structure`` option holds."""
    if isinstance(spec, str) and _looks_like_a_name(spec):
        return preset_structure(spec, starting_stack=starting_stack, ante_kind=ante_kind,
                                level_minutes=level_minutes, chip_unit=chip_unit)
    return parse_structure(spec, level_minutes=15.0 if level_minutes is None else level_minutes,
                           ante_kind=ante_kind, chip_unit=chip_unit)


def _looks_like_a_name(spec: str) -> bool:
    return bool(re.fullmatch(r"\s*[A-Za-z][A-Za-z -]*\s*", spec)) and not _BREAK.match(spec)


def _minutes_text(minutes: float) -> str:
    return f"{minutes:g}"


def format_structure(levels: tuple[BlindLevel, ...]) -> str:
    """The text :func:`parse_structure` reads back into the same levels.

    >>> format_structure(parse_structure("10/20 10, break 5, 20/40/40 12.5"))
    '10/20/0 10, break 5, 20/40/40 12.5'
    """
    parts: list[str] = []
    for lv in levels:
        parts.append(f"{lv.small_blind}/{lv.big_blind}/{lv.ante} {_minutes_text(lv.minutes)}")
        if lv.break_minutes:
            parts.append(f"break {_minutes_text(lv.break_minutes)}")
    return ", ".join(parts)


_PERCENT = re.compile(r"^(\d+(?:\.\d{1,2})?)\s*%?$")


def parse_payouts(text: str, *, max_players: int) -> PayoutTable:
    """A custom payout: percentages of the pool by place, best first, e.g. ``50, 30, 20``.

    Shares are kept in hundredths of a percent, so ``33.33, 33.33, 33.34`` works too.
    """
    if not isinstance(text, str) or not text.strip():
        raise EngineError("payouts_empty")
    parts = [p for p in re.split(r"[,;/\s]+", text.strip()) if p]
    shares: list[int] = []
    for place, part in enumerate(parts, start=1):
        found = _PERCENT.match(part)
        if not found:
            raise EngineError("payouts_syntax", place=place, text=part[:20])
        try:
            hundredths = int(Decimal(found[1]) * 100)
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            raise EngineError("payouts_syntax", place=place, text=part[:20]) from None
        if hundredths <= 0:
            raise EngineError("payouts_zero", place=place)
        if shares and hundredths > shares[-1]:
            raise EngineError("payouts_not_descending", place=place)
        shares.append(hundredths)
    if not shares:
        raise EngineError("payouts_empty")
    if len(shares) > min(max_players, MAX_PLACES):
        raise EngineError("payouts_too_many_places", places=len(shares),
                          players=min(max_players, MAX_PLACES))
    total = sum(shares)
    if total != 100_00:
        raise EngineError("payouts_sum", total=f"{Decimal(total) / 100:g}")
    return PayoutTable(((None, tuple(shares)),))


def payouts(spec: str, *, max_players: int) -> PayoutTable:
    """A preset's name or a custom list of percentages: what the ``payouts`` option holds."""
    if isinstance(spec, str) and re.fullmatch(r"\s*[A-Za-z][A-Za-z -]*\s*", spec):
        key = spec.strip().lower()
        if key not in PAYOUT_PRESETS:
            raise EngineError("unknown_payouts", name=spec.strip()[:50],
                              choices=", ".join(PAYOUT_PRESETS))
        return PAYOUT_PRESETS[key]
    return parse_payouts(spec, max_players=max_players)


def time_limit_until(ends_at: float, now: float) -> float:
    """Seconds of play from ``now`` to ``ends_at`` (both Unix seconds), for a time-limited
    tournament's ``time_limit``; an end in the past is refused."""
    if isinstance(ends_at, bool) or not isinstance(ends_at, int | float):
        raise EngineError("bad_tournament", field="ends_at", value=repr(ends_at))
    if not ends_at > now:
        raise EngineError("ends_at_past", ends_at=int(ends_at))
    return float(ends_at - now)
