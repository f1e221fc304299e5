"""Whether Discord can be reached, as this process sees it: its gateway shards and its REST
requests.

Discord goes away in pieces: a gateway connection drops (discord.py reconnects and resumes),
REST requests fail with a 5xx or cannot connect, or everything is gone for a while. Every REST
request's outcome reaches the link where it leaves discord.py's HTTP session
(``bot.runtime.budget.budget_trace``), and the client tells it when a shard drops and when it is
back (``bot.client.PokerBot``).

The link is *down* from a fault with nothing answered since, or while a shard is disconnected.
A down link that lasted ``OUTAGE_AFTER`` seconds is an *outage*: a gateway that resumes within
a second or a single 503 is the business of whoever sent the request (the table's messenger
sends it again), but during an outage nobody can see a table or act on it, so

- the decision clocks hold: nobody is timed out for a turn he could not see or act on
  (:meth:`cut_off`, read by ``bot.runtime.clock``);
- when it ends, every table's messenger is told (:meth:`join`): it sends what it owes at once
  rather than at its next retry, and shows the player to act his turn again, his time
  started over. Its REST side ends when a request is answered again: while requests fail, the
  link asks Discord itself every ``PROBE_EVERY`` seconds (``probe``, one small request), so
  the end is seen within a second whatever the tables' retries are waiting for, and the
  tables are shown again even while a shard's gateway is still reconnecting.

A shard's drop is one WARNING with its cause; REST faults are a WARNING at most once a minute
(``bot.logs.Throttle``; the rest at INFO, and the repetitions within one outage at DEBUG);
the end of an outage is INFO, with how long it lasted.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Protocol

from bot.logs import Throttle
from bot.metrics import NO_METRICS, LinkState, Metrics

log = logging.getLogger(__name__)

# A down link is an outage once it lasted this long (a gateway resumes within a second or two).
OUTAGE_AFTER = 5.0
# How often Discord is asked whether it answers again while REST requests fail.
PROBE_EVERY = 1.0


class Party(Protocol):
    """What the link asks of whoever speaks to Discord for a table (its messenger)."""

    def owed(self) -> tuple[int, float | None]:
        """Messages Discord failed and that are still to go, and since when the oldest waits
        (monotonic seconds; None: nothing is owed)."""
        ...

    def discord_back(self, lasted: float) -> None:
        """Discord answers again after an outage of ``lasted`` seconds."""
        ...


class DiscordLink:
    """The process's view of whether Discord can be reached."""

    def __init__(
        self,
        *,
        outage_after: float = OUTAGE_AFTER,
        monotonic: Callable[[], float] = time.monotonic,
        metrics: Metrics = NO_METRICS,
    ) -> None:
        self.outage_after = outage_after
        self._monotonic = monotonic
        self.metrics = metrics
        self._shards: dict[int, float] = {}  # shards disconnected: since when
        self._failing: float | None = None  # REST requests failing since (nothing answered)
        self._down_since: float | None = None
        self._parties: weakref.WeakSet[Party] = weakref.WeakSet()
        self._faults = Throttle()
        self.outages = 0  # outages that ended
        # One small request that tells whether Discord answers (the client sets it); asked
        # every PROBE_EVERY seconds while requests fail.
        self.probe: Callable[[], Awaitable[object]] | None = None
        self._probing: asyncio.Task[None] | None = None
        metrics.watch_link(self.state)

    # -- what happens ------------------------------------------------------------------------

    def gateway_lost(self, shard_id: int, cause: str) -> None:
        """A shard's gateway connection dropped (discord.py reconnects it by itself)."""
        if shard_id in self._shards:
            log.debug("gateway: shard %d still disconnected (%s)", shard_id, cause)
            return
        now = self._monotonic()
        self._shards[shard_id] = now
        self.metrics.gateway_lost(shard_id)
        log.warning("gateway: shard %d disconnected (%s); reconnecting", shard_id, cause)
        self._went_down(now)

    def gateway_back(self, shard_id: int) -> None:
        """A shard is connected again (identified or resumed)."""
        since = self._shards.pop(shard_id, None)
        if since is None:
            return
        log.info("gateway: shard %d connected again after %.1fs", shard_id,
                 self._monotonic() - since)
        self._maybe_up()

    def request_failed(self, cause: str) -> None:
        """A REST request met a fault of Discord's (a 5xx, a connection refused or reset, a
        timeout)."""
        if self._failing is not None:
            log.debug("Discord failed a request (%s)", cause)
            return
        now = self._monotonic()
        self._failing = now
        self._faults.log(log, "Discord failed a request (%s); what it failed is sent again",
                         cause)
        self._went_down(now)
        self._start_probing()

    def request_answered(self) -> None:
        """Discord answered a REST request (whatever it said, it was there)."""
        since = self._failing
        if since is None:
            return
        self._failing = None
        lasted = self._monotonic() - since
        if self._shards and lasted >= self.outage_after:
            # The tables can be seen again: what they owe goes now, without waiting for the
            # gateway's reconnection (whose own backoff can reach half a minute).
            self._tell(lasted)
        self._maybe_up()

    # -- what it means -----------------------------------------------------------------------

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def cut_off(self) -> bool:
        """Discord has been out of reach for ``outage_after`` seconds or more: nobody can see
        a table or act on it."""
        since = self._down_since
        return since is not None and self._monotonic() - since >= self.outage_after

    def shards_down(self) -> dict[int, float]:
        """The shards disconnected now, and for how long (seconds)."""
        now = self._monotonic()
        return {shard: now - since for shard, since in sorted(self._shards.items())}

    def join(self, party: Party) -> None:
        """``party`` is told when an outage ends, and counted in what is owed (held weakly:
        a messenger dropped without ``leave`` goes by itself)."""
        self._parties.add(party)

    def leave(self, party: Party) -> None:
        self._parties.discard(party)

    def state(self) -> LinkState:
        """What the metrics show: the messages owed, how long the oldest has waited."""
        count, oldest = 0, None
        for party in list(self._parties):
            owed, since = party.owed()
            count += owed
            if since is not None and (oldest is None or since < oldest):
                oldest = since
        waited = 0.0 if oldest is None else max(0.0, self._monotonic() - oldest)
        return LinkState(owed=count, oldest_owed=waited, unreachable=self.cut_off())

    # -- internals ---------------------------------------------------------------------------

    def _went_down(self, now: float) -> None:
        if self._down_since is None:
            self._down_since = now

    def _maybe_up(self) -> None:
        since = self._down_since
        if self._shards or self._failing is not None or since is None:
            return
        self._down_since = None
        lasted = self._monotonic() - since
        if lasted < self.outage_after:
            return
        self.outages += 1
        self._tell(lasted)

    def _tell(self, lasted: float) -> None:
        parties = list(self._parties)
        owed = sum(party.owed()[0] for party in parties)
        log.info("Discord answers again after %.0fs; %d message(s) owed go now", lasted, owed)
        for party in parties:
            try:
                party.discord_back(lasted)
            except Exception:
                log.exception("could not resume a table's messages after the outage")

    def _start_probing(self) -> None:
        if self.probe is None or (self._probing is not None and not self._probing.done()):
            return
        try:
            self._probing = asyncio.get_running_loop().create_task(self._ask(),
                                                                   name="discord-probe")
        except RuntimeError:
            return  # no loop (a test driving the link by hand)

    async def _ask(self) -> None:
        """While requests fail, ask Discord now and then (the answer reaches the link through
        the request's own outcome)."""
        probe = self.probe
        while self._failing is not None and probe is not None:
            await asyncio.sleep(PROBE_EVERY)
            if self._failing is None:
                return
            try:
                await probe()
            except Exception as exc:
                log.debug("Discord not answering yet (%s)", exc)

    def close(self) -> None:
        if self._probing is not None:
            self._probing.cancel()


__all__ = ["OUTAGE_AFTER", "PROBE_EVERY", "DiscordLink", "Party"]
