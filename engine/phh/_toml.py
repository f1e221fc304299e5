"""A small, fast reader for the subset of TOML that PHH files use.

PHH files are TOML, but ``tomllib`` is a general parser and spends most of a replay's time on
documents that are nothing but ``key = value`` lines. This reader handles exactly what PHH
writers produce — bare keys, basic and literal strings, integers, floats, booleans, arrays of
those (possibly spread over several lines with comments), comments, and ``[name]`` section
headers as in ``.phhs`` files — and hands anything else (dates, inline tables, dotted or quoted
keys, multi-line strings, duplicate keys, syntax errors) to ``tomllib``, so the answer is always
what a conforming TOML parser gives.
"""

from __future__ import annotations

import re
import tomllib
from typing import Final

from engine.errors import EngineError

__all__ = ["loads"]


class _Fallback(Exception):
    """Raised inside the fast reader when the text needs a full TOML parser."""


_BARE_KEY: Final = re.compile(r"[A-Za-z0-9_-]+")
_HEADER: Final = re.compile(r"\[[ \t]*([A-Za-z0-9_-]+)[ \t]*\][ \t]*(?:#[^\n]*)?")
# TOML forbids leading zeros, so "012" must not match and go to tomllib, which rejects it.
_NUMBER: Final = re.compile(
    r"[+-]?(?:inf|nan|(?:0|[1-9](?:_?\d)*)(?:\.\d(?:_?\d)*)?(?:[eE][+-]?\d(?:_?\d)*)?)"
)
_INT: Final = r"(?:0|[1-9][0-9]*)"
_DECIMAL: Final = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
# The exact shapes PHH writers emit for stacks, blinds and antes, checked in one regex call.
_INT_ARRAY: Final = re.compile(rf"\[{_INT}(?:, {_INT})*\]")
_DECIMAL_ARRAY: Final = re.compile(rf"\[{_DECIMAL}(?:, {_DECIMAL})*\]")
_BASIC_STRING: Final = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_ESCAPE: Final = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.DOTALL)
_SIMPLE_ESCAPES: Final = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    '"': '"',
    "\\": "\\",
}
_VALUE_END: Final = frozenset(" \t\r\n,]#")
# Keys every PHH hand has; known bare keys skip the key regex.
_COMMON_KEYS: Final = frozenset(
    {
        "variant",
        "ante_trimming_status",
        "antes",
        "blinds_or_straddles",
        "min_bet",
        "starting_stacks",
        "actions",
        "hand",
        "players",
        "finishing_stacks",
        "author",
        "event",
        "year",
    }
)


def loads(text: str) -> dict[str, object]:
    """Parse a PHH document; ``.phhs`` sections become nested dicts, as with ``tomllib``.

    >>> loads("variant = 'NT'\\nmin_bet = 2\\n[1]\\nstacks = [1.5, 2]")
    {'variant': 'NT', 'min_bet': 2, '1': {'stacks': [1.5, 2]}}

    Raises ``EngineError("phh_syntax", detail=...)`` for text that is not valid TOML.
    """
    try:
        return _Reader(text).document()
    except _Fallback:
        pass
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise EngineError("phh_syntax", detail=str(exc)) from None


def _scalar(token: str) -> int | float | bool:
    if token == "true":
        return True
    if token == "false":
        return False
    if _NUMBER.fullmatch(token) is None:
        raise _Fallback
    if "." in token or "e" in token or "E" in token or "n" in token:
        return float(token)
    return int(token)


