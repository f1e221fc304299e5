"""The PostgreSQL backend, through asyncpg: the store several bot processes share.

Selected by ``DATABASE_URL=postgresql://user:pass@host:5432/db``. One *writer* connection runs
every change, its transactions one after another, several sharing one COMMIT (and so one WAL
flush) when they queue up (``bot.storage.db``; as on SQLite: the same semantics on both
backends, and the conditional ``UPDATE ... RETURNING`` statements that move chips need no
stronger isolation than PostgreSQL's default); a small pool of read connections serves queries,
each ``read()`` in a read-only repeatable-read transaction so its queries see one snapshot.
Several processes may write at once: every chip move is a conditional statement on the rows it
touches, so they serialize on those rows and the ledger invariant holds across processes. (A
batch holds its row locks until its COMMIT, a few milliseconds at most; two processes' batches
that lock the same rows in opposite orders are a deadlock PostgreSQL breaks by failing one
statement, which fails that one transaction only, rolled back to its savepoint. The processes
own disjoint guilds, so they rarely touch the same rows.)

Faults (``bot.storage.db``): ``fault_kind`` says which of asyncpg's errors are the server's
(stopped or restarting, a connection terminated or reset, a statement cancelled by the server's
``statement_timeout``, a standby refusing writes, a full disk); the writer connection is opened
anew after one, and every connection is opened with ``CONNECT_TIMEOUT``, its address looked up
again each time (a failover behind the same name). The read pool replaces a closed connection
by itself; after an outage its older connections are not used again.

Everything dialect-specific is here: ``?`` placeholders become ``$1, $2, ...``, a statement's
changed-row count is read from its status, and migrations come from
``bot/storage/migrations/postgresql/``, each applied in one transaction under an advisory lock
(two processes starting at once migrate once).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import ClassVar, TypeVar

import asyncpg

from bot.storage.db import (
    CONNECT_TIMEOUT,
    Database,
    Faults,
    Row,
    TransactionAborted,
    Tx,
    redact_url,
    register_backend,
    unix_now,
)
from bot.storage.errors import StorageError, StorageUnavailable
from bot.storage.migrations import Migration, load_migrations

log = logging.getLogger(__name__)
_T = TypeVar("_T")

READ_POOL_SIZE = 4
# Any number, the same in every process of the bot: the lock migrations are applied under.
MIGRATION_LOCK = 0x706F6B6572  # "poker"
_TOKENS = re.compile(r"'(?:[^']|'')*'|\?")
# Closing connections at exit: a server that does not answer must not hold the stop up.
CLOSE_TIMEOUT = 5.0

# The server's errors that are faults of its own, by SQLSTATE (exact, else its class's two
# first characters): a fault passes by itself; anything else is about the statement.
_FAULT_STATES = {
    "57P01": "connection_lost",  # admin_shutdown: server stopping, or pg_terminate_backend
    "57P02": "connection_lost",  # crash_shutdown
    "57P03": "unreachable",  # cannot_connect_now: starting up, or shutting down
    "57P05": "connection_lost",  # idle_session_timeout
    "25P03": "connection_lost",  # idle_in_transaction_session_timeout
    "57014": "timeout",  # query_canceled: statement_timeout
    "55P03": "timeout",  # lock_not_available: lock_timeout
    "25006": "read_only",  # read_only_sql_transaction: a standby, or a read-only server
    "53100": "disk_full",
    "53300": "overloaded",  # too_many_connections
    "08": "connection_lost",  # connection exception, all of them
    "53": "overloaded",  # insufficient resources: out of memory
    "58": "io_error",  # system error: an I/O error on the server
}


def fault_kind(exc: BaseException) -> str | None:
    """The kind of fault an asyncpg error is (``StorageUnavailable.kind``), or None.

    >>> fault_kind(asyncpg.AdminShutdownError()), fault_kind(asyncpg.QueryCanceledError())
    ('connection_lost', 'timeout')
    >>> fault_kind(ConnectionRefusedError()), fault_kind(asyncpg.UniqueViolationError())
    ('unreachable', None)
    """
    if isinstance(exc, asyncpg.PostgresError):
        state = str(getattr(exc, "sqlstate", "") or "")
        return _FAULT_STATES.get(state) or _FAULT_STATES.get(state[:2])
    if isinstance(exc, asyncpg.InterfaceError):
        # "connection is closed"; other interface errors are a misuse of the driver.
        return "connection_lost" if "closed" in str(exc) else None
    if isinstance(exc, asyncpg.exceptions.InternalClientError) and not isinstance(
        exc, asyncpg.exceptions.OutdatedSchemaCacheError
    ):
        # The protocol's state broke: seen when the server ends a connection that waits in
        # a transaction ("another operation is in progress" at the next statement).
        return "connection_lost"
    if isinstance(exc, OSError):  # refused, reset, no route, no such host, a connect timeout
        lost = isinstance(exc, ConnectionResetError | BrokenPipeError | ConnectionAbortedError)
        return "connection_lost" if lost else "unreachable"
    return None


def connect_fault_kind(exc: BaseException) -> str | None:
    """Opening a connection: every error of the server's or the network's is a fault (a
    server that is starting may answer anything, and an unknown host may be a failover
    in progress)."""
    kind = fault_kind(exc)
    if kind is not None:
        return "unreachable" if kind == "connection_lost" else kind
    if isinstance(exc, asyncpg.PostgresError | asyncpg.InterfaceError | OSError | EOFError):
        return "unreachable"
    return None


FAULTS = Faults(fault_kind)
CONNECT_FAULTS = Faults(connect_fault_kind)


@functools.lru_cache(maxsize=512)
def to_postgres(sql: str) -> str:
    """``?`` placeholders (outside string literals) as ``$1, $2, ...``.

    >>> to_postgres("SELECT ? , 'a?b' WHERE x = ?")
    "SELECT $1 , 'a?b' WHERE x = $2"
    """
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match[0] != "?":
            return match[0]
        count += 1
        return f"${count}"

    return _TOKENS.sub(number, sql)


def _changed(status: str) -> int:
    """The row count of a command status such as ``UPDATE 3`` or ``INSERT 0 1``."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PostgresTx(Tx):
    __slots__ = ("_conn",)

    def __init__(self, conn: asyncpg.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        with FAULTS:
            return _changed(await self._conn.execute(to_postgres(sql), *params))

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        with FAULTS:
            return list(await self._conn.fetch(to_postgres(sql), *params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        with FAULTS:
            await self._conn.executemany(to_postgres(sql), rows)


async def _applied(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_migrations"))


async def _recorded(conn: asyncpg.Connection) -> set[int]:
    exists = await conn.fetchval("SELECT to_regclass('schema_migrations') IS NOT NULL")
    if not exists:
        return set()
    return {int(row[0]) for row in await conn.fetch("SELECT version FROM schema_migrations")}


async def migrate(conn: asyncpg.Connection, migrations: Sequence[Migration]) -> list[int]:
    """Apply the migrations not recorded yet, in order (a smaller number may land after a
    larger one, see ``bot.storage.migrations``); the versions applied."""
    latest = migrations[-1].version if migrations else 0
    applied: list[int] = []
    for migration in migrations:
        try:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
                current = await _applied(conn)
                if current > latest:
                    raise StorageError("schema_too_new", version=current, supported=latest)
                if migration.version in await _recorded(conn):
                    continue
                await conn.execute(migration.sql)
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at)"
                    " VALUES ($1, $2, $3)",
                    migration.version,
                    migration.name,
                    unix_now(),
                )
        except StorageError:
            raise
        except Exception as exc:
            raise StorageError(
                "migration_failed", version=migration.version, name=migration.name, detail=str(exc)
            ) from exc
        log.info("applied migration %04d_%s", migration.version, migration.name)
        applied.append(migration.version)
    return applied


class PostgresDatabase(Database):
    """The database on a PostgreSQL server."""

    backend: ClassVar[str] = "postgresql"

    def __init__(self, url: str, writer: asyncpg.Connection, readers: asyncpg.Pool) -> None:
        super().__init__()
        self.url = url
        self._writer = writer
        self._readers = readers

    @classmethod
    async def connect(
        cls, url: str, *, migrations: Sequence[Migration] | None = None
    ) -> PostgresDatabase:
        try:
            writer = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT)
        except (OSError, asyncpg.PostgresError, ValueError) as exc:
            raise StorageError("database_missing", url=redact_url(url), detail=str(exc)) from exc
        try:
            chosen = load_migrations("postgresql") if migrations is None else migrations
            await migrate(writer, chosen)
            # No floor (min_size 0): the pool would restore one in the background while the
            # server is down, logging a traceback at each try.
            readers = await asyncpg.create_pool(
                url, min_size=0, max_size=READ_POOL_SIZE, timeout=CONNECT_TIMEOUT
            )
        except BaseException:
            await writer.close()
            raise
        return cls(url, writer, readers)

    async def _disconnect(self) -> None:
        try:
            await asyncio.wait_for(self._readers.close(), CLOSE_TIMEOUT)
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            self._readers.terminate()
        try:
            await self._writer.close(timeout=CLOSE_TIMEOUT)
        except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            self._writer.terminate()

    def _writer_closed(self) -> bool:
        return bool(self._writer.is_closed())

    async def _reconnect_writer(self) -> bool:
        with CONNECT_FAULTS:
            fresh = await asyncpg.connect(self.url, timeout=CONNECT_TIMEOUT)
        # Whatever the old one was doing is over: its transaction is rolled back by the
        # server when the connection goes (and the caller holds the write lock).
        old, self._writer = self._writer, fresh
        old.terminate()
        return True

    async def _reconnect_readers(self) -> None:
        # A failover leaves them on the old server: the pool opens new ones as it needs them.
        await self._readers.expire_connections()

    async def _touch(self, tx: Tx) -> None:
        # A transaction id is only given where writes are stored (never on a standby), and
        # its COMMIT is flushed to the server's WAL like any write's.
        await tx.fetchall("SELECT pg_current_xact_id()")

    async def _control(self, sql: str) -> None:
        with FAULTS:
            await self._writer.execute(sql)

    async def _commit(self) -> None:
        # PostgreSQL answers the COMMIT of a transaction that had an error (one a body caught
        # and went on from) with a ROLLBACK, not an error: the caller must not think it stored.
        with FAULTS:
            status = await self._writer.execute("COMMIT")
        if status != "COMMIT":
            raise TransactionAborted(f"COMMIT answered {status}: the transaction had failed")

    def _writer_tx(self) -> Tx:
        return PostgresTx(self._writer)

    def _in_transaction(self) -> bool:
        return bool(self._writer.is_in_transaction())

    async def _one(self, sql: str, params: Sequence[object]) -> list[Row]:
        with FAULTS:
            return list(await self._writer.fetch(to_postgres(sql), *params))

    @asynccontextmanager
    async def _read(self) -> AsyncIterator[Tx]:
        with CONNECT_FAULTS:
            conn = await self._readers.acquire()
        try:
            with FAULTS:
                transaction = conn.transaction(isolation="repeatable_read", readonly=True)
                await transaction.start()
            try:
                yield PostgresTx(conn)
            finally:
                # Read only: ending it changes nothing, and a lost connection ended it already.
                if not conn.is_closed():
                    with contextlib.suppress(Exception):
                        await transaction.rollback()
        finally:
            await self._readers.release(conn)

    async def _fetchall(self, sql: str, params: Sequence[object]) -> list[Row]:
        return await self._on_a_reader(lambda conn: conn.fetch(to_postgres(sql), *params))

    async def _schema_version(self) -> int:
        return await self._on_a_reader(_applied)

    async def _on_a_reader(self, query: Callable[[asyncpg.Connection], Awaitable[_T]]) -> _T:
        """One query on a pooled connection. A query is safe to run twice: one that found its
        connection cut (the pool's, since the server dropped it) runs again on a new one."""
        for attempt in (1, 2):
            with CONNECT_FAULTS:
                conn = await self._readers.acquire()
            try:
                with FAULTS:
                    return await query(conn)
            except StorageUnavailable as exc:
                if attempt == 2 or exc.kind != "connection_lost":
                    raise
            finally:
                await self._readers.release(conn)
        raise AssertionError("unreachable")  # pragma: no cover

    async def continue_ids(self, tx: Tx, table: str, column: str) -> None:
        # An identity column does not look at the rows copied in with their own ids.
        await tx.fetchall(
            "SELECT setval(pg_get_serial_sequence(?, ?),"
            f" COALESCE((SELECT MAX({column}) FROM {table}), 0) + 1, false)",
            (table, column),
        )

    async def table_names(self) -> list[str]:
        rows = await self.fetchall(
            "SELECT table_name FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            " ORDER BY table_name"
        )
        return [str(row[0]) for row in rows]


async def _open(
    url: str, *, synchronous: object = None, migrations: Sequence[Migration] | None = None
) -> PostgresDatabase:
    # ``synchronous`` is SQLite's; PostgreSQL commits durably as the server is configured.
    del synchronous
    return await PostgresDatabase.connect(url, migrations=migrations)


register_backend("postgresql", _open)
