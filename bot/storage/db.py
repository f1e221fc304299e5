"""The database: one SQLite file in WAL mode, its migrations, and its transactions.

Two connections are opened on the file. The *writer* runs every change; an ``asyncio.Lock``
makes its transactions strictly one after another, because aiosqlite runs the statements of
all coroutines on one thread and two transactions open across awaits would otherwise mix
their statements into one SQLite transaction. Each write transaction starts with
``BEGIN IMMEDIATE``, so it holds SQLite's write lock from its first statement and another
process (a backup, a second bot by mistake) waits instead of failing half-way. The *reader* has
``query_only`` set and serves queries from WAL snapshots, so a leaderboard never waits behind a
hand and never sees a transaction half-done.

Durability: WAL with ``synchronous=NORMAL`` by default. A commit is written to the WAL file
(into the OS cache) before ``COMMIT`` returns, so everything acknowledged survives the process
being killed, crashing or restarting, which is the failure a bot meets and the one the tests
inflict (SIGKILL at random moments). What NORMAL gives up is the fsync at every commit: on power
loss or a kernel crash the transactions since the latest checkpoint can be lost, each one
whole (a chip move with its ledger row, an action with its hand), so the file stays consistent
and the invariant holds. FULL (``Database.open(..., synchronous="FULL")``) adds that fsync; on
the project's machines an fsync takes 0.2 to 4 ms depending on other load, which caps FULL
between about 250 and 4,000 transfers/s and pushes an action append past the 1 ms budget when
the disk is busy (``python -m bench.storage`` prints both modes side by side).

Migrations are ``bot/storage/migrations/NNNN_name.sql``. Each is applied in one transaction
together with ``PRAGMA user_version = N`` and a row in ``schema_migrations``; SQLite's DDL is
transactional, so a migration that fails leaves the file exactly as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiosqlite

from bot.storage.errors import StorageError
from bot.storage.migrations import Migration, load_migrations

log = logging.getLogger(__name__)

MEMORY = ":memory:"
BUSY_TIMEOUT_MS = 10_000

Synchronous = Literal["FULL", "NORMAL"]


def unix_now() -> int:
    return int(time.time())


def parse_database_url(url: str) -> str:
    """The file path in ``sqlite:///relative/path``, ``sqlite:////absolute/path`` or a bare path.

    >>> parse_database_url("sqlite:///./data/poker.db")
    './data/poker.db'
    >>> parse_database_url("sqlite:////var/lib/poker.db")
    '/var/lib/poker.db'
    >>> parse_database_url("sqlite:///:memory:")
    ':memory:'
    """
    if not isinstance(url, str) or not url.strip():
        raise StorageError("bad_database_url", url=repr(url))
    url = url.strip()
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///") :]
    elif "://" in url or url.startswith("sqlite:"):
        raise StorageError("bad_database_url", url=url)
    else:
        path = url
    # A query string (?mode=...) would silently be part of the file name: refuse it.
    if not path or "?" in path:
        raise StorageError("bad_database_url", url=url)
    return path


def split_statements(script: str) -> list[str]:
    """The complete SQL statements of a script, in order (trigger bodies kept whole)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip() and not all(
        not ln.strip() or ln.strip().startswith("--") for ln in pending.splitlines()
    ):
        raise ValueError(f"incomplete SQL statement at the end of the script: {pending.strip()!r}")
    return statements


class Tx:
    """The statements of one transaction (or one snapshot read) on one connection."""

    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        cursor = await self._conn.execute(sql, params)
        return cursor.rowcount

    async def insert(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run an INSERT; the new row id."""
        cursor = await self._conn.execute(sql, params)
        rowid = cursor.lastrowid
        if rowid is None:  # pragma: no cover - an INSERT always sets it
            raise RuntimeError("INSERT gave no row id")
        return rowid

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        """Every row; also how to run ``UPDATE ... RETURNING`` (no row: the condition failed)."""
        return list(await self._conn.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def scalar(self, sql: str, params: Sequence[object] = ()) -> Any:
        row = await self.fetchone(sql, params)
        return None if row is None else row[0]


async def _connect(path: str, synchronous: Synchronous, *, reader: bool) -> aiosqlite.Connection:
    # isolation_level=None: the sqlite3 module must not open transactions behind our back;
    # every transaction here is an explicit BEGIN ... COMMIT.
    conn = await aiosqlite.connect(path, isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if path != MEMORY:
            rows = await conn.execute_fetchall("PRAGMA journal_mode = WAL")
            mode = next(iter(rows))[0]
            if str(mode).lower() != "wal":
                log.warning("SQLite refused WAL mode for %s (got %s)", path, mode)
        await conn.execute(f"PRAGMA synchronous = {synchronous}")
        await conn.execute("PRAGMA foreign_keys = ON")
        if reader:
            await conn.execute("PRAGMA query_only = ON")
    except BaseException:
        await conn.close()
        raise
    return conn


async def _user_version(conn: aiosqlite.Connection) -> int:
    rows = await conn.execute_fetchall("PRAGMA user_version")
    return int(next(iter(rows))[0])


async def _rollback_quietly(conn: aiosqlite.Connection) -> None:
    # "no transaction is active": SQLite already rolled back (some errors do that).
    with contextlib.suppress(sqlite3.OperationalError):
        await conn.execute("ROLLBACK")


async def migrate(conn: aiosqlite.Connection, migrations: Sequence[Migration]) -> list[int]:
    """Apply the migrations newer than the file's ``user_version``; the versions applied."""
    current = await _user_version(conn)
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise StorageError("schema_too_new", version=current, supported=latest)
    applied: list[int] = []
    for migration in migrations:
        if migration.version <= current:
            continue
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if await _user_version(conn) >= migration.version:
                await conn.execute("COMMIT")
                continue
            for statement in split_statements(migration.sql):
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, unix_now()),
            )
            await conn.execute(f"PRAGMA user_version = {int(migration.version)}")
            await conn.execute("COMMIT")
        except Exception as exc:
            await _rollback_quietly(conn)
            raise StorageError(
                "migration_failed", version=migration.version, name=migration.name, detail=str(exc)
            ) from exc
        log.info("applied migration %04d_%s", migration.version, migration.name)
        applied.append(migration.version)
    return applied


