"""End to end over the fake Discord: action-to-acknowledgement latency with many tables playing
at once, the memory of many live tables, and a restart of many tables in the middle of hands.

    python -m bench.e2e [--tables 50] [--actions 2000] [--memory-tables 100] [--think 1.5 0.2]
                        [--via mix|slash|button] [--only latency|memory|restart|sigkill]
                        [--profile]
                        [--database sqlite|postgresql] [--paused-every 5] [--probe-rate 5]

Run from the project root (the fake Discord lives in ``tests/``). The real bot
(``bot.client.PokerBot``, production pacing but for a 1 s pause between hands) and the fake Discord
(``tests.fakediscord``) share one process and one event loop, exactly as in the end-to-end
tests; the database is a SQLite file in a temporary directory, removed afterwards.

Latency: ``--tables`` tables of ``--players`` players each are created and dealt by slash
commands; then one task per table plays: it reads whose turn it is from the bot's runtime,
waits a think time (uniform 0..2x ``--think`` seconds), and sends the action as a slash command
(``/call``, ``/check``, ``/fold``, ``/bet``, ``/raise``) or a press of the table message's button.
The figure is the time from the fake sending INTERACTION_CREATE to the bot's interaction
callback reaching the fake: the acknowledgement, which the bot sends only once the action is
stored. One load run per ``--think`` value: by default a brisk pace (mean 1.5 s, about 30
actions/s over 50 tables; people take longer) and a stress pace (mean 0.2 s, about 100/s).
Peers from the same run: one table playing alone, and ``/chips balance`` (a read of one wallet)
idle and during each load. The lock timings (the database's single writer lock, each table's
lock) say where an acknowledgement waits. Budget (DESIGN.md): p99 at most 100 ms with 50
tables; the figures are printed, never asserted (the machine is shared and noisy).

Memory: process RSS before and after opening ``--memory-tables`` tables, each with its players
seated and a hand in progress (table message posted, hole cards sent). Budgets: at most 150 MB
with 100 live tables, and at most 1 MB a table beyond the bot's baseline at any count
(``--memory-tables 1000 --database postgresql`` for the scale-out figure). The fake Discord
runs in the same process and keeps every message version and every uploaded image; its share
is measured and subtracted for the bot's estimate.

Restart (``--only restart --tables 1000``, only when asked): ``--tables`` tables seeded in
storage in the middle of their hands, the bot started on them as after a deploy or a crash,
players acting meanwhile; the deadlines missed, the 429s, the requests a second at the fake's
door and the time until every table is correct, against the floor the request budget sets
(``bench._e2e_restart``). SIGKILL (``--only sigkill``, PostgreSQL): the same when one of two
processes sharing the database is killed and the survivor takes its tables over
(``bench._e2e_takeover``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import io
import logging
import os
import pstats
import random
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from bench._e2e_restart import restart_phase
from bench._e2e_support import (
    LoopLag,
    Seat,
    Stack,
    TimedLock,
    WarningCounter,
    World,
    bench_options,
    bot_token_requests,
    make_world,
    peak_rss_mb,
    percentile,
    route_counts,
    rss_mb,
    running_stack,
    summary,
    time_locks,
    trimmed_rss_mb,
    until,
    uploads_since,
)
from bench._e2e_takeover import takeover_phase
from bot.errors import BotError
from bot.i18n import catalog
from bot.presenter import decision_number
from bot.runtime.cash import CashTable
from bot.storage import economy
from engine.hand import ActionKind, Legal
from tests.fakediscord import FakeDiscord, FakeUser, InteractionCallback, InteractionHandle

ACK_BUDGET_MS = 100.0
UPDATE_MESSAGE = 7  # the interaction answered by updating the message its button is on
# Requests on the bot's token per action, hole-card DMs aside (issue 15).
REQUEST_GOAL = 0.3
MEMORY_BUDGET_MB = 150.0
TABLE_BUDGET_MB = 1.0
SMALL_BLIND, BIG_BLIND = 5, 10
TIMER = 300  # the longest allowed: no player times out while the benchmark runs
RAISE_CAP = 10 * BIG_BLIND  # raise only this far: stacks last, tables keep playing
# What the bot says when it took the action ("You called {amount}." -> "You called "): any
# other reply is a refusal.
ACK_PREFIXES = tuple(
    text.split("{", 1)[0] for key, text in catalog("en").items() if key.startswith("ack.")
)
SLASH_NAMES = {
    ActionKind.FOLD: "fold",
    ActionKind.CHECK: "check",
    ActionKind.CALL: "call",
}


# -- setting tables up ---------------------------------------------------------------------


async def _answer(handle: InteractionHandle, what: str) -> InteractionCallback:
    try:
        return await handle.response(timeout=60)
    except TimeoutError:
        raise RuntimeError(f"no answer to {what}") from None


async def open_table(stack: Stack, seat: Seat) -> CashTable:
    """``/poker create``, everyone ``/poker join``, ``/poker start``; the first hand dealt."""
    fake, runtime = stack.fake, stack.runtime
    host = seat.players[0]
    options = {"small_blind": SMALL_BLIND, "big_blind": BIG_BLIND, "timer": TIMER}
    handle = await fake.slash(host, seat.channel, "poker", subcommand="create", options=options)
    reply = await _answer(handle, "/poker create")
    try:
        live_table = runtime.registry.cash_table_in(seat.channel.id)
    except BotError:
        name = seat.channel.name
        raise RuntimeError(f"/poker create failed in #{name}: {reply.content}") from None
    for user in seat.players:
        handle = await fake.slash(user, seat.channel, "poker", subcommand="join")
        reply = await _answer(handle, "/poker join")
        if live_table.table.seat_of(user.id) is None:
            raise RuntimeError(f"{user.name} could not join: {reply.content}")
    handle = await fake.slash(host, seat.channel, "poker", subcommand="start")
    reply = await _answer(handle, "/poker start")
    await until(lambda: live_table.hand, timeout=60, what=f"a hand dealt in #{seat.channel.name}")
    return live_table


async def open_tables(stack: Stack, seats: Iterable[Seat], concurrency: int = 10) -> None:
    chosen = list(seats)
    # A server allows 10 open tables (2 per host) by default: the bench opens many more.
    for guild_id in {seat.channel.guild_id for seat in chosen}:
        assert guild_id is not None
        await stack.runtime.ensure_guild(guild_id)
        await economy.update_settings(
            stack.runtime.db, guild_id, max_tables=economy.MAX_TABLES,
            max_tables_per_host=economy.MAX_TABLES,
        )
    gate = asyncio.Semaphore(concurrency)

    async def one(seat: Seat) -> None:
        async with gate:
            await open_table(stack, seat)

    await asyncio.gather(*(one(seat) for seat in chosen))


async def settle(stack: Stack, seats: list[Seat], timeout: float = 60.0) -> None:
    """Wait until every table message is out and every hole-card DM delivered."""
    runtime, fake = stack.runtime, stack.fake
    await asyncio.gather(*(r.messenger.flush(timeout) for r in runtime.registry.cash_tables()))
    wanted = sum(len(s.players) for s in seats)
    await until(
        lambda: sum(1 for s in seats for u in s.players if fake.dm_messages(u)) >= wanted,
        timeout=timeout,
        what="every hole-card DM",
    )


# -- playing -------------------------------------------------------------------------------


@dataclass
class Sample:
    ms: float
    via: str
    kind: str


@dataclass
class Load:
    """What the drivers collected, and when to stop."""

    target: int
    deadline: float
    samples: list[Sample] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)
    unanswered: int = 0
    repairs: int = 0
    stopped: bool = False

    def done(self) -> bool:
        if len(self.samples) >= self.target or time.monotonic() > self.deadline:
            self.stopped = True
        return self.stopped


def choose(rng: random.Random, legal: Legal) -> tuple[ActionKind, int | None]:
    """Mostly check or call, sometimes fold or make a small raise: hands end, stacks last."""
    roll = rng.random()
    small_raise = legal.can_raise and legal.min_raise_to <= RAISE_CAP
    if small_raise and roll < 0.12:
        return (ActionKind.BET if legal.is_bet else ActionKind.RAISE), legal.min_raise_to
    if legal.can_check:
        return ActionKind.CHECK, None
    if roll > 0.85:
        return ActionKind.FOLD, None
    return ActionKind.CALL, None


async def send_action(
    fake: FakeDiscord,
    seat: Seat,
    live_table: CashTable,
    user: FakeUser,
    kind: ActionKind,
    amount: int | None,
    use_button: bool,
) -> tuple[InteractionHandle, str]:
    """Press the table message's button for it when asked and shown; else the slash command."""
    if use_button and live_table.message_id is not None:
        name = SLASH_NAMES.get(kind, "raise")
        arg = f":{amount}" if kind not in SLASH_NAMES else ""
        message = fake.messages.get(live_table.message_id)
        # As a player would: only from the message of this hand (the next hand's message may
        # still be on its way), and only a button it shows (``<action>@<hand>.<decision>``).
        if (
            message is not None
            and not message.deleted
            and f"Hand #{live_table.table.hand_number} ·" in message.content
        ):
            hand = live_table.hand
            decision = decision_number(hand) if hand is not None else -1
            number = live_table.table.hand_number
            wanted = f"poker:{live_table.table_id}:{name}@{number}.{decision}{arg}"
            shown = [c for c in message.custom_ids() if c == wanted]
            if shown:
                return await fake.click(user, message, shown[0]), "button"
    if kind in SLASH_NAMES:
        return await fake.slash(user, seat.channel, SLASH_NAMES[kind]), "slash"
    if kind is ActionKind.BET:
        return await fake.slash(user, seat.channel, "bet", options={"amount": amount}), "slash"
    return await fake.slash(user, seat.channel, "raise", options={"to": amount}), "slash"


