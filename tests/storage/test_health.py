"""``StorageHealth``: what the runtime reads and waits on, who is told of a change, and what
the log gets (one WARNING each way an outage, a flapping storage not one each time)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.storage.errors import StorageUnavailable
from bot.storage.health import QUIET_AFTER_REPORT, REPORT_AFTER, StorageHealth


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


async def test_down_and_up_are_told_once_each(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bot.storage")
    clock = Clock()
    health = StorageHealth(monotonic=clock)
    seen: list[bool] = []
    health.subscribe(seen.append)
    assert health.available and health.describe() == "" and health.down_for() == 0
    health.require()
    assert health.went_down(StorageUnavailable("connection_lost", detail="server closed"))
    clock.now += 3
    assert not health.went_down(StorageUnavailable("unreachable", detail="refused"))
    assert not health.available and health.down_since == 100.0 and health.down_for() == 3
    cause = health.cause
    assert cause is not None and cause.kind == "unreachable"  # the latest
    assert health.describe() == "writes fail for 3 s (unreachable)"
    with pytest.raises(StorageUnavailable) as refused:
        health.require()
    assert refused.value.kind == "unreachable" and refused.value.noted
    assert not refused.value.maybe_stored
    assert health.came_back() == 3
    assert health.came_back() == 0  # already up
    assert seen == [False, True]
    assert warnings(caplog) == [
        "storage: writes fail (connection_lost: server closed); games wait until the database"
        " answers",
        "storage: the database takes writes again (unreachable for 3.0 s)",
    ]


async def test_waiting_for_either_state() -> None:
    health = StorageHealth()
    await asyncio.wait_for(health.wait_available(), 1)
    down = asyncio.ensure_future(health.wait_unavailable())
    await asyncio.sleep(0)
    assert not down.done()
    health.went_down(StorageUnavailable("disk_full"))
    await asyncio.wait_for(down, 1)
    up = asyncio.ensure_future(health.wait_available())
    await asyncio.sleep(0)
    assert not up.done()
    health.came_back()
    await asyncio.wait_for(up, 1)


def test_a_listener_that_fails_does_not_stop_the_others(
    caplog: pytest.LogCaptureFixture,
) -> None:
    health = StorageHealth()
    seen: list[bool] = []

    def broken(available: bool) -> None:
        raise RuntimeError("a bug of the listener's")

    health.subscribe(broken)
    stop = health.subscribe(seen.append)
    health.went_down(StorageUnavailable("io_error"))
    stop()
    health.came_back()
    assert seen == [False]  # unsubscribed before the storage came back
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(failures) == 2 and all(r.exc_info for r in failures)


def test_a_flapping_storage_is_not_reported_at_every_flap(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Outages within a minute of a reported one are counted, and named in the next report;
    one of them that lasts is reported after all."""
    caplog.set_level(logging.DEBUG, logger="bot.storage")
    clock = Clock()
    health = StorageHealth(monotonic=clock)
    health.went_down(StorageUnavailable("disk_full", detail="full"))
    clock.now += 1
    health.came_back()
    for _ in range(5):
        clock.now += 2
        health.went_down(StorageUnavailable("disk_full", detail="full"))
        clock.now += 1
        health.still_down()
        health.came_back()
    assert len(warnings(caplog)) == 2
    clock.now += 2
    health.went_down(StorageUnavailable("disk_full", detail="full"))
    clock.now += REPORT_AFTER
    health.still_down()  # it lasts: reported
    assert warnings(caplog)[-1].endswith("(5 short outage(s) since the last report)")
    health.came_back()
    assert warnings(caplog)[-1].startswith("storage: the database takes writes again")
    clock.now += QUIET_AFTER_REPORT
    health.went_down(StorageUnavailable("io_error", detail="disk"))
    assert warnings(caplog)[-1].startswith("storage: writes fail (io_error: disk)")
    assert len(warnings(caplog)) == 5
