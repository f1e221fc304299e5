"""Computer players' turns at one table: one job, callbacks in, as the decision clock is.

When the loop finds a computer player (an id from :mod:`engine.bots.ids`) to act, it arms
:class:`BotTurns` with the decision's marker, (hand number, decision number). After a short,
human-like pause the bot answers, once, from what its seat may see alone
(:func:`engine.bots.view.view_of`); deciding runs off the event loop and outside the table's
lock, and the answer is handed back to the loop (``answer``), under the lock, only if that
decision is still the one due. Decisions run on threads of their own (:data:`BOT_THREADS`), so a
decision that hangs never holds a thread the images or anything else run on. A bot has no clock
of a player's: it never times out and never holds a table up. A decision still thinking after
:data:`DECISION_LIMIT` is given up (its thread runs on to its end, unheard) and the bot checks if
it may, else folds (the first decision of each level in each game in a process is not timed: it
builds the shared tables); that is counted (``poker_bot_decisions_late_total``) and logged at
WARNING once per table. An answer the engine
refuses becomes a fold; an answer storage could not take is asked for again a little later (the
hand in storage is as it was).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from bot.metrics import NO_METRICS, Metrics
from bot.runtime.config import RuntimeOptions
from bot.runtime.faults import log_failure
from engine.bots.ids import bot_level
from engine.bots.view import FOLD, Bot, hand_seen, tell_hand, to_action, view_of
from engine.errors import EngineError
from engine.hand import Action, Hand

log = logging.getLogger(__name__)

# How long a bot whose answer storage could not take waits before answering again.
AGAIN_AFTER = 1.0
# The longest a bot may think, in wall seconds: far past the levels' 20 ms at the 99th
# percentile, so only a stuck or starved decision meets it, and short beside the human-like pause.
DECISION_LIMIT = 0.5
# Threads the decisions of every table share. Decisions queue for them; one queued past the
# limit is given up like one that thought too long.
BOT_THREADS = 4
_deciding = ThreadPoolExecutor(max_workers=BOT_THREADS, thread_name_prefix="bot-decision")

Marker = tuple[int, int]  # (hand number, decision number)

# (level, game) whose first decision in this process is done: the tables it builds are shared.
_warm: set[tuple[str, object]] = set()


@dataclass(frozen=True, slots=True)
class BotSeat:
    """The hand a bot is to act in, its index there and its id; who holds each index and the
    hand's number, as the table shows them."""

    hand: Hand
    index: int
    player_id: int
    who: tuple[int, ...]
    number: int