async def repair(stack: Stack, seat: Seat, live_table: CashTable) -> bool:
    """A table that stopped dealing (players busted): buy them back in. True if it did."""
    fake = stack.fake
    high = live_table.table.options.buy_in_range[1]
    acted = False
    for user in seat.players:
        view = live_table.table.player(user.id)
        if view is not None and view.stack < BIG_BLIND and not view.in_hand:
            handle = await fake.slash(
                user, seat.channel, "poker", subcommand="rebuy", options={"amount": high}
            )
            await _answer(handle, "/poker rebuy")
            acted = True
    if not live_table.config.dealing:
        handle = await fake.slash(seat.players[0], seat.channel, "poker", subcommand="start")
        await _answer(handle, "/poker start")
        acted = True
    return acted


async def drive(
    stack: Stack, seat: Seat, load: Load, rng: random.Random, think: float, via: str,
    stall_after: float,
) -> None:
    """Play one table until the load is done: whoever is to act acts, after a think time."""
    fake = stack.fake
    live_table = stack.runtime.registry.cash_table_in(seat.channel.id)
    users = {u.id: u for u in seat.players}
    idle_since: float | None = None
    while not load.done():
        hand = live_table.hand
        legal = hand.legal() if hand is not None else None
        if hand is None or legal is None:
            now = time.monotonic()
            idle_since = idle_since if idle_since is not None else now
            if now - idle_since > stall_after and await repair(stack, seat, live_table):
                load.repairs += 1
                idle_since = None
            await asyncio.sleep(0.02)
            continue
        idle_since = None
        if think > 0:
            await asyncio.sleep(rng.uniform(0, 2 * think))
            if live_table.hand is not hand or hand.legal() != legal:
                continue  # the state moved meanwhile (it should not): look again
        user = users[live_table.player_of(legal.player)]
        kind, amount = choose(rng, legal)
        use_button = via == "button" or (via == "mix" and rng.random() < 0.5)
        handle, used = await send_action(fake, seat, live_table, user, kind, amount, use_button)
        try:
            reply = await handle.response(timeout=10)
        except TimeoutError:
            load.unanswered += 1
            continue
        ms = fake.ack_ms(handle.id)
        # A press is acknowledged by the table message's own update (type 7).
        taken = reply.type == UPDATE_MESSAGE or reply.content.startswith(ACK_PREFIXES)
        if not taken or ms is None:
            load.refused[reply.content[:80]] += 1
            continue
        if not load.stopped:
            load.samples.append(Sample(ms, used, kind.value))


