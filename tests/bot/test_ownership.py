"""Which servers a process runs: its shards (SHARD_COUNT, SHARD_IDS) and its leases."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.runtime.config import RuntimeOptions, RuntimeOptionsError
from bot.runtime.ownership import Ownership, ShardPlan, died_here
from bot.settings import Settings, SettingsError
from bot.storage import Database, leases
from tests.storage.faults import SqliteFaults
from tests.timing import scaled

GUILD = 1 << 22  # shard 1 of 2
OTHER = 2 << 22  # shard 0 of 2


# -- settings --------------------------------------------------------------------------------


def read(**environ: str) -> Settings:
    return Settings.from_env(environ, dotenv_path=None, require_token=False)


def test_shards_from_the_environment() -> None:
    assert (read().shard_count, read().shard_ids) == (None, None)
    assert (read(SHARD_COUNT="4").shard_count, read(SHARD_COUNT="4").shard_ids) == (4, None)
    settings = read(SHARD_COUNT="4", SHARD_IDS=" 3, 0 ")
    assert (settings.shard_count, settings.shard_ids) == (4, (0, 3))


@pytest.mark.parametrize(
    ("environ", "words"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be"),
        ({"SHARD_COUNT": "-1"}, "SHARD_COUNT must be"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "run from 0 to 1"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,,1"}, "separated by commas"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0;1"}, "separated by commas"),
        ({"SHARD_COUNT": "3", "SHARD_IDS": "1,1"}, "names a shard twice"),
    ],
)
def test_bad_shard_settings_name_the_variable(environ: dict[str, str], words: str) -> None:
    with pytest.raises(SettingsError, match=words):
        read(**environ)


def test_lease_seconds_from_the_environment() -> None:
    options = RuntimeOptions.from_env({"POKER_LEASE_SECONDS": "12"}, dotenv_path=None)
    assert options.lease_seconds == 12
    for bad in ("2", "soon", "-5"):
        with pytest.raises(RuntimeOptionsError, match="POKER_LEASE_SECONDS"):
            RuntimeOptions.from_env({"POKER_LEASE_SECONDS": bad}, dotenv_path=None)


# -- shard plans -----------------------------------------------------------------------------


@given(st.integers(1, 2**63 - 1), st.integers(1, 16))
def test_each_server_is_covered_by_exactly_one_process(guild_id: int, count: int) -> None:
    plans = [ShardPlan(count, (shard,)) for shard in range(count)]
    assert sum(plan.covers(guild_id) for plan in plans) == 1
    assert ShardPlan(count, tuple(range(count))).covers(guild_id)
    assert ShardPlan().covers(guild_id) and ShardPlan(count).covers(guild_id)


def test_direct_messages_belong_to_shard_zero() -> None:
    assert ShardPlan(2, (0,)).covers(None) and not ShardPlan(2, (1,)).covers(None)


# -- the process that held a lease -----------------------------------------------------------


def test_a_dead_process_on_this_machine_is_recognised(tmp_path: Path) -> None:
    me = f"box:{os.getpid()}:aaaa"
    assert died_here(f"box:{os.getpid()}:bbbb", me)  # my previous life (same pid, new token)
    assert not died_here(me, me)  # myself
    assert not died_here(f"box:{os.getppid()}:bbbb", me)  # alive: my parent
    assert died_here("box:999999999:bbbb", me)  # no such process
    assert not died_here("elsewhere:999999999:bbbb", me)  # another machine: cannot tell
    for garbage in ("", "box", "box:x:y", "::"):
        assert not died_here(garbage, me)


# -- leases in use ---------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def database(db_url: str) -> AsyncIterator[Database]:
    database = await Database.open(db_url)
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'poker.db'}"


def owner(db: Database, name: str, plan: ShardPlan, clock: Clock) -> Ownership:
    return Ownership(db, plan, lease_seconds=30, owner=f"far:{name}:x", monotonic=clock)


async def test_a_process_serves_only_its_shards(database: Database) -> None:
    clock = Clock()
    first = owner(database, "1", ShardPlan(2, (1,)), clock)
    assert await first.serves(GUILD)
    assert not await first.serves(OTHER)  # not its shard: no lease taken either
    assert set(await leases.holders(database)) == {GUILD}


async def test_an_overlapping_process_leaves_a_live_owners_server_alone(
    database: Database, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    first = owner(database, "1", ShardPlan(2, (1,)), clock)
    second = owner(database, "2", ShardPlan(2, (0, 1)), clock)
    assert await first.serves(GUILD)
    with caplog.at_level(logging.WARNING, logger="bot.runtime.ownership"):
        assert not await second.serves(GUILD)
        assert not await second.serves(GUILD)
    warnings = [r for r in caplog.records if "leaves its tables alone" in r.getMessage()]
    assert len(warnings) == 1  # said once, not at every interaction
    assert "far:1:x" in warnings[0].getMessage() and "SHARD_IDS" in warnings[0].getMessage()
    assert await second.serves(OTHER)  # its other shard is free


async def test_a_dead_owners_server_is_taken_once_its_lease_runs_out(database: Database) -> None:
    clock = Clock()
    first = owner(database, "1", ShardPlan(), clock)
    second = owner(database, "2", ShardPlan(), clock)
    assert await first.serves(GUILD)
    await leases.acquire(database, GUILD, "far:1:x", 1, now=0)  # it stopped renewing long ago
    assert await second.serves(GUILD)
    assert await first.renew() == {GUILD}  # the first learns it lost the server
    assert not await first.serves(GUILD)


async def test_a_server_whose_holder_died_on_this_machine_is_taken_at_the_next_ask(
    database: Database,
) -> None:
    """Refused while its holder lived, the server is not left for a third of a lease once
    that holder is gone from this machine: the next interaction takes it, and says so."""
    clock = Clock()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        await leases.acquire(database, GUILD, f"box:{other.pid}:aaaa", 30)
        taken: list[int] = []
        standby = Ownership(database, ShardPlan(), lease_seconds=30,
                            owner=f"box:{os.getpid()}:bbbb", monotonic=clock,
                            on_taken_over=taken.append)
        assert not await standby.serves(GUILD) and taken == []
    finally:
        other.kill()
        other.wait()
    assert await standby.serves(GUILD)  # at once: within the refusal's window
    assert taken == [GUILD]
    assert (await leases.holders(database))[GUILD][0] == f"box:{os.getpid()}:bbbb"


async def test_two_interactions_finding_the_holder_gone_at_once_are_both_served(
    database: Database,
) -> None:
    """Both ask while the dead holder's name is still on the lease: one takes it over, the
    other finds it this process's own, not someone else's."""
    other = subprocess.Popen([sys.executable, "-c", "pass"])
    other.wait()  # gone: its pid names no process now
    await leases.acquire(database, GUILD, f"box:{other.pid}:aaaa", 30)
    taken: list[int] = []
    standby = Ownership(database, ShardPlan(), lease_seconds=30,
                        owner=f"box:{os.getpid()}:bbbb", monotonic=Clock(),
                        on_taken_over=taken.append)
    assert await asyncio.gather(standby.serves(GUILD), standby.serves(GUILD)) == [True, True]
    assert taken == [GUILD]


async def test_without_renewal_a_process_stops_acting_before_its_lease_could_run_out(
    database: Database,
) -> None:
    clock = Clock()
    first = owner(database, "1", ShardPlan(), clock)
    assert await first.serves(GUILD)
    clock.now += 19  # less than the 30 s lease, less a third for safety
    assert first.held == {GUILD}
    clock.now += 2
    assert first.held == frozenset()  # no renewal for 21 s: not sure any more
    assert await first.serves(GUILD)  # asking again renews it (nobody else took it)
    assert first.held == {GUILD}


async def test_release_frees_the_servers_at_once(database: Database) -> None:
    clock = Clock()
    first = owner(database, "1", ShardPlan(), clock)
    second = owner(database, "2", ShardPlan(), clock)
    assert await first.serves(GUILD) and await first.serves(OTHER)
    await first.release()
    assert first.held == frozenset()
    assert await second.serves(GUILD) and await second.serves(OTHER)


def test_requests_per_second_from_the_environment() -> None:
    options = RuntimeOptions.from_env({"POKER_REQUESTS_PER_SECOND": "12.5"}, dotenv_path=None)
    assert options.requests_per_second == 12.5
    for bad in ("0", "41", "fast", "nan"):
        with pytest.raises(RuntimeOptionsError, match="POKER_REQUESTS_PER_SECOND"):
            RuntimeOptions.from_env({"POKER_REQUESTS_PER_SECOND": bad}, dotenv_path=None)


def test_a_process_spends_its_shards_share_of_the_budget() -> None:
    assert ShardPlan().share == 1.0 and ShardPlan(4).share == 1.0
    assert ShardPlan(4, (0, 2)).share == 0.5


# -- a database that takes no writes -----------------------------------------------------------


def _no_error_nor_traceback(caplog: pytest.LogCaptureFixture) -> None:
    bad = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, bad


async def _back(database: Database) -> None:
    await asyncio.wait_for(database.health.wait_available(), scaled(5))


async def test_a_dead_database_never_escapes_the_lease_checks(
    database: Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Renewal, a press's lease check and a lease never held: none raises while the database
    takes no writes; the renewal is marked failing and the servers held at last contact are
    still served, past the leases' lifetime; nothing is asked of the database for the others;
    nothing is logged at ERROR or with a traceback."""
    caplog.set_level(logging.DEBUG, logger="bot")
    clock = Clock()
    first = owner(database, "1", ShardPlan(), clock)
    assert await first.serves(GUILD)
    assert await first.renew() == set()
    faults = SqliteFaults(monkeypatch)
    faults.fail("io_error")
    assert await first.renew() == set()  # nothing lost: nobody can take a lease meanwhile
    assert not database.health.available
    assert first.trouble() == ["leases: the last renewal failed"]
    clock.now += 60  # past the lease's lifetime
    asked = faults.failed
    assert await first.serves(GUILD)
    assert not await first.serves(OTHER)  # never held: maybe another process's
    assert faults.failed == asked  # not asked: writes are refused while down
    assert first.held == {GUILD}
    assert await first.renew() == set()
    faults.clear()
    await _back(database)
    assert await first.serves(GUILD)  # confirmed: still this process's
    assert await first.renew() == set()
    assert first.trouble() == []
    assert await first.serves(OTHER)
    _no_error_nor_traceback(caplog)


