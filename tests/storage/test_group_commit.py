"""Group commit (``bot.storage.db``): write transactions that queue up share one COMMIT, each in
its own savepoint, and still behave one by one: every refusal leaves nothing, every success is
stored once ``write()`` returned, and a failed COMMIT fails every caller of its batch and stores
nothing. On both backends; no timing is asserted, batches are made to form with events."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.storage import Database, StorageError, economy
from bot.storage.db import DatabaseClosed, TransactionAborted
from bot.storage.errors import StorageUnavailable

from .conftest import GUILD, assert_invariant, tamper

SCRATCH = "CREATE TABLE gc_rows (k BIGINT PRIMARY KEY, owner BIGINT NOT NULL)"
INSERT = "INSERT INTO gc_rows (k, owner) VALUES (?, ?)"
TAKEN = 0  # a key stored before every test: inserting it again is a statement error
_keys = itertools.count(1)
_owners = itertools.count(1)


@pytest.fixture
async def scratch(db: Database) -> Database:
    await tamper(db, SCRATCH)
    await tamper(db, INSERT, (TAKEN, 0))
    # The batches these tests build must not be cut short by a slow machine.
    db.max_batch_delay = 60.0
    return db


async def rows_of(db: Database, owner: int) -> list[int]:
    rows = await db.fetchall("SELECT k FROM gc_rows WHERE owner = ? ORDER BY k", (owner,))
    return [int(r[0]) for r in rows]


async def settle() -> None:
    """Let every ready task run until it blocks (on the writer, an event, or a statement)."""
    for _ in range(20):
        await asyncio.sleep(0)


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("condition never came true")


def queued(db: Database) -> int:
    return len(db._queue)


class Blocker:
    """A write transaction that holds the writer until released, so the writes started
    meanwhile queue up and run as one batch after it."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.gate = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Blocker:
        owner = next(_owners)

        async def hold() -> None:
            async with self.db.write() as tx:
                await tx.execute(INSERT, (next(_keys), owner))
                await self.gate.wait()

        self.task = asyncio.create_task(hold())
        await until(self.db._write_lock.locked)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.gate.set()
        assert self.task is not None
        await self.task


def spawn(coro: Awaitable[Any]) -> asyncio.Task[Any]:
    return asyncio.ensure_future(coro)


async def write_rows(db: Database, owner: int, count: int, *, then: str = "commit") -> None:
    """A write() of ``count`` rows; ``then`` "refuse" raises a StorageError after them,
    "duplicate" ends with a statement the database refuses."""
    async with db.write() as tx:
        for _ in range(count):
            await tx.execute(INSERT, (next(_keys), owner))
            await asyncio.sleep(0)
        if then == "refuse":
            raise StorageError("insufficient_funds", balance=0, amount=1)
        if then == "duplicate":
            await tx.execute(INSERT, (TAKEN, owner))


async def outcome(awaitable: Awaitable[Any]) -> str:
    try:
        await awaitable
    except StorageUnavailable:
        return "unavailable"
    except StorageError:
        return "refused"
    except Exception:
        return "error"
    return "ok"


# -- many writers, interleaving successes and refusals ------------------------------------

KINDS = ("write", "refuse", "duplicate", "one", "one_duplicate", "one_noop")
ops = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(1, 3), st.integers(0, 3)),
    min_size=2,
    max_size=25,
)


def run_op(db: Database, kind: str, count: int, owner: int) -> Awaitable[Any]:
    if kind in ("write", "refuse", "duplicate"):
        return write_rows(db, owner, count, then="commit" if kind == "write" else kind)
    if kind == "one":
        return db.write_one(INSERT + " RETURNING k", (next(_keys), owner))
    if kind == "one_duplicate":
        return db.write_one(INSERT + " RETURNING k", (TAKEN, owner))
    # The conditional statement the storage layer uses for every chip move, its condition
    # false: it changes nothing and says so by returning no row.
    return db.write_one(
        "INSERT INTO gc_rows (k, owner) SELECT ?, ? WHERE NOT EXISTS"
        " (SELECT 1 FROM gc_rows WHERE k = ?) RETURNING k",
        (next(_keys), owner, TAKEN),
    )


