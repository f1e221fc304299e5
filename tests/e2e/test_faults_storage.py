"""The database on a bad day, in the middle of a hand at a cash table while alice and bob play:
PostgreSQL stopped and started again (a restart), the bot's PostgreSQL connections terminated
by the server (``pg_terminate_backend``, as an operator or a failover does), and SQLite's writes
failing for a while (a disk that returns I/O errors). Then Discord's own faults, on PostgreSQL.

Afterwards every promise of the fault suite is checked (``fault_kit``), from the moment the
database answers again; while it does not, the process must say it is not ready.

These tests stop their PostgreSQL server: they run on one of their own, never on the one the
rest of the suite shares.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.e2e.fault_kit import (
    Scene,
    cash_scene,
    sqlite_writes_fail,
    start_postgres,
    stop_postgres,
    terminate_connections,
)
from tests.e2e.harness import World
from tests.e2e.ops_kit import get
from tests.fakediscord import FakeDiscord
from tests.fakediscord.faults import CALLBACK
from tests.pgserver import HOW_TO_GET, PostgresServer, find_binaries, running_server

pytestmark = pytest.mark.timeout(180)

DOWN = 8.0  # seconds the database is away


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL server for these tests alone (they stop it)."""
    binaries = find_binaries()
    if binaries is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs the PostgreSQL tests, but no server binaries were found: "
                        + HOW_TO_GET)
        pytest.skip(HOW_TO_GET)
    with running_server(binaries) as server:
        yield server


@pytest.fixture
async def own_postgres_url(own_postgres: PostgresServer) -> AsyncIterator[str]:
    url = await own_postgres.create_database()
    try:
        yield url
    finally:
        await own_postgres.drop_database(url)


async def _not_ready_meanwhile(scene: Scene, what: str) -> None:
    """/readyz while the database fails: not ready, for the database's sake."""
    status, why = await get(scene.game.bot, "/readyz")
    if status != 503 or "database" not in why:
        scene.broken.append(f"/readyz answered {status} {why.strip()!r} while {what}")


async def test_postgresql_restarted_in_the_middle_of_a_hand(
    fake: FakeDiscord, world: World, tmp_path: Path, own_postgres: PostgresServer,
    own_postgres_url: str,
) -> None:
    async with cash_scene(fake, world, tmp_path, database_url=own_postgres_url,
                          metrics=True) as scene:
        hand = await scene.mid_hand()
        options = await stop_postgres(own_postgres)
        try:
            await asyncio.sleep(DOWN / 2)
            await _not_ready_meanwhile(scene, "PostgreSQL was stopped")
            await asyncio.sleep(DOWN / 2)
        finally:
            await start_postgres(own_postgres, options)
        scene.back_now()
        await scene.finish(hand, within=60)


async def test_the_bots_postgresql_connections_terminated_in_the_middle_of_a_hand(
    fake: FakeDiscord, world: World, tmp_path: Path, own_postgres: PostgresServer,
    own_postgres_url: str,
) -> None:
    async with cash_scene(fake, world, tmp_path, database_url=own_postgres_url) as scene:
        hand = await scene.mid_hand()
        ended = await terminate_connections(own_postgres, own_postgres_url)
        assert ended >= 2, f"only {ended} connection(s) to terminate"
        scene.back_now()
        await scene.finish(hand, within=60)


async def test_sqlite_writes_failing_for_a_while_in_the_middle_of_a_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with cash_scene(fake, world, tmp_path, metrics=True) as scene:
        hand = await scene.mid_hand()
        with sqlite_writes_fail() as refused:
            await asyncio.sleep(DOWN / 2)
            await _not_ready_meanwhile(scene, "SQLite's writes failed")
            await asyncio.sleep(DOWN / 2)
        scene.back_now()
        assert refused, "no write was tried while the disk failed: the fault tested nothing"
        await scene.finish(hand)


@pytest.mark.parametrize("fault", ["503 on the table's edit", "lost interaction answer",
                                   "gateway 1006"])
async def test_discords_faults_on_postgresql(
    fake: FakeDiscord, world: World, tmp_path: Path, own_postgres_url: str, fault: str
) -> None:
    # A fault on an edit comes after a typed command; the players then press what they see.
    ways = ("button",) if fault.startswith("503") else ("button", "slash")
    async with cash_scene(fake, world, tmp_path, database_url=own_postgres_url,
                          ways=ways) as scene:
        assert scene.game.db.backend == "postgresql"
        if fault == "gateway 1006":
            hand = await scene.mid_hand()
            (before,) = fake.sessions
            await fake.drop_gateway(1006)
            await scene.gateway_back(before)
        else:
            hand = await scene.fault_on_a_press(
                lambda f, p: f.fail(503, p.edits, method="PATCH") if fault.startswith("503")
                else f.lose_answers(CALLBACK),
                way="slash" if fault.startswith("503") else "button")
        await scene.finish(hand)
