"""Plumbing for ``bench.e2e``: a fake Discord that timestamps interactions, a world of many
tables, the real bot started on a temporary database, and small measuring helpers.

Everything runs in one process and one event loop, like the end-to-end tests
(``tests/e2e/harness.py``); run the benchmark from the project root so ``tests`` imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import logging
import re
import resource
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from aiohttp import web

from bot.client import PokerBot
from bot.runtime.config import RuntimeOptions
from bot.runtime.manager import GameRuntime
from bot.runtime.rendering import ensure_warm
from tests.e2e.harness import running_bot, settings_for
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser
from tests.pgserver import HOW_TO_GET, find_binaries, running_server

T = TypeVar("T")


# -- the fake, with clocks -----------------------------------------------------------------


class TimedFakeDiscord(FakeDiscord):
    """A ``FakeDiscord`` that notes, per interaction id, when its INTERACTION_CREATE was sent
    and when the bot's callback (the acknowledgement) reached the fake (``perf_counter``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent_at: dict[int, float] = {}
        self.acked_at: dict[int, float] = {}
        # Stamp the callback route on arrival, before the fake does any work on it.
        answer = self.rest._interaction_callback
        self.rest.routes = [
            dataclasses.replace(route, handler=self._stamped(answer))
            if route.handler == answer
            else route
            for route in self.rest.routes
        ]

    def _stamped(
        self, answer: Callable[..., Awaitable[web.StreamResponse]]
    ) -> Callable[..., Awaitable[web.StreamResponse]]:
        async def stamped(
            request: web.Request, interaction_id: str, token: str
        ) -> web.StreamResponse:
            self.acked_at.setdefault(int(interaction_id), time.perf_counter())
            return await answer(request, interaction_id=interaction_id, token=token)

        return stamped

    async def dispatch(self, event: str, data: Any) -> None:
        if event == "INTERACTION_CREATE":
            self.sent_at[int(data["id"])] = time.perf_counter()
        await super().dispatch(event, data)

    def ack_ms(self, interaction_id: int) -> float | None:
        sent = self.sent_at.get(interaction_id)
        acked = self.acked_at.get(interaction_id)
        if sent is None or acked is None:
            return None
        return (acked - sent) * 1000

    def retained_attachments(self) -> tuple[int, int]:
        """(count, bytes) of the distinct uploaded files the fake still holds (every version of
        every message stays in ``events``, so edited-away images are kept too)."""
        seen: dict[int, int] = {}
        for message in [*self.messages.values(), *(e.message for e in self.events)]:
            for attachment in message.attachments:
                seen[attachment.id] = len(attachment.data)
        return len(seen), sum(seen.values())


# -- the world -----------------------------------------------------------------------------


@dataclass
class Seat:
    """One table of the world: its channel and the users who play there."""

    channel: FakeChannel
    players: list[FakeUser]


@dataclass
class World:
    guilds: list[FakeGuild]
    seats: list[Seat]
    spectators: list[FakeUser]  # not seated anywhere: they run the peer commands

    @property
    def users(self) -> list[FakeUser]:
        return [u for s in self.seats for u in s.players] + self.spectators


# Discord allows 500 channels a server; a large world is spread over several servers, as a
# bot that many servers invite sees it.
TABLES_PER_GUILD = 250


def make_world(tables: int, players: int, spectators: int = 4) -> World:
    """Servers of at most ``TABLES_PER_GUILD`` channels, one channel per table; ``players``
    users for each (DMs open); the spectators and the owner are members of every server."""
    seats: list[Seat] = []
    guilds: list[FakeGuild] = []
    watchers = [FakeUser(f"rail-{k}") for k in range(spectators)]
    owner = FakeUser("owner")
    for first in range(0, max(tables, 1), TABLES_PER_GUILD):
        channels: list[FakeChannel] = []
        members: list[FakeUser] = []
        for t in range(first, min(tables, first + TABLES_PER_GUILD)):
            channel = FakeChannel(f"table-{t:03d}")
            users = [FakeUser(f"p{t:03d}-{k}") for k in range(players)]
            seats.append(Seat(channel, users))
            channels.append(channel)
            members.extend(users)
        guilds.append(FakeGuild.create(
            f"Casino {len(guilds) + 1}", channels=channels or ["lobby"],
            members=[owner, *members, *watchers], owner=owner,
        ))
    return World(guilds, seats, watchers)