def expected(kind: str, count: int) -> tuple[str, int]:
    """What the caller hears and how many rows of his are stored."""
    return {
        "write": ("ok", count),
        "refuse": ("refused", 0),
        "duplicate": ("error", 0),
        "one": ("ok", 1),
        "one_duplicate": ("error", 0),
        "one_noop": ("ok", 0),
    }[kind]


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=ops)
async def test_interleaved_successes_and_refusals(
    scratch: Database, ops: list[tuple[str, int, int]]
) -> None:
    db = scratch
    before = db.writer_stats.transactions
    owners = [next(_owners) for _ in ops]

    async def one(i: int) -> str:
        kind, count, delay = ops[i]
        for _ in range(delay):  # arrive at different moments: some join batches, some lead
            await asyncio.sleep(0)
        return await outcome(run_op(db, kind, count, owners[i]))

    outcomes = await asyncio.gather(*(one(i) for i in range(len(ops))))
    for (kind, count, _), owner, got in zip(ops, owners, outcomes, strict=True):
        want, stored = expected(kind, count)
        assert got == want, (kind, got)
        assert len(await rows_of(db, owner)) == stored, kind
    assert db.writer_stats.transactions - before == len(ops)
    assert await rows_of(db, 0) == [TAKEN]


async def test_batches_form_under_load(scratch: Database) -> None:
    db = scratch
    owners = [next(_owners) for _ in range(300)]
    before = (db.writer_stats.transactions, db.writer_stats.commits)

    def op(i: int) -> Awaitable[Any]:
        if i % 3 == 0:
            return db.write_one(INSERT, (next(_keys), owners[i]))
        return write_rows(db, owners[i], 2)

    await asyncio.gather(*(op(i) for i in range(300)))
    transactions = db.writer_stats.transactions - before[0]
    commits = db.writer_stats.commits - before[1]
    assert transactions == 300
    assert commits < transactions / 4, db.writer_stats
    assert 1 < db.writer_stats.largest_batch <= db.max_batch
    for i, owner in enumerate(owners):
        assert len(await rows_of(db, owner)) == (1 if i % 3 == 0 else 2)


async def test_the_size_cap_bounds_a_batch(scratch: Database) -> None:
    db = scratch
    db.max_batch = 5
    await asyncio.gather(*(write_rows(db, next(_owners), 1) for _ in range(60)))
    assert db.writer_stats.largest_batch == 5
    assert db.writer_stats.commits >= 60 // 5


async def test_the_time_cap_ends_a_batch(scratch: Database) -> None:
    db = scratch
    db.max_batch_delay = 0.0  # every batch is full as soon as its first body ran
    before = db.writer_stats.commits
    await asyncio.gather(*(write_rows(db, next(_owners), 1) for _ in range(40)))
    assert db.writer_stats.commits - before == 40
    assert db.writer_stats.batches == 0


async def test_without_group_commit_each_transaction_commits_alone(scratch: Database) -> None:
    db = scratch
    db.group_commit = False
    before = db.writer_stats.commits
    owners = [next(_owners) for _ in range(50)]
    results = await asyncio.gather(
        *(
            outcome(write_rows(db, o, 1, then="refuse" if i % 2 else "commit"))
            for i, o in enumerate(owners)
        )
    )
    assert results == ["ok", "refused"] * 25
    assert db.writer_stats.commits - before == 25
    assert db.writer_stats.batches == 0
    for i, owner in enumerate(owners):
        assert len(await rows_of(db, owner)) == (0 if i % 2 else 1)


async def test_a_lone_write_runs_without_the_writer(scratch: Database) -> None:
    """Nobody waiting: no queue, no writer task, no savepoint; as without group commit."""
    db = scratch
    owner = next(_owners)
    await write_rows(db, owner, 2)
    await db.write_one(INSERT, (next(_keys), owner))
    assert db._writer_task is None and queued(db) == 0
    assert len(await rows_of(db, owner)) == 3


