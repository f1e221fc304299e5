"""The decision clock's start: when the message naming the player goes out, or after a grace
if it never does, but not while it is only queued behind the bot's request budget or owed; and
nobody is timed out while Discord is out of reach: his time starts over when he is shown his
turn again, with his time bank as it stood."""

from __future__ import annotations

import asyncio
import time

from bot.runtime.clock import Decision, DecisionClock, Reach
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
    timed.queued = lambda marker: Reach.COMING if marker in queued else Reach.TOLD
    timed.arm(MARKER, 7, 0, away=False)
    await asyncio.sleep(0.3)
    assert timed.deadline is None  # still queued: the player has not been told yet
    shown = timed.shown(MARKER)  # it went out: his time starts now
    assert shown is not None and timed.deadline == shown
    await timed.close()


async def test_a_message_no_longer_queued_starts_the_time_at_the_next_look() -> None:
    timed = clock()
    queued = {MARKER}
    timed.queued = lambda marker: Reach.COMING if marker in queued else Reach.TOLD
    timed.arm(MARKER, 7, 0, away=False)
    await asyncio.sleep(0.2)
    assert timed.deadline is None
    queued.clear()  # dropped (Discord refused it): the table must move on
    await asyncio.sleep(1.2)
    assert timed.deadline is not None
    await timed.close()


class Timed:
    """A clock of ``timer`` seconds with a bank of ``bank``, and what Discord's reach is."""

    def __init__(self, timer: float, bank: float) -> None:
        self.expired: list[float] = []
        self.banks: dict[int, float] = {7: bank}
        self.reach = Reach.TOLD
        self.clock = DecisionClock(RuntimeOptions(prompt_grace=0.05), self.banks, self.expire,
                                   lambda decision: None)
        self.clock.timer = timer
        self.clock.queued = lambda marker: self.reach

    async def expire(self, decision: Decision) -> None:
        self.expired.append(time.monotonic())


async def test_a_message_about_to_go_out_does_not_start_the_time() -> None:
    timed = clock()
    timed.arm(MARKER, 7, 0, away=False)
    offered = timed.shown(MARKER, sending=True)
    assert offered is not None and timed.deadline is None  # written, not started
    assert timed.shown(MARKER) == offered  # went out: the deadline it showed
    await timed.close()


async def test_time_running_out_while_discord_is_away_waits_for_the_player_to_be_shown() -> None:
    timed = Timed(0.1, 0.1)
    timed.clock.arm(MARKER, 7, 0, away=False)
    timed.clock.shown(MARKER)
    timed.reach = Reach.CUT_OFF  # Discord goes away with his turn on screen
    await asyncio.sleep(0.6)
    assert timed.expired == [] and timed.clock.deadline is None  # held, not timed out
    assert timed.banks[7] == 0.1  # his bank as it stood
    timed.reach = Reach.TOLD  # back: the messenger shows his turn again
    assert timed.clock.shown(MARKER, sending=True, again=True) is not None
    shown_at = time.monotonic()
    timed.clock.shown(MARKER)
    await asyncio.sleep(0.5)
    assert len(timed.expired) == 1
    assert timed.expired[0] - shown_at >= 0.2 - 0.02  # the timer in full, then the bank
    await timed.clock.close()


async def test_his_turn_shown_again_after_an_outage_starts_his_time_over() -> None:
    timed = Timed(0.3, 0.0)
    timed.clock.arm(MARKER, 7, 0, away=False)
    timed.clock.shown(MARKER)
    await asyncio.sleep(0.2)  # two thirds of his time gone while Discord was away
    timed.clock.shown(MARKER, sending=True, again=True)
    await asyncio.sleep(0.05)  # the message on its way: the old count still runs
    again_at = time.monotonic()
    timed.clock.shown(MARKER)
    await asyncio.sleep(0.5)
    assert len(timed.expired) == 1 and timed.expired[0] - again_at >= 0.3 - 0.02
    await timed.clock.close()


async def test_a_restart_whose_message_is_late_holds_the_old_count() -> None:
    """The message starting his time over is owed when the old count runs out: held."""
    timed = Timed(0.15, 0.0)
    timed.clock.arm(MARKER, 7, 0, away=False)
    timed.clock.shown(MARKER)
    timed.clock.shown(MARKER, sending=True, again=True)
    timed.reach = Reach.COMING
    await asyncio.sleep(0.4)
    assert timed.expired == [] and timed.clock.deadline is None
    timed.clock.shown(MARKER, sending=True)
    timed.clock.shown(MARKER)
    await asyncio.sleep(0.4)
    assert len(timed.expired) == 1
    await timed.clock.close()


async def test_the_bank_used_while_discord_was_away_is_not_charged() -> None:
    timed = Timed(0.05, 0.2)
    timed.clock.arm(MARKER, 7, 0, away=False)
    timed.clock.shown(MARKER)
    await asyncio.sleep(0.1)  # into his bank
    timed.reach = Reach.CUT_OFF
    await asyncio.sleep(0.3)  # the bank ran out while he could not act
    assert timed.expired == [] and timed.banks[7] == 0.2
    await timed.clock.close()