def _unescape(body: str) -> str:
    def one(match: re.Match[str]) -> str:
        hex_code = match.group(1) or match.group(2)
        if hex_code is not None:
            code = int(hex_code, 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise _Fallback
            return chr(code)
        simple = _SIMPLE_ESCAPES.get(match.group(3))
        if simple is None:
            raise _Fallback
        return simple

    return _ESCAPE.sub(one, body) if "\\" in body else body


def _fast_value(rest: str) -> object:
    """The value of a one-line ``key = value`` remainder, or ``_Fallback``.

    Only shapes whose meaning is certain from a few string operations are taken here; the
    general scanner handles the rest (comments, escapes, multi-line arrays).
    """
    first = rest[0]
    if first == "'":
        if rest.find("'", 1) == len(rest) - 1 > 0 and not rest.startswith("'''"):
            return rest[1:-1]
        raise _Fallback
    if first == "[":
        if _INT_ARRAY.fullmatch(rest) is not None:
            return list(map(int, rest[1:-1].split(", ")))
        if _DECIMAL_ARRAY.fullmatch(rest) is not None:
            return [float(p) if "." in p else int(p) for p in rest[1:-1].split(", ")]
        if rest[-1] != "]":
            raise _Fallback
        inner = rest[1:-1].strip()
        if not inner:
            return []
        quote = inner[0]
        if quote == "'" or quote == '"':
            # A string without escapes cannot contain its own quote, so when the quotes number
            # twice the pieces, every separator found is a real one.
            if inner[-1] != quote or "\\" in inner:
                raise _Fallback
            pieces = inner[1:-1].split(f"{quote}, {quote}")
            if inner.count(quote) != 2 * len(pieces):
                raise _Fallback
            return pieces
        if "#" in inner or "[" in inner or "'" in inner or '"' in inner:
            raise _Fallback
        return [_scalar(part.strip()) for part in inner.split(",")]
    if first == '"':
        if (
            rest.find('"', 1) == len(rest) - 1 > 0
            and "\\" not in rest
            and not rest.startswith('"""')
        ):
            return rest[1:-1]
        raise _Fallback
    if rest.isdigit() and rest.isascii() and (rest[0] != "0" or len(rest) == 1):
        return int(rest)
    if "#" in rest:
        raise _Fallback
    return _scalar(rest)


class _Reader:
    __slots__ = ("end", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = len(text)

    def document(self) -> dict[str, object]:
        text = self.text
        root: dict[str, object] = {}
        table = root
        pos = 0
        end = self.end
        while pos < end:
            newline = text.find("\n", pos)
            if newline < 0:
                newline = end
            line = text[pos:newline]
            # PHH writers put exactly " = " after a bare key; anything else takes the long way.
            key, equals, rest = line.partition(" = ")
            if not equals or key not in _COMMON_KEYS or key in table:
                stripped = line.strip()
                if not stripped or stripped[0] == "#":
                    pos = newline + 1
                    continue
                if stripped[0] == "[":
                    header = _HEADER.fullmatch(stripped)
                    if header is None or header.group(1) in root:
                        raise _Fallback
                    table = {}
                    root[header.group(1)] = table
                    pos = newline + 1
                    continue
                key, equals, rest = line.partition("=")
                key = key.strip()
                if not equals or key in table or _BARE_KEY.fullmatch(key) is None:
                    raise _Fallback
            value = rest.strip()
            if not value:
                raise _Fallback
            try:
                table[key] = _fast_value(value)
                pos = newline + 1
            except _Fallback:
                start = pos + len(line) - len(rest.lstrip())
                parsed, after = self.value(start)
                table[key] = parsed
                pos = self.line_end(after)
        return root

    # The general scanner below works on offsets into the whole text so that arrays may run
    # over several lines.

    def skip_blank(self, pos: int) -> int:
        """Skip whitespace, newlines and comments (inside arrays)."""
        text = self.text
        end = self.end
        while pos < end:
            char = text[pos]
            if char in " \t\r\n":
                pos += 1
            elif char == "#":
                newline = text.find("\n", pos)
                pos = end if newline < 0 else newline + 1
            else:
                break
        return pos

    def line_end(self, pos: int) -> int:
        """After a value: allow spaces and a comment, then require the end of the line."""
        text = self.text
        end = self.end
        while pos < end and text[pos] in " \t":
            pos += 1
        if pos < end and text[pos] == "#":
            newline = text.find("\n", pos)
            pos = end if newline < 0 else newline
        if pos < end and text[pos] == "\r":
            pos += 1
        if pos < end and text[pos] != "\n":
            raise _Fallback
        return pos + 1

    def value(self, pos: int) -> tuple[object, int]:
        text = self.text
        if pos >= self.end:
            raise _Fallback
        char = text[pos]
        if char == "'":
            if text.startswith("'''", pos):
                raise _Fallback
            close = text.find("'", pos + 1)
            if close < 0 or "\n" in text[pos:close]:
                raise _Fallback
            return text[pos + 1 : close], close + 1
        if char == '"':
            if text.startswith('"""', pos):
                raise _Fallback
            match = _BASIC_STRING.match(text, pos)
            if match is None:
                raise _Fallback
            return _unescape(match.group(1)), match.end()
        if char == "[":
            items: list[object] = []
            pos = self.skip_blank(pos + 1)
            while True:
                if pos >= self.end:
                    raise _Fallback
                if text[pos] == "]":
                    return items, pos + 1
                item, pos = self.value(pos)
                items.append(item)
                pos = self.skip_blank(pos)
                if pos < self.end and text[pos] == ",":
                    pos = self.skip_blank(pos + 1)
                elif pos < self.end and text[pos] == "]":
                    return items, pos + 1
                else:
                    raise _Fallback
        stop = pos
        while stop < self.end and text[stop] not in _VALUE_END:
            stop += 1
        if stop == pos:
            raise _Fallback
        return _scalar(text[pos:stop]), stop