class Database:
    """The open database. Create with ``await Database.open(url)``; ``await db.close()`` at exit.

    ``write()`` is the only way to change anything, ``read()`` the way to see several queries
    from one consistent snapshot.
    """

    def __init__(
        self,
        path: str,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        synchronous: Synchronous,
    ) -> None:
        self.path = path
        self.synchronous = synchronous
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()
        # An in-memory database has one connection: reads then queue behind writes.
        self._read_lock = self._write_lock if reader is writer else asyncio.Lock()
        self._closed = False

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        synchronous: Synchronous = "NORMAL",
        migrations: Sequence[Migration] | None = None,
    ) -> Database:
        """Open (creating it and its folder if needed) and migrate the database at ``url``.

        The bot passes its ``DATABASE_URL`` setting (``bot.settings``); storage never reads the
        environment itself.
        """
        if synchronous not in ("FULL", "NORMAL"):
            raise StorageError("bad_setting", name="synchronous", value=repr(synchronous))
        if sqlite3.sqlite_version_info < (3, 37, 0):
            # STRICT tables need 3.37; RETURNING needs 3.35.
            raise StorageError("sqlite_too_old", version=sqlite3.sqlite_version, required="3.37")
        path = parse_database_url(url)
        if path != MEMORY:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        writer = await _connect(path, synchronous, reader=False)
        try:
            await migrate(writer, load_migrations() if migrations is None else migrations)
            reader = writer if path == MEMORY else await _connect(path, synchronous, reader=True)
        except BaseException:
            await writer.close()
            raise
        return cls(path, writer, reader, synchronous)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        async with self._write_lock:
            if self._reader is not self._writer:
                await self._reader.close()
            await self._writer.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """One write transaction: committed if the block ends normally, rolled back otherwise.

        Raising inside the block (a ``StorageError`` from a failed check) undoes every statement
        already run in it, which is what makes "bad input changes nothing" hold.
        """
        async with self._write_lock:
            conn = self._writer
            await self._begin_immediate(conn)
            try:
                yield Tx(conn)
                await conn.execute("COMMIT")
            except BaseException:
                # aiosqlite runs statements in order on one thread, so this ROLLBACK runs
                # after any statement of ours still queued, and before the next BEGIN.
                await _rollback_quietly(conn)
                raise

    async def write_one(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        """One statement as its own transaction (SQLite makes a single statement atomic).

        Cheaper than ``write()`` (one round trip instead of three) for appends that need no
        second statement; use ``RETURNING`` to learn whether a conditional statement applied.
        """
        async with self._write_lock:
            return list(await self._writer.execute_fetchall(sql, params))

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        """Several queries that see one committed snapshot of the database."""
        async with self._read_lock:
            conn = self._reader
            await conn.execute("BEGIN")
            try:
                yield Tx(conn)
            finally:
                await _rollback_quietly(conn)

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[sqlite3.Row]:
        async with self._read_lock:
            return list(await self._reader.execute_fetchall(sql, params))

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def schema_version(self) -> int:
        async with self._read_lock:
            return await _user_version(self._reader)

    async def _begin_immediate(self, conn: aiosqlite.Connection) -> None:
        try:
            await conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "within a transaction" not in str(exc):
                raise
            # Only reachable if a cancelled transaction's ROLLBACK never ran: that transaction
            # was abandoned, so undoing it is the right outcome.
            log.warning("rolling back an abandoned transaction before a new one")
            await _rollback_quietly(conn)
            await conn.execute("BEGIN IMMEDIATE")
