"""Logging as the operator chose it: discord.py's readable lines, or one JSON object a line
(``LOG_FORMAT=json``) for a log pipeline to index.

A JSON line holds ``time`` (UTC, ISO 8601), ``level``, ``logger`` and ``message``, then
``table``, ``hand`` and ``shard`` when the line was written about a table, and ``exception``
with the traceback when there is one. A table names itself: while its lock is held
(:class:`TaggedLock`) every line written, by whatever module, carries the table's fields,
and so do the tasks it starts meanwhile (they inherit the context). ``extra={"table": ...}``
on a call names them for that one line.

The format changes nothing of what is written: the no-secret rule (no hole card, deck, seed
or token at any level, ``bot.client.PAYLOAD_LOGGERS``) holds for both, and one test checks
both.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from types import TracebackType

import discord.utils

# Fields a line may carry about where it was written, in the order they are written.
FIELDS = ("table", "hand", "shard")

Fields = Callable[[], Mapping[str, int | None]]
# Read when a line is formatted, not when the context was entered: a hand dealt while the
# lock is held is the hand its later lines name.
_about: contextvars.ContextVar[Fields | None] = contextvars.ContextVar("log_about", default=None)


class TaggedLock:
    """An ``asyncio.Lock`` that, while held, names ``fields()`` in every log line of the
    holder (and of the tasks it starts). Several may share one lock: a tournament's tables
    share the tournament's, each naming itself."""

    def __init__(self, lock: asyncio.Lock, fields: Fields) -> None:
        self.inner = lock
        self._fields = fields
        self._token: contextvars.Token[Fields | None] | None = None

    def locked(self) -> bool:
        return self.inner.locked()

    async def __aenter__(self) -> None:
        await self.inner.acquire()
        # One holder at a time, so one token slot is enough.
        self._token = _about.set(self._fields)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        token, self._token = self._token, None
        try:
            if token is not None:
                # A tag must never cost the table its lock, even left in an odd context.
                with contextlib.suppress(ValueError):
                    _about.reset(token)
        finally:
            self.inner.release()


def context_fields() -> dict[str, int]:
    """The fields of the table whose lock the current task holds (empty: none)."""
    about = _about.get()
    if about is None:
        return {}
    try:
        fields = about()
    except Exception:
        return {}  # a table half-built or torn down: the line goes out without them
    return {name: value for name, value in fields.items() if value is not None}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line.

    >>> record = logging.LogRecord("bot.x", logging.INFO, __file__, 1, "dealt %d", (3,), None)
    >>> record.created = 0.0
    >>> JsonFormatter().format(record)
    '{"time": "1970-01-01T00:00:00.000Z", "level": "INFO", "logger": "bot.x", "message": "dealt 3"}'
    """

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, object] = {
            "time": stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = context_fields()
        for name in FIELDS:
            value = getattr(record, name, fields.get(name))
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        # Not escaped to ASCII: a line stays as readable as the text format's, and a search
        # for a card's symbol finds it.
        return json.dumps(entry, ensure_ascii=False, default=str)


def setup_logging(level: int, log_format: str = "text") -> None:
    """The root logger at ``level``, writing to standard error in ``log_format``."""
    if log_format == "json":
        handler = logging.StreamHandler()
        discord.utils.setup_logging(handler=handler, formatter=JsonFormatter(), level=level)
    else:
        discord.utils.setup_logging(level=level)


__all__ = ["FIELDS", "JsonFormatter", "TaggedLock", "context_fields", "setup_logging"]