async def test_chip_moves_from_many_tasks_keep_the_invariant(scratch: Database) -> None:
    """The real economy API through batches: 100 withdrawals of 100 from 5,000."""
    db = scratch
    await economy.update_settings(db, GUILD, starting_balance=5_000)
    await economy.open_wallet(db, GUILD, 7)
    outcomes = await asyncio.gather(
        *(outcome(economy.transfer(db, GUILD, 7, 1_000 + k, 100)) for k in range(100))
    )
    assert outcomes.count("ok") == 50 and outcomes.count("refused") == 50
    assert await economy.balance(db, GUILD, 7) == 0
    assert db.writer_stats.batches > 0
    await assert_invariant(db)


# -- a failed COMMIT fails the whole batch --------------------------------------------------


async def deferred_tables(db: Database) -> None:
    """A foreign key checked only at COMMIT: an orphan row lets its body succeed and makes the
    batch's COMMIT fail, on both backends."""
    await tamper(db, "CREATE TABLE gc_parent (id BIGINT PRIMARY KEY)")
    await tamper(
        db,
        "CREATE TABLE gc_child (id BIGINT PRIMARY KEY,"
        " parent BIGINT REFERENCES gc_parent (id) DEFERRABLE INITIALLY DEFERRED)",
    )


async def test_a_commit_failure_fails_every_caller_and_stores_nothing(scratch: Database) -> None:
    db = scratch
    await deferred_tables(db)
    owners = [next(_owners) for _ in range(6)]
    failed_before = db.writer_stats.failed_batches
    async with Blocker(db):
        tasks = [spawn(outcome(write_rows(db, owners[0], 2)))]
        tasks.append(spawn(outcome(db.write_one(INSERT, (next(_keys), owners[1])))))

        async def orphan() -> None:
            async with db.write() as tx:
                await tx.execute("INSERT INTO gc_child (id, parent) VALUES (1, 999)")

        tasks.append(spawn(outcome(orphan())))
        tasks.append(spawn(outcome(write_rows(db, owners[3], 1))))
        tasks.append(spawn(outcome(write_rows(db, owners[4], 1, then="refuse"))))
        tasks.append(spawn(outcome(db.write_one(INSERT, (next(_keys), owners[5])))))
        await until(lambda: queued(db) == 6)
    results = await asyncio.gather(*tasks)
    # The refusal is told of its own refusal; everyone else of the batch of the failed COMMIT.
    assert results == ["error", "error", "error", "error", "refused", "error"]
    assert db.writer_stats.failed_batches == failed_before + 1
    for owner in owners:
        assert await rows_of(db, owner) == []
    assert await db.fetchall("SELECT * FROM gc_child") == []
    # The writer goes on.
    owner = next(_owners)
    await asyncio.gather(write_rows(db, owner, 1), write_rows(db, owner, 1))
    assert len(await rows_of(db, owner)) == 2


