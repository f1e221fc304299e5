"""The SIGKILL scenario of ``bench.e2e`` (``--only sigkill``): two bot processes share one
PostgreSQL database and the servers of two shards; one is killed, and the survivor's lease
takeover brings its tables back.

Process B runs shard 1 (``SHARD_IDS=1``); process A runs both (``SHARD_IDS=0,1``): shard 0's
servers, and shard 1's once their leases are free. The tables (seeded as for the restart
scenario, half on each shard) are brought up by B first, then by A; then B gets SIGKILL in
the middle of its hands. A takes the leases of B's servers (at once, since B ran on the same
machine and is gone; across machines once they run out) at its next renewal, a third of
``POKER_LEASE_SECONDS`` at most, and brings B's tables back as a restart would: its message
posted again, the old one's buttons taken off. Players act meanwhile on both shards.

Measured as in the restart scenario, from the SIGKILL: the deadlines missed, the 429s, the
requests a second at the fake's door, the time until A holds B's leases and until every one
of B's tables is correct, read from storage (the processes are out of reach) and the fake.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import signal
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bench._e2e_restart import (
    DEADLINE_MS,
    REQUESTS_PER_TABLE,
    answer_times,
    at_time,
    database_url,
    print_door_tail,
)
from bench._e2e_support import TimedFakeDiscord, summary
from bot.i18n import t
from bot.runtime.config import RuntimeOptions
from bot.storage import Database, leases
from tests.e2e.processes import bot_process
from tests.e2e.restart_kit import (
    RestartWorld,
    Seeded,
    restart_world,
    seed_tables,
    shows,
    stored_message,
    tidied,
)
from tests.fakediscord import InteractionHandle

SHARDS = 2
SERVERS = 4  # two on each shard


def shard_of(seeded: Seeded) -> int:
    guild_id = seeded.seat.channel.guild_id
    assert guild_id is not None
    return (guild_id >> 22) % SHARDS


@dataclass
class Probes:
    handles: list[tuple[InteractionHandle, str]] = field(default_factory=list)
    undelivered: int = 0  # no session of the bot heard the server's shard: "failed" for him
    stop: bool = False


async def shown_by_now(
    fake: TimedFakeDiscord, db: Database, tables: list[Seeded], before: Mapping[int, int | None]
) -> list[int]:
    """The tables showing their stored state on a message other than ``before``'s."""
    done = []
    for table in tables:
        message_id, expected = await stored_message(db, table.table_id)
        if message_id is None or message_id == before.get(table.table_id):
            continue
        if shows(fake.messages.get(message_id), table.table_id, expected):
            done.append(table.table_id)
    return done


async def wait_shown(
    fake: TimedFakeDiscord, db: Database, tables: list[Seeded], timeout: float, what: str
) -> dict[int, int | None]:
    """Wait until every table of ``tables`` shows its state on a new message; their ids."""
    before: dict[int, int | None] = {s.table_id: s.old_message_id for s in tables}
    deadline = time.monotonic() + timeout
    while len(await shown_by_now(fake, db, tables, before)) < len(tables):
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: not every table shown within {timeout:g} s")
        await asyncio.sleep(1.0)
    return {s.table_id: (await stored_message(db, s.table_id))[0] for s in tables}


async def probe(
    fake: TimedFakeDiscord,
    db: Database,
    world: RestartWorld,
    seeded: list[Seeded],
    probes: Probes,
    rate: float,
    rng: random.Random,
) -> None:
    """Players act on both shards while B's tables come back: a slash command of the player
    to act as storage knows him, a press on the table's stored message, or a balance."""
    waiting = [s for s in seeded if s.awaits_player]
    while not probes.stop:
        await asyncio.sleep(rng.expovariate(rate))
        try:
            await probe_once(fake, db, world, waiting, probes, rng)
        except RuntimeError:
            probes.undelivered += 1


