"""The decision clock's start: when the message naming the player goes out, or after a grace
if it never does, but not while it is only queued behind the bot's request budget."""

from __future__ import annotations

import asyncio

from bot.runtime.clock import Decision, DecisionClock
from bot.runtime.config import RuntimeOptions

MARKER = (3, 1)


async def nothing(decision: Decision) -> None:
    return None


def clock() -> DecisionClock:
    options = RuntimeOptions(prompt_grace=0.05)
    return DecisionClock(options, {}, nothing, lambda decision: None)


async def test_a_message_that_never_goes_out_starts_the_time_after_the_grace() -> None:
    timed = clock()
    timed.arm(MARKER, 7, 0, away=False)
    assert timed.deadline is None
    await asyncio.sleep(0.15)
    assert timed.deadline is not None
    await timed.close()


async def test_a_message_queued_for_the_budget_is_waited_for() -> None:
    """A thousand tables after a restart: the message is on its way, not lost."""
    timed = clock()
    queued = {MARKER}
    timed.queued = lambda marker: marker in queued
    timed.arm(MARKER, 7, 0, away=False)
    await asyncio.sleep(0.3)
    assert timed.deadline is None  # still queued: the player has not been told yet
    shown = timed.shown(MARKER)  # it went out: his time starts now
    assert shown is not None and timed.deadline == shown
    await timed.close()


async def test_a_message_no_longer_queued_starts_the_time_at_the_next_look() -> None:
    timed = clock()
    queued = {MARKER}
    timed.queued = lambda marker: marker in queued
    timed.arm(MARKER, 7, 0, away=False)
    await asyncio.sleep(0.2)
    assert timed.deadline is None
    queued.clear()  # dropped (Discord refused it): the table must move on
    await asyncio.sleep(1.2)
    assert timed.deadline is not None
    await timed.close()
