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
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from aiohttp import web

from bot.metrics import Metrics

log = logging.getLogger(__name__)
T = TypeVar("T")

READY_TIMEOUT = 2.0
REFRESH_TIMEOUT = 1.0
STOP_TIMEOUT = 5.0


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
    ``port`` once started)."""

    def __init__(
        self,
        metrics: Metrics,
        readiness: Callable[[], Coroutine[Any, Any, list[str]]],
        *,
        host: str,
        port: int,
        max_lag: float,
        heartbeat: Heartbeat | None = None,
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
        self._requested_port = port
        self._port: int | None = None
        self._main: asyncio.AbstractEventLoop | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

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
            target=self._serve, args=(started,), name="ops-endpoint", daemon=True
        )
        self._thread.start()
        await asyncio.to_thread(started.wait)
        if self._error is not None:
            self.heartbeat.stop()
            raise self._error
        log.info(
            "metrics and health on http://%s:%d (/metrics, /healthz, /readyz)", self.host, self.port
        )

    async def stop(self) -> None:
        self.heartbeat.stop()
        loop, thread = self._loop, self._thread
        self._loop = self._thread = None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
        if thread is not None:
            await asyncio.to_thread(thread.join, STOP_TIMEOUT)
        self._port = None

    # -- the endpoint's own thread -------------------------------------------------------------

    def _serve(self, started: threading.Event) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        runner = web.AppRunner(app, access_log=None)
        try:
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, self.host, self._requested_port)
            loop.run_until_complete(site.start())
            self._port = int(runner.addresses[0][1])
        except BaseException as exc:
            self._error = exc
            loop.run_until_complete(runner.cleanup())
            loop.close()
            started.set()
            return
        self._loop = loop
        started.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(runner.cleanup())
            loop.close()

    async def _on_bot_loop(self, work: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``work`` on the bot's event loop; TimeoutError if it does not finish in time."""
        assert self._main is not None
        future = asyncio.run_coroutine_threadsafe(work, self._main)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout)
        finally:
            future.cancel()

    def _stuck(self) -> web.Response | None:
        silent = self.heartbeat.silent_for()
        if silent <= self.max_lag:
            return None
        return web.Response(status=503, text=f"event loop: no heartbeat for {silent:.1f} s\n")

    async def _healthz(self, request: web.Request) -> web.Response:
        return self._stuck() or web.Response(text="ok\n")

    async def _readyz(self, request: web.Request) -> web.Response:
        stuck = self._stuck()
        if stuck is not None:
            return stuck
        reasons: list[str]
        try:
            reasons = await self._on_bot_loop(self.readiness(), READY_TIMEOUT)
        except TimeoutError:
            reasons = [f"event loop: the checks took over {READY_TIMEOUT:g} s"]
        except Exception as exc:
            log.exception("the readiness checks failed")
            reasons = [f"checks: {type(exc).__name__}"]
        if reasons:
            return web.Response(status=503, text="".join(f"{line}\n" for line in reasons))
        return web.Response(text="ready\n")

    async def _metrics(self, request: web.Request) -> web.Response:
        async def refresh() -> None:
            self.metrics.refresh()

        try:
            await self._on_bot_loop(refresh(), REFRESH_TIMEOUT)
        except TimeoutError:
            pass  # the loop is busy: the counters as they stand, the gauges as last read
        except Exception:
            log.exception("could not read the gauges")
        body, content_type = self.metrics.render(request.headers.get("Accept", ""))
        return web.Response(body=body, headers={"Content-Type": content_type})


__all__ = ["Heartbeat", "OpsServer"]
