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
failed check) leaves nothing behind. Write transactions run strictly one after another on one
writer connection per process, on both backends. ``read()`` gives several queries one
consistent snapshot.

Group commit. A commit is the expensive part of a small transaction (an fsync on PostgreSQL, a
WAL append and now and then a checkpoint on SQLite), and with every table of the process behind
one writer, a queue of transactions each paying its own commit is what makes acknowledgements
slow under load. So when transactions are waiting, the writer runs several of them in one
``BEGIN .. COMMIT``: the first as is, each later one inside its own ``SAVEPOINT`` (a body that
raises is rolled back to its savepoint and released, and the others stand), and every caller's
``write()`` returns only once the shared ``COMMIT`` succeeded. If that ``COMMIT`` or the
connection fails, every caller of the batch gets the error and nothing of the batch is stored:
all-or-nothing for the batch, and still all-or-nothing for each transaction, which is what
callers rely on (an action is acknowledged only after ``write()`` returned). A transaction that
finds the writer idle runs exactly as it would alone (``BEGIN``, body, ``COMMIT``; one
autocommitted statement for ``write_one``), so a quiet bot pays nothing for batching. The batch
is committed as soon as nobody waits, or at ``max_batch`` transactions, or ``max_batch_delay``
after its ``BEGIN`` (the figures behind those defaults are in ``bench.writer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import TracebackType
from typing import Any, ClassVar, Literal

from bot.metrics import NO_METRICS, Metrics
from bot.storage.errors import StorageError, StorageUnavailable
from bot.storage.health import StorageHealth

log = logging.getLogger(__name__)

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


# A batch never holds more transactions than this. PostgreSQL keeps the ids of a transaction's
# first 64 subtransactions (savepoints that wrote) in shared memory; past that, every snapshot
# of every connection has to look them up on disk (the "subtransaction overflow" slowdown).
# The first transaction of a batch needs no savepoint, so 64 stays within it.
MAX_BATCH = 64
# How long after its BEGIN a batch stops taking more transactions (seconds): the first
# caller of a batch waits for every body after his, so this bounds what batching adds to his
# wait. The cap binds only while transactions keep queueing, that is when the writer is
# saturated; then a cap shorter than a COMMIT spends the writer's time committing. A durable
# PostgreSQL COMMIT (a WAL flush) takes 2 to 15 ms on the project's machines; in
# ``python -m bench.writer --sweep 200`` (PostgreSQL, 1,000 tables, 200 actions/s, a loaded
# machine) a 0.5 ms cap gave 2.2 transactions a commit and p50 794 ms, 8 ms gave 5.5 and
# 437 ms, 32 ms gave 10.7 and 315 ms; below saturation (100 actions/s) the caps did not differ
# beyond the noise (p50 12 to 13 ms). SQLite's COMMIT in WAL mode is cheap (no fsync with
# synchronous=NORMAL), so there the cap seldom binds. 8 ms: well past a COMMIT, and a small
# part of the 100 ms an acknowledgement may take.
MAX_BATCH_DELAY = 0.008

# Reconnecting while the database is down: the first try this long after the fault, each next
# one twice as long after the last, never more than RECONNECT_MAX apart (seconds). The cap is
# how late a database that came back is seen at worst, and one connection attempt a second is
# nothing to a server.
RECONNECT_FIRST = 0.05
RECONNECT_MAX = 1.0
# How long opening a connection may take before the server counts as unreachable (an address
# that drops packets would otherwise hold a reconnection for minutes).
CONNECT_TIMEOUT = 5.0
# How long one reconnection and its test write may take, in all.
PROBE_TIMEOUT = 10.0
# A check of writes (``Database.check_writes``) trusts a commit this recent instead of writing.
CHECK_FRESH = 2.0
# How much of a driver's error message a fault keeps, for the log.
DETAIL_LENGTH = 200

# What a backend says of a driver error: the ``StorageUnavailable.kind`` of a fault of the
# database's, or None for anything else (a constraint, a bug), which passes unchanged.
Classifier = Callable[[BaseException], "str | None"]


def fault_detail(exc: BaseException) -> str:
    """A driver error in a few words, for the log (never a password: drivers do not put one
    in their messages, and connection strings are not part of them)."""
    text = str(exc).strip().replace("\n", " ")
    name = type(exc).__name__
    return (f"{name}: {text}" if text else name)[:DETAIL_LENGTH]


class Faults:
    """``with faults:`` around a driver call: an error the backend's classifier calls a fault
    of the database's leaves as ``StorageUnavailable`` (caused by it); any other error passes
    unchanged. A class, not a generator, since it wraps every statement."""

    __slots__ = ("classify",)

    def __init__(self, classify: Classifier) -> None:
        self.classify = classify

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is None or not isinstance(exc, Exception) or isinstance(exc, StorageError):
            return
        fault = self.classify(exc)
        if fault is not None:
            raise StorageUnavailable(fault, detail=fault_detail(exc)) from exc


class _OutcomeUnknown:
    """Around a COMMIT (or a statement committed on its own): a fault there may have cut off
    the answer of a commit that happened, so the error says the transaction may be stored."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, StorageUnavailable) and not exc.noted:
            exc.maybe_stored = True


_OUTCOME_UNKNOWN = _OutcomeUnknown()


class DatabaseClosed(RuntimeError):
    """A write submitted after ``close()`` began (those submitted before it are run first)."""


class TransactionAborted(RuntimeError):
    """The database ended the open transaction by itself (an SQLite error such as a full disk,
    or ``RAISE(ROLLBACK)``, rolls back the whole transaction; a PostgreSQL ``COMMIT`` of a
    transaction that had failed only rolls it back): nothing of the batch was stored."""


class WriterStats:
    """What the writer did since the database was opened: how many write transactions ran
    (``write()`` blocks and ``write_one()`` statements, refused ones included) and how many
    commits stored them. Under load ``commits`` falls behind ``transactions``: that gap is the
    group commit at work, which the tests and ``bench.writer`` read here."""

    __slots__ = ("batches", "commits", "failed_batches", "largest_batch", "transactions")

    def __init__(self) -> None:
        self.transactions = 0
        self.commits = 0
        self.batches = 0  # commits that stored more than one transaction
        self.largest_batch = 0
        self.failed_batches = 0  # batches whose COMMIT (or connection) failed

    def __repr__(self) -> str:
        return (
            f"WriterStats(transactions={self.transactions}, commits={self.commits},"
            f" batches={self.batches}, largest_batch={self.largest_batch},"
            f" failed_batches={self.failed_batches})"
        )


def _settle(future: asyncio.Future[Any], value: object) -> None:
    # The other side may have gone (a cancelled caller cancels the future it awaited).
    if not future.done():
        future.set_result(value)


class _Turn:
    """A write transaction waiting for the writer. ``done`` answers its caller: the result once
    the batch committed, or the error."""

    __slots__ = ("done",)

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.done: asyncio.Future[Any] = loop.create_future()

    @property
    def gone(self) -> bool:
        """The caller stopped waiting before his turn came: skip it."""
        return self.done.cancelled()

    def succeed(self, value: object) -> None:
        _settle(self.done, value)

    def fail(self, exc: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(exc)


class _Statement(_Turn):
    """A ``write_one``: the writer runs the statement itself (no trip to the caller's task)."""

    __slots__ = ("params", "rows", "sql")

    def __init__(self, loop: asyncio.AbstractEventLoop, sql: str, params: Sequence[object]) -> None:
        super().__init__(loop)
        self.sql = sql
        self.params = params
        self.rows: list[Row] = []


class _Body(_Turn):
    """A ``write()`` block: it runs in its caller's task when the writer grants the turn, and
    the writer waits for it to end before running anything else on the connection."""

    __slots__ = ("ended", "granted")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop)
        self.granted: asyncio.Future[None] = loop.create_future()
        # How the body ended: None, or what it raised (a result, not an exception, so that an
        # ordinary refusal is not reported as an exception nobody retrieved).
        self.ended: asyncio.Future[BaseException | None] = loop.create_future()

    @property
    def gone(self) -> bool:
        return self.granted.cancelled()

    @property
    def raised(self) -> bool:
        return self.ended.done() and not self.ended.cancelled() and self.ended.result() is not None

    def fail(self, exc: BaseException) -> None:
        if not self.granted.done():
            self.granted.set_exception(exc)
        elif not self.raised:
            # A body that raised has gone with its own error; the others wait on ``done``.
            super().fail(exc)

    def abandon(self, exc: BaseException) -> None:
        """The caller was cancelled waiting for his turn. If the turn had just been granted the
        writer is waiting for this body: it ended before it began."""
        granted = self.granted
        if granted.done() and not granted.cancelled() and granted.exception() is None:
            _settle(self.ended, exc)


class Database(ABC):
    """The open database. Create with ``await Database.open(url)``; ``await db.close()`` at exit.

    ``group_commit`` (on by default) lets waiting write transactions share one commit; off,
    each one commits on its own as it always did (``bench.writer`` compares the two in one run).

    Faults. A fault of the database's (the server stopped or restarted, a connection cut or
    terminated, a statement cancelled by the server's timeout, a standby that takes no writes, a
    full disk, an I/O error, a file that cannot be opened or written) reaches the caller as
    ``StorageUnavailable``, a ``StorageError``: the transaction is rolled back (or, on a lost
    connection, rolled back by the server) and nothing of it is stored, unless the fault cut off
    the answer to its COMMIT (``maybe_stored``). No write is ever run twice: the caller reads
    back what is stored. The fault takes ``health`` down; from then on writes are refused at once
    (``StorageUnavailable``, nothing asked of the database) while a probe reconnects with backoff
    (``RECONNECT_FIRST`` doubling up to ``RECONNECT_MAX``): every connection is opened anew, the
    writer's included, the server's address looked up again (a failover behind the same name),
    and a harmless write is committed; when it is, ``health`` is up and writes go on. Reads are
    not refused while down (a full disk still reads); their connections come back on their own.
    """

    backend: ClassVar[str]
    # The statement that opens a write transaction.
    _begin_sql: ClassVar[str] = "BEGIN"
    # Whether a failed statement undoes only itself and leaves the transaction open (SQLite), so
    # a ``write_one`` in a batch needs no savepoint; on PostgreSQL any error aborts the whole
    # transaction until it is rolled back to a savepoint.
    _statement_error_keeps_transaction: ClassVar[bool] = False

    def __init__(self) -> None:
        self._write_lock = asyncio.Lock()
        self._closed = False
        self.group_commit = True
        self.max_batch = MAX_BATCH
        self.max_batch_delay = MAX_BATCH_DELAY
        self.writer_stats = WriterStats()
        # Whether writes work now, and who waits for them to (see ``bot.storage.health``).
        self.health = StorageHealth()
        self.reconnect_first = RECONNECT_FIRST
        self.reconnect_max = RECONNECT_MAX
        self.probe_timeout = PROBE_TIMEOUT
        self._probe_task: asyncio.Task[None] | None = None
        self._metrics: Metrics = NO_METRICS
        self._queue: deque[_Turn] = deque()
        self._writer_task: asyncio.Task[None] | None = None

    @property
    def metrics(self) -> Metrics:
        """What the operator's metrics are told (``bot.metrics``): nothing unless the bot turns
        them on."""
        return self._metrics

    @metrics.setter
    def metrics(self, metrics: Metrics) -> None:
        self._metrics = metrics
        metrics.storage_up(self.health.available)

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
        already run in it, which is what makes "bad input changes nothing" hold. When this
        returns, the transaction is committed (with the batch it shared a commit with). While
        ``health`` is down it raises ``StorageUnavailable`` at once, before the block runs.
        """
        if not self.health.available:
            raise self.health.refusal()
        asked = time.monotonic()
        try:
            if not self._must_queue():
                self.writer_stats.transactions += 1
                async with self._write_lock:
                    await self._writer_ready()
                    async with self._transaction() as tx:
                        yield tx
                self._committed(asked, 1)
                return
            turn = _Body(asyncio.get_running_loop())
            self._submit(turn)
            try:
                await turn.granted
            except BaseException as exc:
                turn.abandon(exc)
                raise
            try:
                yield self._writer_tx()
            except BaseException as exc:
                # The writer rolls the body back; its caller need not wait for that, as nothing
                # of it can be committed any more.
                _settle(turn.ended, exc)
                raise
            _settle(turn.ended, None)
            # Cancelled here, the caller is not told; the transaction commits with its batch or
            # not at all, as a cancellation during a lone COMMIT always left it undecided too.
            await turn.done
            self.metrics.transaction(time.monotonic() - asked)
        except StorageUnavailable as exc:
            self._note_fault(exc)
            raise

    async def write_one(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """One statement as its own transaction (a single statement is atomic on its own).

        Cheaper than ``write()`` (one round trip instead of three) for appends that need no
        second statement; use ``RETURNING`` to learn whether a conditional statement applied.
        When the writer is busy it joins the next batch like any ``write()``.
        """
        if not self.health.available:
            raise self.health.refusal()
        asked = time.monotonic()
        try:
            if not self._must_queue():
                self.writer_stats.transactions += 1
                async with self._write_lock:
                    await self._writer_ready()
                    with _OUTCOME_UNKNOWN:
                        rows = await self._one(sql, params)
                self._committed(asked, 1)
                return rows
            turn = _Statement(asyncio.get_running_loop(), sql, params)
            self._submit(turn)
            answer: list[Row] = await turn.done
        except StorageUnavailable as exc:
            self._note_fault(exc)
            raise
        self.metrics.transaction(time.monotonic() - asked)
        return answer

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        """Several queries that see one committed snapshot of the database."""
        try:
            async with self._read() as tx:
                yield tx
        except StorageUnavailable as exc:
            self._note_fault(exc, writing=False)
            raise

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        """One query, read outside any write transaction."""
        try:
            return await self._fetchall(sql, params)
        except StorageUnavailable as exc:
            self._note_fault(exc, writing=False)
            raise

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def schema_version(self) -> int:
        """The number of the last migration applied."""
        try:
            return await self._schema_version()
        except StorageUnavailable as exc:
            self._note_fault(exc, writing=False)
            raise

    async def check_writes(self, *, within: float = CHECK_FRESH) -> bool:
        """Whether writes work now, for a readiness probe: False at once while ``health`` is
        down; True at once if a write committed in the last ``within`` seconds; else one
        harmless write is committed to find out (a fault takes ``health`` down)."""
        if not self.health.available:
            return False
        if time.monotonic() - self.health.last_write < within:
            return True
        try:
            async with self.write() as tx:
                await self._touch(tx)
        except StorageUnavailable:
            return False
        return True

    async def close(self) -> None:
        """Close every connection. Transactions submitted before are run and committed first
        (a batch open now commits); those submitted from now on raise ``DatabaseClosed``."""
        if self._closed:
            return
        self._closed = True
        probe = self._probe_task
        if probe is not None:
            probe.cancel()
            await asyncio.wait({probe})
            self._probe_task = None
        writer = self._writer_task
        if writer is not None:
            # wait(), not await: close() must go on whatever became of the writer.
            await asyncio.wait({writer})
        async with self._write_lock:
            await self._disconnect()

    # -- faults and reconnection ----------------------------------------------------------------

    def _committed(self, asked: float, transactions: int) -> None:
        now = time.monotonic()
        self.health.last_write = now
        self.writer_stats.commits += 1
        self.metrics.commit(transactions)
        self.metrics.transaction(now - asked)

    def _note_fault(self, fault: StorageUnavailable, *, writing: bool = True) -> None:
        """A transaction met ``fault``: count it, and take ``health`` down unless it was a read
        the server cancelled (a slow report says nothing of writes)."""
        if fault.noted or self._closed:
            return
        fault.noted = True
        self.metrics.storage_fault(fault.kind)
        if not writing and fault.kind == "timeout":
            return
        if self.health.went_down(fault):
            self.metrics.storage_up(False)
        if self._probe_task is None:
            self._probe_task = asyncio.get_running_loop().create_task(
                self._recover(), name="storage-probe"
            )

    async def _writer_ready(self) -> None:
        """Before a write on the writer (the caller holds the write lock): refused while down; a
        writer connection found closed (its server dropped it while idle) is opened again."""
        if not self.health.available:
            raise self.health.refusal()
        if self._writer_closed() and await self._reconnect_writer():
            self.metrics.storage_reconnected()

    async def _recover(self) -> None:
        """The probe: while ``health`` is down, reconnect and commit a harmless write, with
        backoff, until it works; then ``health`` is up."""
        delay = self.reconnect_first
        bug_logged = False
        try:
            while not self._closed and not self.health.available:
                await asyncio.sleep(delay)
                delay = min(self.reconnect_max, delay * 2)
                try:
                    async with asyncio.timeout(self.probe_timeout):
                        await self._reconnect_and_probe()
                except StorageUnavailable as exc:
                    self.health.went_down(exc)
                    self.health.still_down()
                    continue
                except TimeoutError:
                    self.health.went_down(
                        StorageUnavailable(
                            "timeout", detail=f"no answer to a test write in {self.probe_timeout} s"
                        )
                    )
                    self.health.still_down()
                    continue
                except Exception:
                    if not bug_logged:
                        bug_logged = True
                        log.exception("storage: the reconnection failed unexpectedly")
                    continue
                if self._closed:
                    return
                self.health.came_back()
                self.metrics.storage_up(True)
        finally:
            self._probe_task = None

    async def _reconnect_and_probe(self) -> None:
        async with self._write_lock:
            if self._closed:
                return
            if await self._reconnect_writer():
                self.metrics.storage_reconnected()
            async with self._transaction() as tx:
                await self._touch(tx)
            self.health.last_write = time.monotonic()
        await self._reconnect_readers()

    # -- the group commit ---------------------------------------------------------------------

    def _must_queue(self) -> bool:
        """Whether a new write goes through the writer's queue: with group commit on, unless
        the writer is idle (then it runs at once, as without group commit, at no extra cost)."""
        return self.group_commit and (
            self._closed or self._writer_task is not None or self._write_lock.locked()
        )

    def _submit(self, turn: _Turn) -> None:
        if self._closed:
            raise DatabaseClosed("the database is closed")
        self._queue.append(turn)
        if self._writer_task is None:
            self._writer_task = asyncio.get_running_loop().create_task(self._drain())

    def _next_turn(self) -> _Turn | None:
        while self._queue:
            turn = self._queue.popleft()
            if not turn.gone:
                self.writer_stats.transactions += 1
                return turn
        return None

    async def _drain(self) -> None:
        """The writer: batches until the queue is empty, then it ends (the next write to find
        the writer busy starts another), so an idle database has no task to stop."""
        try:
            while self._queue:
                # Held for the whole batch: the writer connection is the batch's, and with an
                # in-memory SQLite database (one connection) reads share this lock and must
                # not see, or break into, a transaction still open.
                async with self._write_lock:
                    await self._batch()
        except BaseException as exc:
            # Only a bug or the event loop shutting down gets here: nobody may wait forever.
            while self._queue:
                self._queue.popleft().fail(DatabaseClosed(f"the writer stopped: {exc!r}"))
            raise
        finally:
            self._writer_task = None

    async def _batch(self) -> None:
        """Run queued transactions in one BEGIN .. COMMIT (or one alone, as it always ran)."""
        turn = self._next_turn()
        if turn is None:
            return
        members: list[_Turn] = []  # the transactions whose work the batch holds
        try:
            try:
                await self._writer_ready()
            except StorageUnavailable as exc:
                self._note_fault(exc)
                turn.fail(exc)
                return
            if isinstance(turn, _Statement) and not self._queue:
                try:
                    with _OUTCOME_UNKNOWN:
                        turn.rows = await self._one(turn.sql, turn.params)
                except Exception as exc:
                    if isinstance(exc, StorageUnavailable):
                        self._note_fault(exc)
                    turn.fail(exc)
                    return
                members.append(turn)
            else:
                try:
                    await self._open_transaction()
                except Exception as exc:
                    if isinstance(exc, StorageUnavailable):
                        self._note_fault(exc)
                    turn.fail(exc)
                    return
                # The first transaction needs no savepoint: if it fails, the batch holds
                # nothing else yet, and rolling all back costs less than a savepoint each time.
                if not await self._run(turn, None):
                    await self._rollback_quietly()
                    return
                members.append(turn)
                started, number = time.monotonic(), 0
                while (
                    len(members) < self.max_batch
                    and time.monotonic() - started < self.max_batch_delay
                ):
                    self._check_transaction_open()
                    next_turn = self._next_turn()
                    if next_turn is None:
                        break
                    turn, number = next_turn, number + 1
                    if await self._run(turn, f"gc{number}"):
                        members.append(turn)
                self._check_transaction_open()
                with _OUTCOME_UNKNOWN:
                    await self._commit()
        except BaseException as exc:
            self.writer_stats.failed_batches += 1
            await self._rollback_quietly()
            failure = exc if isinstance(exc, Exception) else DatabaseClosed("writer cancelled")
            if isinstance(failure, StorageUnavailable):
                self._note_fault(failure)
            for member in (*members, turn):
                member.fail(failure)
            if failure is not exc:
                raise
            return
        self.health.last_write = time.monotonic()
        stats = self.writer_stats
        stats.commits += 1
        self.metrics.commit(len(members))
        if len(members) > 1:
            stats.batches += 1
            stats.largest_batch = max(stats.largest_batch, len(members))
        for member in members:
            member.succeed(member.rows if isinstance(member, _Statement) else None)

    async def _run(self, turn: _Turn, savepoint: str | None) -> bool:
        """Run one queued transaction in the open batch: whether its work is kept. Raises only
        when the batch as a whole can no longer commit (a fault of the database's, met by this
        transaction or by the batch's own statements, ends the batch).

        A kept transaction's savepoint is not released: COMMIT releases them all, and a
        RELEASE would cost one more round trip on the writer for every transaction. A later
        transaction that fails rolls back to its own savepoint only, which the earlier ones
        precede."""
        if isinstance(turn, _Statement):
            if self._statement_error_keeps_transaction:
                savepoint = None
            if savepoint is not None:
                await self._control(f"SAVEPOINT {savepoint}")
            try:
                turn.rows = await self._writer_tx().fetchall(turn.sql, turn.params)
            except StorageUnavailable:
                raise
            except Exception as exc:
                turn.fail(exc)  # nothing of it will be stored, whatever becomes of the batch
                if savepoint is not None:
                    await self._undo(savepoint)
                return False
            return True
        assert isinstance(turn, _Body)
        if savepoint is not None:
            await self._control(f"SAVEPOINT {savepoint}")
        if turn.gone:  # cancelled while the savepoint was being made
            if savepoint is not None:
                await self._undo(savepoint)
            return False
        turn.granted.set_result(None)
        error = await turn.ended
        if isinstance(error, StorageUnavailable):
            # Its caller has his error already; the others get one of their own.
            fault = StorageUnavailable(error.kind, detail=error.detail)
            fault.noted = True
            raise fault
        if error is not None:
            if savepoint is not None:
                await self._undo(savepoint)
            return False
        return True

    async def _undo(self, savepoint: str) -> None:
        await self._control(f"ROLLBACK TO SAVEPOINT {savepoint}")
        await self._control(f"RELEASE SAVEPOINT {savepoint}")

    def _check_transaction_open(self) -> None:
        if not self._in_transaction():
            raise TransactionAborted("the database rolled the transaction back")

    # -- one transaction at a time, from the backends' hooks ----------------------------------

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[Tx]:
        """A write transaction on the writer connection (the caller holds the write lock)."""
        await self._open_transaction()
        try:
            yield self._writer_tx()
            with _OUTCOME_UNKNOWN:
                await self._commit()
        except BaseException:
            # Each backend runs the writer's statements in order, so this ROLLBACK runs after
            # any statement of ours still under way, and before the next BEGIN.
            await self._rollback_quietly()
            raise

    async def _open_transaction(self) -> None:
        """BEGIN. A writer connection its server closed while it was idle may be noticed only
        now: a BEGIN that failed so did nothing, so it is sent once more on a new connection
        (a connection cut later, after a statement, is not: that transaction fails)."""
        try:
            await self._begin()
        except StorageUnavailable as exc:
            if exc.kind != "connection_lost" or not self.health.available:
                raise
            if not await self._reconnect_writer():
                raise
            self.metrics.storage_reconnected()
            await self._begin()

    async def _begin(self) -> None:
        await self._control(self._begin_sql)

    async def _commit(self) -> None:
        await self._control("COMMIT")

    async def _rollback_quietly(self) -> None:
        # The database may have rolled back already (some errors do that), or the connection
        # be gone: either way nothing of the transaction is left to undo.
        with contextlib.suppress(Exception):
            await self._control("ROLLBACK")

    # -- what each backend provides ----------------------------------------------------------

    @abstractmethod
    async def _control(self, sql: str) -> None:
        """Run a transaction-control statement (BEGIN, SAVEPOINT, ...) on the writer."""

    @abstractmethod
    def _writer_tx(self) -> Tx:
        """The statements of the open write transaction, on the writer connection."""

    @abstractmethod
    def _in_transaction(self) -> bool:
        """Whether the writer connection has a transaction open (no round trip)."""

    @abstractmethod
    async def _one(self, sql: str, params: Sequence[object]) -> list[Row]:
        """One statement, committed on its own (the caller holds the write lock)."""

    @abstractmethod
    async def _disconnect(self) -> None:
        """Close every connection (the caller holds the write lock, the writer has stopped)."""

    def _writer_closed(self) -> bool:
        """Whether the writer connection is known closed (its server dropped it)."""
        return False

    @abstractmethod
    async def _reconnect_writer(self) -> bool:
        """Open a new writer connection in place of the old one, which is closed (the caller
        holds the write lock); False when there is none to open (an in-memory database).
        Raises ``StorageUnavailable`` if it cannot, keeping the old."""

    @abstractmethod
    async def _reconnect_readers(self) -> None:
        """After an outage: read connections opened before it are not used again."""

    @abstractmethod
    async def _touch(self, tx: Tx) -> None:
        """A harmless write in ``tx`` that the database must really store (the probe's): it
        fails where the writes of the game would."""

    @abstractmethod
    def _read(self) -> AbstractAsyncContextManager[Tx]:
        """Several queries on one committed snapshot (faults as ``StorageUnavailable``)."""

    @abstractmethod
    async def _fetchall(self, sql: str, params: Sequence[object]) -> list[Row]:
        """One query outside any write transaction (faults as ``StorageUnavailable``)."""

    @abstractmethod
    async def _schema_version(self) -> int:
        """The number of the last migration applied."""

    @abstractmethod
    async def table_names(self) -> list[str]:
        """The schema's tables, by name."""

    @abstractmethod
    async def continue_ids(self, tx: Tx, table: str, column: str) -> None:
        """After rows were copied in with their ids, new rows of ``table`` get ids after them."""
