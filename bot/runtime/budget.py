"""The bot's budget of REST requests, spent where requests leave: in discord.py's HTTP session.

Discord lets one bot make about 50 requests a second in all, across every shard and process
(answers to interactions, which travel on the interaction's own token, do not count). Past it,
Discord answers 429 to everything the bot sends until the window ends, so a busy bot that did
not pace itself would stall every table at once. Each process spends at most its share
(``POKER_REQUESTS_PER_SECOND`` for the whole bot, times the fraction of the shards it runs).

Every request on the bot's token takes a token from one :class:`RequestBudget` the moment it
is about to be sent (:func:`budget_trace`, a hook of discord.py's session): discord.py's own
requests (login, the gateway's address, command sync, DM channels) and the bot's, each retry
of a request too. A token taken earlier, before discord.py's own wait for a route's bucket,
would be spent while the request still waits and sent later in a burst with others: the
failure this placement rules out. Interaction answers pass without waiting.

Waiting requests are served by :class:`Priority`, oldest first within one: discord.py's own
(the gateway cannot wait behind a thousand table messages), then what a player waits for to
act, then the rest of what tables say, then tidying up. Callers say which with
:func:`requests_at`. The burst is kept for the first two: the others leave only from a full
bucket, so that after a restart the tables where a player waits are drawn and sent first. A
request whose body says when it left (the countdown of the player to act) takes its turn
first and is written then (:meth:`RequestBudget.ahead`).

Discord's answers feed the budget back: a global 429 stops it for its ``retry_after``, and a
route's ``X-RateLimit-Remaining`` of 0 tells callers that peek
(:meth:`RequestBudget.bucket_delay`, the table messenger) to let their changes coalesce
rather than queue behind the route. Every REST request's outcome, interaction answers
included, also tells the process's :class:`~bot.runtime.link.DiscordLink` (``budget.link``)
whether Discord can be reached.

The bucket holds at most a tenth of a second's tokens (4 at 40 a second: a deal's table
message and three hole-card DMs at once), so that a burst and the steady rate together stay
well under Discord's limit in any one-second window: 44 of 50, the rest left for the jitter
of the network, which can bring requests sent over a little more than a second to Discord
within one (the fake's door counted 49 with a fifth of a second's burst).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextvars import ContextVar
from enum import IntEnum
from types import SimpleNamespace
from typing import Any

import aiohttp

from bot.errors import is_discord_fault
from bot.logs import cause_of
from bot.metrics import NO_METRICS, Metrics, request_kind, route_of
from bot.runtime.link import DiscordLink

DISCORD_GLOBAL_LIMIT = 50
# A global 429 whose wait cannot be read is taken to last this long.
UNKNOWN_RETRY_AFTER = 1.0
# Route buckets remembered at most (the oldest forgotten first): one per channel written to.
KNOWN_BUCKETS = 4096


class Priority(IntEnum):
    """Who gets the next free token when several requests wait (lowest first)."""

    CONNECTION = 0  # discord.py's own: login, the gateway's address, command sync
    PLAYER = 1  # what a player waits for to act: the message naming him, his cards
    TABLE = 2  # the rest of what tables say: results, notices, table updates
    TIDY = 3  # old buttons taken off, last messages of closed tables, threads archived


# The priority of requests made from here on in this task (discord.py's own: none set).
_PRIORITY: ContextVar[Priority] = ContextVar("request_priority", default=Priority.CONNECTION)
# A token taken ahead for the next request of this task (``RequestBudget.ahead``): [unused].
_PAID: ContextVar[list[bool] | None] = ContextVar("request_paid", default=None)


@contextlib.contextmanager
def requests_at(priority: Priority) -> Iterator[None]:
    """Requests made inside wait for the budget with ``priority``."""
    token = _PRIORITY.set(priority)
    try:
        yield
    finally:
        _PRIORITY.reset(token)


def channel_bucket(channel_id: int) -> str:
    """The key of a channel's route buckets (Discord's ``major parameter``)."""
    return f"channels/{channel_id}"


def bucket_of(route: str, path: str) -> str | None:
    """The bucket key of a request (``route`` its template, ``path`` its URL's path): its
    channel's for the channel routes, None for the others (only channels are peeked)."""
    if not route.startswith("/channels/{id}"):
        return None
    parts = path.split("/")
    at = parts.index("channels") if "channels" in parts else -1
    if at < 0 or at + 1 >= len(parts) or not parts[at + 1].isdigit():
        return None
    return channel_bucket(int(parts[at + 1]))


class RequestBudget:
    """A token bucket: ``rate`` requests a second, at most ``burst`` at once; waiting
    requests served by priority, then in order of arrival.

    >>> clock = iter([0.0, 0.0, 0.0, 0.5]).__next__
    >>> budget = RequestBudget(4, burst=1, monotonic=clock)
    >>> budget.take(), budget.take(), round(budget.delay(), 2)
    (True, False, 0.0)
    """

    def __init__(
        self,
        rate: float,
        *,
        burst: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        metrics: Metrics = NO_METRICS,
        link: DiscordLink | None = None,
    ) -> None:
        if rate <= 0:
            raise ValueError("the request rate must be positive")
        # Whether Discord can be reached: told by every request's outcome (``budget_trace``).
        self.link = link if link is not None else DiscordLink(monotonic=monotonic,
                                                              metrics=metrics)
        self.rate = rate
        self.burst = max(1.0, burst if burst is not None else rate / 10)
        self._monotonic = monotonic
        self._tokens = self.burst
        self._updated = monotonic()
        # No token is handed out before this (a global 429 said to wait).
        self._paused_until = float("-inf")
        # (priority, arrival, waiter); a waiter raised to a higher priority is queued again
        # and its old entry, whose priority is no longer its own, is skipped.
        self._queue: list[tuple[Priority, int, _Waiter]] = []
        self._waiting = [0] * len(Priority)
        self._by_bucket: dict[str, set[_Waiter]] = {}
        self._order = itertools.count()
        self._wake: asyncio.TimerHandle | None = None
        # Route buckets Discord said are spent: key -> when they refill (monotonic).
        self._buckets: dict[str, float] = {}
        self.spent = 0  # requests made through the budget (for the benchmarks)
        self.waited = 0.0  # seconds spent waiting for a token, in all
        self.rate_limited = 0  # global 429s Discord answered
        self.metrics = metrics

    # -- tokens ----------------------------------------------------------------------------

    def _refill(self) -> float:
        now = self._monotonic()
        since = max(self._updated, self._paused_until)
        if now > since:
            self._tokens = min(self.burst, self._tokens + (now - since) * self.rate)
        self._updated = max(self._updated, now)
        return now

    def _needed(self, priority: Priority) -> float:
        """Tokens in the bucket a request of ``priority`` needs to leave: the burst is kept
        for discord.py's own requests and the player's, the rest go at the steady rate."""
        return 1.0 if priority <= Priority.PLAYER else self.burst

    def _wait_for(self, tokens: float, now: float) -> float:
        pause = max(0.0, self._paused_until - now)
        short = tokens - self._tokens
        return pause + (short / self.rate if short > 0 else 0.0)

    def delay(self, priority: Priority = Priority.TABLE) -> float:
        """Seconds until a request of ``priority`` asked now would get its token (0: now),
        counting those already waiting ahead of it."""
        now = self._refill()
        ahead = sum(self._waiting[: priority + 1])
        return self._wait_for(ahead + self._needed(priority), now)

    def take(self, priority: Priority = Priority.CONNECTION) -> bool:
        """Spend a token if one is free for ``priority`` and nobody waits for it."""
        now = self._refill()
        if self._wait_for(self._needed(priority), now) > 0 or any(self._waiting):
            return False
        self._tokens -= 1
        self.spent += 1
        return True

    async def spend(self, priority: Priority | None = None, bucket: str | None = None) -> None:
        """Wait for a token and spend it (``priority`` None: the caller's, ``requests_at``;
        ``bucket``: the route bucket the request is for, see ``raise_bucket``)."""
        level = _PRIORITY.get() if priority is None else priority
        if self.take(level):
            self.metrics.budget_waited(0.0)
            return
        waiter = _Waiter(level, asyncio.get_running_loop().create_future(), bucket)
        heapq.heappush(self._queue, (level, next(self._order), waiter))
        self._waiting[level] += 1
        if bucket is not None:
            self._by_bucket.setdefault(bucket, set()).add(waiter)
        started = self._monotonic()
        self._schedule()
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter.future.cancelled():
                self._gone(waiter)
            raise
        finally:
            waited = self._monotonic() - started
            self.waited += waited
        self.metrics.budget_waited(waited)

    @contextlib.asynccontextmanager
    async def ahead(self, priority: Priority) -> AsyncIterator[None]:
        """Wait for a token now, for the next request made inside (given back if none is):
        what the request carries is written once its turn has come. A player's countdown
        starts as the message naming him leaves, and is written in it; waiting in the HTTP
        session instead, it would have started long before (a thousand tables queue after
        a restart). Only what happens between this and the request (drawing its image) runs
        on a token already spent."""
        await self.spend(priority)
        unused = [True]
        token = _PAID.set(unused)
        try:
            yield
        finally:
            _PAID.reset(token)
            if unused[0]:
                # Spent here, so that a task started inside (and holding this context) cannot.
                unused[0] = False
                self._refill()
                self._tokens = min(self.burst, self._tokens + 1)
                self.spent -= 1
                self._reschedule()

    def raise_bucket(self, bucket: str, priority: Priority) -> None:
        """Requests waiting for the route bucket ``bucket`` wait at ``priority`` at least
        from now on. A request waiting here holds discord.py's slot for its route: one of
        the same route asked at a higher priority waits behind it, not in this queue, so it
        lends its priority first (the old table message's buttons taken off, waiting among
        the last, would otherwise hold up the edit that names the player to act)."""
        for waiter in self._by_bucket.get(bucket, ()):
            if waiter.level > priority and not waiter.future.done():
                self._waiting[waiter.level] -= 1
                self._waiting[priority] += 1
                waiter.level = priority
                heapq.heappush(self._queue, (priority, next(self._order), waiter))
        self._reschedule()

    def _gone(self, waiter: _Waiter) -> None:
        """A waiter left the queue (served or cancelled)."""
        self._waiting[waiter.level] -= 1
        if waiter.bucket is not None:
            waiting = self._by_bucket.get(waiter.bucket)
            if waiting is not None:
                waiting.discard(waiter)
                if not waiting:
                    del self._by_bucket[waiter.bucket]

    def _head(self) -> _Waiter | None:
        """The waiter served next, the queue's stale entries dropped."""
        while self._queue:
            level, _, waiter = self._queue[0]
            if waiter.level == level and not waiter.future.done():
                return waiter
            heapq.heappop(self._queue)
        return None

    def _schedule(self) -> None:
        head = self._head()
        if self._wake is not None or head is None:
            return
        now = self._refill()
        wait = self._wait_for(self._needed(head.level), now)
        self._wake = asyncio.get_running_loop().call_later(wait, self._hand_out)

    def _reschedule(self) -> None:
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        with contextlib.suppress(RuntimeError):  # no loop: nobody can be waiting
            self._schedule()

    def _hand_out(self) -> None:
        """Give the free tokens to the first waiters, then sleep until the next one."""
        self._wake = None
        now = self._refill()
        while (head := self._head()) is not None:
            if self._wait_for(self._needed(head.level), now) > 0:
                break
            heapq.heappop(self._queue)
            self._gone(head)
            self._tokens -= 1
            self.spent += 1
            head.future.set_result(None)
        self._schedule()

    # -- what Discord says -----------------------------------------------------------------

    def rate_limited_globally(self, retry_after: float) -> None:
        """Discord refused a request for the bot's global limit: nothing goes out for
        ``retry_after`` seconds (other processes, or another bot on the token, spent it)."""
        now = self._refill()
        self.rate_limited += 1
        self._tokens = min(self._tokens, 0.0)
        self._paused_until = max(self._paused_until, now + max(0.0, retry_after))
        self._reschedule()

    def note_bucket(self, key: str, remaining: int, reset_after: float) -> None:
        """A route bucket's state from an answer's ``X-RateLimit-*`` headers."""
        if remaining > 0:
            self._buckets.pop(key, None)
            return
        self._buckets.pop(key, None)  # re-inserted last: the newest
        self._buckets[key] = self._monotonic() + max(0.0, reset_after)
        if len(self._buckets) > KNOWN_BUCKETS:
            del self._buckets[next(iter(self._buckets))]

    def bucket_delay(self, key: str) -> float:
        """Seconds until Discord said the bucket ``key`` refills (0: not known to be spent)."""
        until = self._buckets.get(key)
        if until is None:
            return 0.0
        left = until - self._monotonic()
        if left <= 0:
            del self._buckets[key]
            return 0.0
        return left

    def learn(self, route: str, path: str, status: int, headers: Mapping[str, str],
              retry_after: float | None) -> None:
        """An answer to a bot-token request: a global 429 stops the budget for a while, a
        route's headers tell when its bucket refills."""
        if status == 429 and _is_global(headers):
            self.rate_limited_globally(retry_after if retry_after is not None
                                       else _header_seconds(headers) or UNKNOWN_RETRY_AFTER)
            return
        key = bucket_of(route, path)
        remaining = headers.get("X-RateLimit-Remaining")
        if key is None or remaining is None:
            return
        try:
            left = int(remaining) if status != 429 else 0
        except ValueError:
            return
        wait = retry_after if status == 429 and retry_after is not None else None
        self.note_bucket(key, left, wait if wait is not None else _header_seconds(headers) or 0.0)


def _paid_ahead() -> bool:
    """The request about to leave was paid for by ``RequestBudget.ahead`` (and uses that
    token up)."""
    unused = _PAID.get()
    if unused is None or not unused[0]:
        return False
    unused[0] = False
    return True


class _Waiter:
    """A request waiting for its token."""

    __slots__ = ("bucket", "future", "level")

    def __init__(self, level: Priority, future: asyncio.Future[None], bucket: str | None) -> None:
        self.level = level
        self.future = future
        self.bucket = bucket


def _is_global(headers: Mapping[str, str]) -> bool:
    return (headers.get("X-RateLimit-Global", "").lower() == "true"
            or headers.get("X-RateLimit-Scope", "").lower() == "global")


def _header_seconds(headers: Mapping[str, str]) -> float | None:
    for name in ("X-RateLimit-Reset-After", "Retry-After"):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw))
        except ValueError:
            continue
    return None


