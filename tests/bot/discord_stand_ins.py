"""Stand-ins for the few Discord objects a table's messenger and an interaction's answer touch,
failing the way Discord and the network fail: each raises the exception discord.py itself
raises (a ``DiscordServerError`` built from an answer with status 5xx, a refused or reset
connection from aiohttp, a timeout), before the request took effect or after it did (the
answer was lost on its way back).

A channel keeps every message created and every version of it, and honours a create's
``nonce`` as Discord does with ``enforce_nonce``: a second create with the nonce of one that
took effect returns that first message instead of making another.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import aiohttp
import discord

REASONS = {400: "Bad Request", 404: "Not Found", 500: "Internal Server Error",
           502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}

# The faults a request may meet. "before": nothing happened; "after": it took effect, the
# answer was lost.
BEFORE = ("500", "503", "504", "refused", "timeout")
AFTER = ("lost", "reset")
FAULTS = BEFORE + AFTER


def answer_of(status: int) -> Any:
    """What discord.py reads of an aiohttp answer to build its exception."""
    return SimpleNamespace(status=status, reason=REASONS.get(status, "Error"), headers={})


def server_error(status: int = 503) -> discord.DiscordServerError:
    return discord.DiscordServerError(answer_of(status), {"code": 0, "message": REASONS[status]})


def refused() -> aiohttp.ClientConnectorError:
    key = SimpleNamespace(host="discord.test", port=443, ssl=True)
    return aiohttp.ClientConnectorError(key, ConnectionRefusedError(111, "Connect call failed"))  # type: ignore[arg-type]


def reset() -> aiohttp.ClientOSError:
    return aiohttp.ClientOSError(104, "Connection reset by peer")


def coded(status: int, code: int, message: str) -> discord.HTTPException:
    kind = {404: discord.NotFound, 403: discord.Forbidden}.get(status, discord.HTTPException)
    return kind(answer_of(status), {"code": code, "message": message})


def edits_exhausted() -> discord.HTTPException:
    return coded(400, 30046, "Maximum number of edits to messages older than 1 hour reached.")


def already_acknowledged() -> discord.HTTPException:
    return coded(400, 40060, "Interaction has already been acknowledged.")


def unknown_interaction() -> discord.HTTPException:
    return coded(404, 10062, "Unknown interaction")


def fault_error(kind: str) -> Exception:
    if kind in ("500", "503", "504"):
        return server_error(int(kind))
    if kind == "lost":
        return server_error(502)
    if kind == "refused":
        return refused()
    if kind == "reset":
        return reset()
    if kind == "timeout":
        return TimeoutError()
    raise ValueError(kind)


Faults = Callable[[str, int | None], "str | None"]


def schedule(kinds: list[str | None]) -> Faults:
    """Faults in this order, one a request, then none."""
    left: Iterator[str | None] = iter(kinds)
    return lambda op, message_id: next(left, None)


@dataclass
class Event:
    """One request that took effect: a create (``send``) or an ``edit``."""

    op: str
    message_id: int
    content: str
    nonce: str | int | None = None
    pings: tuple[int, ...] = ()


@dataclass
class Channel:
    channel_id: int
    faults: Faults = field(default=lambda op, message_id: None)
    messages: dict[int, list[str]] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    attempts: list[tuple[str, int | None, str | int | None]] = field(default_factory=list)
    nonces: dict[str, int] = field(default_factory=dict)
    exhausted: set[int] = field(default_factory=set)  # messages past Discord's edit limit
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1000))

    @property
    def id(self) -> int:
        return self.channel_id

    def content(self, message_id: int) -> str:
        return self.messages[message_id][-1]

    def seed(self, content: str) -> int:
        """A message already in the channel (the table's, from before)."""
        message_id = next(self.ids)
        self.messages[message_id] = [content]
        return message_id

    async def send(self, content: str | None = None, **kwargs: Any) -> Any:
        nonce = kwargs.get("nonce")
        self.attempts.append(("send", None, nonce))
        fault = self.faults("send", None)
        if fault in BEFORE:
            raise fault_error(fault)
        known = self.nonces.get(str(nonce)) if nonce is not None else None
        if known is not None:
            message_id = known  # Discord returns the message the nonce made first
        else:
            message_id = next(self.ids)
            self.messages[message_id] = [content or ""]
            if nonce is not None:
                self.nonces[str(nonce)] = message_id
            self.events.append(Event("send", message_id, content or "", nonce,
                                     _pings(kwargs.get("allowed_mentions"))))
        if fault in AFTER:
            raise fault_error(fault)
        return SimpleNamespace(id=message_id, content=self.content(message_id))

    def get_partial_message(self, message_id: int) -> PartialMessage:
        return PartialMessage(self, message_id)


@dataclass
class PartialMessage:
    channel: Channel
    id: int

    async def edit(self, **kwargs: Any) -> Any:
        channel = self.channel
        channel.attempts.append(("edit", self.id, None))
        fault = channel.faults("edit", self.id)
        if fault == "30046":
            channel.exhausted.add(self.id)
        if self.id in channel.exhausted:
            raise edits_exhausted()
        if fault in BEFORE:
            raise fault_error(fault)
        if self.id not in channel.messages:
            raise coded(404, 10008, "Unknown Message")
        content = kwargs.get("content")
        if content is not None:
            channel.messages[self.id].append(content)
            channel.events.append(Event("edit", self.id, content, None,
                                        _pings(kwargs.get("allowed_mentions"))))
        if fault in AFTER:
            raise fault_error(fault)
        return SimpleNamespace(id=self.id, content=channel.content(self.id))


def _pings(mentions: discord.AllowedMentions | None) -> tuple[int, ...]:
    if mentions is None or not isinstance(mentions.users, list):
        return ()
    return tuple(user.id for user in mentions.users)


class Client:
    """What the messenger asks of ``discord.Client``."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.closed = False

    def get_partial_messageable(self, channel_id: int, **kwargs: Any) -> Channel:
        assert channel_id == self.channel.channel_id
        return self.channel

    async def create_dm(self, user: Any) -> Channel:
        """The user's DM channel (this client's one channel)."""
        return self.channel

    def is_closed(self) -> bool:
        return self.closed
