"""Which servers' tables this process runs, when several processes share one database.

Discord splits a large bot into shards: shard ``(guild_id >> 22) % count`` carries a server's
events. Each process runs some shards (``SHARD_COUNT``, ``SHARD_IDS``) and may run only the
tables of the servers on them — and, since a process may be started twice by mistake or hang
and come back, only while it holds that server's lease in the database (``bot.storage.leases``).
A lease is taken the first time the process needs the server, renewed every third of its
lifetime, and given back when the process stops. If renewal fails for as long as a lease lasts,
the process stops acting for those servers: another process may hold them by then.

A lease held by a process that ran on this machine and is gone is taken at once (a bot restarted
after a crash need not wait it out), and by a process standing by for its shards at the first
interaction that finds it gone, not at its next renewal: the runtime is told
(``on_taken_over``) and brings the servers' tables back. A server whose lease another live
process holds is left alone: its interactions are not
answered here (the holder answers them), and a warning says why once.

While the database takes no writes (``Database.health``), nothing about leases can be learnt or
changed, and nothing here raises: servers whose lease this process held at last contact are
still its own (a lease cannot be taken from a database nobody reaches, and whatever a press
asks, the table refuses it, since nothing can be stored), and a failing renewal keeps them
rather than dropping their tables. When the database is back, each is confirmed before it is
served again: a server another process took meanwhile (it could reach the database while this
one could not) is reported lost at the next renewal (``next_renewal`` wakes it at once).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from bot.metrics import NO_METRICS, Metrics
from bot.settings import shard_of
from bot.storage import Database, StorageError, leases
from bot.storage.errors import StorageUnavailable

log = logging.getLogger(__name__)

RELEASE_TIMEOUT = 2.0


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """The shards this process runs: ``count`` None means every server (one process for the
    whole bot); ``ids`` None means all ``count`` shards.

    >>> plan = ShardPlan(2, (1,))
    >>> plan.covers(1 << 22), plan.covers(2 << 22), plan.covers(None)
    (True, False, False)
    >>> ShardPlan().covers(12345)
    True
    """

    count: int | None = None
    ids: tuple[int, ...] | None = None

    def shard_of(self, guild_id: int) -> int:
        return shard_of(guild_id, self.count)

    def covers(self, guild_id: int | None) -> bool:
        """Whether Discord sends this server's events here (None: direct messages, shard 0)."""
        if self.count is None or self.ids is None:
            return True
        shard = 0 if guild_id is None else self.shard_of(guild_id)
        return shard in self.ids

    @property
    def share(self) -> float:
        """The fraction of the bot's shards this process runs."""
        if self.count is None or self.ids is None:
            return 1.0
        return len(self.ids) / self.count

    def describe(self) -> str:
        if self.count is None:
            return "every shard"
        if self.ids is None:
            return f"all {self.count} shards"
        return f"shards {','.join(map(str, self.ids))} of {self.count}"


def process_name() -> str:
    """A name for this process's leases, ``host:pid:random``: readable in the database, new at
    every start (a restarted process must not mistake a lease of its previous life for a
    twin's, nor a twin's for its own)."""
    return f"{socket.gethostname()[:60]}:{os.getpid()}:{secrets.token_hex(4)}"


def died_here(holder: str, me: str) -> bool:
    """Whether the process named ``holder`` ran on this machine and is gone: a lease it held
    need not be waited out (a bot restarted after a crash takes its tables back at once).

    Same host and same pid is this process's previous life (a container restarts with the
    same pid); same host and another pid is alive if that pid exists.
    """
    try:
        host, pid_text, token = holder.rsplit(":", 2)
        my_host, my_pid, my_token = me.rsplit(":", 2)
        pid = int(pid_text)
    except ValueError:
        return False
    if host != my_host or token == my_token:
        return False
    if pid == int(my_pid):
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # it exists (another user's process): alive as far as we can tell
    return False