async def peer_loop(
    stack: Stack, world: World, samples: list[float], stop: asyncio.Event, interval: float,
    count: int | None = None,
) -> None:
    """``/chips balance`` from users who sit nowhere, one at a time, every ``interval``."""
    fake = stack.fake
    i = 0
    while not stop.is_set() and (count is None or i < count):
        user = world.spectators[i % len(world.spectators)]
        channel = world.seats[i % len(world.seats)].channel
        handle = await fake.slash(user, channel, "chips", subcommand="balance")
        with contextlib.suppress(TimeoutError):
            await handle.response(timeout=10)
        ms = fake.ack_ms(handle.id)
        if ms is not None:
            samples.append(ms)
        i += 1
        if interval > 0:
            await asyncio.sleep(interval)


# -- the phases ----------------------------------------------------------------------------


def _line(label: str, values: list[float]) -> None:
    print(f"  {label:<40} {summary(values)}")


def _ratio(a: list[float], b: list[float], q: float) -> str:
    pa, pb = percentile(a, q), percentile(b, q)
    return f"{pa / pb:.1f}x" if pb > 0 else "n/a"


async def latency_phase(args: argparse.Namespace) -> None:
    world = make_world(args.tables, args.players)
    print(
        f"\n== Action -> acknowledgement, {args.tables} tables x {args.players} players "
        f"(blinds {SMALL_BLIND}/{BIG_BLIND}, next hand after {args.next_hand_delay:g} s, "
        f"actions via {args.via}, on {args.database})"
    )
    async with running_stack(
        world, bench_options(args.next_hand_delay), database=args.database
    ) as stack:
        started = time.perf_counter()
        await open_tables(stack, world.seats)
        await settle(stack, world.seats)
        print(f"  setup: {args.tables} tables created, joined and dealt in "
              f"{time.perf_counter() - started:.1f} s")
        locks = time_locks(stack.runtime)
        # Peers first, on a quiet bot: a wallet read, then one table playing alone.
        idle_peer: list[float] = []
        await peer_loop(stack, world, idle_peer, asyncio.Event(), 0.0, count=args.peer_samples)
        solo = Load(target=args.solo_actions, deadline=time.monotonic() + 60)
        await drive(stack, world.seats[0], solo, random.Random(args.seed), 0.0, args.via,
                    stall_after=max(3.0, 3 * args.next_hand_delay))
        await asyncio.gather(*(r.messenger.flush(15) for r in stack.runtime.registry.cash_tables()))
        solo_ms = [s.ms for s in solo.samples]
        print("  (INTERACTION_CREATE sent by the fake -> interaction callback received by it)")
        _line("peer /chips balance, idle bot", idle_peer)
        _line("1 table playing alone, no think time", solo_ms)
        levels = []
        for level, think in enumerate(args.think):
            levels.append(
                await play_load(
                    stack, world, args, think, locks, solo_ms, seed=args.seed + 100 * level
                )
            )
        held = [lv for lv in levels if lv.p99 <= ACK_BUDGET_MS and not lv.refused_429]
        if len(levels) > 1:
            print("\n  == the ramp (one bot, Discord's global limit of 50 requests/s enforced)")
            for lv in levels:
                print(f"    think {lv.think:4.2f} s: {lv.rate:6.1f} actions/s,"
                      f" p99 {lv.p99:6.1f} ms,"
                      f" {lv.requests_per_action:.2f} requests/action (+{lv.dm_per_action:.2f}"
                      f" DMs), {lv.bot_rate:4.1f} bot requests/s, 429s {lv.refused_429}")
            if held:
                best = max(held, key=lambda lv: lv.rate)
                print(f"  highest sustained with p99 <= {ACK_BUDGET_MS:.0f} ms and no 429: "
                      f"{best.rate:.0f} actions/s (think {best.think:g} s)")
            else:
                print(f"  no level held p99 <= {ACK_BUDGET_MS:.0f} ms without a 429")