def bench_options(next_hand_delay: float) -> RuntimeOptions:
    """Production pacing (Discord's channel budget included), except the pause between hands,
    which the benchmark may shorten so tables spend their time playing."""
    return RuntimeOptions(next_hand_delay=next_hand_delay)


@dataclass
class Stack:
    """The fake Discord and the real bot (``bot.client.PokerBot``) running against it."""

    fake: TimedFakeDiscord
    bot: PokerBot
    data_dir: Path

    @property
    def runtime(self) -> GameRuntime:
        runtime = self.bot.runtime
        assert isinstance(runtime, GameRuntime), "the game runtime is not open"
        return runtime


@contextlib.asynccontextmanager
async def running_stack(
    world: World,
    options: RuntimeOptions,
    *,
    on_fake_started: Callable[[], None] | None = None,
    database: str = "sqlite",
) -> AsyncIterator[Stack]:
    """Fake Discord + bot on a SQLite file in a temporary directory, or on a throwaway
    PostgreSQL server (``database="postgresql"``, the tests' server: fsync off, as SQLite's
    NORMAL mode skips the fsync at each commit too); all removed afterwards."""
    with contextlib.ExitStack() as cleanup:
        data_dir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="bench-e2e-")))
        database_url: str | None = None
        if database == "postgresql":
            binaries = find_binaries()
            if binaries is None:
                raise SystemExit(HOW_TO_GET)
            server = cleanup.enter_context(running_server(binaries))
            database_url = await server.create_database()
        fake = TimedFakeDiscord(guilds=world.guilds, users=world.users)
        async with fake:
            if on_fake_started is not None:
                on_fake_started()
            settings = settings_for(fake, data_dir)
            if database_url is not None:
                settings = replace(settings, database_url=database_url)
            bot = PokerBot(settings, runtime_options=options, guild_ready_timeout=0.01)
            async with running_bot(fake, data_dir, bot=bot, ready_timeout=30.0) as running:
                # Tables should not wait for fonts and card art (start-up begins this too).
                await asyncio.to_thread(ensure_warm)
                yield Stack(fake, running, data_dir)


# -- measuring -----------------------------------------------------------------------------


def _status_kb(key: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def rss_mb() -> float:
    """Resident set size now (VmRSS), in MiB; peak RSS where /proc is missing."""
    kb = _status_kb("VmRSS")
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024


def trimmed_rss_mb() -> float | None:
    """RSS after asking glibc to give freed heap memory back (``malloc_trim(0)``): what is
    live, without the allocator's slack (freed memory kept in per-thread arenas). None where
    there is no glibc. Only a diagnostic: the bot itself never trims."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return None
    return rss_mb()


def peak_rss_mb() -> float:
    kb = _status_kb("VmHWM")
    if kb is None:
        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100), nearest rank; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary(values: Sequence[float]) -> str:
    if not values:
        return "no samples"
    return (
        f"p50 {percentile(values, 50):6.1f}  p90 {percentile(values, 90):6.1f}  "
        f"p99 {percentile(values, 99):6.1f}  max {max(values):6.1f} ms  (n={len(values)})"
    )


async def until(check: Callable[[], T | None], *, timeout: float, what: str) -> T:
    """Poll in-process state (the live_table changes without telling the fake) with a deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} not reached within {timeout}s")
        await asyncio.sleep(0.02)


