"""Message catalogs: ``t(key, locale, **params)`` in the user's language, English as fallback.

Catalogs are JSON files in ``bot/locales`` named by language tag: ``en.json``, ``zh-TW.json``
and ``zh-CN.json``. A Discord locale such as ``zh-CN`` or ``en-US`` picks the exact catalog
first, then its base language; any other Chinese variant (``zh-HK``, ``zh``) reads Traditional
Chinese, the written language of the rules the bot deals by; everything else reads English. A
key missing from a catalog also falls back to English, and a key missing everywhere shows as the
key itself, so a missing translation never breaks a reply.

Numbers in messages go through :func:`number`, the one formatter of every amount.
"""

from __future__ import annotations

import json
import logging
import string
import unicodedata
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

LOCALES_DIR = Path(__file__).with_name("locales")
DEFAULT_LOCALE = "en"
# The catalogs a server may choose for its channel messages (``/chips settings language``).
LANGUAGES = ("en", "zh-TW", "zh-CN")
# Where a Chinese locale without a catalog of its own goes (zh-HK, zh-MO, zh-SG, zh).
CHINESE_FALLBACK = "zh-TW"


def _locale_tag(locale: object) -> str | None:
    # discord.Locale is a str-valued enum; accept it, plain strings, or None.
    if locale is None:
        return None
    value = getattr(locale, "value", locale)
    text = str(value).strip()
    return text or None


@cache
def available_locales() -> frozenset[str]:
    return frozenset(p.stem for p in LOCALES_DIR.glob("*.json"))


@cache
def catalog(name: str) -> Mapping[str, str]:
    """The messages of one catalog file (empty if there is none)."""
    path = LOCALES_DIR / f"{name}.json"
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    return {str(k): str(v) for k, v in data.items()}


@cache
def _by_case() -> dict[str, str]:
    return {name.lower(): name for name in available_locales()}


def resolve_locale(*candidates: object) -> str:
    """The first candidate locale that has a catalog (exact tag, then base language)."""
    known = available_locales()
    for candidate in candidates:
        tag = _locale_tag(candidate)
        if tag is None:
            continue
        if tag in known:
            return tag
        by_case = _by_case()
        lowered = tag.lower().replace("_", "-")
        if lowered in by_case:
            return by_case[lowered]
        base = lowered.split("-", 1)[0]
        if base in by_case:
            return by_case[base]
        if base == "zh" and CHINESE_FALLBACK in known:
            return CHINESE_FALLBACK
    return DEFAULT_LOCALE


class _KeepMissing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


_FORMATTER = string.Formatter()


def t(key: str, /, locale: object = None, **params: Any) -> str:
    """The message ``key`` in ``locale`` with ``{name}`` placeholders filled from ``params``.

    >>> t("error.internal", "en-US")
    'Something went wrong on my side. The error was logged; please try again.'
    """
    name = resolve_locale(locale)
    text = catalog(name).get(key)
    if text is None and name != DEFAULT_LOCALE:
        text = catalog(DEFAULT_LOCALE).get(key)
    if text is None:
        log.warning("i18n: no message for key %r (locale %s)", key, name)
        return key
    try:
        return _FORMATTER.vformat(text, (), _KeepMissing(params))
    except (ValueError, IndexError, AttributeError, KeyError):
        # A malformed translation must not turn a reply into an exception.
        log.warning("i18n: cannot format %r in %s", key, name, exc_info=True)
        return text


def has_message(key: str, locale: object = None) -> bool:
    return key in catalog(resolve_locale(locale)) or key in catalog(DEFAULT_LOCALE)


def number(value: int, locale: object = None) -> str:
    """An amount as the locale writes it, in full: ``12,500`` (never abbreviated, so nobody
    has to work out what 1.25萬 was).

    >>> number(1234567, "zh-TW"), number(-5000, "en-US"), number(999, "zh-CN")
    ('1,234,567', '-5,000', '999')
    """
    separator = t("number.thousands_separator", locale)
    return f"{value:,}".replace(",", separator)


