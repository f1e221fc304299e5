"""The restart scenario of ``bench.e2e`` (``--only restart``): a process restarted with many
live tables, each in the middle of a hand, brings them all back.

The tables are seeded straight into storage (``tests.e2e.restart_kit``: three players bought
in, a hand dealt and its first decision taken, or for one table in ``--paused-every`` dealing
paused by its host), each with the table message the stopped process left in its channel, its
buttons still on. Then the real bot starts against the fake Discord, as after a deploy or a
crash, and brings every table back: each table's message posted again at the bottom of its
channel (one request), the old one's buttons taken off (one more). While it does, players
act: ``--probe-rate`` interactions a second from the moment the gateway is up, each an action
of the player to act (a slash command, or a press of a button on whichever message of the
table he sees) or a ``/chips balance``.

Measured, all at the fake's door or from what the fake holds, never from the bot's counters:
the interactions that missed Discord's 3 s deadline (must be 0), the 429s (must be 0), the
bot's requests a second at the door (busiest second and mean), and the time until every table
is shown again correctly (``restart_kit.shown_again`` and ``tidied``), against the floor the
budget sets: tables x requests per table / requests a second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import discord

from bench._e2e_support import LoopLag, TimedFakeDiscord, percentile, summary
from bot.client import PokerBot
from bot.runtime.config import RuntimeOptions
from bot.runtime.manager import GameRuntime
from bot.storage import Database
from tests.e2e.harness import settings_for
from tests.e2e.restart_kit import (
    TIMER,
    RestartWorld,
    Seeded,
    restart_world,
    seed_tables,
    shown_again,
    tidied,
)
from tests.fakediscord import InteractionHandle, snowflake_time
from tests.fakediscord.door import DoorCount
from tests.pgserver import HOW_TO_GET, find_binaries, running_server

DEADLINE_MS = 3000.0
COUNTDOWN = re.compile(r"<t:(\d+):R>")
# Requests on the bot's token that bring one table back: its message posted again, the old
# one's buttons taken off.
REQUESTS_PER_TABLE = 2


@dataclass
class Progress:
    """When (seconds after the bot was started) each milestone was reached."""

    restored: float | None = None  # the runtime open: every table rebuilt from storage
    ready: float | None = None  # the gateway up: interactions reach the bot
    shown: dict[int, float] = field(default_factory=dict)  # table id -> first shown again
    tidied: dict[int, float] = field(default_factory=dict)  # table id -> old buttons off


@dataclass
class Probes:
    handles: list[tuple[InteractionHandle, str]] = field(default_factory=list)
    stop: bool = False


@contextlib.asynccontextmanager
async def database_url(kind: str, data_dir: Path) -> AsyncIterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{data_dir / 'poker.db'}"
        return
    binaries = find_binaries()
    if binaries is None:
        raise SystemExit(HOW_TO_GET)
    with running_server(binaries) as server:
        yield await server.create_database()


async def watch(
    fake: TimedFakeDiscord,
    bot: PokerBot,
    seeded: list[Seeded],
    progress: Progress,
    started: float,
    done: asyncio.Event,
) -> None:
    """Note when each table is first shown again and first tidied, until all are both."""
    pending = {s.table_id: s for s in seeded}
    unshown = dict(pending)
    while pending:
        await asyncio.sleep(0.25)
        runtime = bot.runtime
        if runtime is None:
            continue
        now = time.monotonic() - started
        if progress.restored is None:
            progress.restored = now
        for table_id, table in list(unshown.items()):
            found = runtime.registry.find(table_id)
            if found is None or found.messenger.message_id in (None, table.old_message_id):
                continue  # not posted again yet (the full check draws the table: not for all)
            if shown_again(fake, runtime, table):
                progress.shown[table_id] = now
                del unshown[table_id]
        for table_id, table in list(pending.items()):
            if table_id not in unshown and tidied(fake, table):
                progress.tidied[table_id] = now
                del pending[table_id]
    done.set()


async def probe(
    fake: TimedFakeDiscord,
    runtime: GameRuntime,
    world: RestartWorld,
    seeded: list[Seeded],
    probes: Probes,
    rate: float,
    rng: random.Random,
) -> None:
    """Players act while their tables come back: ``rate`` interactions a second."""
    waiting = [s for s in seeded if s.awaits_player]
    while not probes.stop:
        await asyncio.sleep(rng.expovariate(rate))
        roll = rng.random()
        if roll < 0.2 or not waiting:
            user = world.spectators[rng.randrange(len(world.spectators))]
            channel = world.seats[rng.randrange(len(world.seats))].channel
            handle = await fake.slash(user, channel, "chips", subcommand="balance")
            probes.handles.append((handle, "balance"))
            continue
        table = waiting[rng.randrange(len(waiting))]
        live_table = runtime.registry.find(table.table_id)
        hand = live_table.hand if live_table is not None else None
        legal = hand.legal() if hand is not None else None
        if live_table is None or legal is None:
            continue
        user = next(u for u in table.seat.players if u.id == live_table.player_of(legal.player))
        action = "check" if legal.can_check else "call"
        if roll < 0.6:
            handle = await fake.slash(user, table.seat.channel, action)
            probes.handles.append((handle, "slash"))
            continue
        # A press on the message he sees: the new one if it is out, else the old one.
        message_id = live_table.messenger.message_id
        message = fake.messages.get(message_id) if message_id is not None else None
        if message is None:
            continue
        buttons = [c for c in message.custom_ids() if f":{action}@" in c]
        if buttons:
            handle = await fake.click(user, message, buttons[0])
            probes.handles.append((handle, "button"))


async def restart_phase(args: argparse.Namespace) -> None:
    tables = args.tables
    rate = RuntimeOptions().requests_per_second
    world = restart_world(tables, args.players)
    servers = ", ".join(str(len(g.channels)) for g in world.guilds)
    print(f"\n== Restart with {tables} live tables x {args.players} players on {args.database} "
          f"(servers of {servers} channels; a hand in progress at all but one table in "
          f"{args.paused_every}, whose host paused dealing); players act {args.probe_rate:g} "
          f"times a second meanwhile")
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as folder:
        data_dir = Path(folder)
        fake = TimedFakeDiscord(guilds=world.guilds, users=world.users)
        async with database_url(args.database, data_dir) as url, fake:
            seeding = time.monotonic()
            db = await Database.open(url)
            try:
                seeded = await seed_tables(db, fake, world, paused_every=args.paused_every)
            finally:
                await db.close()
            print(f"  seeded in {time.monotonic() - seeding:.1f} s: "
                  f"{sum(s.awaits_player for s in seeded)} tables with a player to act, "
                  f"{sum(not s.awaits_player for s in seeded)} paused")
            await run_restart(args, fake, world, seeded, url, data_dir, rate)


async def run_restart(
    args: argparse.Namespace,
    fake: TimedFakeDiscord,
    world: RestartWorld,
    seeded: list[Seeded],
    url: str,
    data_dir: Path,
    rate: float,
) -> None:
    limit = max(args.max_seconds, 3 * len(seeded) * REQUESTS_PER_TABLE / rate + 60)
    settings = settings_for(fake, data_dir, database_url=url)
    options = RuntimeOptions(next_hand_delay=args.next_hand_delay)
    bot = PokerBot(settings, runtime_options=options, guild_ready_timeout=0.01)
    progress, probes = Progress(), Probes()
    since = len(fake.requests)
    lag = LoopLag()
    done = asyncio.Event()
    ready = asyncio.Event()

    async def on_ready() -> None:
        ready.set()

    bot.add_listener(on_ready, "on_ready")
    started = time.monotonic()
    lag.start()
    live_table = asyncio.create_task(bot.start(settings.discord_token), name="restarted-bot")
    watcher = asyncio.create_task(watch(fake, bot, seeded, progress, started, done))
    prober: asyncio.Task[None] | None = None
    try:
        waiting = asyncio.create_task(ready.wait())
        finished, _ = await asyncio.wait({live_table, waiting}, timeout=limit,
                                         return_when=asyncio.FIRST_COMPLETED)
        if waiting not in finished:
            waiting.cancel()
            if live_table in finished:
                live_table.result()
            raise SystemExit(f"the bot was not ready within {limit:g} s")
        progress.ready = time.monotonic() - started
        runtime = bot.runtime
        assert runtime is not None
        prober = asyncio.create_task(
            probe(fake, runtime, world, seeded, probes, args.probe_rate,
                  random.Random(args.seed)))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(limit):
                await done.wait()
        probes.stop = True
        if prober is not None:
            await prober
        await asyncio.sleep(DEADLINE_MS / 1000 + 0.5)  # the last probes' deadlines pass
        final = sum(1 for s in seeded if shown_again(fake, runtime, s) and tidied(fake, s))
    finally:
        probes.stop = True
        watcher.cancel()
        await lag.stop()
        await bot.close()
        with contextlib.suppress(asyncio.CancelledError, discord.HTTPException):
            await asyncio.wait_for(live_table, timeout=10)
    report(fake, seeded, progress, probes, lag, since, rate, final, started)


def report(
    fake: TimedFakeDiscord,
    seeded: list[Seeded],
    progress: Progress,
    probes: Probes,
    lag: LoopLag,
    since: int,
    rate: float,
    final: int,
    started: float,
) -> None:
    tables = len(seeded)
    players = [s.table_id for s in seeded if s.awaits_player]
    floor = tables * REQUESTS_PER_TABLE / rate
    print(f"  (seconds from the bot's start; the floor the budget sets is {tables} tables x "
          f"{REQUESTS_PER_TABLE} requests / {rate:g} a second = {floor:.1f} s)")
    print(f"  every table rebuilt from storage (before the gateway connects): "
          f"{at_time(progress.restored)}")
    print(f"  gateway up, interactions reach the bot: {at_time(progress.ready)}")
    shown_players = _last(progress.shown, players)
    shown_all = _last(progress.shown, [s.table_id for s in seeded])
    tidy_all = _last(progress.tidied, [s.table_id for s in seeded])
    print(f"  every table with a player to act shown again: {at_time(shown_players)}")
    print(f"  every table shown again: {at_time(shown_all)}")
    channels = {s.seat.channel.id for s in seeded}
    first = min((r.arrived - started for r in fake.requests[since:]
                 if r.method == "POST" and r.path.startswith("/channels/")
                 and int(r.path.split("/")[2]) in channels), default=None)
    print(f"  every table correct (its old message's buttons off too): {at_time(tidy_all)}")
    if tidy_all is not None and first is not None:
        spent = tidy_all - first
        print(f"    from the first table's request (at {first:.1f} s): {spent:.1f} s, "
              f"{spent / floor:.2f}x the floor of {floor:.1f} s")
    print(f"  tables correct at the end: {final} of {tables}")
    print(f"  players whose time to act was running before the message naming them went out: "
          f"{early_clocks(fake, seeded)} (their countdown started with the message: "
          f"{TIMER} s from it)")
    count = fake.door(since)
    # The tables' own stretch: from the first table's request to the last request, the
    # start-up's few requests and the wait before the first table left out.
    begin = started + (first or 0.0)
    stretch = fake.door(next(
        (i for i in range(since, len(fake.requests)) if fake.requests[i].arrived >= begin),
        len(fake.requests)))
    print(f"  at the fake's door: {count.counted} requests on the bot's token; from the first "
          f"table's on, {stretch.counted} in {stretch.seconds:.1f} s ({stretch.rate:.1f}/s); "
          f"{count.busiest} in the busiest second (Discord allows 50); {count.free} "
          f"interaction answers (free)")
    refused = print_door_tail(fake, since, count, top=6)
    missed, kinds = answer_times(fake, probes.handles)
    print(f"  interactions during the restart: {len(probes.handles)}; missed the 3 s "
          f"deadline: {missed}; answered in")
    print(f"    {'all':<8} {summary([ms for each in kinds.values() for ms in each])}")
    for kind, ms in sorted(kinds.items()):
        print(f"    {kind:<8} {summary(ms)}")
    print(f"  event-loop lag (10 ms sleep overshoot): p99 {percentile(lag.samples, 99):.0f} ms, "
          f"max {max(lag.samples, default=0.0):.0f} ms")
    verdict = "PASS" if not missed and not refused and final == tables else "FAIL"
    print(f"  {verdict}: {missed} deadlines missed, {refused} 429s, {final}/{tables} tables "
          f"correct")


def early_clocks(fake: TimedFakeDiscord, seeded: list[Seeded]) -> int:
    """Tables whose first message after the restart shows a countdown shorter than the table's
    timer from the moment it was posted: the player's time ran before he was told."""
    early = 0
    for table in seeded:
        if not table.awaits_player:
            continue
        posted = [m for m in fake.messages_in(table.seat.channel)
                  if m.id != table.old_message_id and not m.ephemeral]
        first = min(posted, key=lambda m: m.id, default=None)
        found = COUNTDOWN.search(first.content) if first is not None else None
        # The countdown is whole seconds; the post time is the message's own, to the ms.
        if first is not None and found is not None and (
            int(found[1]) < snowflake_time(first.id) + TIMER - 2
        ):
            early += 1
    return early