async def probe_once(
    fake: TimedFakeDiscord,
    db: Database,
    world: RestartWorld,
    waiting: list[Seeded],
    probes: Probes,
    rng: random.Random,
) -> None:
    roll = rng.random()
    if roll < 0.2:
        user = world.spectators[rng.randrange(len(world.spectators))]
        channel = world.seats[rng.randrange(len(world.seats))].channel
        probes.handles.append(
            (await fake.slash(user, channel, "chips", subcommand="balance"), "balance"))
        return
    table = waiting[rng.randrange(len(waiting))]
    message_id, expected = await stored_message(db, table.table_id)
    prompt = expected.prompt
    if prompt is None:
        return
    user = next(u for u in table.seat.players if u.id == prompt.player_id)
    action = "check" if any(b.action == "check" for b in expected.buttons) else "call"
    message = fake.messages.get(message_id) if message_id is not None else None
    buttons = [] if message is None else [
        c for c in message.custom_ids() if f":{action}@" in c]
    if roll < 0.4 and message is not None and buttons:
        probes.handles.append((await fake.click(user, message, buttons[0]), "button"))
    else:
        probes.handles.append((await fake.slash(user, table.seat.channel, action), "slash"))


async def takeover_phase(args: argparse.Namespace) -> None:
    if args.database != "postgresql":
        print("  (--only sigkill runs on PostgreSQL: two processes share the database)")
    per_server = max(1, -(-args.tables // SERVERS))
    world = restart_world(args.tables, args.players, first=per_server, others=per_server,
                          shards=SHARDS)
    rate = RuntimeOptions().requests_per_second
    with tempfile.TemporaryDirectory(prefix="bench-sigkill-") as folder:
        data_dir = Path(folder)
        fake = TimedFakeDiscord(guilds=world.guilds, users=world.users, shards=SHARDS)
        async with database_url("postgresql", data_dir) as url, fake:
            db = await Database.open(url)
            try:
                seeded = await seed_tables(db, fake, world, paused_every=args.paused_every)
                dead = [s for s in seeded if shard_of(s) == 1]
                kept = [s for s in seeded if shard_of(s) == 0]
                print(f"\n== SIGKILL of one of two processes on PostgreSQL: {len(seeded)} tables "
                      f"x {args.players} players in {len(world.guilds)} servers; process B runs "
                      f"shard 1 ({len(dead)} tables), process A shards 0 and 1 ({len(kept)} "
                      f"tables, and B's once B is gone); players act {args.probe_rate:g} times "
                      f"a second from the SIGKILL on")
                await run_takeover(args, fake, db, world, seeded, dead, kept, url, data_dir,
                                   rate)
            finally:
                await db.close()


async def run_takeover(
    args: argparse.Namespace,
    fake: TimedFakeDiscord,
    db: Database,
    world: RestartWorld,
    seeded: list[Seeded],
    dead: list[Seeded],
    kept: list[Seeded],
    url: str,
    data_dir: Path,
    rate: float,
) -> None:
    env = {"SHARD_COUNT": str(SHARDS), "POKER_NEXT_HAND_DELAY": f"{args.next_hand_delay:g}"}
    logs = {name: data_dir / f"bot-{name}.log" for name in "AB"}
    for name in "AB":
        (data_dir / name).mkdir()
    limit = max(args.max_seconds, 3 * len(seeded) * REQUESTS_PER_TABLE / rate + 60)
    started = time.monotonic()
    async with bot_process(fake, data_dir / "B", logs["B"], database_url=url,
                           environ={**env, "SHARD_IDS": "1"}) as b:
        shown_by_b = await wait_shown(fake, db, dead, limit, "process B")
        print(f"  B up and its {len(dead)} tables shown in {time.monotonic() - started:.1f} s")
        # A's share is every shard's (the whole budget), B's half: both busy at once they
        # would spend 60 a second, past Discord's 50. They start one after the other.
        await fake.wait_for(lambda: all(tidied(fake, s) for s in dead), timeout=limit,
                            what="B's start done")
        started = time.monotonic()
        async with bot_process(fake, data_dir / "A", logs["A"], database_url=url,
                               environ={**env, "SHARD_IDS": "0,1"}) as a:
            await wait_shown(fake, db, kept, limit, "process A")
            # A stands by for shard 1 with a session of its own, as B has one.
            await fake.wait_for(
                lambda: sum(1 for s in fake.sessions if s.shard == (1, SHARDS)) >= 2,
                timeout=limit, what="A's session of shard 1")
            print(f"  A up and its {len(kept)} tables shown in "
                  f"{time.monotonic() - started:.1f} s (B's servers left to B)")
            # Both done with their start (the old messages' buttons off too), so that what
            # follows the SIGKILL is the takeover alone.
            await fake.wait_for(lambda: all(tidied(fake, s) for s in seeded), timeout=limit,
                                what="the seeded messages' buttons off")
            await asyncio.sleep(2.0)  # a quiet moment: the budgets' buckets full again
            since = len(fake.requests)
            probes = Probes()
            killed = time.monotonic()
            b.send_signal(signal.SIGKILL)
            await b.wait()
            prober = asyncio.create_task(
                probe(fake, db, world, seeded, probes, args.probe_rate, random.Random(args.seed)))
            taken, correct, shown = await watch_takeover(fake, db, dead, shown_by_b, killed,
                                                          limit, a.pid)
            probes.stop = True
            await prober
            await asyncio.sleep(DEADLINE_MS / 1000 + 0.5)
            a.send_signal(signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(a.wait(), timeout=30)
    report(fake, dead, probes, since, rate, taken, shown, correct, logs)


async def watch_takeover(
    fake: TimedFakeDiscord,
    db: Database,
    dead: list[Seeded],
    shown_by_b: dict[int, int | None],
    killed: float,
    limit: float,
    survivor: int,
) -> tuple[float | None, float | None, float | None]:
    """Seconds from the SIGKILL until A holds every lease of B's servers, until every table
    of B's is shown again by A, and until each is correct (B's message's buttons off too)."""
    servers = {s.seat.channel.guild_id for s in dead}
    taken = shown = correct = None
    pending = {s.table_id: s for s in dead}
    unshown = dict(pending)
    while pending and time.monotonic() - killed < limit:
        await asyncio.sleep(0.5)
        now = time.monotonic() - killed
        if taken is None:
            holders = await leases.holders(db)
            if all(f":{survivor}:" in holders.get(g, ("", 0))[0] for g in servers
                   if g is not None):
                taken = now
        for table_id in await shown_by_now(fake, db, list(unshown.values()), shown_by_b):
            del unshown[table_id]
        if not unshown and shown is None:
            shown = now
        for table_id, table in list(pending.items()):
            old = shown_by_b[table_id]
            if table_id not in unshown and (old is None or tidied(fake, table, old)):
                del pending[table_id]
        if not pending:
            correct = now
    return taken, correct, shown


def report(
    fake: TimedFakeDiscord,
    dead: list[Seeded],
    probes: Probes,
    since: int,
    rate: float,
    taken: float | None,
    shown: float | None,
    correct: float | None,
    logs: dict[str, Path],
) -> None:
    floor = len(dead) * REQUESTS_PER_TABLE / rate
    print(f"  (seconds from the SIGKILL; the floor the budget sets for B's tables is "
          f"{len(dead)} x {REQUESTS_PER_TABLE} requests / {rate:g} a second = {floor:.1f} s)")
    print(f"  A holds every lease of B's servers: {at_time(taken)}")
    print(f"  every table of B's shown again by A: {at_time(shown)}")
    line = f"  every table of B's correct (B's message's buttons off too): {at_time(correct)}"
    if correct is not None and taken is not None:
        line += (f"; {correct - taken:.1f} s after the takeover, "
                 f"{(correct - taken) / floor:.2f}x the floor")
    print(line)
    count = fake.door(since)
    print(f"  at the fake's door: {count.counted} requests on the bot's token in "
          f"{count.seconds:.1f} s ({count.rate:.1f}/s), {count.busiest} in the busiest second "
          f"(Discord allows 50); {count.free} interaction answers (free)")
    refused = print_door_tail(fake, since, count, top=4)
    missed, kinds = answer_times(fake, probes.handles)
    no_table = t("error.no_table")
    early = sum(
        1 for handle, _ in probes.handles
        if handle.callback is not None and handle.callback.content == no_table
        and (fake.ack_ms(handle.id) or DEADLINE_MS + 1) <= DEADLINE_MS
    )
    missed += probes.undelivered
    print(f"  interactions from the SIGKILL on: {len(probes.handles) + probes.undelivered}; "
          f"missed the 3 s deadline: {missed} ({probes.undelivered} heard by no process); "
          f"answered 'no table here' before A had restored the table: {early}")
    for kind, ms in sorted(kinds.items()):
        print(f"    {kind:<8} {summary(ms)}")
    tracebacks = sum(path.read_text(errors="replace").count("Traceback") for path in
                     logs.values())
    print(f"  tracebacks in the processes' logs: {tracebacks}")
    ok = not missed and not refused and correct is not None
    print(f"  {'PASS' if ok else 'FAIL'}: {missed} deadlines missed, {refused} 429s, "
          f"B's tables {'all' if correct is not None else 'not all'} correct")