def _is_websocket(headers: Mapping[str, str]) -> bool:
    return headers.get("Upgrade", "").lower() == "websocket"


def _spends(url: Any, headers: Mapping[str, str]) -> str | None:
    """The route template of a request that spends the bot's budget; None for the others
    (the gateway's websocket, the CDN, answers on an interaction's token)."""
    if _is_websocket(headers):
        return None
    route = route_of(url)
    if route == "other" or request_kind(route) != "bot":
        return None
    return route


def budget_trace(
    budget: RequestBudget, trace: aiohttp.TraceConfig | None = None
) -> aiohttp.TraceConfig:
    """Hooks for discord.py's HTTP session (``Client(http_trace=...)``; added to ``trace``
    when given, since discord.py takes one): each bot-token request waits for its token just
    before it is sent, inside discord.py's own wait for the route, and its answer is read
    back into the budget."""
    trace = trace if trace is not None else aiohttp.TraceConfig()

    async def before(
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestStartParams,
    ) -> None:
        route = _spends(params.url, params.headers)
        if route is not None and not _paid_ahead():
            await budget.spend(bucket=bucket_of(route, params.url.path))

    async def after(
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        if _is_websocket(params.headers):
            return  # the gateway: the client follows its shards (``DiscordLink.gateway_lost``)
        status = params.response.status
        if status >= 500:
            budget.link.request_failed(
                f"{status} {params.response.reason} on {params.method} {route_of(params.url)}")
        else:
            budget.link.request_answered()
        route = _spends(params.url, params.headers)
        if route is None:
            return
        response = params.response
        retry_after = None
        if response.status == 429:
            retry_after = await _retry_after(response)
        budget.learn(route, params.url.path, response.status, response.headers, retry_after)

    async def failed(
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestExceptionParams,
    ) -> None:
        if not _is_websocket(params.headers) and is_discord_fault(params.exception):
            budget.link.request_failed(
                f"{cause_of(params.exception)} on {params.method} {route_of(params.url)}")

    trace.on_request_start.append(before)
    trace.on_request_end.append(after)
    trace.on_request_exception.append(failed)
    return trace


async def _retry_after(response: aiohttp.ClientResponse) -> float | None:
    """The precise wait of a 429, from its body (discord.py reads the same body after us:
    aiohttp keeps it once read)."""
    try:
        body = await response.json(content_type=None)
        return max(0.0, float(body["retry_after"]))
    except Exception:
        return None


__all__ = [
    "DISCORD_GLOBAL_LIMIT",
    "Priority",
    "RequestBudget",
    "budget_trace",
    "channel_bucket",
    "requests_at",
]
