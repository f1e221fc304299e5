"""The operator's endpoint under attack and at shutdown: it listens on this machine unless told
otherwise, answers malformed requests 400 without flooding the log, never takes the file
descriptors the bot needs, and a scrape while the bot stops neither hangs the stop nor writes a
traceback. (Its ordinary answers are tested in ``test_operations.py``.)"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot import health
from bot.health import MAX_CONNECTIONS, OpsServer
from bot.metrics import PrometheusMetrics
from bot.settings import Settings
from tests.timing import scaled

ROOT = Path(__file__).resolve().parents[2]


async def ready() -> list[str]:
    return []


@pytest.fixture
async def endpoint() -> AsyncIterator[OpsServer]:
    server = OpsServer(PrometheusMetrics(), ready, host="127.0.0.1", port=0, max_lag=5.0)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def get(port: int, path: str) -> tuple[int, str]:
    timeout = aiohttp.ClientTimeout(total=scaled(10))
    async with (
        aiohttp.ClientSession(timeout=timeout) as session,
        session.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


def refused(text: str, reason: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if (
                sample.name == "poker_ops_requests_refused_total"
                and sample.labels.get("reason") == reason
            ):
                return sample.value
    return 0.0


def tracebacks(records: list[logging.LogRecord]) -> list[logging.LogRecord]:
    return [r for r in records if r.exc_info or r.exc_text or r.stack_info]


# -- where it listens --------------------------------------------------------------------------


def test_the_endpoint_listens_on_this_machine_unless_told_otherwise() -> None:
    assert Settings.from_env({}, dotenv_path=None, require_token=False).metrics_host == "127.0.0.1"
    wide = Settings.from_env({"METRICS_HOST": "0.0.0.0"}, dotenv_path=None, require_token=False)
    assert wide.metrics_host == "0.0.0.0"


@pytest.mark.parametrize(
    ("host", "warned"), [("127.0.0.1", False), ("localhost", False), ("0.0.0.0", True)]
)
async def test_listening_beyond_this_machine_is_a_warning_at_start(
    host: str, warned: bool, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tests open nothing beyond loopback: the socket is bound there whatever the host.
    listen = health._listen
    monkeypatch.setattr(health, "_listen", lambda host, port: listen("127.0.0.1", port))
    caplog.set_level(logging.INFO, logger="bot.health")
    server = OpsServer(PrometheusMetrics(), ready, host=host, port=0, max_lag=5.0)
    await server.start()
    try:
        assert (await get(server.port, "/healthz"))[0] == 200
    finally:
        await server.stop()
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert bool(warnings) == warned, [r.getMessage() for r in caplog.records]
    if warned:
        assert "METRICS_HOST" in warnings[0].getMessage()


# -- malformed requests ------------------------------------------------------------------------

MALFORMED = (
    b"GET /" + b"a" * 9_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",  # a request line over 8 KB
    b"GET /metrics HTTP/1.1\r\nX-Big: " + b"b" * 100_000 + b"\r\n\r\n",  # a 100 KB header
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(range(256)) + b"\r\n\r\n",  # TLS
    b"GET /metrics HTTP/1.1\r\nno colon in this header\r\n\r\n",
    b"\x00\xff\xfe garbage \x01\r\n\r\n",
    b"GET /metrics\r\n\r\n",  # no version
)


async def send(port: int, payload: bytes) -> bytes:
    """Send one request and read the answer to its end."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(payload)
        await writer.drain()
        writer.write_eof()
        return await reader.read()
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


