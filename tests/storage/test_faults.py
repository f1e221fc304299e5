"""The database misbehaving under a stream of chip transfers, on both backends.

PostgreSQL (real servers, each fault test on a server of its own): stopped for seconds and
started again, the bot's connections terminated, a statement cancelled by the server's
``statement_timeout``, a failover to a promoted standby behind the same name (a TCP proxy), a
COMMIT whose answer is lost. SQLite: writes failing as on a full disk, a failing disk, a file
that cannot be opened or written, injected where aiosqlite runs the statements, and a real full
file (``max_page_count``) and a real read-only connection.

In each: the writes during the fault fail with ``StorageUnavailable``, ``health`` goes down and
comes back by itself within seconds, later writes succeed, no transfer is stored twice or
half-way (every caller told "stored" finds it once, every caller told "not stored" finds
nothing), the chip invariant holds, and the log holds one WARNING when the storage goes down
and one when it comes back, nothing at ERROR and no traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.metrics import PrometheusMetrics
from bot.storage import Database, economy
from bot.storage import sqlite as sqlite_backend
from bot.storage.errors import StorageUnavailable
from tests.pgserver import HOW_TO_GET, PostgresServer, find_binaries, running_server
from tests.timing import scaled

from .faults import (
    GUILD,
    PAYEE,
    PAYER,
    SQLITE_ERRORS,
    Outcomes,
    SqliteFaults,
    TcpProxy,
    Transitions,
    background,
    check_stored,
    fund,
    stream,
    transfer_once,
)

# The database must be seen back within this long of answering again (free machine).
BACK_WITHIN = 3.0


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + scaled(seconds)
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {scaled(seconds):.1f} s")
        await asyncio.sleep(0.01)


async def back_up(db: Database, since: float) -> float:
    """Wait for ``health`` to come back; the seconds it took from ``since``."""
    await asyncio.wait_for(db.health.wait_available(), scaled(BACK_WITHIN))
    return time.monotonic() - since


def metric(metrics: PrometheusMetrics, name: str, **labels: str) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def check_log(caplog: pytest.LogCaptureFixture, outages: int) -> None:
    """One WARNING when the storage went down and one when it came back, per outage; nothing
    at ERROR, no traceback, no line per failed write."""
    records = caplog.records
    assert not [r for r in records if r.levelno >= logging.ERROR], [
        r.getMessage() for r in records if r.levelno >= logging.ERROR
    ]
    assert not [r for r in records if r.exc_info], [r.getMessage() for r in records if r.exc_info]
    warnings = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    down = [w for w in warnings if w.startswith("storage: writes fail")]
    up = [w for w in warnings if w.startswith("storage: the database takes writes again")]
    assert (len(down), len(up)) == (outages, outages), warnings
    assert len(warnings) == 2 * outages, warnings


@pytest.fixture(autouse=True)
def _log_everything(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bot")


# -- PostgreSQL --------------------------------------------------------------------------------


def _binaries() -> Path:
    binaries = find_binaries()
    if binaries is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI runs the PostgreSQL tests, but no server binaries: " + HOW_TO_GET)
        pytest.skip(HOW_TO_GET)
    return binaries


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server of this test's own: the test stops it."""
    with running_server(_binaries()) as server:
        yield server


@pytest.fixture
async def pg(own_server: PostgresServer) -> AsyncIterator[tuple[Database, PrometheusMetrics]]:
    url = await own_server.create_database()
    db = await Database.open(url)
    metrics = PrometheusMetrics()
    db.metrics = metrics
    try:
        yield db, metrics
    finally:
        await db.close()


async def test_postgresql_stopped_for_seconds_in_the_middle_of_writes(
    own_server: PostgresServer,
    pg: tuple[Database, PrometheusMetrics],
    caplog: pytest.LogCaptureFixture,
) -> None:
    db, metrics = pg
    outcomes = await fund(db)
    seen = Transitions(db)
    stop = asyncio.Event()
    async with background(stream(db, outcomes, stop, 0.005)):
        await until(lambda: outcomes.count("ok") >= 20, 10, "writes before the fault")
        await asyncio.to_thread(own_server.halt, "fast")
        await until(lambda: not db.health.available, 5, "health down")
        assert metric(metrics, "poker_storage_up") == 0
        tried = len(outcomes.told)
        await asyncio.sleep(2)  # the outage; the stream keeps trying
        during = list(outcomes.told.values())[tried:]
        assert during and set(during) == {"unavailable"}, set(during)
        assert db.health.cause is not None
        assert db.health.cause.kind in ("unreachable", "connection_lost")
        assert db.health.down_for() >= 2
        await asyncio.to_thread(own_server.launch)
        took = await back_up(db, time.monotonic())
        ok = outcomes.count("ok")
        await until(lambda: outcomes.count("ok") >= ok + 20, 10, "writes after the fault")
        stop.set()
    assert took < scaled(BACK_WITHIN)
    assert seen.seen == [False, True]
    await check_stored(db, outcomes)
    assert metric(metrics, "poker_storage_up") == 1
    assert metric(metrics, "poker_storage_reconnects_total") >= 1
    faults = metric(metrics, "poker_storage_faults_total", kind="connection_lost") + metric(
        metrics, "poker_storage_faults_total", kind="unreachable"
    )
    assert faults >= 1
    check_log(caplog, outages=1)


