"""Numbers typed by users: chip amounts and counts, read exactly or refused with a reason.

Discord checks option types and ranges in its own client only, so a crafted request can carry
anything, and the raise form is free text. Everything a user types goes through here:

- an integer option arrives as an ``int``; a bool (a JSON ``true``) is not one;
- text may use digits (ASCII, or the full-width digits a Chinese input method types),
  thousands separators in groups of three (``1,000``, ``1 000``, ``1_000``, ``1，000``), and the
  ``k`` / ``m`` suffixes players use, with a fraction only before a suffix (``2.5k`` is 2,500);
- nothing goes through a float, so ``0.99999999999999999`` is refused rather than rounded to 1,
  and superscripts, circled digits or ``--5`` are refused rather than crashing ``int()``.

>>> read_chips("2.5k", "amount"), read_chips("1,000", "amount"), read_chips(40, "amount")
(2500, 1000, 40)
>>> read_chips("０.５ｍ", "amount")
500000
"""

from __future__ import annotations

import re

from bot.errors import BotError
from engine.limits import MAX_CHIPS, MAX_DAYS_AHEAD

_FULL_WIDTH = str.maketrans("０１２３４５６７８９，．＿　ｋｍＫＭ", "0123456789,._ kmKM")
_SUFFIXES = {"": 1, "k": 1_000, "m": 1_000_000}
_NUMBER = re.compile(
    r"(?P<sign>-?)"
    r"(?P<whole>\d{1,3}(?:(?P<sep>[, _])\d{3})(?:(?P=sep)\d{3})*|\d+)"
    r"(?:\.(?P<fraction>\d+))?"
    r"(?P<suffix>[km]?)"
)
# Longer text is never a real amount; the cap keeps the regex and int() cheap on junk.
_MAX_TEXT = 40


def _from_text(text: str, option: str) -> int:
    if len(text) > _MAX_TEXT:
        raise BotError("amount_not_whole", option=option)
    cleaned = text.strip().translate(_FULL_WIDTH).lower()
    match = _NUMBER.fullmatch(cleaned) if cleaned.isascii() else None
    if match is None:
        raise BotError("amount_not_whole", option=option)
    whole: str = match["whole"].replace(match["sep"] or ",", "")
    fraction: str = match["fraction"] or ""
    scale = _SUFFIXES[match["suffix"]]
    if fraction and scale == 1:
        raise BotError("amount_not_whole", option=option)
    # Exact: whole.fraction x scale, in integers; a remainder means a fraction of a chip.
    digits = int(whole + fraction) * scale
    unit: int = 10 ** len(fraction)
    value, remainder = divmod(digits, unit)
    if remainder:
        raise BotError("amount_not_whole", option=option)
    return -value if match["sign"] else value


def read_chips(value: object, option: str, *, allow_zero: bool = False) -> int:
    """A chip amount for ``option`` (the option's name as the user sees it), or a refusal:
    ``amount_not_whole``, ``amount_not_positive`` (``amount_negative`` where 0 is allowed, so
    the refusal never says "more than zero" of an option that takes 0) or ``amount_too_large``.
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise BotError("amount_not_whole", option=option)
    amount = _from_text(value, option) if isinstance(value, str) else value
    if amount < 0 and allow_zero:
        raise BotError("amount_negative", option=option)
    if amount < 0 or (amount == 0 and not allow_zero):
        raise BotError("amount_not_positive", option=option)
    if amount > MAX_CHIPS:
        raise BotError("amount_too_large", option=option, maximum=MAX_CHIPS)
    return amount


def read_optional_chips(value: object, option: str, *, allow_zero: bool = False) -> int | None:
    """:func:`read_chips` for an option the user may leave out."""
    return None if value is None else read_chips(value, option, allow_zero=allow_zero)


def read_count(value: object, option: str, low: int, high: int) -> int:
    """A whole number in ``low..high`` (seats, seconds, a hand number), or ``out_of_range``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BotError("out_of_range", option=option, minimum=low, maximum=high)
    return value


# A Discord timestamp as users paste it (``<t:1700000000:f>``), Unix seconds, or a delay from now
# (``90m``, ``1h30m``, ``in 2h``, ``+45s``).
_DISCORD_TIME = re.compile(r"<t:(?P<unix>\d{1,12})(?::[tdfr])?>")
_UNIX = re.compile(r"\d{9,12}")
_DELAY = re.compile(r"(?:in\s+|\+)?(?:(?P<h>\d{1,3})\s*h)?\s*(?:(?P<m>\d{1,5})\s*m(?:in)?)?"
                    r"\s*(?:(?P<s>\d{1,6})\s*s)?")
# Later than this is no tournament anybody will wait for.
_MAX_AHEAD = MAX_DAYS_AHEAD * 24 * 3600


def read_time(value: object, option: str, now: float) -> float:
    """A moment (Unix seconds) typed for ``option``: a Discord timestamp, Unix seconds, or a
    delay from ``now``; refused with ``bad_time`` otherwise, and with ``time_too_far`` when it
    is more than :data:`MAX_DAYS_AHEAD` days ahead. Whether it is in the past is the caller's
    to judge (it says which of its times it was).

    >>> read_time("<t:1700000000:R>", "ends_at", 1_699_990_000), read_time("1h30m", "ends_at", 100)
    (1700000000.0, 5500.0)
    """
    if not isinstance(value, str) or len(value) > _MAX_TEXT:
        raise BotError("bad_time", option=option)
    text = value.strip().translate(_FULL_WIDTH).lower()
    found = _DISCORD_TIME.fullmatch(text)
    if found is not None:
        moment = float(found["unix"])
    elif _UNIX.fullmatch(text):
        moment = float(text)
    else:
        delay = _DELAY.fullmatch(text)
        if delay is None or not any(delay[k] for k in ("h", "m", "s")):
            raise BotError("bad_time", option=option)
        seconds = sum(int(delay[k] or 0) * scale for k, scale in (("h", 3600), ("m", 60),
                                                                   ("s", 1)))
        moment = float(now + seconds)
    if moment > now + _MAX_AHEAD:
        raise BotError("time_too_far", option=option, days=MAX_DAYS_AHEAD)
    return moment
