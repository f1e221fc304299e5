"""The operator's endpoint: ``/metrics``, ``/healthz`` and ``/readyz`` on one port
(``METRICS_PORT``; off unless it is set).

It runs in a thread of its own, with its own event loop: a probe must get an answer when the
bot's event loop is stuck, since that is exactly what ``/healthz`` is there to say. Whatever it
needs from the bot it asks on the bot's loop, with a deadline.

- ``/healthz``, liveness: 200 while the bot's event loop keeps its :class:`Heartbeat` (a task
  waking every second); 503 once the loop has not woken it for more than ``HEALTH_MAX_LAG``
  seconds. An orchestrator restarts the process on it.
- ``/readyz``, readiness: 200 when the checks the bot gives (``PokerBot.readiness``: the
  gateway connected, the database answering, this process's leases held and none of its
  servers run by another process) all pass on the bot's loop within two seconds; else 503
  with one line per reason.
- ``/metrics``: the Prometheus exposition (``bot.metrics``). The gauges of what is open are
  read on the bot's loop first; if it does not answer within a second, the counters are served
  as they stand.

The endpoint is the operator's, not the internet's. It listens on ``127.0.0.1`` unless
``METRICS_HOST`` says otherwise, and says so at start-up with a warning when it does. Whoever
reaches the port still cannot make it cost the bot anything:

- it speaks just enough HTTP/1.1 for a scraper and a probe: one ``GET`` (or ``HEAD``) a
  connection, answered and closed. A request line or header over 8 KB, more than
  ``MAX_HEADERS`` headers, or anything that is not such a request is answered 400;
- it holds at most ``MAX_CONNECTIONS`` connections at once and takes no more until one ends
  (the rest wait in the system's queue, costing the process no file descriptor), and gives
  each ``READ_DEADLINE`` seconds to send its request;
- what it refuses is counted (``poker_ops_requests_refused_total{reason}``: ``malformed``,
  ``timeout``, ``accept_failed``) and logged in one WARNING line at most once a minute, never
  with a traceback.

aiohttp's server is not used for this: it logs each request it cannot parse with a traceback
at ERROR and takes every connection offered.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, TypeVar

from bot.metrics import Metrics

log = logging.getLogger(__name__)
T = TypeVar("T")

READY_TIMEOUT = 2.0
REFRESH_TIMEOUT = 1.0
STOP_TIMEOUT = 5.0
# A connection's scrape that is under way when the endpoint stops gets this long to finish.
STOP_GRACE = 1.0

# What one client may cost. A scraper or a probe sends one short GET with a few headers and
# reads a few tens of KB; nothing legitimate comes near these.
MAX_CONNECTIONS = 64
BACKLOG = 64
READ_DEADLINE = 5.0
WRITE_DEADLINE = 5.0
LINE_LIMIT = 8 * 1024
MAX_HEADERS = 100
# After a 400 the rest of what the client sent is read and dropped (up to this much, for up to
# this long) before the connection closes: closing on unread data resets the connection, and
# the client would lose the answer.
LINGER_BYTES = 256 * 1024
LINGER_SECONDS = 1.0
LOG_EVERY = 60.0

Route = Callable[[Mapping[str, str]], Awaitable["Answer"]]


class BotLoopGone(Exception):
    """The bot's event loop has stopped: what the endpoint asked of it will never be done."""


class Malformed(Exception):
    """A request the endpoint cannot read; the message says why, for the log."""


@dataclass(frozen=True, slots=True)
class Answer:
    """An HTTP answer: its status, its body and the body's type, and any further headers."""

    status: int
    body: bytes
    content_type: str = "text/plain; charset=utf-8"
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def text(cls, text: str, status: int = 200) -> Answer:
        return cls(status, text.encode())

    def encode(self, with_body: bool = True) -> bytes:
        lines = [
            f"HTTP/1.1 {self.status} {HTTPStatus(self.status).phrase}",
            f"Content-Type: {self.content_type}",
            f"Content-Length: {len(self.body)}",
            "Connection: close",
            *(f"{name}: {value}" for name, value in self.headers),
        ]
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        return head + self.body if with_body else head


