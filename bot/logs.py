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

A fault of Discord's or of the network (a 5xx, a connection refused or reset, a timeout) is
never the bot's error: it is a WARNING with its cause (:func:`cause_of`) and no traceback, and
where it comes in a flood (every table's message failing while Discord is away) at most one a
minute, the rest at INFO (:class:`Throttle`). discord.py logs its gateway's reconnections with
a traceback at ERROR; :func:`tame_discord_faults` turns those lines into one line with the
cause (:class:`GatewayFaults`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import time
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

    def __init__(
        self,
        lock: asyncio.Lock,
        fields: Fields,
        *,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.inner = lock
        self._fields = fields
        # Told of an error that leaves the lock (a transition that failed, whoever made it).
        self._on_error = on_error
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
            if exc is not None and self._on_error is not None:
                self._on_error(exc)
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
    tame_discord_faults()


# -- faults of Discord's -------------------------------------------------------------------

# At most one WARNING a minute for a fault that repeats; the others go at INFO.
WARN_EVERY = 60.0


def cause_of(error: BaseException | None) -> str:
    """A fault in a few words, for a log line: its kind and what it says, on one line.

    >>> cause_of(ConnectionResetError(104, "Connection reset by peer"))
    'ConnectionResetError: [Errno 104] Connection reset by peer'
    >>> cause_of(TimeoutError())
    'TimeoutError'
    """
    if error is None:
        return "unknown cause"
    said = str(error).strip().splitlines()
    text = f"{type(error).__name__}: {said[0]}" if said else type(error).__name__
    return text[:300]


class Throttle:
    """A fault that comes in a flood is a WARNING at most once per ``every`` seconds; the
    repetitions in between are INFO, and the next WARNING says how many there were.

    >>> clock = iter([0.0, 1.0, 61.0]).__next__
    >>> throttle = Throttle(60.0, monotonic=clock)
    >>> throttle.take(), throttle.take(), throttle.take()
    (0, None, 1)
    """

    def __init__(self, every: float = WARN_EVERY, *,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.every = every
        self._monotonic = monotonic
        self._last = float("-inf")
        self._held = 0

    def take(self) -> int | None:
        """None: say it at INFO; else say it as a WARNING now, which tells how many were said
        at INFO since the last one (the number returned)."""
        now = self._monotonic()
        if now - self._last < self.every:
            self._held += 1
            return None
        self._last = now
        held, self._held = self._held, 0
        return held

    def log(self, logger: logging.Logger, message: str, *args: object) -> None:
        held = self.take()
        if held is None:
            logger.info(message, *args)
        elif held:
            logger.warning(message + " (and %d more like it since)", *args, held)
        else:
            logger.warning(message, *args)


# discord.py's lines about its gateway connection that carry a traceback at ERROR although
# the fault is Discord's or the network's: (logger, how the message starts).
RECONNECT_LINES = (
    ("discord.shard", "Attempting a reconnect"),
    ("discord.client", "Attempting a reconnect"),
)
CONNECT_LINES = (("discord.shard", "Failed to connect for shard_id"),)


class GatewayFaults(logging.Filter):
    """discord.py's lines about reconnecting its gateway, as one line with the cause and no
    traceback. A reconnection is INFO here: the client writes the WARNING when the gateway
    drops, with its cause, once per outage (``bot.runtime.link``), and discord.py writes this
    line again at each failed try while Discord is away. A shard that cannot connect at all (a
    start during an outage) is a WARNING, at most once a minute."""

    def __init__(self) -> None:
        super().__init__()
        self.throttle = Throttle()

    def filter(self, record: logging.LogRecord) -> bool:
        said = str(record.msg)
        if any(record.name == name and said.startswith(start) for name, start in RECONNECT_LINES):
            level = logging.INFO
        elif any(record.name == name and said.startswith(start) for name, start in CONNECT_LINES):
            level = logging.INFO if self.throttle.take() is None else logging.WARNING
        else:
            return True
        error = record.exc_info[1] if record.exc_info else None
        args = record.args if isinstance(record.args, tuple) else ()
        record.msg, record.args = said + " (%s)", (*args, cause_of(error))
        record.exc_info = record.exc_text = None
        record.levelno, record.levelname = level, logging.getLevelName(level)
        return True


def tame_discord_faults() -> None:
    """Put :class:`GatewayFaults` on discord.py's loggers (once)."""
    for name in {name for name, _ in (*RECONNECT_LINES, *CONNECT_LINES)}:
        logger = logging.getLogger(name)
        if not any(isinstance(each, GatewayFaults) for each in logger.filters):
            logger.addFilter(GatewayFaults())


__all__ = [
    "FIELDS",
    "GatewayFaults",
    "JsonFormatter",
    "TaggedLock",
    "Throttle",
    "cause_of",
    "context_fields",
    "setup_logging",
    "tame_discord_faults",
]
