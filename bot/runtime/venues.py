"""Start-up and recovery: which venues this process runs, bringing them back, and the leases.

Cash tables and tournaments are *venues*: what a server's lease carries. When several processes
share the database, each runs only the servers on its shards and whose lease it holds
(``bot.runtime.ownership``): :class:`Venues` restores their venues at start-up (one loop for
both kinds), renews its leases while it runs, takes over the venues of a server whose lease ran
out (its process died), stops those of a server whose lease it lost, and gives every lease back
when it stops. It also tidies what a stop may have left behind: a hand running at a table that
is no longer open, and the last message of a table closed just before the stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import discord

from bot.errors import is_discord_fault
from bot.i18n import t
from bot.runtime.budget import Priority, requests_at
from bot.runtime.cash import CashTable, PracticeTable
from bot.runtime.config import TableConfig
from bot.runtime.faults import log_failure
from bot.runtime.messenger import NOBODY
from bot.runtime.ownership import Ownership
from bot.runtime.recovery import restore_table
from bot.runtime.registry import Registry, Venue
from bot.runtime.table import TableServices
from bot.runtime.tourney import LiveTournament
from bot.storage import Database, StorageError, hands, tables, tournaments
from bot.storage.tables import TableInfo
from engine.errors import EngineError

log = logging.getLogger(__name__)

# How long an interaction on a server just taken over waits for its tables to come back.
ADOPTION_WAIT = 1.0


@dataclass(frozen=True, slots=True)
class _VenueKind:
    """How venues of one kind are found open in storage and brought back."""

    name: str
    open_guilds: Callable[[Database], Awaitable[dict[int, int]]]
    restore: Callable[[int], Awaitable[Venue]]


def cash_kind(info: TableInfo) -> type[CashTable]:
    """The class of a stored cash table: a practice table plays for play chips."""
    return PracticeTable if info.practice else CashTable


class Venues:
    """The venues this process runs: restored, kept under its leases, handed over.

    ``services`` makes what a venue needs from the bot; ``keep`` holds a background task;
    ``guilds`` are the servers known to be stored (a server whose venue is restored is; one
    run by another process now is forgotten).
    """

    def __init__(
        self,
        client: discord.Client,
        db: Database,
        ownership: Ownership,
        registry: Registry,
        services: Callable[[], TableServices],
        keep: Callable[[asyncio.Task[None]], None],
        guilds: set[int],
    ) -> None:
        self.client = client
        self.db = db
        self.ownership = ownership
        self.registry = registry
        self._services = services
        self._keep = keep
        self._guilds = guilds
        # Held while a venue is stored and registered, so that taking over venues never
        # restores one this process is opening.
        self.lock = asyncio.Lock()
        # Servers taken over from a process that died, their venues not restored yet.
        self._adopting: set[int] = set()
        self._adoption: asyncio.Task[None] | None = None
        self._unrestorable: set[tuple[str, int]] = set()
        self._reloading: set[tuple[str, int]] = set()
        self._lease_keeper: asyncio.Task[None] | None = None
        self._kinds = (
            _VenueKind("table", tables.open_table_guilds, self._restore_table),
            _VenueKind("tournament", tournaments.open_tournament_guilds,
                       self._restore_tournament),
        )

    async def serves(self, guild_id: int | None) -> bool:
        """Whether this process acts for a server (its shard is here and its lease ours).
        A server just taken over from a process that died waits a little for its tables to
        come back (within Discord's 3 s), rather than answer there is none."""
        if not await self.ownership.serves(guild_id):
            return False
        adoption = self._adoption
        if guild_id in self._adopting and adoption is not None and not adoption.done():
            await asyncio.wait({adoption}, timeout=ADOPTION_WAIT)
        return True

    async def restore(self) -> None:
        """Bring back the open venues of the servers this process runs (at start-up; one that
        fails is logged and skipped), then keep the leases."""
        await self._settle_orphans()
        await self.adopt()
        self._keep(asyncio.create_task(self._sync_closed_messages(), name="closed-messages"))
        self._lease_keeper = asyncio.create_task(self._keep_leases(), name="leases")

    async def adopt(self) -> list[tuple[str, int]]:
        """Restore every open venue this process should run and does not yet: at start-up,
        and after another process's lease ran out. The venues restored, in the order they
        are shown again: those where a player is to act first, then the rest."""
        restored: list[Venue] = []
        async with self.lock:
            for kind in self._kinds:
                for venue_id, guild_id in (await kind.open_guilds(self.db)).items():
                    key = (kind.name, venue_id)
                    if (self.registry.knows(key) or key in self._unrestorable
                            or key in self._reloading):
                        continue
                    if not await self.ownership.serves(guild_id):
                        continue
                    try:
                        venue = await kind.restore(venue_id)
                    except Exception:
                        log.critical("%s %d could not be restored", kind.name, venue_id,
                                     exc_info=True)
                        self._unrestorable.add(key)
                        continue
                    self.registry.add_venue(venue)
                    self._guilds.add(guild_id)
                    restored.append(venue)
        # A thousand tables come back at once after a deploy or a crash, and Discord takes
        # their messages at the budget's pace: players waiting to act are served first (each
        # table's messages queue, and its image is drawn, in the order the tables start).
        restored.sort(key=lambda venue: not venue.awaits_player)
        for venue in restored:
            # Posting the table again needs Discord: not inside start-up.
            self._keep(asyncio.create_task(self.start(venue),
                                           name="restore-{}-{}".format(*venue.venue_key)))
        return [venue.venue_key for venue in restored]

    async def start(self, venue: Venue, *, anew: bool = True) -> None:
        try:
            await venue.start(anew=anew)
        except Exception as exc:
            log_failure(log, exc, "%s %d: could not resume after the restart", *venue.venue_key)

    def stale(self, venue: Venue) -> None:
        """What ``venue`` holds may differ from storage (a commit whose answer was lost): take
        it up again from storage, as after a restart, once storage answers."""
        self._keep(asyncio.create_task(self._reload(venue),
                                       name="reload-{}-{}".format(*venue.venue_key)))

    async def _reload(self, venue: Venue) -> None:
        key = venue.venue_key
        restore = {kind.name: kind.restore for kind in self._kinds}[key[0]]
        # Out of the registry while it reloads, the venue would look abandoned to the lease
        # keeper, which would adopt it as a venue of a dead process and post its table anew.
        self._reloading.add(key)
        try:
            self.registry.drop_venue(venue)
            await venue.shutdown()
            delay = 0.5
            while True:
                await self.db.health.wait_available()
                try:
                    async with self.lock:
                        if self.registry.knows(key):
                            return
                        fresh = await restore(key[1])
                        self.registry.add_venue(fresh)
                    break
                except Exception as exc:
                    log_failure(log, exc, "%s %d: could not be taken up again", *key)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 30.0)
        finally:
            self._reloading.discard(key)
        log.warning("%s %d: taken up again from storage (it may have held more)", *key)
        await self.start(fresh, anew=False)  # its players look at the message they have

    async def stop(self) -> None:
        """Stop keeping the leases (the venues are stopped by the runtime)."""
        if self._lease_keeper is not None:
            self._lease_keeper.cancel()

    # -- restoring ---------------------------------------------------------------------------

    async def _restore_table(self, table_id: int) -> Venue:
        info = await tables.get_table(self.db, table_id)
        config = TableConfig.from_json(info.config)
        restored = await restore_table(self.db, info, config.state, config.options,
                                       self._services().rng)
        config.options = restored.table.options
        return cash_kind(info)(info, config, restored, self._services())

    async def _restore_tournament(self, tournament_id: int) -> Venue:
        info = await tournaments.get_tournament(self.db, tournament_id)
        try:
            return await LiveTournament.restore(info, self._services())
        except EngineError:
            # Stored by an older version with settings the engine now refuses (a level no
            # table can play): it could never go on, so every buy-in goes back rather than
            # staying locked in its pool.
            refunds = await tournaments.cancel_tournament(self.db, tournament_id,
                                                          actor_id=info.host_id)
            log.critical("tournament %d cannot be played on; cancelled, %d buy-in(s) refunded",
                         tournament_id, len(refunds))
            raise

    # -- leases ------------------------------------------------------------------------------

    def taken_over(self, guild_id: int) -> None:
        """A server's lease was taken from a process that died: bring its venues back now,
        not at the next renewal."""
        self._adopting.add(guild_id)
        if self._adoption is None or self._adoption.done():
            self._adoption = asyncio.create_task(self._adopt_taken(), name="take-over")
            self._keep(self._adoption)

    async def _adopt_taken(self) -> None:
        while self._adopting:
            taken = set(self._adopting)
            try:
                adopted = await self.adopt()
                if adopted:
                    log.warning("took over %d venue(s): %s", len(adopted), adopted)
            except Exception as exc:
                log_failure(log, exc, "taking over failed; the next renewal tries again")
            finally:
                self._adopting -= taken

    async def _keep_leases(self) -> None:
        """Renew the leases every third of their lifetime; stop the venues of a server whose
        lease was lost, and take over the venues of servers whose lease ran out elsewhere."""
        while True:
            await self.ownership.next_renewal()
            try:
                for guild_id in await self.ownership.renew():
                    await self._let_go(guild_id)
                taken = await self.adopt()
                if taken:
                    log.warning("took over %d venue(s): %s", len(taken), taken)
            except Exception as exc:
                log_failure(log, exc, "keeping the leases failed; trying again")

    async def _let_go(self, guild_id: int) -> None:
        """Another process runs this server now: stop its venues here, saying nothing (the
        state is in the database, and the other process posts the tables)."""
        mine = self.registry.venues(guild_id)
        for venue in mine:
            self.registry.drop_venue(venue)
        self._guilds.discard(guild_id)
        await asyncio.gather(*(venue.shutdown() for venue in mine), return_exceptions=True)

    # -- what a stop left behind -------------------------------------------------------------

    async def _settle_orphans(self) -> None:
        """A hand left running on a table that is no longer open (only data written before
        every transition became one transaction can hold one): refund it."""
        open_ids = set(await tables.open_table_guilds(self.db))
        for stored in await hands.unfinished_hands(self.db):
            if stored.table_id not in open_ids:
                log.warning("voiding hand %d of closed table %d", stored.hand_id, stored.table_id)
                try:
                    await hands.void_hand(self.db, stored.hand_id, reason="its table was closed")
                except StorageError as exc:
                    # Another process starting at the same time settled it first.
                    log.info("hand %d was settled elsewhere (%s)", stored.hand_id, exc)

    async def _sync_closed_messages(self) -> None:
        """Bring the last message of tables closed before a stop up to date: it may still show
        buttons or "paused" if the bot stopped before it was edited."""
        try:
            stale = await tables.closed_with_message(self.db)
        except StorageError as exc:
            log_failure(log, exc, "could not list closed tables")
            return
        for guild_id, table_id, channel_id, message_id, locale in stale:
            if not await self.serves(guild_id):
                continue
            channel = self.client.get_partial_messageable(channel_id)
            try:
                with requests_at(Priority.TIDY):
                    await channel.get_partial_message(message_id).edit(
                        content=t("table.closed", locale), attachments=[], view=None,
                        allowed_mentions=NOBODY,
                    )
            except discord.NotFound:
                pass  # deleted: nothing left to correct
            except Exception as exc:
                if not (isinstance(exc, discord.HTTPException) or is_discord_fault(exc)):
                    raise
                log.info("table %d: could not correct its last message (%s)", table_id, exc)
                continue
            with contextlib.suppress(StorageError):
                await tables.set_table_message(self.db, table_id, None)


__all__ = ["ADOPTION_WAIT", "Venues", "cash_kind"]