@dataclass
class Level:
    """One load level's outcome."""

    think: float
    rate: float
    p99: float
    requests_per_action: float
    dm_per_action: float
    bot_rate: float
    refused_429: int


async def play_load(
    stack: Stack,
    world: World,
    args: argparse.Namespace,
    think: float,
    locks: tuple[TimedLock | None, list[TimedLock]],
    solo_ms: list[float],
    seed: int,
) -> Level:
    """Every table at once, and the wallet read beside it; then what was measured."""
    fake = stack.fake
    db_lock, table_locks = locks
    per_table = 1 / think if think > 0 else float("inf")
    print(f"\n  -- {args.tables} tables at once, think time uniform 0-{2 * think:g} s "
          f"(each table offers at most ~{per_table:.1f} actions/s; people take seconds)")
    load = Load(target=args.actions, deadline=time.monotonic() + args.max_seconds)
    stop = asyncio.Event()
    busy_peer: list[float] = []
    lag = LoopLag()
    requests_mark, events_mark = len(fake.requests), fake.mark()
    profiler = cProfile.Profile() if args.profile else None
    for lock in [*table_locks, *([db_lock] if db_lock is not None else [])]:
        lock.reset()
    lag.start()
    cpu0, loop_cpu0, wall0 = time.process_time(), time.thread_time(), time.perf_counter()
    wall_started = time.time()
    if profiler is not None:
        profiler.enable()
    peer = asyncio.create_task(peer_loop(stack, world, busy_peer, stop, args.peer_interval))
    drivers = [
        asyncio.create_task(
            drive(stack, seat, load, random.Random(seed + 1 + n), think, args.via,
                  stall_after=max(3.0, 3 * args.next_hand_delay)),
            name=f"bench-driver-{n}",
        )
        for n, seat in enumerate(world.seats)
    ]
    try:
        await asyncio.gather(*drivers)
    finally:
        stop.set()
        for task in drivers:
            task.cancel()
        await asyncio.gather(peer, *drivers, return_exceptions=True)
        if profiler is not None:
            profiler.disable()
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        loop_cpu = time.thread_time() - loop_cpu0  # the event loop runs in this thread
        await lag.stop()

    actions = [s.ms for s in load.samples]
    per_action = len(actions) or 1
    _line("actions", actions)
    for via in ("slash", "button"):
        subset = [s.ms for s in load.samples if s.via == via]
        if subset:
            _line(f"  via {via}", subset)
    for kind in sorted({s.kind for s in load.samples}):
        _line(f"  {kind}", [s.ms for s in load.samples if s.kind == kind])
    _line("peer /chips balance, during the load", busy_peer)
    print(f"  ratio action / peer during the load: p50 {_ratio(actions, busy_peer, 50)}, "
          f"p99 {_ratio(actions, busy_peer, 99)}; action {args.tables} tables / 1 table: "
          f"p50 {_ratio(actions, solo_ms, 50)}, p99 {_ratio(actions, solo_ms, 99)}")
    p99 = percentile(actions, 99)
    verdict = "within" if p99 <= ACK_BUDGET_MS else "OVER"
    stated = "" if args.tables == 50 else " (stated for 50 tables)"
    print(f"  p99 {p99:.1f} ms with {args.tables} tables at {len(actions) / wall:.0f} actions/s: "
          f"{verdict} the budget of {ACK_BUDGET_MS:.0f} ms{stated}")
    print(f"  CPU {cpu / wall:.2f} of {os.cpu_count()} cores: event loop (bot + fake) "
          f"{loop_cpu / wall:.2f}, other threads (rendering, SQLite) {(cpu - loop_cpu) / wall:.2f}")
    _line("event-loop lag (10 ms sleep overshoot)", lag.samples)
    print("  where the time goes:")
    if db_lock is not None:
        held = sum(db_lock.holds) / 1000
        print(f"    database writer lock (one for all tables): {len(db_lock.holds)} write "
              f"transactions, {len(db_lock.holds) / per_action:.2f} per action, held "
              f"{held / wall:.0%} of the time")
        _line("      waiting for it", db_lock.waits)
        _line("      holding it (BEGIN .. COMMIT)", db_lock.holds)
    if table_locks:
        _line("    waiting for the table's lock", [w for x in table_locks for w in x.waits])
        _line("    holding the table's lock", [h for x in table_locks for h in x.holds])
    if load.refused or load.unanswered or load.repairs:
        print(f"  refused {sum(load.refused.values())} {dict(load.refused.most_common(3))}, "
              f"unanswered {load.unanswered}, tables restarted {load.repairs}")
    uploads = uploads_since(fake, events_mark)
    routes = route_counts(fake, requests_mark)
    print("  images rendered and uploaded: "
          + ", ".join(f"{n} {name} ({n / wall:.0f}/s, {n / per_action:.2f} per action)"
                      for name, n in uploads.items()))
    print("  REST requests (count, per action, route):")
    for route, n in routes.most_common(8):
        print(f"    {n:6d}  {n / per_action:5.2f}  {route}")
    refused = Counter(r.limit for r in fake.rate_limited if r.at >= wall_started)
    print(f"  refused with 429 by Discord's rate limits: {sum(refused.values())} "
          f"(per channel {refused['user']}, global {refused['global']})")
    dms, others = bot_token_requests(fake, requests_mark)
    verdict = "within" if others / per_action <= REQUEST_GOAL else "OVER"
    print(f"  on the bot's token (Discord's global limit): {others / per_action:.2f} requests per "
          f"action besides DMs ({verdict} the goal of {REQUEST_GOAL}), {dms / per_action:.2f} DM "
          f"requests per action; {(dms + others) / wall:.1f} requests/s in all")
    if profiler is not None:
        _print_profile(profiler)
    return Level(
        think=think,
        rate=len(actions) / wall,
        p99=p99,
        requests_per_action=others / per_action,
        dm_per_action=dms / per_action,
        bot_rate=(dms + others) / wall,
        refused_429=sum(refused.values()),
    )