class TimedLock(asyncio.Lock):
    """An ``asyncio.Lock`` that notes how long each holder waited for it and held it (ms)."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []
        self.holds: list[float] = []
        self._since = 0.0

    async def acquire(self) -> Literal[True]:
        start = time.perf_counter()
        await super().acquire()
        self._since = time.perf_counter()
        self.waits.append((self._since - start) * 1000)
        return True

    def release(self) -> None:
        self.holds.append((time.perf_counter() - self._since) * 1000)
        super().release()

    def reset(self) -> None:
        self.waits.clear()
        self.holds.clear()


def time_locks(runtime: GameRuntime) -> tuple[TimedLock | None, list[TimedLock]]:
    """Swap in timed locks, while everything is idle: the database's writer lock (every write
    transaction of every table takes it in turn) and each table's own lock. The writer lock is
    a private attribute of ``Database``; where it is missing, it is left alone (None)."""
    db_lock: TimedLock | None = None
    db = runtime.db
    current = getattr(db, "_write_lock", None)
    if (
        isinstance(current, asyncio.Lock)
        and not current.locked()
        and getattr(db, "_read_lock", None) is not current
    ):
        db_lock = TimedLock()
        db._write_lock = db_lock
    table_locks: list[TimedLock] = []
    for live_table in runtime.registry.cash_tables():
        if not live_table.lock.locked():
            timed = TimedLock()
            live_table.lock.inner = timed
            table_locks.append(timed)
    return db_lock, table_locks


class LoopLag:
    """How late the event loop wakes a task that sleeps ``interval`` (a busy or GIL-starved
    loop shows up here, whatever it is busy with)."""

    def __init__(self, interval: float = 0.01) -> None:
        self.interval = interval
        self.samples: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.interval)
            self.samples.append((time.perf_counter() - start - self.interval) * 1000)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="bench-loop-lag")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


_ROUTE_IDS = (
    (re.compile(r"/interactions/\d+/[^/]+/callback"), "/interactions/:id/:token/callback"),
    (re.compile(r"/webhooks/\d+/[^/]+"), "/webhooks/:app/:token"),
    (re.compile(r"\d{5,}"), ":id"),
)


def route_counts(fake: FakeDiscord, since: int) -> Counter[str]:
    """REST requests the bot made from ``fake.requests[since:]``, by route."""
    counts: Counter[str] = Counter()
    for request in fake.requests[since:]:
        path = request.path
        for pattern, replacement in _ROUTE_IDS:
            path = pattern.sub(replacement, path)
        suffix = "" if request.status < 400 else f" -> {request.status}"
        counts[f"{request.method} {path}{suffix}"] += 1
    return counts


def bot_token_requests(fake: FakeDiscord, since: int) -> tuple[int, int]:
    """Requests on the bot's own token (what Discord's global limit of 50 a second counts;
    interaction answers and followups travel on the interaction's token and do not):
    (hole-card and other DMs, everything else)."""
    dms = other = 0
    channels = fake.channels
    for request in fake.requests[since:]:
        if "/interactions/" in request.path or "/webhooks/" in request.path:
            continue
        parts = request.path.split("/")
        is_dm = (
            request.method == "POST"
            and len(parts) >= 3
            and parts[1] == "channels"
            and parts[2].isdigit()
            and (channel := channels.get(int(parts[2]))) is not None
            and channel.is_dm
        )
        if is_dm or request.path.endswith("/users/@me/channels"):
            dms += 1
        else:
            other += 1
    return dms, other


def uploads_since(fake: FakeDiscord, since: int) -> Counter[str]:
    """Files uploaded (rendered images) in message events from ``since`` on, by filename."""
    seen: set[int] = set()
    counts: Counter[str] = Counter()
    for event in fake.events[since:]:
        for attachment in event.message.attachments:
            if attachment.id not in seen:
                seen.add(attachment.id)
                counts[attachment.filename] += 1
    return counts


class WarningCounter(logging.Handler):
    """Counts WARNING+ log records by logger (the bot logs failed sends, dropped interactions)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.counts: Counter[str] = Counter()
        self.first: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.counts[record.name] += 1
        if len(self.first) < 5:
            self.first.append(f"{record.levelname} {record.name}: {record.getMessage()[:160]}")