async def test_a_lease_check_in_the_moment_the_database_fails_does_not_raise(
    database: Database, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The lease of a server not held yet is asked for just as the writes start failing (the
    storage still looked up): refused, not raised, and the storage goes down."""
    caplog.set_level(logging.DEBUG, logger="bot")
    first = owner(database, "1", ShardPlan(), Clock())
    faults = SqliteFaults(monkeypatch)
    faults.fail("disk_full")
    assert database.health.available
    assert not await first.serves(GUILD)
    assert not database.health.available
    faults.clear()
    await _back(database)
    assert await first.serves(GUILD)
    _no_error_nor_traceback(caplog)


async def test_a_server_taken_while_this_process_could_not_reach_the_database_stops_here(
    database: Database, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This process loses the database while another still reaches it, and takes a lease
    that ran out: once back, this process's next check of that server finds it lost, and the
    next renewal reports it so its tables stop."""
    clock = Clock()
    first = owner(database, "1", ShardPlan(), clock)
    assert await first.serves(GUILD) and await first.serves(OTHER)
    assert await first.renew() == set()
    other_db = await Database.open(db_url)
    try:
        faults = SqliteFaults(monkeypatch, only=database)
        faults.fail("io_error")
        assert await first.renew() == set()
        second = owner(other_db, "2", ShardPlan(), clock)
        await leases.acquire(other_db, GUILD, "far:1:x", 1, now=0)  # it ran out
        assert await second.serves(GUILD)
        clock.now += 60
        assert await first.serves(GUILD)  # held at last contact; cannot know better
        faults.clear()
        await _back(database)
        assert not await first.serves(GUILD)  # found taken
        assert await first.serves(OTHER)  # still its own
        assert await first.renew() == {GUILD}
        assert first.held == {OTHER}
        assert await first.renew() == set()
    finally:
        await other_db.close()


async def test_the_next_renewal_comes_as_soon_as_the_database_is_back(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = owner(database, "1", ShardPlan(), Clock())  # renewal due every 10 s
    assert await first.serves(GUILD)
    waiting = asyncio.ensure_future(first.next_renewal())
    await asyncio.sleep(0.05)
    faults = SqliteFaults(monkeypatch)
    faults.fail("io_error")
    assert await first.renew() == set()
    assert not waiting.done()
    started = time.monotonic()
    faults.clear()
    await asyncio.wait_for(waiting, scaled(5))
    assert time.monotonic() - started < scaled(3)
    assert await first.renew() == set() and first.trouble() == []