def option_label(name: str, locale: object = None) -> str:
    """An option as users read it in a sentence ("the buy-in"), not its identifier
    (``buy_in``); a name without a label is shown as it is."""
    key = f"label.{name}"
    return t(key, locale) if has_message(key, locale) else name


# --- names inside sentences ------------------------------------------------------------------
#
# A display name (or a tournament's, a channel's) may hold right-to-left letters or explicit
# direction controls. Dropped into a sentence as it is, a right-to-left override (U+202E) left
# open reverses the rest of the bot's line, and a Hebrew or Arabic name pulls the number after
# it to its side. Wrapped in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE, the name is laid
# out on its own and the sentence around it is not touched (Unicode's bidirectional algorithm,
# UAX #9, rules X5c and X6a: the closing PDI ends every embedding, override and isolate the
# name opened). Controls the name closes but never opened are dropped first: a stray PDI would
# close our isolate early.

FSI = "\u2068"  # FIRST STRONG ISOLATE
PDI = "\u2069"  # POP DIRECTIONAL ISOLATE
PDF = "\u202c"  # POP DIRECTIONAL FORMATTING
# Every character that directs the layout: the explicit embeddings, overrides and isolates and
# their closers, and the implicit marks (LRM, RLM, ALM).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                          "\u200e\u200f\u061c")
_EMBEDDINGS = frozenset({"LRE", "RLE", "LRO", "RLO"})
_ISOLATES = frozenset({"LRI", "RLI", "FSI"})
# Bidirectional classes that can move text around a name in a left-to-right sentence: strong
# right-to-left letters, Arabic digits, the explicit controls, and a paragraph break.
_MOVING = frozenset({"R", "AL", "AN", "B", "PDF", "PDI"} | _EMBEDDINGS | _ISOLATES)


def bidi_balanced(text: str) -> str:
    """``text`` with every embedding, override or isolate it opens closed at its end and every
    closer that closes nothing dropped: whatever it does to its own letters stops there.

    >>> bidi_balanced("\\u202eevil") == "\\u202eevil\\u202c"
    True
    >>> bidi_balanced("a\\u2069b\\u202cc") == "abc"
    True
    """
    out: list[str] = []
    opened: list[str] = []  # "e" an embedding or override, "i" an isolate
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in _EMBEDDINGS:
            opened.append("e")
        elif kind in _ISOLATES:
            opened.append("i")
        elif kind == "PDF":
            if not opened or opened[-1] != "e":
                continue  # closes nothing (a PDF never reaches out of an isolate)
            opened.pop()
        elif kind == "PDI":
            if "i" not in opened:
                continue
            while opened.pop() != "i":  # a PDI ends what its isolate opened, then the isolate
                pass
        out.append(char)
    out.extend(PDF if kind == "e" else PDI for kind in reversed(opened))
    return "".join(out)


def isolate(text: str) -> str:
    """A user-supplied name as it may stand inside one of the bot's sentences: isolated from
    the words around it (FSI ... PDI, its own controls balanced inside), so nothing in it can
    reorder the rest of the line or escape.

    A name with no right-to-left letter, no Arabic digit and no direction control is returned
    as it is: in the catalogs' left-to-right sentences it cannot move anything, and the
    invisible isolates would only be one more thing for old renderers to draw as boxes and for
    a reader to copy with the name. (A right-to-left catalog would isolate every name: the
    one change is here.) A paragraph break inside the name becomes a space: it would end the
    isolate with the line.

    >>> isolate("alice")
    'alice'
    >>> isolate("\\u202eevil") == "\\u2068\\u202eevil\\u202c\\u2069"
    True
    """
    if not any(unicodedata.bidirectional(char) in _MOVING for char in text):
        return text
    flat = "".join(" " if unicodedata.bidirectional(c) == "B" else c for c in text)
    return FSI + bidi_balanced(flat) + PDI

