"""The database: one storage API over two backends, SQLite (the default) and PostgreSQL.

``Database.open(url)`` picks the backend from the URL: ``sqlite:///./data/poker.db`` (a file,
zero set-up) or ``postgresql://user:pass@host:5432/db`` (one store several processes share).
Every module of ``bot.storage`` is written once against this API, in SQL both backends read
(``?`` placeholders, ``RETURNING``, ``ON CONFLICT``, ``CASE``, explicit ``CAST`` where a
placeholder's type cannot be inferred); each backend keeps its own differences in its own
module (``bot.storage.sqlite``, ``bot.storage.postgres``): connecting, transactions, placeholders,
row counts and migrations.

``write()`` is the only way to change anything: one transaction, committed if the block ends
normally and rolled back otherwise, so a refusal raised inside it (a ``StorageError`` from a
failed check) leaves nothing behind. Write transactions run strictly one after another, through
one lock per process, on both backends. ``read()`` gives several queries one consistent
snapshot.
"""

from __future__ import annotations

import asyncio
import re
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, ClassVar, Literal

from bot.storage.errors import StorageError

# A result row: read by index or by column name (sqlite3.Row and asyncpg.Record both are).
Row = Any
Synchronous = Literal["FULL", "NORMAL"]
MEMORY = ":memory:"


def unix_now() -> int:
    return int(time.time())


def backend_of(url: str) -> str:
    """``"sqlite"`` or ``"postgresql"``, from a database URL.

    >>> backend_of("sqlite:///./data/poker.db"), backend_of("postgresql://u@h/db")
    ('sqlite', 'postgresql')
    """
    if not isinstance(url, str) or not url.strip():
        raise StorageError("bad_database_url", url=repr(url))
    scheme = url.strip().split("://", 1)[0].lower() if "://" in url else ""
    if scheme in ("postgresql", "postgres"):
        return "postgresql"
    if scheme in ("sqlite", "") or url.strip().startswith("sqlite:"):
        return "sqlite"
    raise StorageError("bad_database_url", url=url)


def redact_url(url: str) -> str:
    """The URL without its password, for messages and logs.

    >>> redact_url("postgresql://poker:secret@db:5432/poker")
    'postgresql://poker:***@db:5432/poker'
    """
    return re.sub(r"//([^:/@]+):[^@]*@", r"//\1:***@", url)


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


# Each backend module registers how it opens a database (``bot.storage`` imports them all), so
# this module, which they build on, never imports them.
Opener = Callable[..., Awaitable["Database"]]
_BACKENDS: dict[str, Opener] = {}


def register_backend(name: str, opener: Opener) -> None:
    _BACKENDS[name] = opener


class Tx(ABC):
    """The statements of one transaction (or one snapshot read) on one connection."""

    __slots__ = ()

    @abstractmethod
    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""

    @abstractmethod
    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """Every row; also how to run ``UPDATE ... RETURNING`` (no row: the condition failed)."""

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def scalar(self, sql: str, params: Sequence[object] = ()) -> Any:
        row = await self.fetchone(sql, params)
        return None if row is None else row[0]

    @abstractmethod
    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        """One statement for each of ``rows`` (a bulk copy)."""

    async def insert(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run an ``INSERT ... RETURNING <id>``; the new row's id."""
        row = await self.fetchone(sql, params)
        if row is None:  # pragma: no cover - an INSERT with RETURNING always gives its row
            raise RuntimeError("INSERT gave no row")
        return int(row[0])


class Database(ABC):
    """The open database. Create with ``await Database.open(url)``; ``await db.close()`` at exit."""

    backend: ClassVar[str]

    def __init__(self) -> None:
        self._write_lock = asyncio.Lock()
        self._closed = False

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        synchronous: Synchronous = "NORMAL",
        migrations: Sequence[Any] | None = None,
    ) -> Database:
        """Open and migrate the database at ``url`` (SQLite creates the file and its folder).

        The bot passes its ``DATABASE_URL`` setting (``bot.settings``); storage never reads the
        environment itself. ``synchronous`` applies to SQLite only (see ``bot.storage.sqlite``).
        """
        opener = _BACKENDS[backend_of(url)]
        return await opener(url, synchronous=synchronous, migrations=migrations)

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
        async with self._write_lock, self._transaction() as tx:
            yield tx

    async def write_one(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """One statement as its own transaction (a single statement is atomic on its own).

        Cheaper than ``write()`` (one round trip instead of three) for appends that need no
        second statement; use ``RETURNING`` to learn whether a conditional statement applied.
        """
        async with self._write_lock:
            return await self._one(sql, params)

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    # -- what each backend provides ----------------------------------------------------------

    @abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A write transaction on the writer connection (the caller holds the write lock)."""

    @abstractmethod
    async def _one(self, sql: str, params: Sequence[object]) -> list[Row]:
        """One statement, committed on its own (the caller holds the write lock)."""

    @abstractmethod
    def read(self) -> AbstractAsyncContextManager[Tx]:
        """Several queries that see one committed snapshot of the database."""

    @abstractmethod
    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """One query, read outside any write transaction."""

    @abstractmethod
    async def schema_version(self) -> int:
        """The number of the last migration applied."""

    @abstractmethod
    async def table_names(self) -> list[str]:
        """The schema's tables, by name."""

    @abstractmethod
    async def continue_ids(self, tx: Tx, table: str, column: str) -> None:
        """After rows were copied in with their ids, new rows of ``table`` get ids after them."""

    @abstractmethod
    async def close(self) -> None:
        """Close every connection (waiting for a write in progress)."""
