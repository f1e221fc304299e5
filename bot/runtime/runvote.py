"""Running it twice: the all-in players' vote on how many times the board is run.

When nobody is left to bet and the table plays run it twice, the hand waits for a choice
(:attr:`engine.hand.Hand.run_choice_pending`). :class:`RunVoting` asks the all-in players, with
every live hand's chances shown, and decides: anybody saying once decides at once, twice needs
everybody, and nobody answering in ``run_twice_vote`` seconds means once. A computer player
agrees at once (two runs change nobody's expectation, only the swings). One job, callbacks in,
as the decision clock: the loop applies the decision (``decide``) under the table's lock.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from bot.errors import BotError
from bot.presenter import RunVote, decision_number
from bot.runtime.config import RuntimeOptions
from bot.runtime.faults import log_failure
from bot.runtime.kinds import Extra, TableKind
from engine.equity import RunOutStage
from engine.hand import Hand

log = logging.getLogger(__name__)

Marker = tuple[int, int]  # (hand number, decision number) the question was asked at


@dataclass(slots=True)
class _Ballot:
    marker: Marker
    deadline: int  # Unix seconds
    agreed: set[int]  # player indices who said twice
    chances: RunOutStage | None
    task: asyncio.Task[None]


class RunVoting:
    """The vote at one table.

    - ``kind``: the table's kind (whether it runs boards twice);
    - ``lock``: the table's lock, held while an answer is counted and when time runs out;
    - ``hand()``: the hand being played (None once the table closed);
    - ``seat(user_id, ref)``: his hand and index in it (refused if he has none);
    - ``decide(hand, runs)``: apply the number of runs and play on;
    - ``show()``: show the vote as it stands;
    - ``failed(error)``: deciding when the time ran out failed (the table decides what next).
    """

    def __init__(
        self,
        options: RuntimeOptions,
        kind: TableKind,
        lock: AbstractAsyncContextManager[Any],
        hand: Callable[[], Hand | None],
        seat: Callable[[int, Marker | None], tuple[Hand, int]],
        decide: Callable[[Hand, int], Awaitable[None]],
        show: Callable[[], None],
        failed: Callable[[BaseException], None],
        *,
        name: str,
    ) -> None:
        self.options = options
        self.kind = kind
        self.lock = lock
        self._hand = hand
        self._seat = seat
        self._decide = decide
        self._show = show
        self._failed = failed
        self.name = name
        self._ballot: _Ballot | None = None

    def view(self) -> RunVote | None:
        """What the table message shows of the vote (None when none is open)."""
        ballot = self._ballot
        if ballot is None:
            return None
        return RunVote(frozenset(ballot.agreed), ballot.deadline, ballot.chances)

    @property
    def waiting(self) -> bool:
        """A vote is open and its time to answer is running."""
        return self._ballot is not None and not self._ballot.task.done()

    def asked(self, marker: Marker) -> bool:
        """Whether the question was asked at this decision already."""
        return self._ballot is not None and self._ballot.marker == marker

    def open(self, marker: Marker, bots: set[int], chances: RunOutStage | None) -> None:
        """Ask the all-in players (``bots``, their computer players' indices, agree at once)."""
        self.close()
        seconds = self.options.run_twice_vote
        task = asyncio.create_task(self._expires(marker, seconds), name=f"run-vote-{self.name}")
        self._ballot = _Ballot(marker, int(time.time() + seconds), set(bots), chances, task)

    def everybody_agreed(self, hand: Hand) -> bool:
        ballot = self._ballot
        return ballot is not None and set(hand.run_choice_players) <= ballot.agreed

    def check(self, user_id: int, ref: Marker | None) -> tuple[Hand, int]:
        """May ``user_id`` answer now (a button drawn for ``ref``)? His hand and index;
        refused with the reason otherwise."""
        self.kind.require(Extra.RUN_TWICE)
        hand, index = self._seat(user_id, ref)
        if not hand.run_choice_pending or self._ballot is None:
            raise BotError("no_run_vote")
        if ref is not None and ref[1] != decision_number(hand):
            raise BotError("already_acted")
        if index not in hand.run_choice_players:
            raise BotError("not_in_run_vote")
        if index in self._ballot.agreed:
            raise BotError("already_voted")
        return hand, index

    async def answer(self, user_id: int, twice: bool, ref: Marker | None) -> bool:
        """An all-in player's answer; True once the runs are decided (anybody saying once
        decides at once; twice needs everybody)."""
        async with self.lock:
            hand, index = self.check(user_id, ref)
            assert self._ballot is not None
            if twice:
                self._ballot.agreed.add(index)
                if not self.everybody_agreed(hand):
                    self._show()
                    return False
            await self._decide(hand, 2 if twice else 1)
            return True

    def close(self) -> None:
        """No vote is open any more (decided, the hand ended, the table stopped)."""
        ballot, self._ballot = self._ballot, None
        if ballot is not None and ballot.task is not asyncio.current_task():
            ballot.task.cancel()

    async def _expires(self, marker: Marker, seconds: float) -> None:
        await asyncio.sleep(seconds)
        async with self.lock:
            hand = self._hand()
            if hand is None or not self.asked(marker) or not hand.run_choice_pending:
                return
            try:
                await self._decide(hand, 1)
            except Exception as exc:
                log_failure(log, exc, "table %s: could not run the board once", self.name)
                self._failed(exc)


__all__ = ["RunVoting"]