class Ownership:
    """This process's leases: which servers it runs, asked before every interaction."""

    def __init__(
        self,
        db: Database,
        plan: ShardPlan,
        *,
        lease_seconds: float,
        owner: str | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        metrics: Metrics = NO_METRICS,
        on_taken_over: Callable[[int], None] | None = None,
    ) -> None:
        self.db = db
        self.metrics = metrics
        self.on_taken_over = on_taken_over
        self.plan = plan
        self.owner = owner if owner is not None else process_name()
        self.ttl = max(3, round(lease_seconds))
        self._monotonic = monotonic
        self._held: set[int] = set()
        # Until when (monotonic) the leases are surely still ours: the start of the last
        # successful renewal plus a lifetime, less a margin for clocks between machines.
        self._valid_until = 0.0
        # Leases taken one by one since then (renewal failing): until when each is sure.
        self._confirmed: dict[int, float] = {}
        # Held servers found taken by another process between renewals: the next renewal
        # reports them lost.
        self._lost: set[int] = set()
        # Servers another process holds: not asked again before this (monotonic) time, unless
        # that process (by name) ran on this machine and is gone.
        self._refused: dict[int, float] = {}
        self._refused_by: dict[int, str] = {}
        self._warned: set[int] = set()
        # Servers of this process's shards found run by another process: when, last.
        self._elsewhere: dict[int, float] = {}
        # The last renewal failed (the database did not answer).
        self._renewal_failing = False

    @property
    def held(self) -> frozenset[int]:
        """The servers this process runs now: those whose lease is surely its own, and, while
        the database takes no writes, every one it held at last contact."""
        if not self.db.health.available:
            return frozenset(self._held)
        return frozenset(g for g in self._held if self._sure(g))

    def _fresh(self) -> bool:
        return self._monotonic() < self._valid_until

    def _sure(self, guild_id: int) -> bool:
        return self._fresh() or self._confirmed.get(guild_id, 0.0) > self._monotonic()

    def _margin(self) -> float:
        return self.ttl / 3

    async def serves(self, guild_id: int | None) -> bool:
        """Whether this process acts for the server (taking its lease if free). Never raises.

        While the database takes no writes, a server whose lease this process held at last
        contact is served (see the module's docstring) and any other is not: it may be
        another process's, which would answer it too."""
        if not self.plan.covers(guild_id):
            return False
        if guild_id is None:
            return True
        if guild_id in self._held and (self._sure(guild_id) or not self.db.health.available):
            return True
        if not self.db.health.available:
            return False
        if self._refused.get(guild_id, 0.0) > self._monotonic():
            holder = self._refused_by.get(guild_id)
            # A syscall, not a query: a holder gone from this machine is not waited for.
            if holder is None or not died_here(holder, self.owner):
                return False
        try:
            return await self.acquire(guild_id)
        except Exception:
            # A bug: the interaction must still be answered by somebody, not dropped.
            log.exception("could not tell whether server %d is this process's", guild_id)
            return guild_id in self._held

    async def acquire(self, guild_id: int) -> bool:
        started = self._monotonic()
        holder = await self._ask(guild_id)
        if isinstance(holder, bool):
            return holder
        change = "acquired"
        if holder is not None and died_here(holder, self.owner):
            if await self._take_over(guild_id, holder):
                holder, change = None, "taken_over"
            else:
                # It changed hands meanwhile, perhaps to this process: two of its interactions
                # found the holder gone at once, and the other took it over first.
                holder = await self._ask(guild_id)
                if isinstance(holder, bool):
                    return holder
        if holder is not None:
            self._refused[guild_id] = self._monotonic() + self._margin()
            self._refused_by[guild_id] = holder
            self._elsewhere[guild_id] = self._monotonic()
            if guild_id in self._held:
                # Taken while this process could not renew: its tables must stop here.
                self._held.discard(guild_id)
                self._confirmed.pop(guild_id, None)
                self._lost.add(guild_id)
                log.warning(
                    "lost the lease of server %d to another process (%s) while this one could"
                    " not renew it: its tables stop here",
                    guild_id,
                    holder,
                )
                self.metrics.lease_changed(guild_id, "lost")
            elif guild_id not in self._warned:
                self._warned.add(guild_id)
                log.warning(
                    "server %d is run by another process (%s), which holds its lease: this"
                    " process (%s) leaves its tables alone. If that process is not meant to run"
                    " this server's shard, check SHARD_COUNT and SHARD_IDS of both.",
                    guild_id,
                    holder,
                    self.plan.describe(),
                )
            return False
        self._refused.pop(guild_id, None)
        self._refused_by.pop(guild_id, None)
        self._elsewhere.pop(guild_id, None)
        self._warned.discard(guild_id)
        self._lost.discard(guild_id)
        if guild_id not in self._held or change == "taken_over":
            self.metrics.lease_changed(guild_id, change)
        self._held.add(guild_id)
        if not self._fresh():
            # Renewal has been failing: this lease, just taken, is sure; the others are
            # confirmed one by one, or by the next renewal.
            self._confirmed[guild_id] = started + self.ttl - self._margin()
        if change == "taken_over" and self.on_taken_over is not None:
            self.on_taken_over(guild_id)
        return True

    async def _ask(self, guild_id: int) -> str | bool | None:
        """``leases.acquire``: the holder (None: this process); or, when the database could
        not answer, what ``serves`` says then (True for a server held at last contact)."""
        try:
            holder = await leases.acquire(self.db, guild_id, self.owner, self.ttl)
        except StorageUnavailable:
            # The storage's own warning says why; no line a press.
            return guild_id in self._held
        except StorageError:
            log.exception("could not take the lease of server %d", guild_id)
            return False
        return holder

    async def _take_over(self, guild_id: int, holder: str) -> bool:
        try:
            taken = await leases.take_over(self.db, guild_id, self.owner, holder, self.ttl)
        except StorageUnavailable:
            return False
        except StorageError:
            log.exception("could not take over the lease of server %d", guild_id)
            return False
        if taken:
            log.info("server %d: took over the lease of %s, which is gone", guild_id, holder)
        return taken

    async def renew(self) -> set[int]:
        """Renew every lease; the servers lost since the last renewal (taken by another
        process after ours ran out). Never raises. While the database takes no writes, nothing
        is lost: the leases stay this process's until it answers again; another failure loses
        nothing until they would have run out."""
        started = self._monotonic()
        try:
            kept = await leases.renew(self.db, self.owner, self.ttl)
        except StorageUnavailable as exc:
            if not self._renewal_failing:
                log.info(
                    "could not renew the leases of %d server(s) (%s): kept until the database"
                    " answers",
                    len(self._held),
                    exc.kind,
                )
            self._renewal_failing = True
            return set()
        except Exception:
            log.exception("could not renew the leases of %d server(s)", len(self._held))
            self._renewal_failing = True
            return set() if self._fresh() else self._drop_all()
        self._renewal_failing = False
        newly = self._held - kept
        # Those an interaction found lost were logged and counted then.
        lost = newly | self._lost
        self._held = kept
        self._lost.clear()
        self._confirmed.clear()
        self._valid_until = started + self.ttl - self._margin()
        for guild_id in sorted(newly):
            log.error(
                "lost the lease of server %d to another process: its tables stop here", guild_id
            )
            self.metrics.lease_changed(guild_id, "lost")
        return lost

    async def next_renewal(self) -> None:
        """Wait until the next renewal is due: a third of a lease's lifetime, or as soon as
        the database takes writes again after failing (the leases may have run out meanwhile,
        and a server another process took must stop here without waiting)."""
        health = self.db.health

        async def back_after_an_outage() -> None:
            await health.wait_unavailable()
            await health.wait_available()

        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._margin()):
                await back_after_an_outage()

    def _drop_all(self) -> set[int]:
        lost, self._held = set(self._held), set()
        self._confirmed.clear()
        if lost:
            log.error(
                "leases ran out without renewal: stopping the tables of %d server(s)", len(lost)
            )
        for guild_id in lost:
            self.metrics.lease_changed(guild_id, "lost")
        return lost

    def trouble(self) -> list[str]:
        """Why this process does not run all of its servers, for the readiness probe (empty:
        it does). A server found run by another process counts for a lease's lifetime after
        it was last seen so, unless this process has taken it since."""
        reasons = []
        if self._renewal_failing:
            reasons.append("leases: the last renewal failed")
        recent = self._monotonic() - self.ttl
        elsewhere = sum(1 for seen in self._elsewhere.values() if seen > recent)
        if elsewhere:
            reasons.append(
                f"leases: {elsewhere} server(s) of this process's shards are run by another"
                " process"
            )
        return reasons

    async def release(self, guilds: Iterable[int] | None = None) -> None:
        """Give leases back (all of them when stopping), so another process need not wait."""
        try:
            # One statement; a database that does not answer must not hold up the stop.
            async with asyncio.timeout(RELEASE_TIMEOUT):
                await leases.release(self.db, self.owner, guilds)
        except (StorageUnavailable, TimeoutError) as exc:
            log.warning(
                "could not give the leases back (%s); they run out in %d s",
                getattr(exc, "kind", "no answer"),
                self.ttl,
            )
        except StorageError:
            log.exception("could not give the leases back; they run out in %d s", self.ttl)
        given = set(self._held) if guilds is None else self._held & set(guilds)
        for guild_id in given:
            self.metrics.lease_changed(guild_id, "released")
        if guilds is None:
            self._held.clear()
            self._confirmed.clear()
        else:
            self._held.difference_update(guilds)
            for guild_id in guilds:
                self._confirmed.pop(guild_id, None)