def _print_profile(profiler: cProfile.Profile) -> None:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(25)
    print("\n  cProfile of the event loop's thread during the load (by own time):")
    print("\n".join("    " + line for line in out.getvalue().splitlines()[4:40]))


def _deep_size(roots: Iterable[object]) -> int:
    """Bytes held by the fake's records: containers, strings and its own model objects,
    without following references back into the server, the bot or the event loop."""
    seen: set[int] = set()
    stack = list(roots)
    total = 0
    plain = (str, bytes, bytearray, int, float, bool, type(None))
    containers = (dict, list, tuple, set, frozenset)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, plain):
            continue
        kind = type(obj)
        if isinstance(obj, containers) or (
            kind.__module__.startswith("tests.fakediscord.")
            and not isinstance(obj, FakeDiscord)
            and kind.__name__ != "GatewaySession"
        ):
            stack.extend(
                r for r in gc.get_referents(obj)
                if not isinstance(r, type) and not isinstance(r, FakeDiscord)
            )
    return total


async def memory_phase(args: argparse.Namespace) -> None:
    tables = args.memory_tables
    print(f"\n== Memory with {tables} live tables x {args.players} players on {args.database} "
          f"(seated, a hand in progress, table message posted, hole cards sent)")
    gc.collect()
    marks: dict[str, float] = {"start": rss_mb()}
    world = make_world(tables, args.players)

    def fake_started() -> None:
        gc.collect()
        marks["fake"] = rss_mb()

    async with running_stack(
        world,
        bench_options(args.next_hand_delay),
        on_fake_started=fake_started,
        database=args.database,
    ) as stack:
        fake = stack.fake
        gc.collect()
        marks["baseline"] = rss_mb()
        if args.tracemalloc:
            tracemalloc.start(1)
        started = time.perf_counter()
        await open_tables(stack, world.seats)
        await settle(stack, world.seats)
        elapsed = time.perf_counter() - started
        gc.collect()
        loaded = rss_mb()
        snapshot = tracemalloc.take_snapshot() if args.tracemalloc else None
        if args.tracemalloc:
            tracemalloc.stop()
        # Last, since it changes what it measures: the same with the allocator's slack returned.
        trimmed = trimmed_rss_mb()
        live = sum(1 for r in stack.runtime.registry.cash_tables() if r.hand is not None)
        files, file_bytes = fake.retained_attachments()
        held = _deep_size(
            [fake.messages, fake.events, fake.interactions, fake.requests,
             fake.state.interactions_by_id, fake.state.interactions_by_token,
             fake.state.attachments, fake.state.channel_log,
             fake.sent_at, fake.acked_at]
        )
        mb = 1024 * 1024
        growth = loaded - marks["baseline"]
        bot_growth = growth - held / mb
        print(f"  setup: {tables} tables opened and dealt in {elapsed:.1f} s; "
              f"{live} hands in progress")
        print(f"  RSS after imports (bot, discord.py, Pillow, aiohttp, the fake's code): "
              f"{marks['start']:.1f} MB")
        print(f"  RSS with the fake Discord serving (world of {len(world.users)} users): "
              f"{marks['fake']:.1f} MB (+{marks['fake'] - marks['start']:.1f})")
        print(f"  RSS with the bot ready, no table (baseline): {marks['baseline']:.1f} MB "
              f"(+{marks['baseline'] - marks['fake']:.1f})")
        print(f"  RSS with {tables} live tables: {loaded:.1f} MB (+{growth:.1f}; "
              f"{growth / tables * 1024:.0f} KB per table); peak {peak_rss_mb():.1f} MB")
        print(f"  the fake's records in that (same process): {held / mb:.1f} MB "
              f"({len(fake.events)} message versions, {files} images = {file_bytes / mb:.1f} MB, "
              f"{len(fake.interactions)} interactions)")
        bot_total = loaded - held / mb - (marks["fake"] - marks["start"])
        print(f"  bot alone, estimated: {bot_total:.1f} MB for {tables} tables "
              f"(+{bot_growth:.1f} MB, {bot_growth / tables * 1024:.0f} KB per table over "
              f"its baseline)")
        if trimmed is not None:
            print(f"  after malloc_trim(0) (freed memory glibc kept in its arenas returned; a "
                  f"diagnostic, the bot never does this): {trimmed:.1f} MB, so "
                  f"{loaded - trimmed:.1f} MB of the RSS is allocator slack (glibc's per-thread "
                  f"arenas: the render threads)")
        per_table = bot_growth / tables
        verdict = "within" if per_table <= TABLE_BUDGET_MB else "OVER"
        print(f"  bot per table beyond its baseline {per_table * 1024:.0f} KB: {verdict} the "
              f"budget of {TABLE_BUDGET_MB * 1024:.0f} KB a table (issue 15)")
        verdict = "within" if loaded <= MEMORY_BUDGET_MB else "OVER"
        stated = "" if tables == 100 else " (stated for 100 tables)"
        print(f"  whole process {loaded:.1f} MB: {verdict} the budget of "
              f"{MEMORY_BUDGET_MB:.0f} MB{stated} (bot alone ~{bot_total:.0f} MB)")
        if snapshot is not None:
            print("  (with --tracemalloc the RSS figures above include tracemalloc's own records)")
            total = sum(stat.size for stat in snapshot.statistics("filename"))
            print(f"  tracemalloc: Python heap growth since the baseline {total / mb:.1f} MB "
                  f"(Pillow's image buffers and SQLite's cache are not in it); by file:")
            for stat in snapshot.statistics("filename")[:12]:
                frame = stat.traceback[0]
                print(f"    {stat.size / 1024:9.0f} KB  {stat.count:7d} blocks  "
                      f"{_short(frame.filename)}")


