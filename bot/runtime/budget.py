"""The bot's budget of REST requests, shared by every table of the process.

Discord lets one bot make about 50 requests a second in all, across every shard and process
(answers to interactions, which travel on the interaction's own token, do not count). Past it,
Discord answers 429 to everything the bot sends until the window ends, so a busy bot that did
not pace itself would stall every table at once. Each process spends at most its share
(``POKER_REQUESTS_PER_SECOND`` for the whole bot, times the fraction of the shards it runs):
table messages wait for a token (and, waiting, coalesce into fewer, newer edits), DMs wait too,
and nothing is ever dropped.

The bucket holds at most a fifth of a second's tokens, so that a burst and the steady rate
together stay under Discord's limit in any one-second window.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from bot.metrics import NO_METRICS, Metrics

DISCORD_GLOBAL_LIMIT = 50


class RequestBudget:
    """A token bucket: ``rate`` requests a second, at most ``burst`` at once.

    >>> clock = iter([0.0, 0.0, 0.0, 0.5]).__next__
    >>> budget = RequestBudget(4, burst=1, monotonic=clock)
    >>> budget.take(), budget.take(), round(budget.delay(), 2)
    (True, False, 0.0)
    """

    def __init__(
        self,
        rate: float,
        *,
        burst: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        if rate <= 0:
            raise ValueError("the request rate must be positive")
        self.rate = rate
        self.burst = max(1.0, burst if burst is not None else rate / 5)
        self._monotonic = monotonic
        self._tokens = self.burst
        self._updated = monotonic()
        self.spent = 0  # requests made through the budget (for the benchmarks)
        self.waited = 0.0  # seconds spent waiting for a token, in all
        self.metrics = metrics

    def _refill(self) -> None:
        now = self._monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate)
        self._updated = now

    def delay(self) -> float:
        """Seconds until a token is free (0: one is free now)."""
        self._refill()
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / self.rate

    def take(self) -> bool:
        """Spend a token if one is free."""
        self._refill()
        if self._tokens < 1:
            return False
        self._tokens -= 1
        self.spent += 1
        return True

    async def spend(self) -> None:
        """Wait for a token and spend it."""
        waited = 0.0
        while not self.take():
            wait = self.delay()
            waited += wait
            self.waited += wait
            await asyncio.sleep(wait)
        self.metrics.budget_waited(waited)
