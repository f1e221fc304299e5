"""Whether the database takes writes now: what the rest of the bot asks before it promises a
player anything, and waits on while the database is away.

``Database.health`` is one ``StorageHealth``. It goes *down* the moment a transaction meets a
fault of the database's (``StorageUnavailable``: the server stopped, a connection cut, a full
disk, ...) and comes back *up* only when the database's own probe has reconnected and stored a
write again (``bot.storage.db``), so "up" is true, not hoped. While it is down, writes are
refused at once with ``StorageUnavailable`` (a press is answered, not held), and the probe keeps
trying with backoff, so "up" is seen within about a second of the database coming back even if
nobody writes.

The log gets one WARNING with the cause when the storage goes down and one when it comes back,
never one a failed write. An outage that starts within ``QUIET_AFTER_REPORT`` seconds of a
reported one is reported only if it lasts ``REPORT_AFTER`` seconds, else counted and named in the
next report (a disk that fills again at each write would otherwise flood the log).

Listening::

    unsubscribe = db.health.subscribe(lambda up: ...)   # called at each change, on the loop
    await db.health.wait_available()                     # returns at once while up
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from bot.storage.errors import StorageUnavailable

log = logging.getLogger(__name__)

# Outages that start within this long of the last one reported are not reported on their own,
# unless they last longer than REPORT_AFTER seconds.
QUIET_AFTER_REPORT = 60.0
REPORT_AFTER = 10.0

Listener = Callable[[bool], object]


class StorageHealth:
    """Whether writes work now, since when they do not, and who wants to know when it changes.

    >>> health = StorageHealth()
    >>> health.available, health.cause
    (True, None)
    """

    def __init__(self, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._cause: StorageUnavailable | None = None
        self._down_since: float | None = None
        self._listeners: list[Listener] = []
        self._up = asyncio.Event()
        self._up.set()
        self._down = asyncio.Event()
        # When a write last committed (monotonic): a check need not write again so soon.
        self.last_write = 0.0
        self._reported_at: float | None = None  # when an outage was last logged
        self._reported = False  # whether the outage under way was logged
        self._unreported = 0  # outages since the last one logged that were not

    # -- what the runtime reads --------------------------------------------------------------

    @property
    def available(self) -> bool:
        """Whether writes work now (as far as the last transaction and the probe know)."""
        return self._cause is None

    @property
    def cause(self) -> StorageUnavailable | None:
        """The fault that took the storage down (its ``kind`` says why); None while up."""
        return self._cause

    @property
    def down_since(self) -> float | None:
        """When (``time.monotonic()``) the storage went down; None while up."""
        return self._down_since

    def down_for(self) -> float:
        """Seconds since the storage went down; 0 while up."""
        since = self._down_since
        return 0.0 if since is None else self._monotonic() - since

    def describe(self) -> str:
        """What is wrong, for an operator: ``writes fail for 12 s (connection_lost)``; empty
        while up."""
        cause = self._cause
        if cause is None:
            return ""
        return f"writes fail for {self.down_for():.0f} s ({cause.kind})"

    def refusal(self) -> StorageUnavailable:
        """The error a write gets while the storage is down (nothing was tried, so nothing
        was stored)."""
        cause = self._cause
        kind = "unreachable" if cause is None else cause.kind
        error = StorageUnavailable(kind, detail="" if cause is None else cause.detail)
        error.noted = True  # not a new fault: the database was not asked
        return error

    def require(self) -> None:
        """Raise ``refusal()`` while the storage is down: a press is refused before anything
        is changed in memory, let alone asked of the database."""
        if self._cause is not None:
            raise self.refusal()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(available)`` at every change from now on; the function returned
        stops it. A listener runs on the event loop inside the change, so it must not block;
        an error it raises is logged and does not reach the storage."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    async def wait_available(self) -> None:
        """Return once writes work (at once while they do)."""
        await self._up.wait()

    async def wait_unavailable(self) -> None:
        """Return once writes fail (at once while they do)."""
        await self._down.wait()

    # -- what the database reports -----------------------------------------------------------

    def went_down(self, fault: StorageUnavailable) -> bool:
        """A transaction met ``fault``; True when that took the storage down (it was up)."""
        if self._cause is not None:
            if fault.kind != self._cause.kind:
                log.debug("storage still down, now %s (%s)", fault.kind, fault.detail)
            self._cause = fault
            return False
        now = self._monotonic()
        self._cause = fault
        self._down_since = now
        self._up.clear()
        self._down.set()
        self._reported = False
        if self._reported_at is not None and now - self._reported_at < QUIET_AFTER_REPORT:
            log.debug("storage down again (%s: %s)", fault.kind, fault.detail)
        else:
            self._report()
        self._tell(False)
        return True

    def still_down(self) -> None:
        """The probe failed again: an outage not reported yet is, once it lasts."""
        if self._cause is not None and not self._reported and self.down_for() >= REPORT_AFTER:
            self._report()

    def _report(self) -> None:
        fault = self._cause
        assert fault is not None
        self._reported = True
        self._reported_at = self._monotonic()
        also = ""
        if self._unreported:
            also = f" ({self._unreported} short outage(s) since the last report)"
        self._unreported = 0
        log.warning(
            "storage: writes fail (%s: %s); games wait until the database answers%s",
            fault.kind,
            fault.detail or "no detail",
            also,
        )

    def came_back(self) -> float:
        """The probe stored a write again: the storage is up; how long it was down."""
        if self._cause is None:
            return 0.0
        lasted = self.down_for()
        kind = self._cause.kind
        self._cause = None
        self._down_since = None
        self._down.clear()
        self._up.set()
        if self._reported:
            log.warning("storage: the database takes writes again (%s for %.1f s)", kind, lasted)
        else:
            self._unreported += 1
            log.debug("storage up again after %.1f s", lasted)
        self._tell(True)
        return lasted

    def _tell(self, available: bool) -> None:
        for listener in list(self._listeners):
            try:
                listener(available)
            except Exception:
                # A listener's bug, not the database's: it deserves its traceback.
                log.exception("a storage health listener failed")
