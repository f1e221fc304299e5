"""A table waiting for its storage: play stops while the database takes no writes, and goes on by
itself once it does.

When something a table had to store was not — a decision, a result, a deal, a host's change —
because of a fault of the database's (``StorageUnavailable``), or when the database goes away
while a hand is being played, the table *waits*: its clock and its computer players stop
(nobody is timed out for a decision the table could not store), and if the outage lasts past
``TELL_AFTER`` its players are told, once, that the game waits for its storage. A press
meanwhile is refused with that reason and changes nothing (``Database.health`` refuses a write
at once). As soon as the database takes writes again the table takes up where storage says it
stands (``resume``). A fault whose commit may have been stored after all (its answer was lost)
leaves the table unsure of what storage holds: it is taken up again from storage as after a
restart (``reload``), never guessed.

Anything else that failed (a fault of the bot's own) is tried again with a backoff, quietly: a
failure that is not the database's is not the players' to hear about. One job, callbacks in,
as the decision clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from bot.storage import StorageError
from bot.storage.errors import StorageUnavailable
from bot.storage.health import StorageHealth

log = logging.getLogger(__name__)

# An outage shorter than this (a statement timed out, a connection replaced) is not worth a
# message in the channel.
TELL_AFTER = 2.0
# The longest wait between two tries of what failed for a reason not the database's.
MOST_BACKOFF = 60.0


class StorageWait:
    """One table's wait for its storage.

    - ``health``: the database's (``Database.health``);
    - ``lock``: the table's lock, held while it takes up again;
    - ``resume()``: take up where storage says the table stands (settle, time, deal);
    - ``reload()``: have the table taken up again from storage, as after a restart;
    - ``tell()``: say once in the channel that the game waits for its storage;
    - ``stop()``: stop what runs by itself (the clock, the computer players);
    - ``playing()``: whether a hand is being played (it waits the moment the database goes).
    """

    def __init__(
        self,
        health: StorageHealth,
        lock: AbstractAsyncContextManager[Any],
        resume: Callable[[], Awaitable[None]],
        reload: Callable[[], None],
        tell: Callable[[], None],
        stop: Callable[[], None],
        playing: Callable[[], bool],
        *,
        name: str,
    ) -> None:
        self.health = health
        self.lock = lock
        self._resume = resume
        self._reload = reload
        self._tell = tell
        self._stop = stop
        self._playing = playing
        self.name = name
        self._task: asyncio.Task[None] | None = None
        self._unsure = False  # a commit's answer was lost: storage may hold more than memory
        self._unheard = health.subscribe(self._changed)

    @property
    def waiting(self) -> bool:
        return self._task is not None and not self._task.done()

    def failed(self, error: BaseException) -> None:
        """Something the table had to store was not (``error``): wait, then take up again."""
        if isinstance(error, StorageUnavailable) and error.maybe_stored:
            self._unsure = True
        self._stop()
        if self.waiting:
            return  # taking up again covers every failure met meanwhile
        fault = isinstance(error, StorageUnavailable)
        self._task = asyncio.create_task(self._take_up(fault), name=f"storage-wait-{self.name}")

    def close(self) -> None:
        self._unheard()
        task, self._task = self._task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def _changed(self, available: bool) -> None:
        # A hand being played waits at once: nobody is timed out while nothing can be stored.
        if not available and self._playing():
            self.failed(self.health.refusal())

    async def _take_up(self, fault: bool) -> None:
        delay = 1.0
        told = False
        while True:
            if fault:
                if not told and not self.health.available:
                    try:
                        async with asyncio.timeout(TELL_AFTER):
                            await self.health.wait_available()
                    except TimeoutError:
                        told = True
                        self._tell()
                await self.health.wait_available()
            else:
                await asyncio.sleep(delay)
                delay = min(delay * 2, MOST_BACKOFF)
            async with self.lock:
                if self._unsure:
                    self._unsure = False
                    self._reload()
                    return
                try:
                    await self._resume()
                    return
                except StorageUnavailable as exc:
                    self._unsure = self._unsure or exc.maybe_stored
                    fault = True
                except StorageError as exc:
                    # Storage refused what memory holds (it is ahead of it): take the table up
                    # again from storage rather than insist.
                    log.warning("table %s: storage refused taking up again (%s); reloading",
                                self.name, exc)
                    self._reload()
                    return
                except Exception:
                    log.exception("table %s: could not take up again; trying later", self.name)
                    fault = False


__all__ = ["MOST_BACKOFF", "TELL_AFTER", "StorageWait"]
