"""Faults of the database's, made on demand for the tests: a TCP proxy that stands for the
server's name (switched to another server in a failover, cutting connections, losing the answer
to a COMMIT), SQLite errors raised where aiosqlite runs statements, and a stream of chip
transfers whose every outcome is checked against what the database stored."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
import pytest

from bot.storage import Database, StorageError, economy, invariant
from bot.storage.errors import StorageUnavailable

GUILD = 1_000_000_001
HOST = 500
PAYER = 101
PAYEE = 102
FUNDS = 10**9

# The simple-protocol message asyncpg sends for ``execute("COMMIT")``.
COMMIT_MESSAGE = b"Q\x00\x00\x00\x0bCOMMIT\x00"


class TcpProxy:
    """A port on 127.0.0.1 that forwards each connection to ``target`` (a server's port): what
    the bot's ``DATABASE_URL`` names. ``switch`` points it at another server and cuts every
    connection (a failover behind the same name); ``lose_next_commit_answer`` lets the next
    COMMIT through to the server and cuts the connection before its answer comes back."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = 0
        self.commits_cut = 0
        self._lose_commit = False
        self._server: asyncio.Server | None = None
        self._links: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def switch(self, target: int) -> None:
        self.target = target
        self.cut()

    def cut(self) -> None:
        for client, server in list(self._links):
            client.transport.abort()
            server.transport.abort()
        self._links.clear()

    def lose_next_commit_answer(self) -> None:
        self._lose_commit = True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        link = (writer, up_writer)
        self._links.add(link)
        muted = asyncio.Event()

        async def client_to_server() -> None:
            while data := await reader.read(65536):
                if self._lose_commit and COMMIT_MESSAGE in data:
                    self._lose_commit = False
                    muted.set()
                    up_writer.write(data)
                    await up_writer.drain()
                    # Long enough for the server to commit; its answer is never relayed.
                    await asyncio.sleep(0.3)
                    self.commits_cut += 1
                    break
                up_writer.write(data)
                await up_writer.drain()

        async def server_to_client() -> None:
            while data := await up_reader.read(65536):
                if muted.is_set():
                    continue
                writer.write(data)
                await writer.drain()

        pumps = [asyncio.create_task(client_to_server()), asyncio.create_task(server_to_client())]
        self._tasks.update(pumps)
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for pump in pumps:
                pump.cancel()
            await asyncio.gather(*pumps, return_exceptions=True)
            self._tasks.difference_update(pumps)
            self._links.discard(link)
            writer.transport.abort()
            up_writer.transport.abort()


# -- SQLite: errors where aiosqlite runs the statements --------------------------------------

SQLITE_ERRORS = {
    "io_error": (sqlite3.SQLITE_IOERR, "SQLITE_IOERR", "disk I/O error"),
    "disk_full": (sqlite3.SQLITE_FULL, "SQLITE_FULL", "database or disk is full"),
    "cannot_open": (sqlite3.SQLITE_CANTOPEN, "SQLITE_CANTOPEN", "unable to open database file"),
    "read_only": (
        sqlite3.SQLITE_READONLY,
        "SQLITE_READONLY",
        "attempt to write a readonly database",
    ),
}
# Statements that write to the file (a ROLLBACK only throws a transaction's pages away).
_WRITES = ("BEGIN", "INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT", "SAVEPOINT", "RELEASE")


def sqlite_error(kind: str) -> sqlite3.OperationalError:
    """The error SQLite raises for ``kind``, with the codes the sqlite3 module gives it."""
    code, name, message = SQLITE_ERRORS[kind]
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    error.sqlite_errorname = name  # type: ignore[attr-defined]
    return error


class SqliteFaults:
    """SQLite's writes failing: every statement that writes the file raises the error of
    ``kind`` (as SQLite would on a full disk, a failing disk, a read-only file) from the moment
    ``fail`` is called, after ``after`` more writes go through, until ``clear``. Connections
    opened meanwhile fail the same way, since the disk is the same. ``lose_next_commit``: the
    next COMMIT is stored, and then raises (its answer lost)."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, *, only: Database | None = None
    ) -> None:
        # With ``only``, the fault is that database's alone (its connections at the time of
        # each statement): another process on the same file reaches it.
        self.only = only
        self.kind: str | None = None
        self.reads_too = False
        self.passes = 0  # writes still let through before the fault starts
        self.lose_commit: str | None = None
        self.failed = 0  # statements failed so far
        for name in ("execute", "execute_fetchall", "executemany"):
            original = getattr(aiosqlite.Connection, name)
            monkeypatch.setattr(aiosqlite.Connection, name, self._wrap(original))

    def fail(self, kind: str, *, after: int = 0, reads_too: bool = False) -> None:
        self.kind, self.passes, self.reads_too = kind, after, reads_too

    def clear(self) -> None:
        self.kind = None
        self.reads_too = False

    def lose_next_commit(self, kind: str = "io_error") -> None:
        self.lose_commit = kind

    def _wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        faults = self

        async def statement(conn: aiosqlite.Connection, sql: str, *args: Any) -> Any:
            word = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
            writes = word in _WRITES or (word == "PRAGMA" and "=" in sql)
            if faults.lose_commit is not None and word == "COMMIT":
                kind, faults.lose_commit = faults.lose_commit, None
                await original(conn, sql, *args)
                faults.failed += 1
                raise sqlite_error(kind)
            if faults.only is not None and conn not in (
                faults.only._writer,  # type: ignore[attr-defined]
                faults.only._reader,  # type: ignore[attr-defined]
            ):
                return await original(conn, sql, *args)
            if faults.kind is not None and (writes or faults.reads_too):
                if faults.passes > 0 and writes:
                    faults.passes -= 1
                else:
                    faults.failed += 1
                    raise sqlite_error(faults.kind)
            return await original(conn, sql, *args)

        return statement


# -- a stream of transfers, and what must hold of it -------------------------------------------


@dataclass
class Outcomes:
    """What each transfer's caller was told, by its note."""

    amounts: dict[str, int] = field(default_factory=dict)
    told: dict[str, str] = field(default_factory=dict)  # ok, unavailable, maybe, refused
    payer: int = 0  # the wallets before the first transfer
    payee: int = 0

    def count(self, told: str) -> int:
        return sum(1 for value in self.told.values() if value == told)


async def fund(db: Database) -> Outcomes:
    """The payer's wallet filled, the payee's opened; the outcomes of no transfer yet."""
    await economy.ensure_guild(db, GUILD, now=1_000)
    payee = await economy.open_wallet(db, GUILD, PAYEE)
    payer = await economy.grant(db, GUILD, PAYER, FUNDS, actor_id=HOST)
    return Outcomes(payer=payer, payee=payee)


async def transfer_once(db: Database, outcomes: Outcomes, number: int) -> str:
    """One transfer of its own amount and note; what its caller was told."""
    note = f"t{number}"
    amount = number % 997 + 1
    outcomes.amounts[note] = amount
    # Until its caller hears: a transfer cancelled on its way may or may not be stored.
    outcomes.told[note] = "maybe"
    try:
        await economy.transfer(db, GUILD, PAYER, PAYEE, amount, note=note)
    except StorageUnavailable as exc:
        told = "maybe" if exc.maybe_stored else "unavailable"
    except StorageError as exc:
        told = f"refused {exc.code}"
    else:
        told = "ok"
    outcomes.told[note] = told
    return told


async def stream(db: Database, outcomes: Outcomes, stop: asyncio.Event, pause: float) -> None:
    """Transfers one after another until ``stop``."""
    number = len(outcomes.told)
    while not stop.is_set():
        number += 1
        await transfer_once(db, outcomes, number)
        await asyncio.sleep(pause)


async def check_stored(db: Database, outcomes: Outcomes) -> None:
    """Every transfer whose caller was told it was stored is stored once, every one told it
    was not is not, one whose COMMIT answer was lost is stored once or not at all; the wallets
    hold exactly what the stored ones moved, and the chip invariant holds."""
    rows = await db.fetchall(
        "SELECT note, COUNT(*), SUM(amount) FROM ledger WHERE guild_id = ? AND note LIKE 't%'"
        " GROUP BY note",
        (GUILD,),
    )
    stored = {str(r[0]): (int(r[1]), int(r[2])) for r in rows}
    assert set(stored) <= set(outcomes.told), "a transfer nobody asked for is stored"
    for note, told in outcomes.told.items():
        count = stored.get(note, (0, 0))[0]
        if told == "ok":
            assert count == 1, (note, told, count)
        elif told == "maybe":
            assert count in (0, 1), (note, told, count)
        else:
            assert count == 0, (note, told, count)
    moved = sum(outcomes.amounts[note] for note in stored)
    assert await economy.balance(db, GUILD, PAYEE) == outcomes.payee + moved
    assert await economy.balance(db, GUILD, PAYER) == outcomes.payer - moved
    report = await invariant.check_invariant(db)
    assert report.ok, report


class Transitions:
    """The health changes a listener saw, in order."""

    def __init__(self, db: Database) -> None:
        self.seen: list[bool] = []
        self.stop = db.health.subscribe(self.seen.append)


@contextlib.asynccontextmanager
async def background(coro: Any) -> Any:
    """Run ``coro`` beside the block; it must end by itself when the block ends (the block
    tells it to), and is cancelled only if the block failed."""
    task = asyncio.ensure_future(coro)
    try:
        yield task
    except BaseException:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        raise
    await asyncio.wait_for(task, 30)
