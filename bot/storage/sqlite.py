"""The SQLite backend: one file in WAL mode, its migrations, and its transactions.

Two connections are opened on the file. The *writer* runs every change, its transactions
strictly one after another (``bot.storage.db``: one at a time, or several sharing one commit
when they queue up), because aiosqlite runs the statements of all coroutines on one thread and
two transactions open across awaits would otherwise mix their statements into one SQLite
transaction. Each write transaction starts with ``BEGIN IMMEDIATE``, so it holds SQLite's write
lock from its first statement and another process (a backup, a second bot by mistake) waits
instead of failing half-way. The *reader* has ``query_only`` set and serves queries from WAL
snapshots, so a leaderboard never waits behind a hand and never sees a transaction half-done.
An in-memory database has one connection for both: its reads wait for the writer's lock, which
a batch holds until its COMMIT, so they never see a batch half-done either.

In a batch a ``write_one`` statement needs no savepoint: a statement that fails (a constraint)
undoes only itself. The few errors that end the whole transaction instead (a full disk, an I/O
error, ``RAISE(ROLLBACK)``) are noticed because the transaction is no longer open, and the whole
batch fails cleanly rather than letting later statements run outside any transaction.

Faults (``bot.storage.db``): a full disk, an I/O error, a file that cannot be opened or written,
the write lock held by another process past the busy timeout (``fault_kind``). After one, both
connections are opened anew on the file (never creating it: a file gone is a fault, not a fresh
start), and a test write rewrites the file's header, which is what a full or read-only file
refuses.

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

Migrations are ``bot/storage/migrations/sqlite/NNNN_name.sql``. Each is applied in one transaction
together with ``PRAGMA user_version = N`` and a row in ``schema_migrations``; SQLite's DDL is
transactional, so a migration that fails leaves the file exactly as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import urllib.parse
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import ClassVar

import aiosqlite

from bot.storage.db import (
    MEMORY,
    Database,
    Faults,
    Row,
    Synchronous,
    Tx,
    parse_database_url,
    register_backend,
    unix_now,
)
from bot.storage.errors import StorageError
from bot.storage.migrations import Migration, load_migrations

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 10_000
# Closing a connection whose statement hangs on a dead disk must not hold up a reconnection.
CLOSE_TIMEOUT = 5.0

# SQLite's primary result codes that are faults of the file or the disk, not of a statement.
_FAULT_CODES = {
    sqlite3.SQLITE_IOERR: "io_error",
    sqlite3.SQLITE_FULL: "disk_full",
    sqlite3.SQLITE_CANTOPEN: "cannot_open",
    sqlite3.SQLITE_READONLY: "read_only",
    sqlite3.SQLITE_BUSY: "busy",
    sqlite3.SQLITE_PROTOCOL: "busy",
    sqlite3.SQLITE_NOMEM: "overloaded",
}
# The same by message, for an error that carries no code.
_FAULT_MESSAGES = (
    ("disk i/o error", "io_error"),
    ("database or disk is full", "disk_full"),
    ("unable to open database file", "cannot_open"),
    ("attempt to write a readonly database", "read_only"),
    ("database is locked", "busy"),
    ("out of memory", "overloaded"),
)


def fault_kind(exc: BaseException) -> str | None:
    """The kind of fault an SQLite error is (``StorageUnavailable.kind``), or None.

    >>> fault_kind(sqlite3.OperationalError("database or disk is full"))
    'disk_full'
    >>> fault_kind(sqlite3.IntegrityError("UNIQUE constraint failed: t.k")) is None
    True
    """
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if isinstance(code, int) and (code & 0xFF) in _FAULT_CODES:
            return _FAULT_CODES[code & 0xFF]
        text = str(exc).lower()
        return next((kind for words, kind in _FAULT_MESSAGES if words in text), None)
    if isinstance(exc, ValueError) and str(exc) in ("Connection closed", "no active connection"):
        return "connection_lost"  # aiosqlite's connection has stopped
    return None


FAULTS = Faults(fault_kind)


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


class SqliteTx(Tx):
    __slots__ = ("_conn",)

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        with FAULTS:
            cursor = await self._conn.execute(sql, params)
            return cursor.rowcount

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        with FAULTS:
            return list(await self._conn.execute_fetchall(sql, params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        with FAULTS:
            await self._conn.executemany(sql, rows)


async def _connect(
    path: str, synchronous: Synchronous, *, reader: bool, create: bool = True
) -> aiosqlite.Connection:
    # isolation_level=None: the sqlite3 module must not open transactions behind our back;
    # every transaction here is an explicit BEGIN ... COMMIT.
    if create or path == MEMORY:
        conn = await aiosqlite.connect(path, isolation_level=None)
    else:
        # mode=rw: a file that vanished is an error, not a new empty database.
        target = "file:" + urllib.parse.quote(str(Path(path).resolve())) + "?mode=rw"
        conn = await aiosqlite.connect(target, isolation_level=None, uri=True)
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
    # "no transaction is active": SQLite already rolled back (some errors do that); or the
    # connection is broken, and closing it will roll back.
    with contextlib.suppress(sqlite3.Error, ValueError):
        await conn.execute("ROLLBACK")


async def _close_quietly(conn: aiosqlite.Connection) -> None:
    # Closing rolls back whatever it had open; a connection on a failing disk may fail to.
    try:
        await asyncio.wait_for(conn.close(), CLOSE_TIMEOUT)
    except (sqlite3.Error, ValueError, TimeoutError) as exc:
        log.debug("closing an SQLite connection failed: %s", exc)


async def _recorded(conn: aiosqlite.Connection) -> set[int]:
    """The versions the file has applied (none before the first migration made the table)."""
    found = await conn.execute_fetchall(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    )
    if not list(found):
        return set()
    rows = await conn.execute_fetchall("SELECT version FROM schema_migrations")
    return {int(row[0]) for row in rows}


async def migrate(conn: aiosqlite.Connection, migrations: Sequence[Migration]) -> list[int]:
    """Apply the migrations the file has not recorded, in order; the versions applied.

    ``user_version`` is the largest version applied: a smaller number that lands after a larger
    one (see ``bot.storage.migrations``) is applied and recorded without lowering it.
    """
    current = await _user_version(conn)
    latest = migrations[-1].version if migrations else 0
    if current > latest:
        raise StorageError("schema_too_new", version=current, supported=latest)
    done = await _recorded(conn) if current else set()
    applied: list[int] = []
    for migration in migrations:
        if migration.version in done:
            continue
        await conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the write lock.
            if migration.version in await _recorded(conn):
                await conn.execute("COMMIT")
                continue
            for statement in split_statements(migration.sql):
                await conn.execute(statement)
            await conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.name, unix_now()),
            )
            version = max(migration.version, await _user_version(conn))
            await conn.execute(f"PRAGMA user_version = {int(version)}")
            await conn.execute("COMMIT")
        except Exception as exc:
            await _rollback_quietly(conn)
            raise StorageError(
                "migration_failed", version=migration.version, name=migration.name, detail=str(exc)
            ) from exc
        log.info("applied migration %04d_%s", migration.version, migration.name)
        applied.append(migration.version)
    return applied


class SqliteDatabase(Database):
    """The database in one SQLite file: a writer connection and a read-only one."""

    backend: ClassVar[str] = "sqlite"
    # IMMEDIATE takes SQLite's write lock at once, so another process (a backup, a second bot
    # by mistake) makes us wait at BEGIN instead of failing half-way through a transaction.
    _begin_sql: ClassVar[str] = "BEGIN IMMEDIATE"
    # A failed statement (a constraint, say) undoes itself only; the errors that end the whole
    # transaction (a full disk, RAISE(ROLLBACK)) are caught by checking it is still open.
    _statement_error_keeps_transaction: ClassVar[bool] = True

    def __init__(
        self,
        path: str,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        synchronous: Synchronous,
    ) -> None:
        super().__init__()
        self.path = path
        self.synchronous = synchronous
        self._writer = writer
        self._reader = reader
        # An in-memory database has one connection: reads then queue behind writes.
        self._read_lock = self._write_lock if reader is writer else asyncio.Lock()

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        synchronous: Synchronous = "NORMAL",
        migrations: Sequence[Migration] | None = None,
    ) -> SqliteDatabase:
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
            await migrate(writer, load_migrations("sqlite") if migrations is None else migrations)
            reader = writer if path == MEMORY else await _connect(path, synchronous, reader=True)
        except BaseException:
            await writer.close()
            raise
        return cls(path, writer, reader, synchronous)

    async def _disconnect(self) -> None:
        if self._reader is not self._writer:
            await _close_quietly(self._reader)
        await _close_quietly(self._writer)

    async def _reconnect_writer(self) -> bool:
        if self.path == MEMORY:
            return False  # the only connection holds the database: nothing to open anew
        with FAULTS:
            fresh = await _connect(self.path, self.synchronous, reader=False, create=False)
        old, self._writer = self._writer, fresh
        await _close_quietly(old)
        return True

    async def _reconnect_readers(self) -> None:
        if self.path == MEMORY:
            return
        async with self._read_lock:
            with FAULTS:
                fresh = await _connect(self.path, self.synchronous, reader=True, create=False)
            old, self._reader = self._reader, fresh
        await _close_quietly(old)

    async def _touch(self, tx: Tx) -> None:
        # Rewriting the header's user_version (to itself) stores a page like any write: it
        # fails where the game's writes would (a read-only file, a disk that fails).
        version = int(await tx.scalar("PRAGMA user_version"))
        await tx.execute(f"PRAGMA user_version = {version}")

    async def _control(self, sql: str) -> None:
        with FAULTS:
            await self._writer.execute(sql)

    def _writer_tx(self) -> Tx:
        return SqliteTx(self._writer)

    def _in_transaction(self) -> bool:
        return bool(self._writer.in_transaction)

    async def _one(self, sql: str, params: Sequence[object]) -> list[Row]:
        with FAULTS:
            return list(await self._writer.execute_fetchall(sql, params))

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Tx]:
        async with self._read_lock:
            conn = self._reader
            with FAULTS:
                await conn.execute("BEGIN")
            try:
                yield SqliteTx(conn)
            finally:
                await _rollback_quietly(conn)

    async def _fetchall(self, sql: str, params: Sequence[object]) -> list[Row]:
        async with self._read_lock:
            with FAULTS:
                return list(await self._reader.execute_fetchall(sql, params))

    async def _schema_version(self) -> int:
        async with self._read_lock:
            with FAULTS:
                return await _user_version(self._reader)

    async def continue_ids(self, tx: Tx, table: str, column: str) -> None:
        # An INTEGER PRIMARY KEY always continues after the largest id present.
        del tx, table, column

    async def table_names(self) -> list[str]:
        rows = await self.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " ORDER BY name"
        )
        return [str(row[0]) for row in rows]

    async def _begin(self) -> None:
        conn = self._writer
        with FAULTS:
            try:
                await conn.execute(self._begin_sql)
            except sqlite3.OperationalError as exc:
                if "within a transaction" not in str(exc):
                    raise
                # Only reachable if a cancelled transaction's ROLLBACK never ran: that
                # transaction was abandoned, so undoing it is the right outcome.
                log.warning("rolling back an abandoned transaction before a new one")
                await _rollback_quietly(conn)
                await conn.execute(self._begin_sql)


async def _open(
    url: str, *, synchronous: Synchronous = "NORMAL", migrations: Sequence[Migration] | None = None
) -> SqliteDatabase:
    return await SqliteDatabase.connect(url, synchronous=synchronous, migrations=migrations)


register_backend("sqlite", _open)
