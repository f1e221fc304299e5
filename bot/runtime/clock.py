"""The decision clock of one table (TDA 29): the table's timer, then the player's time bank.

A decision is *armed* when it arises, but its time only starts once the player has been told:
the table's messenger asks for the deadline to write as the message naming him is about to
leave (``shown(marker, sending=True)``, which starts nothing), and reports when it went out
(``shown(marker)``): that is when the countdown begins. A message stuck behind the channel's
send budget, or that Discord failed and that is owed, therefore never eats a player's time. If
the message cannot go out at all (the channel refused us), the clock starts anyway after
``prompt_grace`` seconds, so the table still moves on; one still queued or owed (``queued``:
after a restart a thousand tables post their messages at 40 a second) is on its way, and is
waited for up to ``QUEUED_PROMPT_LIMIT`` seconds, and for as long as Discord cannot be reached.

Nobody is timed out for a turn he could not see or act on: when his time runs out while Discord
cannot be reached (an outage, ``bot.runtime.link``), or while the message starting his time
over is on its way, the clock holds, and his time starts over when the message naming him goes
out again: the table's timer in full, and his time bank as it stood (what he used of it in this
decision is not charged). The messenger sends that message when the outage ends
(``shown(marker, sending=True, again=True)``).

A player the table has marked away (he timed out before) gets no time: the clock acts at once.
When the table's timer runs out and the player has a reserve left, the clock calls ``on_bank``
(the table shows the new deadline); when all his time is gone it calls ``on_expiry`` with the
decision, and the table applies the timeout under its lock (checking the decision is still the
current one).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from enum import Enum

from bot.runtime.config import RuntimeOptions

# A decision is one turn in one hand: (hand number, count of actions taken before it).
Marker = tuple[int, int]
# The longest a player's time waits for the message naming him while it is queued or owed
# (and Discord can be reached).
QUEUED_PROMPT_LIMIT = 120.0


class Reach(Enum):
    """Whether the player of a decision has been told of it, as the table's messenger knows."""

    TOLD = "told"  # nothing naming him is on its way: what the channel shows is what he gets
    COMING = "coming"  # a message naming him is queued, or owed (Discord failed it)
    CUT_OFF = "cut_off"  # Discord cannot be reached: he can neither see the table nor act


@dataclass(eq=False, slots=True)
class Decision:
    """The decision being timed: whose it is and, once he was told, until when."""

    player_id: int
    index: int
    marker: Marker
    deadline: int | None = None  # Unix seconds, shown as a Discord timestamp; None until shown
    bank_started: float | None = None  # monotonic time the player's own reserve began to run
    offered: int | None = None  # the deadline written in a message on its way, not out yet
    again: bool = False  # a message starting his time over is on its way