async def _terminate_the_bot(server: PostgresServer, database: str) -> int:
    conn = await asyncpg.connect(server.url())
    try:
        rows = await conn.fetch(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
        return len(rows)
    finally:
        await conn.close()


async def test_postgresql_connections_terminated_in_the_middle_of_a_transaction(
    own_server: PostgresServer,
    pg: tuple[Database, PrometheusMetrics],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The writer's server process is terminated while a transfer's transaction is open: that
    transfer fails, nothing of it is stored, and the storage comes back by itself."""
    db, metrics = pg
    outcomes = await fund(db)
    seen = Transitions(db)
    name = db.url.rsplit("/", 1)[1]  # type: ignore[attr-defined]
    holding = asyncio.Event()
    go_on = asyncio.Event()

    async def half_a_transfer() -> None:
        async with db.write() as tx:
            await tx.execute(
                "UPDATE wallets SET balance = balance - 1 WHERE guild_id = ? AND user_id = ?",
                (GUILD, PAYER),
            )
            holding.set()
            await go_on.wait()
            await tx.execute(
                "UPDATE wallets SET balance = balance + 1 WHERE guild_id = ? AND user_id = ?",
                (GUILD, PAYEE),
            )

    task = asyncio.ensure_future(half_a_transfer())
    await holding.wait()
    assert await _terminate_the_bot(own_server, name) >= 1
    go_on.set()
    with pytest.raises(StorageUnavailable) as caught:
        await task
    assert caught.value.kind == "connection_lost" and not caught.value.maybe_stored
    assert not db.health.available
    await back_up(db, time.monotonic())
    assert seen.seen == [False, True]
    for number in range(1, 11):
        assert await transfer_once(db, outcomes, number) == "ok"
    await check_stored(db, outcomes)  # the payer's wallet lost nothing to the half transfer
    assert metric(metrics, "poker_storage_faults_total", kind="connection_lost") == 1
    check_log(caplog, outages=1)


async def test_postgresql_connections_terminated_while_idle_are_opened_again_unnoticed(
    own_server: PostgresServer, pg: tuple[Database, PrometheusMetrics]
) -> None:
    """Between two transfers every connection of the bot is terminated (as an
    ``idle_session_timeout`` or a proxy would): the next transfer and the next read work, and
    the storage never went down."""
    db, metrics = pg
    outcomes = await fund(db)
    seen = Transitions(db)
    name = db.url.rsplit("/", 1)[1]  # type: ignore[attr-defined]
    for number in range(1, 6):
        assert await _terminate_the_bot(own_server, name) >= 1
        assert await transfer_once(db, outcomes, number) == "ok"
        assert await economy.balance(db, GUILD, PAYEE) > 0
    assert seen.seen == []
    assert metric(metrics, "poker_storage_reconnects_total") >= 5
    await check_stored(db, outcomes)


async def test_postgresql_connections_terminated_again_and_again_under_writes(
    own_server: PostgresServer, pg: tuple[Database, PrometheusMetrics]
) -> None:
    """Terminated at random moments of a stream: a write caught in flight fails (at most), an
    idle connection is opened again without anyone noticing, nothing is stored twice."""
    db, _ = pg
    outcomes = await fund(db)
    name = db.url.rsplit("/", 1)[1]  # type: ignore[attr-defined]
    stop = asyncio.Event()
    async with background(stream(db, outcomes, stop, 0.0)):
        for _ in range(15):
            await asyncio.sleep(0.05)
            await _terminate_the_bot(own_server, name)
        await back_up(db, time.monotonic())
        ok = outcomes.count("ok")
        await until(lambda: outcomes.count("ok") >= ok + 20, 10, "writes after the faults")
        stop.set()
    assert set(outcomes.told.values()) <= {"ok", "unavailable", "maybe"}
    assert outcomes.count("ok") >= 20
    await check_stored(db, outcomes)
    assert db.health.available


async def test_postgresql_statement_timeout(
    own_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The server cancels a write that waited too long for a row another session locked:
    ``timeout``; the storage is down until the probe's write goes through, then writes work.
    A read cancelled the same way says nothing of writes: the storage stays up."""
    url = await own_server.create_database()
    name = url.rsplit("/", 1)[1]
    # Migrated before the timeout is set: on a loaded machine a migration can outlast 300 ms.
    await (await Database.open(url)).close()
    admin = await asyncpg.connect(own_server.url())
    await admin.execute(f'ALTER DATABASE "{name}" SET statement_timeout = 300')
    db = await Database.open(url)
    locker = await asyncpg.connect(url)
    try:
        outcomes = await fund(db)
        seen = Transitions(db)
        await locker.execute("SET statement_timeout = 0")
        await locker.execute("BEGIN")
        await locker.execute(
            "SELECT balance FROM wallets WHERE guild_id = $1 AND user_id = $2 FOR UPDATE",
            GUILD,
            PAYEE,
        )
        assert await transfer_once(db, outcomes, 1) == "unavailable"
        assert seen.seen == [False]
        cause = db.health.cause
        assert cause is not None and cause.kind == "timeout"
        await back_up(db, time.monotonic())  # the probe's write needs no row locked here
        await locker.execute("ROLLBACK")
        for number in range(2, 12):
            assert await transfer_once(db, outcomes, number) == "ok"
        with pytest.raises(StorageUnavailable) as caught:
            await db.fetchall("SELECT pg_sleep(2)")
        assert caught.value.kind == "timeout"
        assert db.health.available and seen.seen == [False, True]
        await check_stored(db, outcomes)
        check_log(caplog, outages=1)
    finally:
        await locker.close()
        await db.close()
        await admin.close()


async def test_postgresql_commit_whose_answer_is_lost_is_never_run_again(
    own_server: PostgresServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The COMMIT reaches the server, which stores the transfer, and the connection is cut
    before its answer: the caller is told it may be stored, the database does not run it
    again, and what is stored is the transfer once."""
    url = await own_server.create_database()
    name = url.rsplit("/", 1)[1]
    async with TcpProxy(own_server.port) as proxy:
        db = await Database.open(proxy.url(name))
        try:
            outcomes = await fund(db)
            proxy.lose_next_commit_answer()
            assert await transfer_once(db, outcomes, 1) == "maybe"
            assert proxy.commits_cut == 1
            await back_up(db, time.monotonic())
            for number in range(2, 7):
                assert await transfer_once(db, outcomes, number) == "ok"
            stored = await db.fetchall("SELECT COUNT(*) FROM ledger WHERE note = 't1'")
            assert stored[0][0] == 1  # the server committed it; nobody ran it twice
            await check_stored(db, outcomes)
            check_log(caplog, outages=1)
        finally:
            await db.close()


async def test_postgresql_failover_to_a_promoted_standby_behind_the_same_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The primary crashes, its synchronous standby is promoted, and the name (a proxy) now
    leads to it: the bot's connections, the writer's included, find the new primary by
    themselves, and every transfer a caller was told is stored is there."""
    binaries = _binaries()
    with running_server(binaries) as primary:
        url = await primary.create_database()
        name = url.rsplit("/", 1)[1]
        standby = await asyncio.to_thread(PostgresServer.standby_of, primary)
        try:
            probe = await asyncpg.connect(primary.url())
            try:
                deadline = time.monotonic() + scaled(20)
                while not await probe.fetchval(
                    "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                ):
                    assert time.monotonic() < deadline, "the standby never streamed"
                    await asyncio.sleep(0.1)
            finally:
                await probe.close()
            await primary.settings(synchronous_standby_names="*")
            async with TcpProxy(primary.port) as proxy:
                db = await Database.open(proxy.url(name))
                metrics = PrometheusMetrics()
                db.metrics = metrics
                try:
                    outcomes = await fund(db)
                    seen = Transitions(db)
                    stop = asyncio.Event()
                    async with background(stream(db, outcomes, stop, 0.005)):
                        await until(lambda: outcomes.count("ok") >= 20, 10, "writes")
                        await asyncio.to_thread(primary.halt, "immediate")
                        await until(lambda: not db.health.available, 5, "health down")
                        await asyncio.to_thread(standby.promote)
                        proxy.switch(standby.port)
                        await back_up(db, time.monotonic())
                        ok = outcomes.count("ok")
                        await until(lambda: outcomes.count("ok") >= ok + 20, 10, "writes")
                        stop.set()
                    assert seen.seen == [False, True]
                    assert await db.fetchone("SELECT pg_is_in_recovery()") == (False,)
                    port = await db.fetchone("SELECT inet_server_port()")
                    assert port == (standby.port,)  # reads too went over
                    await check_stored(db, outcomes)
                    assert metric(metrics, "poker_storage_reconnects_total") >= 1
                    check_log(caplog, outages=1)
                finally:
                    await db.close()
        finally:
            standby.stop()


# -- SQLite ------------------------------------------------------------------------------------


@pytest.fixture
def faults(monkeypatch: pytest.MonkeyPatch) -> SqliteFaults:
    return SqliteFaults(monkeypatch)


@pytest.fixture
async def lite(db_path: Path) -> AsyncIterator[tuple[Database, PrometheusMetrics]]:
    db = await Database.open(f"sqlite:///{db_path}")
    metrics = PrometheusMetrics()
    db.metrics = metrics
    try:
        yield db, metrics
    finally:
        await db.close()


@pytest.mark.parametrize("kind", sorted(SQLITE_ERRORS))
async def test_sqlite_writes_failing_for_a_while(
    kind: str,
    faults: SqliteFaults,
    lite: tuple[Database, PrometheusMetrics],
    caplog: pytest.LogCaptureFixture,
) -> None:
    db, metrics = lite
    outcomes = await fund(db)
    seen = Transitions(db)
    stop = asyncio.Event()
    async with background(stream(db, outcomes, stop, 0.005)):
        await until(lambda: outcomes.count("ok") >= 20, 10, "writes before the fault")
        faults.fail(kind)
        await until(lambda: not db.health.available, 5, "health down")
        cause = db.health.cause
        assert cause is not None and cause.kind == kind
        tried = len(outcomes.told)
        failed = faults.failed
        await asyncio.sleep(1.5)
        during = list(outcomes.told.values())[tried:]
        assert during and set(during) == {"unavailable"}, set(during)
        # Refused without asking the file: only the probe tries it, with backoff (at most
        # about one try a second, and a try is a few statements).
        assert faults.failed - failed < 30
        # Reads still work on a disk that takes no writes.
        assert await economy.balance(db, GUILD, PAYER) > 0
        faults.clear()
        took = await back_up(db, time.monotonic())
        ok = outcomes.count("ok")
        await until(lambda: outcomes.count("ok") >= ok + 20, 10, "writes after the fault")
        stop.set()
    assert took < scaled(BACK_WITHIN)
    assert seen.seen == [False, True]
    await check_stored(db, outcomes)
    assert metric(metrics, "poker_storage_faults_total", kind=kind) >= 1
    assert metric(metrics, "poker_storage_up") == 1
    assert metric(metrics, "poker_storage_reconnects_total") >= 1
    check_log(caplog, outages=1)


@pytest.mark.parametrize(
    ("pragma", "kind"),
    [
        # The file may not grow past the pages it has: SQLite's own "database or disk is full".
        ("max_page_count", "disk_full"),
        # SQLite's own "attempt to write a readonly database".
        ("query_only", "read_only"),
    ],
)
async def test_sqlite_real_full_or_read_only_file(
    pragma: str,
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    lite: tuple[Database, PrometheusMetrics],
    caplog: pytest.LogCaptureFixture,
) -> None:
    db, _ = lite
    outcomes = await fund(db)
    seen = Transitions(db)
    limited = True
    connect = sqlite_backend._connect

    async def limit(conn: Any) -> None:
        if pragma == "max_page_count":
            pages = (await conn.execute_fetchall("PRAGMA page_count"))[0][0]
            await conn.execute(f"PRAGMA max_page_count = {pages}")
        else:
            await conn.execute("PRAGMA query_only = ON")

    async def limited_connect(path: str, synchronous: Any, *, reader: bool, **kw: Any) -> Any:
        conn = await connect(path, synchronous, reader=reader, **kw)
        if limited and not reader:
            await limit(conn)
        return conn

    monkeypatch.setattr(sqlite_backend, "_connect", limited_connect)
    await limit(db._writer)  # type: ignore[attr-defined]
    number = 0
    while db.health.available:
        number += 1
        assert number < 5_000, "the file never filled"
        await transfer_once(db, outcomes, number)
    cause = db.health.cause
    assert cause is not None and cause.kind == kind
    assert outcomes.count("unavailable") == 1
    limited = False
    if pragma == "max_page_count":
        await db._writer.execute("PRAGMA max_page_count = 1073741823")  # type: ignore[attr-defined]
    else:
        await db._writer.execute("PRAGMA query_only = OFF")  # type: ignore[attr-defined]
    await back_up(db, time.monotonic())
    assert seen.seen == [False, True]
    for more in range(number + 1, number + 21):
        assert await transfer_once(db, outcomes, more) == "ok"
    await check_stored(db, outcomes)
    check_log(caplog, outages=1)


@pytest.mark.parametrize("after", [0, 4, 11, 30])
async def test_sqlite_fault_in_the_middle_of_a_batch(
    after: int, faults: SqliteFaults, lite: tuple[Database, PrometheusMetrics]
) -> None:
    """Transfers that queue up share one commit (group commit); the disk fails part-way
    through them: each is stored whole or not at all, as its caller was told."""
    db, _ = lite
    outcomes = await fund(db)
    faults.fail("io_error", after=after)
    told = await asyncio.gather(*(transfer_once(db, outcomes, n) for n in range(1, 21)))
    assert "unavailable" in told or "maybe" in told
    if after > 10:  # past the first transfer, which ran alone: a batch met the fault
        assert db.writer_stats.failed_batches == 1
    faults.clear()
    await back_up(db, time.monotonic())
    await check_stored(db, outcomes)
    assert await transfer_once(db, outcomes, 21) == "ok"


async def test_sqlite_commit_whose_answer_is_lost(
    faults: SqliteFaults, lite: tuple[Database, PrometheusMetrics]
) -> None:
    db, _ = lite
    outcomes = await fund(db)
    faults.lose_next_commit()
    assert await transfer_once(db, outcomes, 1) == "maybe"
    await back_up(db, time.monotonic())
    assert await transfer_once(db, outcomes, 2) == "ok"
    stored = await db.fetchall("SELECT COUNT(*) FROM ledger WHERE note = 't1'")
    assert stored[0][0] == 1
    await check_stored(db, outcomes)


async def test_closing_during_an_outage_does_not_wait_for_the_database(
    faults: SqliteFaults, db_path: Path
) -> None:
    db = await Database.open(f"sqlite:///{db_path}")
    outcomes = await fund(db)
    faults.fail("io_error")
    assert await transfer_once(db, outcomes, 1) == "unavailable"
    started = time.monotonic()
    await db.close()
    assert time.monotonic() - started < scaled(2)
    assert db._probe_task is None


async def test_checking_writes(
    faults: SqliteFaults, lite: tuple[Database, PrometheusMetrics]
) -> None:
    """``check_writes``: a recent commit is trusted, an old one is checked with a write, a
    failing check takes the storage down, and while down nothing is asked."""
    db, _ = lite
    await fund(db)
    assert await db.check_writes()
    failed = faults.failed
    faults.fail("io_error")
    assert await db.check_writes()  # the last commit is recent: not asked
    assert faults.failed == failed
    assert not await db.check_writes(within=0)
    assert not db.health.available
    assert faults.failed == failed + 1
    assert not await db.check_writes(within=0)
    faults.clear()
    await back_up(db, time.monotonic())
    assert await db.check_writes(within=0)


# -- random fault schedules over a sequence of transfers ----------------------------------------

# A transfer with no fault, or with writes failing from its n-th statement on (past its last
# statement: not at all), or with its COMMIT stored and then failing (its answer lost).
schedules = st.lists(
    st.one_of(
        st.none(),
        st.tuples(st.integers(0, 8), st.sampled_from(sorted(SQLITE_ERRORS))),
        st.just("lost_commit"),
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(schedule=schedules)
def test_random_faults_over_transfers_never_store_one_twice_or_half(
    schedule: list[Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever fails where: each transfer is stored once if its caller was told so, not at
    all if told it was not, once or not at all if its COMMIT's answer was lost; the wallets
    hold what the stored ones moved; the chips add up after every step."""

    async def run() -> None:
        path = tmp_path / f"h{time.monotonic_ns()}.db"
        with monkeypatch.context() as patch:
            faults = SqliteFaults(patch)
            db = await Database.open(f"sqlite:///{path}")
            db.reconnect_first = 0.001
            try:
                outcomes: Outcomes = await fund(db)
                for number, fault in enumerate(schedule, start=1):
                    if fault == "lost_commit":
                        faults.lose_next_commit()
                    elif fault is not None:
                        faults.fail(fault[1], after=fault[0])
                    told = await transfer_once(db, outcomes, number)
                    faults.clear()
                    faults.lose_commit = None
                    if told != "ok":
                        assert told in ("unavailable", "maybe"), told
                        await back_up(db, time.monotonic())
                    await check_stored(db, outcomes)
            finally:
                await db.close()

    asyncio.run(run())