def _short(path: str) -> str:
    for marker in ("/site-packages/", "/work/main/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


# -- the command ---------------------------------------------------------------------------


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.e2e", description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=50, help="tables playing at once")
    parser.add_argument("--players", type=int, default=3, help="players per table")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite",
                        help="the storage backend (postgresql: a throwaway local server)")
    parser.add_argument("--actions", type=int, default=2000, help="actions to measure")
    parser.add_argument("--memory-tables", type=int, default=100, help="live tables for memory")
    parser.add_argument("--think", type=float, nargs="+", default=[1.5, 0.2],
                        help="mean think time(s) in seconds before each action, one load run "
                             "each (0: none)")
    parser.add_argument("--via", choices=("mix", "slash", "button"), default="mix")
    parser.add_argument("--next-hand-delay", type=float, default=1.0,
                        help="pause between hands (production: 5 s)")
    parser.add_argument("--max-seconds", type=float, default=100.0,
                        help="stop each load run after this long even if short of --actions")
    parser.add_argument("--solo-actions", type=int, default=60)
    parser.add_argument("--peer-samples", type=int, default=100)
    parser.add_argument("--peer-interval", type=float, default=0.05,
                        help="seconds between two /chips balance during the load")
    parser.add_argument("--only", choices=("latency", "memory", "restart", "sigkill"),
                        help="one scenario (restart and sigkill run only when asked, with "
                             "--tables tables)")
    parser.add_argument("--paused-every", type=int, default=5,
                        help="restart: one table in this many has dealing paused, no hand")
    parser.add_argument("--probe-rate", type=float, default=5.0,
                        help="restart: interactions a second sent while the tables come back")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the event loop during the load (slows it down)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="Python heap growth by file in the memory phase")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.memory_tables < 1 or args.players < 2:
        parser.error("at least one table and two players per table")
    if any(think < 0 for think in args.think):
        parser.error("think times are seconds, zero or more")
    return args