class DecisionClock:
    """Times one decision at a time for one table."""

    def __init__(
        self,
        options: RuntimeOptions,
        banks: MutableMapping[int, float],
        on_expiry: Callable[[Decision], Awaitable[None]],
        on_bank: Callable[[Decision], None],
        *,
        name: str = "clock",
    ) -> None:
        self.options = options
        self.banks = banks  # the table's stored reserves, by player (the table saves them)
        self.on_expiry = on_expiry
        self.on_bank = on_bank
        self.name = name
        self.timer = float(options.default_timer)
        self.decision: Decision | None = None
        self._task: asyncio.Task[None] | None = None
        # Whether the player of a decision has been told of it (the table's messenger tells;
        # None: nothing is known, the grace alone counts).
        self.queued: Callable[[Marker], Reach] | None = None

    @property
    def deadline(self) -> int | None:
        return self.decision.deadline if self.decision is not None else None

    def arm(self, marker: Marker, player_id: int, index: int, *, away: bool) -> None:
        """A new decision is due (re-arming the current one changes nothing)."""
        current = self.decision
        if current is not None and current.marker == marker:
            return
        self.cancel()
        decision = Decision(player_id, index, marker)
        self.decision = decision
        if away:
            decision.deadline = int(time.time())
            self._run(self._expire_now(decision))
        else:
            self._run(self._start_anyway(decision))

    def shown(self, marker: Marker, *, sending: bool = False, again: bool = False) -> int | None:
        """The deadline a message naming the player of ``marker`` shows (None: that decision
        is not the one timed).

        ``sending``: the message is about to go out; the deadline is offered and nothing
        starts. Without it: the message went out, and his time starts now unless it runs
        already. ``again`` (with ``sending``): he may have been unable to see or act for a
        while (Discord was out of reach): his time starts over when this message goes out.
        """
        decision = self.decision
        if decision is None or decision.marker != marker:
            return None
        if sending:
            if decision.deadline is not None and not (again or decision.again):
                return decision.deadline
            decision.again = decision.deadline is not None
            decision.offered = int(time.time() + self.timer)
            return decision.offered
        if decision.deadline is None or decision.again:
            # Started afresh: what he used of his reserve meanwhile is not charged.
            decision.deadline = decision.offered or int(time.time() + self.timer)
            decision.offered, decision.again, decision.bank_started = None, False, None
            self._run(self._count(decision))
        return decision.deadline

    def spend(self, player_id: int) -> None:
        """The player decided himself: charge what he used of his reserve."""
        decision = self.decision
        if decision is None or decision.player_id != player_id or decision.bank_started is None:
            return
        used = time.monotonic() - decision.bank_started
        self.banks[player_id] = max(0.0, self.bank_of(player_id) - used)

    def bank_of(self, player_id: int) -> float:
        return self.banks.get(player_id, self.options.time_bank)

    def refill(self, player_ids: list[int]) -> None:
        """Every hand a player is dealt adds to his reserve, up to the cap."""
        options = self.options
        for pid in player_ids:
            bank = self.bank_of(pid)
            self.banks[pid] = max(bank, min(options.time_bank_cap, bank + options.time_bank_refill))

    def cancel(self) -> None:
        task, self._task = self._task, None
        # The clock's own task gets here when a timeout moves the hand on: it must finish.
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        self.decision = None

    async def close(self) -> None:
        task = self._task
        self.cancel()
        if task is not None and task is not asyncio.current_task():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # -- internals -------------------------------------------------------------------------

    def _run(self, coroutine: Awaitable[None]) -> None:
        if self._task is not None and self._task is not asyncio.current_task():
            self._task.cancel()
        self._task = asyncio.ensure_future(coroutine)
        self._task.set_name(f"{self.name}-decision")

    async def _start_anyway(self, decision: Decision) -> None:
        await asyncio.sleep(self.options.prompt_grace)
        await self._wait_for_message(decision, self.options.prompt_grace)

    async def _wait_for_message(self, decision: Decision, waited: float) -> None:
        """Wait for the message naming the player (``shown`` starts his time when it goes
        out) while it is on its way, up to ``QUEUED_PROMPT_LIMIT``, and however long Discord
        cannot be reached; then start his time anyway."""
        while self.decision is decision and decision.deadline is None:
            reach = self.queued(decision.marker) if self.queued is not None else Reach.TOLD
            if reach is Reach.TOLD or (reach is Reach.COMING and waited >= QUEUED_PROMPT_LIMIT):
                break
            await asyncio.sleep(1.0)
            waited += 1.0
        if self.decision is decision and decision.deadline is None:
            decision.offered = None  # written in a message that did not go out
            self.shown(decision.marker)

    def _held(self, decision: Decision) -> bool:
        """His time ran out while he could not act on it: Discord is out of reach, or the
        message starting his time over after it was is still on its way."""
        if decision.again:
            return True
        return self.queued is not None and self.queued(decision.marker) is Reach.CUT_OFF

    async def _hold(self, decision: Decision) -> None:
        """Not timed out: his time starts over when the message naming him goes out again."""
        decision.deadline = decision.bank_started = decision.offered = None
        decision.again = False
        await self._wait_for_message(decision, 0.0)

    async def _expire_now(self, decision: Decision) -> None:
        await asyncio.sleep(0)
        if self.decision is decision:
            await self.on_expiry(decision)

    async def _count(self, decision: Decision) -> None:
        await asyncio.sleep(self.timer)
        if self.decision is not decision:
            return
        if self._held(decision):
            await self._hold(decision)
            return
        bank = self.bank_of(decision.player_id)
        if bank > 0:
            # The table's timer ran out: the player's own reserve starts now.
            decision.bank_started = time.monotonic()
            decision.deadline = int(time.time() + bank)
            self.on_bank(decision)
            await asyncio.sleep(bank)
            if self.decision is not decision:
                return
            if self._held(decision):
                await self._hold(decision)
                return
            self.banks[decision.player_id] = 0.0
            decision.bank_started = None
        await self.on_expiry(decision)