def print_door_tail(fake: TimedFakeDiscord, since: int, count: DoorCount, *, top: int) -> int:
    """The busiest routes at the fake's door and the 429s it answered since ``since``; how
    many 429s."""
    for route, n in count.by_route.most_common(top):
        print(f"    {n:6d}  {route}")
    refused = sum(1 for r in fake.requests[since:] if r.status == 429)
    print(f"  refused with 429: {refused}")
    return refused


def answer_times(
    fake: TimedFakeDiscord, handles: list[tuple[InteractionHandle, str]]
) -> tuple[int, dict[str, list[float]]]:
    """How many probes missed Discord's 3 s (no answer, a late one, or none accepted), and
    the answer times by kind of probe, in ms."""
    missed = 0
    kinds: dict[str, list[float]] = {}
    for handle, kind in handles:
        answered = fake.ack_ms(handle.id)
        if answered is None or answered > DEADLINE_MS or handle.callback is None:
            missed += 1
        if answered is not None:
            kinds.setdefault(kind, []).append(answered)
    return missed, kinds


def at_time(seconds: float | None) -> str:
    return "not reached" if seconds is None else f"{seconds:.1f} s"


def _last(when: dict[int, float], ids: list[int]) -> float | None:
    if not ids or any(i not in when for i in ids):
        return None
    return max(when[i] for i in ids)