async def test_what_a_scraper_or_a_probe_sends_is_answered(endpoint: OpsServer) -> None:
    port = endpoint.port
    answer = await send(port, b"GET /metrics?name[]=x HTTP/1.1\r\nAccept: text/plain\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and b"poker_ops_requests_refused" in answer
    head = await send(port, b"HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"Content-Length: 3\r\n" in head
    assert head.endswith(b"\r\n\r\n")  # the headers of "ok\n", without it
    posted = await send(port, b"POST /metrics HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi")
    assert posted.startswith(b"HTTP/1.1 405 ") and b"Allow: GET, HEAD" in posted
    assert (await send(port, b"GET /elsewhere HTTP/1.1\r\n\r\n")).startswith(b"HTTP/1.1 404 ")
    status, text = await get(port, "/metrics")
    assert status == 200 and refused(text, "malformed") == 0


@pytest.mark.timeout(300)
async def test_ten_thousand_malformed_requests_are_answered_400_and_logged_once(
    endpoint: OpsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    port = endpoint.port
    for payload in MALFORMED:
        answer = await send(port, payload)
        assert answer.startswith(b"HTTP/1.1 400 "), (payload[:40], answer[:80])
    total = 10_000
    sent = len(MALFORMED)
    queue = iter(range(sent, total))

    async def worker() -> None:
        for i in queue:
            await send(port, MALFORMED[i % len(MALFORMED)])

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(16))), scaled(200))
    status, text = await get(port, "/metrics")  # the endpoint still serves, and kept count
    assert status == 200 and refused(text, "malformed") == total
    assert not tracebacks(caplog.records)
    lines = [r for r in caplog.records if r.levelno >= logging.INFO]
    # At most one line a minute about them (two if the flood straddled a minute's turn).
    assert 1 <= len(lines) <= 2, [r.getMessage() for r in lines]
    assert all(r.levelno == logging.WARNING for r in lines)


def test_refusals_are_logged_at_most_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    server = OpsServer(
        PrometheusMetrics(), ready, host="127.0.0.1", port=0, max_lag=5.0,
        monotonic=lambda: now[0],
    )
    caplog.set_level(logging.DEBUG, logger="bot.health")
    for _ in range(500):
        server.refuse("malformed", "request line over 8 KB", "203.0.113.9")
        now[0] += 0.1  # 50 s in all
    assert len(caplog.records) == 1
    now[0] += 11
    server.refuse("timeout", "no request within 5 s", "203.0.113.9")
    assert len(caplog.records) == 2
    # The second line tells how many were refused since the first, and why the last was.
    message = caplog.records[1].getMessage()
    assert "500" in message and "no request within 5 s" in message, message


# -- a flood of connections --------------------------------------------------------------------

CHILD = """
import asyncio, resource, sys
from bot.health import OpsServer
from bot.metrics import PrometheusMetrics

resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

async def ready():
    return []

async def main():
    server = OpsServer(PrometheusMetrics(), ready, host="127.0.0.1", port=0, max_lag=5.0)
    await server.start()
    print(server.port, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await server.stop()

asyncio.run(main())
"""


