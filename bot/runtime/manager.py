"""The game runtime of the whole bot: the database, and every live table and tournament.

``PokerBot.runtime`` holds it: opened in ``setup_hook`` (before the gateway connects, so no
interaction finds a table half-restored) and closed last, after the client. It owns what is
shared by every table — the database, the process-wide options, the random source — and hands
each table and tournament only the services it uses (:class:`~bot.runtime.table.TableServices`).
Its jobs are split in three:

- the one registry of live tables and venues (``runtime.registry``,
  :class:`~bot.runtime.registry.Registry`): every command and button finds its table there;
- start-up and recovery under the servers' leases (``runtime.venues``,
  :class:`~bot.runtime.venues.Venues`);
- what is server-wide, here: opening a table or a tournament within the server's limits (how
  many tables may be open, in all and per host; checked again inside the storage transaction
  that opens one), closing a table nobody has sat at for the server's idle time, watching the
  chips, and the languages.

Languages: every interaction tells the user's locale (:meth:`GameRuntime.note_locale`), kept so
that his direct messages speak it; each venue speaks its server's language
(:meth:`GameRuntime.channel_locale`), and a server that changes it is heard at once by its open
tables and tournaments (:meth:`GameRuntime.set_language`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Sequence

import discord

from bot.errors import BotError
from bot.i18n import resolve_locale
from bot.metrics import NO_METRICS, Live, Metrics
from bot.presenter import labels_for, tournament_opening_text
from bot.runtime.budget import RequestBudget
from bot.runtime.calendar import TournamentCalendar
from bot.runtime.cash import CashTable, check_bomb
from bot.runtime.config import RuntimeOptions, TableConfig
from bot.runtime.direct import DmChannels
from bot.runtime.faults import log_failure
from bot.runtime.messenger import ViewFactory
from bot.runtime.ownership import Ownership, ShardPlan
from bot.runtime.recovery import RestoredTable
from bot.runtime.registry import Registry, Venue
from bot.runtime.table import TableServices
from bot.runtime.tourney import LiveTournament, TournamentSettings
from bot.runtime.venues import Venues, cash_kind
from bot.storage import (
    Database,
    StorageError,
    economy,
    invariant,
    locales,
    tables,
    tournaments,
)
from bot.storage.tournaments import LeagueEntry
from engine.table import Table, TableOptions
from engine.tournament import Tournament, TournamentConfig

log = logging.getLogger(__name__)


def _no_buttons(table_id: int, buttons: Sequence[object]) -> None:
    return None


def language_of(setting: str, guild_locale: object) -> str:
    """The catalog of a server's language setting ("auto" reads the server's locale)."""
    return resolve_locale(guild_locale if setting == "auto" else setting)


class GameRuntime:
    """Every live table and tournament of the bot (found in ``registry``)."""

    def __init__(
        self,
        client: discord.Client,
        db: Database,
        options: RuntimeOptions | None = None,
        view_factory: ViewFactory = _no_buttons,
        plan: ShardPlan | None = None,
        metrics: Metrics = NO_METRICS,
        budget: RequestBudget | None = None,
    ) -> None:
        self.client = client
        self.db = db
        self.options = options if options is not None else RuntimeOptions()
        self.view_factory = view_factory
        self.metrics = metrics
        db.metrics = metrics
        self.ownership = Ownership(
            db, plan if plan is not None else ShardPlan(), lease_seconds=self.options.lease_seconds,
            metrics=metrics, on_taken_over=lambda guild_id: self.venues.taken_over(guild_id),
        )
        # The one the client's HTTP session spends (``PokerBot``); without one (a runtime
        # over a stand-in client) a budget of its own, which only paces the messengers.
        self.budget = budget if budget is not None else RequestBudget(
            self.options.requests_per_second * self.ownership.plan.share, metrics=metrics
        )
        self.dm_channels = DmChannels()
        # Tournaments with a start time on the servers' calendars; the league cog gives it
        # the reminder's Register button.
        self.calendar = TournamentCalendar(client, self.options.event_reminder,
                                           lambda tournament_id, locale: None)
        self.registry = Registry(self._over, lambda venue: self.venues.stale(venue))
        self._guilds: set[int] = set()  # servers whose economy is stored
        self._background: set[asyncio.Task[None]] = set()
        self._closing: set[Venue] = set()  # venues over whose last messages go out
        # Shuffles and first buttons come from the operating system's generator.
        self.rng: random.Random = random.SystemRandom()
        self.venues = Venues(client, db, self.ownership, self.registry, self._services,
                             self.keep, self._guilds)
        self._sweeper: asyncio.Task[None] | None = None
        self._invariant_watch: asyncio.Task[None] | None = None
        # The locale each user's client reported last (and stored): read at every deal.
        self._locales: dict[int, str] = {}
        metrics.watch(self._live)

    @classmethod
    async def open(
        cls,
        client: discord.Client,
        database_url: str,
        options: RuntimeOptions,
        view_factory: ViewFactory = _no_buttons,
        plan: ShardPlan | None = None,
        metrics: Metrics = NO_METRICS,
        budget: RequestBudget | None = None,
    ) -> GameRuntime:
        """Open and check the database, then bring back the open tables this process runs."""
        db = await Database.open(database_url)
        try:
            await invariant.verify_invariant(db)
            metrics.invariant_checked(True)
        except StorageError:
            metrics.invariant_checked(False)
            # verify_invariant logged every discrepancy at CRITICAL. Starting anyway keeps every
            # player's chips reachable; refusing would lock them all away.
            log.critical("starting anyway: the chip invariant is broken, see the lines above")
        runtime = cls(client, db, options, view_factory, plan, metrics, budget)
        try:
            await runtime.restore()
        except BaseException:
            await runtime.close()
            raise
        return runtime

    def keep(self, task: asyncio.Task[None]) -> None:
        """Hold a background task until it ends (the loop only keeps weak references)."""
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _services(self) -> TableServices:
        return TableServices(
            db=self.db,
            options=self.options,
            client=self.client,
            view_factory=self.view_factory,
            rng=self.rng,
            locales=self.locales_of,
            registry=self.registry,
            budget=self.budget,
            dm_channels=self.dm_channels,
            metrics=self.metrics,
            calendar=self.calendar,
        )

    def _live(self) -> Live:
        """What is open, for the operator's gauges."""
        return Live(
            tables=[(t.guild_id, t.kind.name) for t in self.registry.tables()],
            tournaments=[v.guild_id for v in self.registry.venues()
                         if isinstance(v, LiveTournament)],
            leases=list(self.ownership.held),
        )

    def _over(self, venue: Venue) -> None:
        """A venue ended itself (closed, over, cancelled): its last messages go out in the
        background, then it stops."""
        self._closing.add(venue)

        async def goodbye() -> None:
            try:
                await venue.flush(60.0)
                await venue.shutdown(drain=self.options.drain_timeout)
            finally:
                self._closing.discard(venue)

        self.keep(asyncio.create_task(goodbye(), name=f"goodbye-{venue.venue_key}"))

    # -- guilds ----------------------------------------------------------------------------

    async def serves(self, guild_id: int | None) -> bool:
        """Whether this process acts for a server (``Venues.serves``)."""
        return await self.venues.serves(guild_id)

    async def ensure_guild(self, guild_id: int) -> None:
        """Register a server's economy once (default settings)."""
        if guild_id in self._guilds:
            return
        await economy.ensure_guild(self.db, guild_id)
        self._guilds.add(guild_id)

    # -- languages -------------------------------------------------------------------------

    def note_locale(self, user_id: int, locale: object) -> None:
        """The user's client speaks ``locale``: remember it for his direct messages. Stored in
        the background, and only when it changed, so an interaction costs no write."""
        tag = getattr(locale, "value", locale)
        if not isinstance(tag, str) or not tag or self._locales.get(user_id) == tag:
            return
        self._locales[user_id] = tag
        self.keep(asyncio.create_task(self._store_locale(user_id, tag), name="user-locale"))

    async def _store_locale(self, user_id: int, locale: str) -> None:
        try:
            if await locales.user_locale(self.db, user_id) != locale:
                await locales.set_user_locale(self.db, user_id, locale)
        except Exception:
            # Only the language of his next DMs is at stake: not worth failing anything for.
            log.warning("could not store the locale of user %d", user_id, exc_info=True)

    async def locales_of(self, user_ids: Sequence[int]) -> dict[int, str]:
        """The locale each of ``user_ids`` was last seen with (those ever seen)."""
        missing = [user_id for user_id in user_ids if user_id not in self._locales]
        if missing:
            try:
                found = await locales.user_locales(self.db, missing)
            except StorageError:
                log.warning("could not read users' locales", exc_info=True)
                found = {}
            for user_id, locale in found.items():
                self._locales.setdefault(user_id, locale)
        return {user_id: self._locales[user_id] for user_id in user_ids
                if user_id in self._locales}

    async def channel_locale(self, guild_id: int, guild_locale: object) -> str:
        """The catalog a server's channel messages are written in: its chosen language, or
        with "auto" the server's preferred locale (``guild_locale``)."""
        await self.ensure_guild(guild_id)
        settings = await economy.get_settings(self.db, guild_id)
        return language_of(settings.language, guild_locale)

    async def set_language(self, guild_id: int, language: str, guild_locale: object) -> str:
        """Store the server's language and switch its open tables to it (each at its next
        message: the change waits for the table's lock, between two messages). The catalog
        the channels now read."""
        await self.ensure_guild(guild_id)
        await economy.update_settings(self.db, guild_id, language=language)
        locale = language_of(language, guild_locale)
        for venue in self.registry.venues(guild_id):
            await venue.set_locale(locale)
        return locale

    async def guild_locale_changed(self, guild_id: int, guild_locale: object) -> None:
        """The server's preferred locale changed: tables of a server on "auto" follow it."""
        venues = self.registry.venues(guild_id)
        if not venues:
            return
        settings = await economy.get_settings(self.db, guild_id)
        if settings.language != "auto":
            return
        locale = language_of(settings.language, guild_locale)
        for venue in venues:
            await venue.set_locale(locale)

    # -- opening ---------------------------------------------------------------------------

    def _refuse_taken(self, channel_id: int) -> None:
        """One venue per channel: a cash table never opens where a tournament plays."""
        found = self.registry.venue_in(channel_id)
        if isinstance(found, CashTable):
            raise BotError("channel_has_table")
        if found is not None:
            raise BotError("channel_has_tournament")

    async def create_table(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        options: TableOptions,
        timer: int,
        locale: str | None,
        bombs: tuple[int, int] | None = None,
        practice: bool = False,
    ) -> CashTable:
        """Open a cash table (``practice``: of play chips, outside the server's economy)."""
        await self.ensure_guild(guild_id)
        self._refuse_taken(channel_id)
        table = Table(options, self.rng)
        config = TableConfig(options=options, timer=timer, locale=locale, state=table.to_json())
        if bombs is not None and bombs[0]:
            check_bomb(bombs[1], options)
            config.bomb_every, config.bomb_amount = bombs
        low, high = options.buy_in_range
        async with self.venues.lock:
            info = await tables.create_table(
                self.db,
                guild_id,
                channel_id,
                host_id,
                config=config.to_json(),
                min_buy_in=low,
                max_buy_in=high,
                max_seats=options.seats,
                chip_unit=options.chip_unit,
                enforce_limits=True,
                practice=practice,
            )
            opened = cash_kind(info)(info, config, RestoredTable(table), self._services())
            self.registry.add_venue(opened)
        await opened.start()
        return opened

    async def create_tournament(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        name: str,
        config: TournamentConfig,
        settings: TournamentSettings,
        league: LeagueEntry | None = None,
    ) -> LiveTournament:
        """Open registration in a channel (one tournament per channel, never where a cash
        table plays: storage checks both in the transaction that opens it); ``league``: it
        counts toward that league."""
        await self.ensure_guild(guild_id)
        self._refuse_taken(channel_id)
        state = Tournament(config, self.rng)
        async with self.venues.lock:
            info = await tournaments.create_tournament(
                self.db, guild_id, channel_id, host_id, name=name, kind=settings.kind,
                buy_in=config.buy_in, max_players=config.max_players,
                config={**settings.to_json(), "engine": config.to_json()},
                state=state.to_json(),
                starts_at=None if settings.starts_at is None else int(settings.starts_at),
                league=league,
            )
            live = LiveTournament(info, settings, state, self._services())
            self.registry.add_venue(live)
        ends = settings.ends_at if settings.kind == "time_limited" else None
        text = tournament_opening_text(name, host_id, config, live.locale, ends_at=ends,
                                       starts_at=settings.starts_at)
        live.voice(channel_id).post(text, labels_for(live.locale))
        await live.start()
        return live

    # -- start-up --------------------------------------------------------------------------

    async def restore(self) -> None:
        """Bring back the venues this process runs, then keep the leases, the idle sweep and
        the chip watch."""
        await self.venues.restore()
        log.info("restored %d table(s) and %d tournament(s) (%s)",
                 len(self.registry.cash_tables()), len(self.registry.tournaments()),
                 self.ownership.plan.describe())
        self._sweeper = asyncio.create_task(self._sweep_idle(), name="idle-tables")
        if self.metrics.enabled:
            self._invariant_watch = asyncio.create_task(self._watch_invariant(),
                                                        name="chip-invariant")

    async def adopt(self) -> list[tuple[str, int]]:
        """Restore the venues this process should run and does not yet (``Venues.adopt``)."""
        return await self.venues.adopt()

    async def _watch_invariant(self) -> None:
        """Check the chips now and then for the operator's gauge: every server's wallets,
        seats, running hands and prize pools against its count of chips in circulation (the
        running total of its ledger, so the ledger itself is not read). The full check, every
        account against the ledger, runs at start-up."""
        while True:
            await asyncio.sleep(self.options.invariant_interval)
            try:
                off = await invariant.circulation_mismatches(self.db)
            except Exception:
                # The gauge keeps its last reading and its time, which an alert watches.
                log.warning("could not check the chips", exc_info=True)
                continue
            self.metrics.invariant_checked(not off)
            for guild_id, held, circulation in off:
                log.critical(
                    "CHIP INVARIANT BROKEN in guild %d: %d held, %d in circulation",
                    guild_id, held, circulation,
                )

    async def _sweep_idle(self) -> None:
        """Close tables nobody has sat at for the server's idle time (checked every minute)."""
        while True:
            await asyncio.sleep(self.options.idle_check_interval)
            try:
                await self.close_idle_tables()
            except Exception as exc:
                log_failure(log, exc, "idle table sweep failed")

    async def close_idle_tables(
        self, now: float | None = None, *, wall: float | None = None
    ) -> list[int]:
        """Close every table empty for longer than its server allows (``now``: monotonic), and
        every tournament registration nobody touched for as long (``wall``: Unix seconds); the
        table ids closed."""
        now = time.monotonic() if now is None else now
        await self._close_idle_registrations(time.time() if wall is None else wall)
        closed = []
        for table in self.registry.cash_tables():
            if table.empty_since is None:
                continue
            limits = await economy.get_settings(self.db, table.guild_id)
            if not limits.idle_close or now - table.empty_since < limits.idle_close:
                continue
            with contextlib.suppress(BotError):
                await table.close(None, idle=True)
                closed.append(table.table_id)
        return closed

    async def _close_idle_registrations(self, wall: float) -> None:
        live = {v.tournament_id: v for v in self.registry.tournaments()}
        for guild_id in {v.guild_id for v in live.values()}:
            limits = await economy.get_settings(self.db, guild_id)
            if not limits.idle_close:
                continue
            older_than = int(wall - limits.idle_close)
            stale = await tournaments.stale_registrations(self.db, guild_id, older_than)
            for tournament_id in stale:
                if tournament_id in live:
                    await live[tournament_id].close_if_idle(older_than)

    async def close(self) -> None:
        """Stop every venue. Storage has the state already (it is written before every reply);
        the messages queued get ``drain_timeout`` seconds to go out."""
        await self.venues.stop()
        for task in (self._sweeper, self._invariant_watch):
            if task is not None:
                task.cancel()
        drain = self.options.drain_timeout
        venues = self.registry.venues() + list(self._closing)
        for venue in venues:
            self.registry.drop_venue(venue)
        await asyncio.gather(
            *(venue.shutdown(drain=drain) for venue in venues), return_exceptions=True
        )
        for task in list(self._background):
            task.cancel()
        await self.calendar.close()
        # Every venue is stored and stopped: another process may take them over at once.
        await self.ownership.release()
        await self.db.close()

