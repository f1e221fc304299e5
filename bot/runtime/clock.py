"""The decision clock of one table (TDA 29): the table's timer, then the player's time bank.

A decision is *armed* when it arises, but its time only starts once the player has been told:
the table's messenger reports when the message naming him went out (:meth:`DecisionClock.shown`),
and that is when the countdown begins and what its deadline (a Discord timestamp) counts from.
A message stuck behind the channel's send budget therefore never eats a player's time. If the
message cannot go out at all, the clock starts anyway after ``prompt_grace`` seconds, so a
table whose channel is unreachable still moves on; one still queued for the bot's request
budget (``queued``: after a restart a thousand tables post their messages at 40 a second) is on
its way, and is waited for up to ``QUEUED_PROMPT_LIMIT`` seconds.

A player the table has marked away (he timed out before) gets no time: the clock acts at once.
When the table's timer runs out and the player has a reserve left, the clock calls ``on_bank``
(the runner shows the new deadline); when all his time is gone it calls ``on_expiry`` with the
decision, and the runner applies the timeout under its lock (checking the decision is still the
current one).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass

from bot.runtime.config import RuntimeOptions

# A decision is one turn in one hand: (hand number, count of actions taken before it).
Marker = tuple[int, int]
# The longest a player's time waits for the message naming him while it is queued.
QUEUED_PROMPT_LIMIT = 120.0


@dataclass(eq=False, slots=True)
class Decision:
    """The decision being timed: whose it is and, once he was told, until when."""

    player_id: int
    index: int
    marker: Marker
    deadline: int | None = None  # Unix seconds, shown as a Discord timestamp; None until shown
    bank_started: float | None = None  # monotonic time the player's own reserve began to run


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
        self.banks = banks  # the table's stored reserves, by player (the runner saves them)
        self.on_expiry = on_expiry
        self.on_bank = on_bank
        self.name = name
        self.timer = float(options.default_timer)
        self.decision: Decision | None = None
        self._task: asyncio.Task[None] | None = None
        # Whether the message naming the player of a decision is still queued to go out (the
        # table's messenger tells; None: nothing is known, the grace alone counts).
        self.queued: Callable[[Marker], bool] | None = None

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

    def shown(self, marker: Marker) -> int | None:
        """The message naming the player went out: start counting; the deadline to show."""
        decision = self.decision
        if decision is None or decision.marker != marker:
            return None
        if decision.deadline is None:
            decision.deadline = int(time.time() + self.timer)
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
        waited = self.options.prompt_grace
        while (
            waited < QUEUED_PROMPT_LIMIT
            and self.queued is not None
            and self.decision is decision
            and decision.deadline is None
            and self.queued(decision.marker)
        ):
            await asyncio.sleep(1.0)
            waited += 1.0
        if self.decision is decision and decision.deadline is None:
            self.shown(decision.marker)

    async def _expire_now(self, decision: Decision) -> None:
        await asyncio.sleep(0)
        if self.decision is decision:
            await self.on_expiry(decision)

    async def _count(self, decision: Decision) -> None:
        await asyncio.sleep(self.timer)
        if self.decision is not decision:
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
            self.banks[decision.player_id] = 0.0
            decision.bank_started = None
        await self.on_expiry(decision)