@contextlib.contextmanager
def more_descriptors(needed: int) -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        yield
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"the test opens {needed} sockets; this system allows {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
@pytest.mark.timeout(300)
async def test_a_thousand_connections_leave_the_bots_descriptors_free() -> None:
    """A process allowed 1,024 descriptors, like the one the flood was tried on: 1,000
    connections attempted at once, some sending a request slowly, take no more than the
    endpoint's cap of its descriptors, and a scrape answers as soon as they are gone."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )
    flood: list[socket.socket] = []
    try:
        assert child.stdout is not None and child.stdin is not None
        line = await asyncio.wait_for(asyncio.to_thread(child.stdout.readline), scaled(30))
        port = int(line)
        assert (await get(port, "/metrics"))[0] == 200
        base = open_fds(child.pid)
        with more_descriptors(1_200):
            for i in range(1_000):
                sock = socket.socket()
                sock.setblocking(False)
                code = sock.connect_ex(("127.0.0.1", port))
                assert code in (0, errno.EINPROGRESS), os.strerror(code)
                flood.append(sock)
                if i % 3 == 0:
                    with contextlib.suppress(OSError):
                        sock.send(b"GET /metr")  # a request begun and never finished
            most = base
            for _ in range(20):  # two seconds of the flood, watched
                await asyncio.sleep(0.1)
                most = max(most, open_fds(child.pid))
            assert most <= base + MAX_CONNECTIONS + 2, (base, most)
            for sock in flood:
                sock.close()
            flood.clear()
        started = time.monotonic()
        status, text = await get(port, "/metrics")
        assert status == 200 and "poker_event_loop_lag_seconds_count" in text
        assert time.monotonic() - started < scaled(3)
        assert open_fds(child.pid) <= base + 2
        child.stdin.close()
        await asyncio.wait_for(asyncio.to_thread(child.wait), scaled(10))
        assert child.stderr is not None
        errors = child.stderr.read()
        assert "Traceback" not in errors and "ERROR" not in errors, errors
    finally:
        for sock in flood:
            sock.close()
        if child.poll() is None:
            child.kill()
            child.wait()


# -- a scrape while the bot stops --------------------------------------------------------------


class BotLoop:
    """A bot's event loop in a thread of its own, with the endpoint on it, stopped on demand
    (``stop_endpoint`` False: the loop ends without stopping the endpoint first)."""

    def __init__(self, stop_endpoint: bool) -> None:
        self.stop_endpoint = stop_endpoint
        self.port = 0
        self.started = threading.Event()
        self.finish = threading.Event()
        self.stop_took: float | None = None
        self.server: OpsServer | None = None
        self.thread = threading.Thread(target=asyncio.run, args=(self.main(),), daemon=True)

    async def main(self) -> None:
        async def readiness() -> list[str]:
            await asyncio.sleep(30)  # a check the stop interrupts
            return []

        self.server = OpsServer(
            PrometheusMetrics(), readiness, host="127.0.0.1", port=0, max_lag=5.0
        )
        await self.server.start()
        self.port = self.server.port
        self.started.set()
        await asyncio.to_thread(self.finish.wait)
        if self.stop_endpoint:
            started = time.monotonic()
            await self.server.stop()
            self.stop_took = time.monotonic() - started


@pytest.mark.parametrize("stop_endpoint", [True, False], ids=["stopped", "loop_gone"])
async def test_a_scrape_while_the_bot_stops_answers_or_fails_cleanly(
    stop_endpoint: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    bot = BotLoop(stop_endpoint)
    bot.thread.start()
    assert await asyncio.to_thread(bot.started.wait, scaled(10))
    outcomes: list[str] = []
    running = True

    async def scraper(path: str) -> None:
        while running:
            started = time.monotonic()
            try:
                status, _ = await get(bot.port, path)
                outcomes.append(f"{path} {status}")
            except (aiohttp.ClientConnectionError, OSError) as exc:
                outcomes.append(f"{path} {type(exc).__name__}")
            # No scrape waits past the slowest answer the endpoint gives (the checks' 2 s).
            assert time.monotonic() - started < scaled(4), path
            await asyncio.sleep(0.01)

    scrapers = [
        asyncio.create_task(scraper(path)) for path in ("/metrics", "/readyz", "/healthz") * 3
    ]
    await asyncio.sleep(0.5)
    bot.finish.set()
    await asyncio.to_thread(bot.thread.join, scaled(10))
    assert not bot.thread.is_alive(), "the bot's loop did not end"
    if stop_endpoint:
        assert bot.stop_took is not None and bot.stop_took < scaled(3)
    await asyncio.sleep(0.5)  # scrapes after the loop is gone
    if not stop_endpoint:
        # Its loop gone, the endpoint still says so rather than failing.
        status, text = await get(bot.port, "/readyz")
        assert status == 503 and text.startswith("event loop:"), text
        assert (await get(bot.port, "/metrics"))[0] == 200
    running = False
    await asyncio.gather(*scrapers)
    if not stop_endpoint and bot.server is not None:
        await bot.server.stop()
    assert outcomes
    assert not tracebacks(caplog.records), [r.getMessage() for r in tracebacks(caplog.records)]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
