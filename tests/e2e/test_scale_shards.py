"""Two real bot processes, one shard each, sharing one PostgreSQL database (issue 15): tables in
servers on both shards play at once; a third process given both shards runs none of them while
their owners live, and takes over the tables of the one that is SIGKILLed; the killed process,
started again, leaves them to it until that one stops too. Every hand finishes, every
interaction is answered exactly once, and the chip invariant holds.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import Database, hands, invariant, leases, tables
from tests.e2e.processes import bot_process
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

SHARDS = 2
LEASE = "3"  # seconds: a takeover after a crash comes within one renewal (a second)


def guild_on_shard(shard: int, members: list[FakeUser]) -> FakeGuild:
    while True:
        guild = FakeGuild.create(f"Casino {shard}", channels=["poker"], members=members)
        if (guild.id >> 22) % SHARDS == shard:
            return guild


@pytest.fixture
def people() -> tuple[FakeUser, FakeUser]:
    return FakeUser("alice"), FakeUser("bob")


@pytest.fixture
def guilds(people: tuple[FakeUser, FakeUser]) -> list[FakeGuild]:
    return [guild_on_shard(shard, list(people)) for shard in range(SHARDS)]


@pytest.fixture
async def sharded(
    guilds: list[FakeGuild], people: tuple[FakeUser, FakeUser]
) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(guilds=guilds, users=list(people), shards=SHARDS) as fake:
        yield fake


async def ask(
    fake: FakeDiscord,
    user: FakeUser,
    channel: FakeChannel,
    name: str,
    sub: str | None = None,
    **options: object,
) -> str:
    handle = await fake.slash(user, channel, name, subcommand=sub, options=options)
    return (await handle.response(timeout=15)).content


async def act(fake: FakeDiscord, players: tuple[FakeUser, ...], channel: FakeChannel) -> bool:
    """Check or call for whoever is to act; False if nobody could."""
    for name in ("check", "call"):
        for user in players:
            reply = await ask(fake, user, channel, name)
            if reply.startswith(("You checked", "You called")):
                return True
    return False


async def finished_hands(db: Database, table_id: int) -> int:
    info = await tables.get_table(db, table_id)
    running = await hands.unfinished_hands(db, table_id)
    return info.hand_count - len(running)


async def open_table(db: Database, guild: FakeGuild) -> int:
    (info,) = await tables.open_tables(db, guild.id)
    return info.table_id


async def play_until(
    fake: FakeDiscord,
    db: Database,
    players: tuple[FakeUser, ...],
    channel: FakeChannel,
    table_id: int,
    hands_done: int,
) -> None:
    for _ in range(120):
        if await finished_hands(db, table_id) >= hands_done:
            return
        if not await act(fake, players, channel):
            await asyncio.sleep(0.2)
    raise AssertionError(f"table {table_id} did not finish {hands_done} hand(s)")


async def lease_holder(db: Database, guild: FakeGuild) -> str | None:
    held = await leases.holders(db)
    return held[guild.id][0] if guild.id in held else None


async def wait_for_holder(db: Database, guild: FakeGuild, pid: int) -> None:
    for _ in range(100):
        holder = await lease_holder(db, guild)
        if holder is not None and f":{pid}:" in holder:
            return
        await asyncio.sleep(0.1)
    holder = await lease_holder(db, guild)
    raise AssertionError(f"process {pid} never took server {guild.id}: {holder}")


def refused_twice(fake: FakeDiscord) -> list[str]:
    """Interaction answers Discord refused as already given: a second process answered."""
    return [
        f"{r.method} {r.path}"
        for r in fake.requests
        if "/interactions/" in r.path and r.status == 400
    ]


async def test_two_processes_share_the_servers_and_survive_a_crash(
    sharded: FakeDiscord,
    guilds: list[FakeGuild],
    people: tuple[FakeUser, FakeUser],
    postgres_url: str,
    tmp_path: Path,
) -> None:
    fake = sharded
    alice = people[0]
    channels = [guild.channel("poker") for guild in guilds]
    env = {"SHARD_COUNT": str(SHARDS), "POKER_LEASE_SECONDS": LEASE}
    logs = [tmp_path / f"bot{n}.log" for n in range(3)]
    for n in range(3):
        (tmp_path / f"p{n}").mkdir()

    def start(n: int, shard_ids: str) -> object:
        return bot_process(
            fake,
            tmp_path / f"p{n}",
            logs[n],
            database_url=postgres_url,
            environ={**env, "SHARD_IDS": shard_ids},
        )

    db = await Database.open(postgres_url)
    try:
        async with start(0, "0") as first, start(1, "1") as second:
            await fake.wait_for(lambda: len(fake.sessions) == 2, timeout=30, what="two shards")
            assert sorted(s.shard for s in fake.sessions) == [(0, 2), (1, 2)]
            # Both servers at once: each process answers its own server's commands.
            for channel in channels:
                assert (await ask(fake, alice, channel, "poker", "create")).startswith("Table open")
            for channel in channels:
                for user in people:
                    reply = await ask(fake, user, channel, "poker", "join", buy_in=1000)
                    assert reply.startswith("You sit"), reply
                assert (await ask(fake, alice, channel, "poker", "start")).startswith("Dealing")
            table_ids = [await open_table(db, guild) for guild in guilds]
            assert f":{first.pid}:" in (await lease_holder(db, guilds[0]) or "")
            assert f":{second.pid}:" in (await lease_holder(db, guilds[1]) or "")
            await asyncio.gather(
                *(
                    play_until(fake, db, people, channel, table_id, 1)
                    for channel, table_id in zip(channels, table_ids, strict=True)
                )
            )

            # A third process given both shards: it must run neither server's tables.
            async with start(2, "0,1") as third:
                await fake.wait_for(lambda: len(fake.sessions) == 4, timeout=30, what="4 sessions")
                for _ in range(100):
                    text = logs[2].read_text(errors="replace")
                    if all(str(g.id) in text for g in guilds):
                        break
                    await asyncio.sleep(0.1)
                for guild in guilds:
                    assert f"server {guild.id} is run by another process" in text
                await asyncio.gather(
                    *(
                        play_until(fake, db, people, channel, table_id, 2)
                        for channel, table_id in zip(channels, table_ids, strict=True)
                    )
                )
                assert refused_twice(fake) == []

                # The second process dies in the middle of a hand: the third takes its table.
                # The next hand is dealt 0.2 s after the last; a loaded machine may take longer.
                for _ in range(400):
                    if await hands.unfinished_hands(db, table_ids[1]):
                        break
                    await asyncio.sleep(0.05)
                assert await hands.unfinished_hands(db, table_ids[1]), logs[1].read_text()[-3000:]
                second.send_signal(signal.SIGKILL)
                await second.wait()
                await wait_for_holder(db, guilds[1], third.pid)
                await play_until(fake, db, people, channels[1], table_ids[1], 3)

                # Started again, the second process finds its server run by a live process.
                async with start(1, "1") as again:
                    for _ in range(150):
                        if f"server {guilds[1].id} is run by another" in logs[1].read_text():
                            break
                        await asyncio.sleep(0.1)
                    else:
                        raise AssertionError("the restarted process did not step aside")
                    await play_until(fake, db, people, channels[1], table_ids[1], 4)
                    # The third stops: the restarted second takes its server back at once.
                    third.send_signal(signal.SIGTERM)
                    await asyncio.wait_for(third.wait(), timeout=30)
                    await wait_for_holder(db, guilds[1], again.pid)
                    await play_until(fake, db, people, channels[1], table_ids[1], 5)
                    for channel in channels:
                        await ask(fake, alice, channel, "poker", "close")
                    await play_until(fake, db, people, channels[0], table_ids[0], 3)
                    for table_id in table_ids:
                        for _ in range(100):
                            if (await tables.get_table(db, table_id)).status == "closed":
                                break
                            await asyncio.sleep(0.1)
                        assert (await tables.get_table(db, table_id)).status == "closed"
                    assert refused_twice(fake) == []
                    again.send_signal(signal.SIGTERM)
                    await asyncio.wait_for(again.wait(), timeout=30)
            first.send_signal(signal.SIGTERM)
            await asyncio.wait_for(first.wait(), timeout=30)
        assert await hands.unfinished_hands(db) == []
        report = await invariant.check_invariant(db)
        assert report.ok, report
        assert await leases.holders(db) == {}  # every process gave its leases back
        for log in logs:
            assert "Traceback" not in log.read_text(errors="replace"), log.read_text()[-3000:]
    finally:
        await db.close()