class BotTurns:
    """The computer players' turns at one table.

    - ``lock``: the table's lock, held while the bot reads the hand and while its answer is
      applied (never while it thinks);
    - ``due(marker)``: the bot's seat while ``marker`` is still the decision due at an open
      table, else None;
    - ``answer(hand, action)``: apply and store the bot's action and play on (an
      ``EngineError`` refuses it and changes nothing; a ``StorageError`` stored nothing).
    """

    def __init__(
        self,
        options: RuntimeOptions,
        rng: random.Random,
        lock: AbstractAsyncContextManager[Any],
        due: Callable[[Marker], BotSeat | None],
        answer: Callable[[Hand, Action], Awaitable[None]],
        *,
        name: str,
        guild_id: int = 0,
        metrics: Metrics = NO_METRICS,
        limit: float = DECISION_LIMIT,
        make: Callable[[str], Bot] | None = None,
        warm: set[tuple[str, object]] | None = None,
    ) -> None:
        self.options = options
        self.rng = rng
        self.lock = lock
        self._due = due
        self._answer = answer
        self.name = name
        self.guild_id = guild_id
        self.metrics = metrics
        self.limit = limit
        self._make = make
        self._warm = _warm if warm is None else warm
        self._late_told = False  # a late decision is logged once a table: the counter counts all
        self._turn: tuple[Marker, asyncio.Task[None]] | None = None
        self._bots: dict[int, Bot] = {}
        self._told = -1  # the number of the last hand shown to the bots

    @property
    def thinking(self) -> Marker | None:
        """The decision a bot is answering now (None when no bot is)."""
        if self._turn is None or self._turn[1].done():
            return None
        return self._turn[0]

    def arm(self, marker: Marker) -> None:
        """Let the bot due at ``marker`` answer, once, after a human-like pause."""
        if self._turn is not None:
            old = self._turn[1]
            if self._turn[0] == marker and not old.done():
                return
            if old is not asyncio.current_task():  # an answer may set up the next bot's turn
                old.cancel()
        low, high = self.options.bot_pause
        task = asyncio.create_task(self._play(marker, self.rng.uniform(low, high)),
                                   name=f"bot-{self.name}")
        self._turn = (marker, task)

    def cancel(self) -> None:
        if self._turn is not None:
            self._turn[1].cancel()
            self._turn = None

    def hand_over(self, hand: Hand, who: tuple[int, ...], number: int) -> None:
        """Show every bot of the table the hand that just ended, as everybody saw it: a bot
        that remembers the others learns from it (only while this process runs). A hand
        settled again after a storage fault is shown once."""
        if number == self._told:
            return
        self._told = number
        if self._bots:
            seen = hand_seen(hand, who, number)
            for bot in self._bots.values():
                tell_hand(bot, seen)

    def bot(self, player_id: int) -> Bot:
        """The decision function of a bot seat (made on first use: levels load tables)."""
        found = self._bots.get(player_id)
        if found is None:
            make = self._make
            if make is None:
                from engine import bots

                make = bots.make
            found = self._bots[player_id] = make(bot_level(player_id))
        return found

    async def _play(self, marker: Marker, pause: float) -> None:
        await asyncio.sleep(pause)
        async with self.lock:
            seat = self._due(marker)
            if seat is None:
                return
            view = view_of(seat.hand, seat.index, seat.who, seat.number)
            bot = self.bot(seat.player_id)
            seed = self.rng.getrandbits(64)
        # Deciding reads the view alone, so it runs off the loop without the lock.
        try:
            warm = (bot_level(seat.player_id), view.game)
            thinking = asyncio.get_running_loop().run_in_executor(
                _deciding, functools.partial(bot.decide, view, random.Random(seed)))
            if warm in self._warm:
                decision = await asyncio.wait_for(thinking, self.limit)
            else:
                decision = await thinking
                self._warm.add(warm)
            action = to_action(decision, view)
        except TimeoutError:
            self._late()
            action = to_action(FOLD, view)  # a check when checking is free
        except Exception:
            log.exception("table %s: a bot could not decide; it folds", self.name)
            action = to_action(FOLD, view)
        async with self.lock:
            seat = self._due(marker)
            if seat is None:
                return
            try:
                try:
                    await self._answer(seat.hand, action)
                except EngineError:
                    log.exception("table %s: a bot's answer was refused; it folds", self.name)
                    await self._answer(seat.hand, to_action(FOLD, view))
            except Exception as exc:
                # Storage holds the hand as it was: the bot answers again a little later.
                log_failure(log, exc, "table %s: a bot's answer was not stored", self.name)
                self._turn = None
                self._again(marker)

    def _late(self) -> None:
        self.metrics.bot_decision_late(self.guild_id)
        if not self._late_told:
            self._late_told = True
            log.warning("table %s: a bot thought past %.2f s; it checks or folds (logged once"
                        " a table, counted every time)", self.name, self.limit)

    def _again(self, marker: Marker) -> None:
        async def later() -> None:
            await asyncio.sleep(AGAIN_AFTER)
            async with self.lock:
                if self._turn is not None and self._turn[1] is asyncio.current_task():
                    self._turn = None
                if self._due(marker) is not None:
                    self.arm(marker)

        task = asyncio.create_task(later(), name=f"bot-again-{self.name}")
        self._turn = (marker, task)


__all__ = ["AGAIN_AFTER", "BOT_THREADS", "DECISION_LIMIT", "BotSeat", "BotTurns", "Marker"]
