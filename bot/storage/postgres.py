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

Everything dialect-specific is here: ``?`` placeholders become ``$1, $2, ...``, a statement's
changed-row count is read from its status, and migrations come from
``bot/storage/migrations/postgresql/``, each applied in one transaction under an advisory lock
(two processes starting at once migrate once).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import ClassVar

import asyncpg

from bot.storage.db import (
    Database,
    Row,
    TransactionAborted,
    Tx,
    redact_url,
    register_backend,
    unix_now,
)
from bot.storage.errors import StorageError
from bot.storage.migrations import Migration, load_migrations

log = logging.getLogger(__name__)

READ_POOL_SIZE = 4
# Any number, the same in every process of the bot: the lock migrations are applied under.
MIGRATION_LOCK = 0x706F6B6572  # "poker"
_TOKENS = re.compile(r"'(?:[^']|'')*'|\?")


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
        return _changed(await self._conn.execute(to_postgres(sql), *params))

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return list(await self._conn.fetch(to_postgres(sql), *params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
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
            writer = await asyncpg.connect(url)
        except (OSError, asyncpg.PostgresError, ValueError) as exc:
            raise StorageError("database_missing", url=redact_url(url), detail=str(exc)) from exc
        try:
            chosen = load_migrations("postgresql") if migrations is None else migrations
            await migrate(writer, chosen)
            readers = await asyncpg.create_pool(url, min_size=1, max_size=READ_POOL_SIZE)
        except BaseException:
            await writer.close()
            raise
        return cls(url, writer, readers)

    async def _disconnect(self) -> None:
        await self._readers.close()
        await self._writer.close()

    async def _control(self, sql: str) -> None:
        await self._writer.execute(sql)

    async def _commit(self) -> None:
        # PostgreSQL answers the COMMIT of a transaction that had an error (one a body caught
        # and went on from) with a ROLLBACK, not an error: the caller must not think it stored.
        status = await self._writer.execute("COMMIT")
        if status != "COMMIT":
            raise TransactionAborted(f"COMMIT answered {status}: the transaction had failed")

    def _writer_tx(self) -> Tx:
        return PostgresTx(self._writer)

    def _in_transaction(self) -> bool:
        return bool(self._writer.is_in_transaction())

    async def _one(self, sql: str, params: Sequence[object]) -> list[Row]:
        return list(await self._writer.fetch(to_postgres(sql), *params))

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        async with (
            self._readers.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield PostgresTx(conn)

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        async with self._readers.acquire() as conn:
            return list(await conn.fetch(to_postgres(sql), *params))

    async def schema_version(self) -> int:
        async with self._readers.acquire() as conn:
            return await _applied(conn)

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