class Heartbeat:
    """The event loop's pulse: a task that wakes every ``interval`` seconds and notes when it
    did, and how late (``on_lag``)."""

    def __init__(
        self,
        interval: float = 1.0,
        *,
        on_lag: Callable[[float], None] = lambda seconds: None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self._on_lag = on_lag
        self._monotonic = monotonic
        self.last = monotonic()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.last = self._monotonic()
        self._task = asyncio.create_task(self._beat(), name="heartbeat")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _beat(self) -> None:
        while True:
            due = self._monotonic() + self.interval
            await asyncio.sleep(self.interval)
            self.last = self._monotonic()
            self._on_lag(max(0.0, self.last - due))

    def silent_for(self, now: float | None = None) -> float:
        """How long past its time the next beat is: 0 while the loop keeps time.

        >>> clock = iter([0.0, 1.5, 12.0]).__next__
        >>> beat = Heartbeat(1.0, monotonic=clock)
        >>> beat.silent_for(), beat.silent_for()
        (0.5, 11.0)
        """
        now = self._monotonic() if now is None else now
        return max(0.0, now - self.last - self.interval)


class OpsServer:
    """``/metrics``, ``/healthz`` and ``/readyz`` on ``host:port`` (port 0: any free one; read
    ``port`` once started); what it refuses is counted in ``metrics``."""

    def __init__(
        self,
        metrics: Metrics,
        readiness: Callable[[], Coroutine[Any, Any, list[str]]],
        *,
        host: str,
        port: int,
        max_lag: float,
        heartbeat: Heartbeat | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.metrics = metrics
        self.readiness = readiness
        self.host = host
        self.max_lag = max_lag
        self.heartbeat = (
            heartbeat
            if heartbeat is not None
            else Heartbeat(min(1.0, max_lag / 4), on_lag=metrics.loop_lag)
        )
        self._monotonic = monotonic
        self._requested_port = port
        self._port: int | None = None
        self._main: asyncio.AbstractEventLoop | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._routes: dict[str, Route] = {
            "/metrics": self._metrics,
            "/healthz": self._healthz,
            "/readyz": self._readyz,
        }
        self._logged_at: float | None = None
        self._unlogged = 0

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the endpoint is not serving")
        return self._port

    async def start(self) -> None:
        """Serve from now on (raises if the port cannot be had: a bot the operator believes
        watched must not run unwatched)."""
        self._main = asyncio.get_running_loop()
        self.heartbeat.start()
        started = threading.Event()
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._serve(started),), name="ops-endpoint", daemon=True
        )
        self._thread.start()
        await asyncio.to_thread(started.wait)
        if self._error is not None:
            self.heartbeat.stop()
            raise self._error

    async def stop(self) -> None:
        """Stop serving: answers under way get ``STOP_GRACE`` seconds, the rest are closed."""
        self.heartbeat.stop()
        loop, stopping, thread = self._loop, self._stopping, self._thread
        self._loop = self._stopping = self._thread = None
        if loop is not None and stopping is not None:
            with contextlib.suppress(RuntimeError):  # its loop has ended already
                loop.call_soon_threadsafe(stopping.set)
        if thread is not None:
            await asyncio.to_thread(thread.join, STOP_TIMEOUT)
        self._port = None

    def refuse(self, reason: str, detail: str, peer: str) -> None:
        """Count a refused request and log it: the first at once, then one line a minute at
        most, telling how many were refused since the last line and why the latest was."""
        self.metrics.ops_refused(reason)
        self._unlogged += 1
        now = self._monotonic()
        if self._logged_at is not None and now - self._logged_at < LOG_EVERY:
            return
        if self._logged_at is None:
            log.warning(
                "metrics endpoint: refused a request from %s: %s (refusals are counted in"
                " poker_ops_requests_refused_total and logged at most once a minute)",
                peer,
                detail,
            )
        else:
            log.warning(
                "metrics endpoint: refused %d request(s) in the last %.0f s; the latest from"
                " %s: %s",
                self._unlogged,
                now - self._logged_at,
                peer,
                detail,
            )
        self._logged_at = now
        self._unlogged = 0

    # -- the endpoint's own thread -------------------------------------------------------------

    async def _serve(self, started: threading.Event) -> None:
        try:
            listener = _listen(self.host, self._requested_port)
        except BaseException as exc:
            self._error = exc
            started.set()
            return
        self._port = int(listener.getsockname()[1])
        self._loop = asyncio.get_running_loop()
        self._stopping = stopping = asyncio.Event()
        accepting = asyncio.create_task(self._accept(listener), name="ops-accept")
        # Announced before start() returns: the line never lands in the middle of what follows.
        url = f"http://{self.host}:{self._port}"
        if _loopback(self.host):
            log.info("metrics and health on %s (/metrics, /healthz, /readyz)", url)
        else:
            log.warning(
                "metrics and health on %s, reachable beyond this machine (METRICS_HOST=%s):"
                " anyone who can reach the port reads the bot's figures; keep it behind a"
                " firewall, or set METRICS_HOST=127.0.0.1",
                url,
                self.host,
            )
        started.set()
        try:
            await stopping.wait()
        finally:
            accepting.cancel()
            listener.close()
            if self._connections:
                await asyncio.wait(self._connections, timeout=STOP_GRACE)
            for task in self._connections:
                task.cancel()
            await asyncio.gather(accepting, *self._connections, return_exceptions=True)

    async def _accept(self, listener: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        slots = asyncio.Semaphore(MAX_CONNECTIONS)

        def ended(task: asyncio.Task[None]) -> None:
            self._connections.discard(task)
            slots.release()

        while True:
            # At the cap, the next connection is not taken: it waits in the system's queue
            # (or its client retries), holding none of this process's descriptors.
            await slots.acquire()
            try:
                conn, address = await loop.sock_accept(listener)
            except OSError as exc:  # out of descriptors, most likely: the bot's need first
                slots.release()
                self.refuse("accept_failed", f"could not take a connection ({exc})", "-")
                await asyncio.sleep(0.5)
                continue
            task = loop.create_task(self._connection(conn, str(address[0])))
            self._connections.add(task)
            task.add_done_callback(ended)

    async def _connection(self, conn: socket.socket, peer: str) -> None:
        try:
            reader, writer = await asyncio.open_connection(sock=conn, limit=LINE_LIMIT)
        except OSError:
            conn.close()
            return
        try:
            try:
                async with asyncio.timeout(READ_DEADLINE):
                    request = await _read_request(reader)
            except TimeoutError:
                self.refuse("timeout", f"no whole request within {READ_DEADLINE:g} s", peer)
                return
            except Malformed as exc:
                self.refuse("malformed", str(exc), peer)
                await _send(writer, Answer.text("bad request\n", 400))
                await _linger(reader, writer)
                return
            if request is None:
                return  # connected and closed without a word: a port check
            method, path, headers = request
            answer = await self._answer(method, path, headers)
            await _send(writer, answer, with_body=method != "HEAD")
        except (OSError, TimeoutError):
            pass  # the client went away, or would not read its answer
        except Exception:
            log.exception("the metrics endpoint could not answer a request from %s", peer)
        finally:
            writer.close()

    async def _answer(self, method: str, path: str, headers: Mapping[str, str]) -> Answer:
        route = self._routes.get(path)
        if route is None:
            return Answer.text("not found\n", 404)
        if method not in ("GET", "HEAD"):
            return Answer(405, b"method not allowed\n", headers=(("Allow", "GET, HEAD"),))
        return await route(headers)

    async def _on_bot_loop(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``work`` on the bot's event loop: TimeoutError if it does not finish in time,
        :class:`BotLoopGone` if that loop has stopped (or cancelled the work as it stopped)."""
        assert self._main is not None
        try:
            future = asyncio.run_coroutine_threadsafe(work, self._main)
        except RuntimeError:  # the loop is closed
            work.close()
            raise BotLoopGone from None
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # this endpoint is stopping
            raise BotLoopGone from None
        finally:
            future.cancel()

    def _stuck(self) -> Answer | None:
        silent = self.heartbeat.silent_for()
        if silent <= self.max_lag:
            return None
        return Answer.text(f"event loop: no heartbeat for {silent:.1f} s\n", 503)

    async def _healthz(self, headers: Mapping[str, str]) -> Answer:
        return self._stuck() or Answer.text("ok\n")

    async def _readyz(self, headers: Mapping[str, str]) -> Answer:
        stuck = self._stuck()
        if stuck is not None:
            return stuck
        reasons: list[str]
        try:
            reasons = await self._on_bot_loop(self.readiness(), READY_TIMEOUT)
        except TimeoutError:
            reasons = [f"event loop: the checks took over {READY_TIMEOUT:g} s"]
        except BotLoopGone:
            reasons = ["event loop: stopped"]
        except Exception as exc:
            log.exception("the readiness checks failed")
            reasons = [f"checks: {type(exc).__name__}"]
        if reasons:
            return Answer.text("".join(f"{line}\n" for line in reasons), 503)
        return Answer.text("ready\n")

    async def _metrics(self, headers: Mapping[str, str]) -> Answer:
        async def refresh() -> None:
            self.metrics.refresh()

        try:
            await self._on_bot_loop(refresh(), REFRESH_TIMEOUT)
        except (TimeoutError, BotLoopGone):
            pass  # the loop is busy or gone: the counters as they stand, the gauges as last read
        except Exception:
            log.exception("could not read the gauges")
        body, content_type = self.metrics.render(headers.get("accept", ""))
        return Answer(200, body, content_type)


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(BACKLOG)
        listener.setblocking(False)
    except BaseException:
        listener.close()
        raise
    return listener


def _loopback(host: str) -> bool:
    """Whether every address ``host`` stands for is this machine's loopback.

    >>> _loopback("127.0.0.1"), _loopback("::1"), _loopback("0.0.0.0"), _loopback("10.0.0.5")
    (True, True, False, False)
    """
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return all(ipaddress.ip_address(str(info[4][0]).partition("%")[0]).is_loopback
               for info in infos)


async def _read_line(reader: asyncio.StreamReader, what: str, first: bool = False) -> str | None:
    """One line without its end, or None for a connection closed before its first byte."""
    try:
        raw = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise Malformed(f"{what} over {LINE_LIMIT // 1024} KB") from None
    except asyncio.IncompleteReadError as exc:
        if first and not exc.partial:
            return None
        raise Malformed("the request ended before its headers did") from None
    line = raw.rstrip(b"\r\n").decode("latin-1")
    if not line.isprintable():
        raise Malformed(f"{what} holds control characters or bytes outside text")
    return line


async def _read_request(
    reader: asyncio.StreamReader,
) -> tuple[str, str, dict[str, str]] | None:
    """The method, the path (without its query) and the headers (names lower-cased) of one
    request; None for a connection closed before it sent anything."""
    line = await _read_line(reader, "the request line", first=True)
    if line is None:
        return None
    parts = line.split(" ")
    if len(parts) != 3 or not parts[1].startswith("/") or not parts[2].startswith("HTTP/1."):
        raise Malformed("not an HTTP/1 request line")
    method, target, _ = parts
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        field = await _read_line(reader, "a header")
        if not field:
            return method, target.partition("?")[0], headers
        name, colon, value = field.partition(":")
        if not colon or not name or name != name.strip():
            raise Malformed("a header that is not a name and a value")
        headers[name.lower()] = value.strip()
    raise Malformed(f"over {MAX_HEADERS} headers")


async def _send(writer: asyncio.StreamWriter, answer: Answer, with_body: bool = True) -> None:
    writer.write(answer.encode(with_body))
    async with asyncio.timeout(WRITE_DEADLINE):
        await writer.drain()


async def _linger(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    if writer.can_write_eof():
        writer.write_eof()
    dropped = 0
    with contextlib.suppress(TimeoutError, OSError):
        async with asyncio.timeout(LINGER_SECONDS):
            while dropped < LINGER_BYTES:
                chunk = await reader.read(64 * 1024)
                if not chunk:
                    return
                dropped += len(chunk)


__all__ = ["BotLoopGone", "Heartbeat", "OpsServer"]
