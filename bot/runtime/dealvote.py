"""A deal at a tournament's final table: the players still in vote on prizes the bot worked out.

Between hands, once few enough players are left, one of them proposes a deal by ICM or by chip
chop (``engine.icm``). :class:`DealVoting` holds the vote: no hand is dealt while it is open,
every player in it must accept, and the first rejection, a player going away, or the time to
answer running out ends it at once (play resumes). One proposal at a time; a proposer whose
deal was turned down waits for the next level before proposing again. A computer player
accepts at once: the deal's figures are what his chips are worth, so he loses nothing by it.

One job, callbacks in, as :class:`~bot.runtime.runvote.RunVoting` is: the tournament computes
the offer and applies the deal (``decide``) under its lock; this class only counts answers and
keeps time. What it remembers lives in memory: a restart in the middle of a vote ends the vote,
and play goes on as if it had been turned down.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from bot.errors import BotError
from bot.runtime.faults import log_failure
from engine.icm import chip_chop, icm_shares

log = logging.getLogger(__name__)

KINDS = ("icm", "chips")


@dataclass(frozen=True, slots=True)
class DealOffer:
    """A proposed deal: ``prizes`` and ``stacks`` by player, in seat order."""

    number: int  # names the buttons drawn for it: a press on an older offer's acts on nothing
    kind: str
    proposer: int
    stacks: Mapping[int, int]
    prizes: Mapping[int, int]
    level: int  # the level it was proposed at
    deadline: float  # Unix seconds


def figures(kind: str, stacks: Mapping[int, int], unpaid: Sequence[int]) -> dict[int, int]:
    """Each player's prize in a deal of ``kind`` over the ``unpaid`` prizes (best first), in
    whole chips adding up to them; odd chips to the larger stacks, the earlier player between
    equal ones."""
    if kind not in KINDS:
        raise BotError("bad_option", option="kind")
    players = list(stacks)
    share = icm_shares if kind == "icm" else chip_chop
    return dict(zip(players, share([stacks[p] for p in players], unpaid), strict=True))


@dataclass(slots=True)
class _Ballot:
    offer: DealOffer
    accepted: set[int]
    task: asyncio.Task[None] | None = None


@dataclass(slots=True)
class _Held:
    """A proposal made during a hand: put to the players once every table is between hands."""

    proposer: int
    kind: str


class DealVoting:
    """The deal vote of one tournament.

    - ``seconds``: how long the players have to answer;
    - ``lock``: the tournament's lock, held while an answer is counted and when time runs out;
    - ``decide(offer)``: everybody accepted: end the tournament with the offer's prizes (one
      stored step); if it raises, the deal is off and the error goes to whoever answered last;
    - ``off(offer, by)``: the deal is off (``by``: who rejected or went away; None: the time
      ran out): say so and deal again;
    - ``clock`` and ``sleep``: the time (tests pass a fake one).
    """

    def __init__(
        self,
        seconds: float,
        lock: AbstractAsyncContextManager[Any],
        decide: Callable[[DealOffer], Awaitable[None]],
        off: Callable[[DealOffer, int | None], None],
        *,
        name: str,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.seconds = seconds
        self.lock = lock
        self._decide = decide
        self._off = off
        self.name = name
        self._clock = clock
        self._sleep = sleep
        self._ballot: _Ballot | None = None
        self._held: _Held | None = None
        self._waits: dict[int, int] = {}  # proposer -> the level his deal was turned down at
        self._numbers = int(clock() * 1000)

    # -- queries -----------------------------------------------------------------------------

    @property
    def holds(self) -> bool:
        """No hand may be dealt: a deal is being voted on, or waits for the hands to end."""
        return self._ballot is not None or self._held is not None

    @property
    def offer(self) -> DealOffer | None:
        return None if self._ballot is None else self._ballot.offer

    @property
    def held(self) -> tuple[int, str] | None:
        """The proposal waiting for the hands in play to end: (proposer, kind)."""
        return None if self._held is None else (self._held.proposer, self._held.kind)

    def accepted(self) -> frozenset[int]:
        return frozenset() if self._ballot is None else frozenset(self._ballot.accepted)

    # -- proposing ---------------------------------------------------------------------------

    def check_proposal(
        self, user_id: int, players_in: Collection[int], level: int, most: int, kind: str
    ) -> None:
        """May ``user_id`` propose a deal of ``kind`` now? Refused with the reason otherwise:
        the checks a proposer meets, in the order he would ask why."""
        if kind not in KINDS:
            raise BotError("bad_option", option="kind")
        if user_id not in players_in:
            raise BotError("deal_not_in")
        if len(players_in) > most:
            raise BotError("deal_too_many", most=most, left=len(players_in))
        if self.holds:
            raise BotError("deal_open")
        turned_down = self._waits.get(user_id)
        if turned_down is not None and level <= turned_down:
            raise BotError("deal_wait", level=turned_down + 1)

    def hold(self, proposer: int, kind: str) -> None:
        """Hold a proposal until the hands in play end (no new hand is dealt meanwhile)."""
        self._held = _Held(proposer, kind)

    def release(self) -> tuple[int, str] | None:
        """The held proposal, taken out to be opened (or dropped)."""
        held, self._held = self._held, None
        return None if held is None else (held.proposer, held.kind)

    def next_number(self) -> int:
        self._numbers += 1
        return self._numbers

    def open(self, offer: DealOffer, agreed: Collection[int] = ()) -> None:
        """Put ``offer`` to its players (``agreed``: computer players, who accept at once)."""
        self.close()
        ballot = _Ballot(offer, {p for p in agreed if p in offer.prizes})
        self._ballot = ballot
        ballot.task = asyncio.create_task(self._expires(ballot), name=f"deal-vote-{self.name}")

    # -- answering ---------------------------------------------------------------------------

    def check(self, user_id: int, number: int | None) -> _Ballot:
        """May ``user_id`` answer the offer ``number`` (None: whichever is open)?"""
        ballot = self._ballot
        if ballot is None or (number is not None and number != ballot.offer.number):
            raise BotError("no_deal_vote")
        if user_id not in ballot.offer.prizes:
            raise BotError("not_in_deal")
        if user_id in ballot.accepted:
            raise BotError("already_voted")
        return ballot

    async def answer(self, user_id: int, number: int | None, accept: bool) -> bool:
        """A player's answer; True once the deal is made (everybody accepted)."""
        async with self.lock:
            ballot = self.check(user_id, number)
            if not accept:
                self._turn_down(ballot, user_id)
                return False
            ballot.accepted.add(user_id)
            if not set(ballot.offer.prizes) <= ballot.accepted:
                return False
            self.close()
            await self._decide(ballot.offer)
            return True

    def withdraw(self, user_id: int) -> bool:
        """He went away (or cannot be asked): a rejection, if he is in the deal being voted
        on. The caller holds the lock. Whether it ended a vote."""
        ballot = self._ballot
        if ballot is None or user_id not in ballot.offer.prizes:
            return False
        self._turn_down(ballot, user_id)
        return True

    def close(self) -> None:
        """No vote is open any more (made, turned down, or the tournament is over)."""
        ballot, self._ballot = self._ballot, None
        self._held = None
        if ballot is not None and ballot.task is not None and (
            ballot.task is not asyncio.current_task()
        ):
            ballot.task.cancel()

    def _turn_down(self, ballot: _Ballot, by: int | None) -> None:
        offer = ballot.offer
        self._waits[offer.proposer] = max(offer.level, self._waits.get(offer.proposer, 0))
        self.close()
        self._off(offer, by)

    async def _expires(self, ballot: _Ballot) -> None:
        await self._sleep(max(0.0, ballot.offer.deadline - self._clock()))
        async with self.lock:
            if self._ballot is not ballot:
                return
            try:
                self._turn_down(ballot, None)
            except Exception as exc:
                log_failure(log, exc, "tournament %s: the deal's time ran out", self.name)


__all__ = ["KINDS", "DealOffer", "DealVoting", "figures"]
