"""Discord on a bad day, on demand: the REST faults a test asks for, and the record of every
fault served.

Every knob is off until a test turns it on (``FakeDiscord.fail``, ``lose_answers``,
``reset_connections``, ``delay``, ``go_down``); with none on, the fake answers as before.

- a *status* fault answers 500, 502, 503 or 504 before the request reaches the API: nothing
  happens, and Discord's rate limits do not count it. The bodies are what each status carries
  in front of Discord: Discord's own JSON for a 500, the edge's HTML for 502 and 504, the
  proxy's plain text for 503 (discord.py retries 500, 502 and 504 itself, not 503);
- a *lost answer* lets the request take effect (the message is created or edited, the
  interaction answered) and then answers 502: a retry meets what the first attempt did (a
  second message, or 40060 "Interaction has already been acknowledged");
- a *reset* takes effect too, then cuts the connection in the middle of the answer's body
  (``applied=False``: it cuts the connection as the request arrives, before anything happens);
- a *delay* holds the request 1 to 3 s (or as asked) before it is served; an interaction's
  3 s deadline is judged by when its answer arrived, as Discord judges it;
- an *outage* (``go_down`` / ``come_back``) refuses every new connection and resets the open
  ones, REST and gateway alike, until it ends.

A rule matches a method (``"*"``: any) and a path pattern (``re.fullmatch`` on the path after
``/api/v10``; the constants below name the routes a poker bot uses) and, on the routes of an
interaction's token, what the interaction was (``answering``: "command", "button" or "form",
the submit of a modal); it serves the next
``count`` matching requests (None: every one), each with probability ``fraction``, within
``for_seconds`` from now if given. The first rule that serves a request decides its fault;
a delay is independent of the others.

Each fault served is recorded in ``FakeDiscord.faults`` as a ``ServedFault``, and the fake's
strictness stays on under faults: a faulted request's body is still held to Discord's OpenAPI
spec, a route the fake does not serve still fails the test, and the rate limits still count
every request that reached the API.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import re
import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from aiohttp import web

# Routes by what they do (paths after /api/v10).
ANY = r"/.*"
CHANNEL_MESSAGES = r"/channels/\d+/messages"  # POST: a new message in a channel
CHANNEL_MESSAGE = r"/channels/\d+/messages/\d+"  # PATCH: an edit, DELETE
CALLBACK = r"/interactions/\d+/[^/]+/callback"  # an interaction's first answer
FOLLOWUP = r"/webhooks/\d+/[^/]+"  # POST: a followup
ORIGINAL = r"/webhooks/\d+/[^/]+/messages/(@original|\d+)"  # PATCH: the reply's edit
WEBHOOK = r"/webhooks/\d+/[^/]+(/messages/(@original|\d+))?"  # followups and their edits


def in_channel(channel_id: int, route: str = r"(/\d+)?") -> str:
    """The message routes of one channel (or thread): creates and edits by default."""
    return rf"/channels/{channel_id}/messages{route}"


STATUS_FAULTS = (500, 502, 503, 504)
# What each status carries on Discord's way: its API's own JSON for a 500, the edge's HTML for
# 502 and 504, the proxy's text for 503 (all read by discord.py as text but the 500).
_BODIES: dict[int, tuple[str, bytes]] = {
    500: ("application/json",
          json.dumps({"message": "500: Internal Server Error", "code": 0}).encode()),
    502: ("text/html",
          b"<html><head><title>502 Bad Gateway</title></head><body><center>"
          b"<h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>"),
    503: ("text/plain",
          b"upstream connect error or disconnect/reset before headers. reset reason:"
          b" connection termination"),
    504: ("text/html",
          b"<html><head><title>504 Gateway Time-out</title></head><body><center>"
          b"<h1>504 Gateway Time-out</h1></center><hr><center>cloudflare</center></body>"
          b"</html>"),
}

Kind = Literal["status", "lost", "reset", "delay"]
# What an interaction answer answers (``answering=``): Discord's interaction types.
ANSWERING = {"command": 2, "button": 3, "form": 5}


def status_response(status: int) -> web.Response:
    content_type, body = _BODIES[status]
    return web.Response(status=status, body=body, headers={"Content-Type": content_type})


@dataclass(frozen=True)
class ServedFault:
    """One fault the fake served: ``kind`` is "status", "lost", "reset", "delay", "outage"
    (a request or a connection cut while Discord was down), "old_edit" (an edit refused with
    30046), or "gateway" (a close, RECONNECT, INVALID_SESSION or a zombie connection);
    ``status`` what the client was answered (0: no answer at all)."""

    kind: str
    method: str
    path: str
    status: int
    at: float  # monotonic
    detail: str = ""


@dataclass(eq=False)
class FaultRule:
    """A fault a test asked for; ``cancel()`` ends it, ``served`` counts its uses."""

    kind: Kind
    method: str
    pattern: re.Pattern[str]
    status: int = 502
    remaining: int | None = 1
    fraction: float = 1.0
    ends: float = math.inf
    delay: tuple[float, float] = (0.0, 0.0)
    applied: bool = True  # a reset: after the request took effect (else before)
    interaction_type: int | None = None  # only answers to interactions of this type
    served: int = 0
    cancelled: bool = False

    def matches(self, method: str, path: str, now: float, interaction_type: int | None) -> bool:
        return (
            not self.cancelled
            and (self.interaction_type is None or self.interaction_type == interaction_type)
            and (self.remaining is None or self.remaining > 0)
            and now < self.ends
            and self.method in ("*", method)
            and self.pattern.fullmatch(path) is not None
        )

    @property
    def active(self) -> bool:
        return not self.cancelled and (self.remaining is None or self.remaining > 0) and (
            time.monotonic() < self.ends
        )

    @property
    def before_effect(self) -> bool:
        return self.kind == "status" or (self.kind == "reset" and not self.applied)

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class Faults:
    """The rules a test asked for, the outage switch, and the record of what was served."""

    record: Callable[[ServedFault], None]
    rng: random.Random = field(default_factory=lambda: random.Random(29))
    rules: list[FaultRule] = field(default_factory=list)
    down: bool = False

    def add(
        self,
        kind: Kind,
        path: str,
        *,
        method: str = "*",
        status: int = 502,
        count: int | None = 1,
        fraction: float = 1.0,
        for_seconds: float | None = None,
        delay: tuple[float, float] = (0.0, 0.0),
        applied: bool = True,
        answering: str | None = None,
    ) -> FaultRule:
        if answering is not None and answering not in ANSWERING:
            raise ValueError(f"answering is one of {sorted(ANSWERING)}, not {answering!r}")
        if kind in ("status", "lost") and status not in STATUS_FAULTS:
            raise ValueError(f"a status fault is one of {STATUS_FAULTS}, not {status}")
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"fraction must be in (0, 1], not {fraction}")
        if count is not None and count < 1:
            raise ValueError(f"count must be at least 1 (None: every request), not {count}")
        rule = FaultRule(
            kind,
            method.upper(),
            re.compile(path),
            status=status,
            remaining=count,
            fraction=fraction,
            ends=math.inf if for_seconds is None else time.monotonic() + for_seconds,
            delay=delay,
            applied=applied,
            interaction_type=None if answering is None else ANSWERING[answering],
        )
        self.rules.append(rule)
        return rule

    def clear(self) -> None:
        for rule in self.rules:
            rule.cancel()
        self.rules.clear()

    def _take(
        self, kinds: tuple[Kind, ...], method: str, path: str, interaction_type: int | None
    ) -> FaultRule | None:
        now = time.monotonic()
        for rule in self.rules:
            if rule.kind not in kinds or not rule.matches(method, path, now, interaction_type):
                continue
            if rule.fraction < 1.0 and self.rng.random() >= rule.fraction:
                continue
            if rule.remaining is not None:
                rule.remaining -= 1
            rule.served += 1
            return rule
        return None

    def delay_for(self, method: str, path: str, interaction_type: int | None = None) -> float:
        """Seconds to hold this request (0: none asked)."""
        rule = self._take(("delay",), method, path, interaction_type)
        if rule is None:
            return 0.0
        low, high = rule.delay
        seconds = self.rng.uniform(low, high)
        self.served("delay", method, path, 0, f"{seconds:.2f}s")
        return seconds

    def fault_for(
        self, method: str, path: str, interaction_type: int | None = None
    ) -> FaultRule | None:
        return self._take(("status", "lost", "reset"), method, path, interaction_type)

    def served(self, kind: str, method: str, path: str, status: int, detail: str = "") -> None:
        self.record(ServedFault(kind, method, path, status, time.monotonic(), detail))


def cut(transport: object) -> None:
    """Close a connection at once with a reset (RST), as a dying proxy does: the client gets
    "connection reset by peer" rather than a clean end of stream."""
    get_extra = getattr(transport, "get_extra_info", None)
    sock = get_extra("socket") if get_extra is not None else None
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    abort = getattr(transport, "abort", None)
    if abort is not None:
        abort()


async def cut_mid_body(request: web.Request, response: web.Response) -> web.StreamResponse:
    """Send ``response``'s status, headers and half of its body, then reset the connection."""
    body = response.body if isinstance(response.body, bytes) else b""
    if not body:
        # An answer without a body (204) has no middle: it is cut before its headers instead.
        cut(request.transport)
        return response
    stream = web.StreamResponse(status=response.status)
    for name, value in response.headers.items():
        if name.lower() not in ("content-length", "transfer-encoding"):
            stream.headers[name] = value
    stream.content_length = len(body)
    await stream.prepare(request)
    await stream.write(body[: max(1, len(body) // 2)])
    cut(request.transport)
    return stream