async def run(args: argparse.Namespace) -> None:
    print("bench.e2e: the real bot against the fake Discord (aiohttp on 127.0.0.1), one process, "
          f"one event loop; {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.only == "restart":
        await restart_phase(args)
        return
    if args.only == "sigkill":
        await takeover_phase(args)
        return
    # Memory first, while the process is fresh; latency afterwards on a new bot and fake.
    if args.only in (None, "memory"):
        await memory_phase(args)
    if args.only in (None, "latency"):
        await latency_phase(args)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    warnings = WarningCounter()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger().addHandler(warnings)
    # discord.py's notice that voice libraries are missing says nothing about this benchmark.
    logging.getLogger("discord.client").addFilter(
        lambda record: "voice will NOT be supported" not in record.getMessage()
    )
    # Nor does "Can't keep up, websocket is 41.3s behind": the fake answers a heartbeat at once,
    # and the answer can be read before discord.py's heartbeat thread (starved of the GIL by the
    # render threads) stamps the send, so the latency is taken from the previous beat. The
    # event-loop lag line measures what that warning would mean.
    logging.getLogger("discord.gateway").addFilter(
        lambda record: "Can't keep up" not in record.getMessage()
    )
    started = time.perf_counter()
    asyncio.run(run(args))
    if warnings.counts:
        print(f"\nwarnings logged: {dict(warnings.counts)}")
        for line in warnings.first:
            print(f"  {line}")
    print(f"\ndone in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