async def test_an_injected_commit_failure(
    scratch: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The COMMIT itself fails (as when the connection drops at that moment)."""
    db = scratch
    real_commit = db._commit
    failures = 0

    async def failing_commit() -> None:
        nonlocal failures
        if db._in_transaction() and queued(db) == 0 and failures == 0:
            failures += 1
            raise ConnectionResetError("connection lost at COMMIT")
        await real_commit()

    owners = [next(_owners) for _ in range(4)]
    async with Blocker(db):
        tasks = [spawn(outcome(write_rows(db, o, 1))) for o in owners[:2]]
        tasks += [spawn(outcome(db.write_one(INSERT, (next(_keys), o)))) for o in owners[2:]]
        await until(lambda: queued(db) == 4)
        monkeypatch.setattr(db, "_commit", failing_commit)
    assert await asyncio.gather(*tasks) == ["error"] * 4
    assert failures == 1
    for owner in owners:
        assert await rows_of(db, owner) == []


async def test_a_lost_connection_fails_the_batch(db_url: str, scratch: Database) -> None:
    """PostgreSQL: the writer's server process is killed while a batch is open."""
    db = scratch
    if db.backend != "postgresql":
        pytest.skip("an SQLite connection cannot be cut from outside")
    pid = await db._writer.fetchval("SELECT pg_backend_pid()")  # type: ignore[attr-defined]
    owners = [next(_owners) for _ in range(4)]
    killed = asyncio.Event()

    async def slow_first() -> None:
        async with db.write() as tx:
            await tx.execute(INSERT, (next(_keys), owners[0]))
            await killed.wait()

    async with Blocker(db):
        first = spawn(outcome(slow_first()))
        rest = [spawn(outcome(write_rows(db, o, 1))) for o in owners[1:]]
        await until(lambda: queued(db) == 4)
    await until(lambda: db._in_transaction() and queued(db) == 3)
    other = await Database.open(db_url)
    try:
        await other.fetchall("SELECT pg_terminate_backend(?)", (pid,))
        killed.set()
        # A fault of the database's, which the batch's callers are told as such.
        assert await asyncio.gather(first, *rest) == ["unavailable"] * 4
        for owner in owners:
            assert await rows_of(other, owner) == []
    finally:
        await other.close()


async def test_sqlite_error_that_ends_the_whole_transaction(sqlite_db: Database) -> None:
    """RAISE(ROLLBACK) ends SQLite's whole transaction: ROLLBACK TO has nothing left to roll
    back to, so the batch fails as a whole; the statements after it never run outside it."""
    db = sqlite_db
    await tamper(db, SCRATCH)
    await tamper(db, INSERT, (TAKEN, 0))
    db.max_batch_delay = 60.0
    await tamper(db, "CREATE TABLE gc_trap (x INTEGER)")
    await tamper(
        db,
        "CREATE TRIGGER gc_trap_rollback BEFORE INSERT ON gc_trap"
        " BEGIN SELECT RAISE(ROLLBACK, 'trapped'); END",
    )
    for trap_as_statement in (False, True):
        owners = [next(_owners) for _ in range(4)]

        async def trap(trap_as_statement: bool = trap_as_statement, owner: int = owners[2]) -> None:
            if trap_as_statement:
                await db.write_one("INSERT INTO gc_trap (x) VALUES (1)")
                return
            async with db.write() as tx:
                await tx.execute(INSERT, (next(_keys), owner))
                await tx.execute("INSERT INTO gc_trap (x) VALUES (1)")

        async with Blocker(db):
            tasks = [
                spawn(outcome(write_rows(db, owners[0], 1))),
                spawn(outcome(db.write_one(INSERT, (next(_keys), owners[1])))),
                spawn(outcome(trap())),
                spawn(outcome(write_rows(db, owners[3], 1))),
            ]
            await until(lambda: queued(db) == 4)
        results = await asyncio.gather(*tasks)
        # Those before the trap shared its transaction; the one after it runs in the next.
        assert results == ["error", "error", "error", "ok"]
        assert [len(await rows_of(db, o)) for o in owners] == [0, 0, 0, 1]
        assert await db.fetchall("SELECT * FROM gc_trap") == []


async def test_postgresql_commit_of_a_failed_transaction_is_an_error(scratch: Database) -> None:
    """A body that catches a statement error and goes on leaves PostgreSQL's transaction
    failed; its COMMIT only rolls back, which must reach the caller as an error."""
    db = scratch
    if db.backend != "postgresql":
        pytest.skip("SQLite keeps the transaction open after a failed statement")
    owner = next(_owners)
    with pytest.raises(TransactionAborted):
        async with db.write() as tx:
            await tx.execute(INSERT, (next(_keys), owner))
            with pytest.raises(Exception, match="duplicate"):
                await tx.execute(INSERT, (TAKEN, owner))
    assert await rows_of(db, owner) == []


# -- cancellation -----------------------------------------------------------------------------


@pytest.mark.parametrize("position", [0, 1, 2])
async def test_a_caller_cancelled_inside_his_body(scratch: Database, position: int) -> None:
    db = scratch
    owners = [next(_owners) for _ in range(3)]
    inside = asyncio.Event()

    async def stuck(owner: int) -> None:
        async with db.write() as tx:
            await tx.execute(INSERT, (next(_keys), owner))
            inside.set()
            await asyncio.Event().wait()

    async with Blocker(db):
        tasks = [
            spawn(stuck(o) if i == position else write_rows(db, o, 2)) for i, o in enumerate(owners)
        ]
        await until(lambda: queued(db) == 3)
    await inside.wait()
    tasks[position].cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for i, (owner, result) in enumerate(zip(owners, results, strict=True)):
        if i == position:
            assert isinstance(result, asyncio.CancelledError)
            assert await rows_of(db, owner) == []
        else:
            assert result is None
            assert len(await rows_of(db, owner)) == 2


async def test_callers_cancelled_while_waiting_for_their_turn(scratch: Database) -> None:
    db = scratch
    owners = [next(_owners) for _ in range(6)]
    async with Blocker(db):
        tasks = [
            spawn(write_rows(db, o, 1) if i % 2 else db.write_one(INSERT, (next(_keys), o)))
            for i, o in enumerate(owners)
        ]
        await until(lambda: queued(db) == 6)
        tasks[1].cancel()
        tasks[2].cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for i, (owner, result) in enumerate(zip(owners, results, strict=True)):
        stored = await rows_of(db, owner)
        if i in (1, 2):
            assert isinstance(result, asyncio.CancelledError) and stored == []
        else:
            assert not isinstance(result, BaseException) and len(stored) == 1


async def test_a_caller_cancelled_while_waiting_for_the_commit(scratch: Database) -> None:
    """His body ended and the batch goes on: his work commits with it, he is just not told."""
    db = scratch
    owners = [next(_owners) for _ in range(3)]
    second_inside, release = asyncio.Event(), asyncio.Event()

    async def second() -> None:
        async with db.write() as tx:
            await tx.execute(INSERT, (next(_keys), owners[1]))
            second_inside.set()
            await release.wait()

    async with Blocker(db):
        first = spawn(write_rows(db, owners[0], 1))
        middle = spawn(second())
        last = spawn(db.write_one(INSERT, (next(_keys), owners[2])))
        await until(lambda: queued(db) == 3)
    await second_inside.wait()  # the first body ended: its caller waits for the COMMIT
    first.cancel()
    release.set()
    results = await asyncio.gather(first, middle, last, return_exceptions=True)
    assert isinstance(results[0], asyncio.CancelledError)
    assert [len(await rows_of(db, o)) for o in owners] == [1, 1, 1]


# -- close, and the in-memory database --------------------------------------------------------


async def test_close_with_writers_waiting(db_url: str) -> None:
    db = await Database.open(db_url)
    await tamper(db, SCRATCH)
    db.max_batch_delay = 60.0
    owners = [next(_owners) for _ in range(20)]
    async with Blocker(db):
        tasks = [
            spawn(write_rows(db, o, 1) if i % 2 else db.write_one(INSERT, (next(_keys), o)))
            for i, o in enumerate(owners)
        ]
        await until(lambda: queued(db) == 20)
        closing = spawn(db.close())
        await settle()
        assert not closing.done()
        with pytest.raises(DatabaseClosed):
            await db.write_one(INSERT, (next(_keys), 1))
        with pytest.raises(DatabaseClosed):
            async with db.write():
                pass
    # Everything submitted before close() was committed, then the connections closed.
    await asyncio.gather(*tasks)
    await closing
    reopened = await Database.open(db_url)
    try:
        for owner in owners:
            assert len(await rows_of(reopened, owner)) == 1
    finally:
        await reopened.close()


async def test_in_memory_database_reads_never_see_a_batch_half_done() -> None:
    db = await Database.open("sqlite:///:memory:")
    try:
        await tamper(db, SCRATCH)
        db.max_batch_delay = 60.0
        seen: list[int] = []

        async def writer(owner: int) -> None:
            # Two rows or none: a read must never count an odd number of them.
            async with db.write() as tx:
                await tx.execute(INSERT, (next(_keys), owner))
                await asyncio.sleep(0)
                await tx.execute(INSERT, (next(_keys), owner))

        async def reader() -> None:
            for _ in range(20):
                async with db.read() as tx:
                    seen.append(int(await tx.scalar("SELECT COUNT(*) FROM gc_rows")))
                seen.append(int((await db.fetchall("SELECT COUNT(*) FROM gc_rows"))[0][0]))
                await asyncio.sleep(0)

        await asyncio.gather(
            *(writer(next(_owners)) for _ in range(100)), *(reader() for _ in range(5))
        )
        assert all(count % 2 == 0 for count in seen)
        assert int((await db.fetchall("SELECT COUNT(*) FROM gc_rows"))[0][0]) == 200
        assert db.writer_stats.batches > 0
    finally:
        await db.close()
