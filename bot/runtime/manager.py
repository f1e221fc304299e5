"""The game runtime of the whole bot: the database, and one runner per open table.

``PokerBot.runtime`` holds it: opened in ``setup_hook`` (before the gateway connects, so no
interaction finds a table half-restored) and closed last, after the client. It owns what is
shared by every table — the database, the process-wide options, the random source — and hands
each runner only the services it uses (:class:`~bot.runtime.runner.TableServices`).

When several processes share the database, each runs only the servers on its shards and whose
lease it holds (``bot.runtime.ownership``): it restores their tables at start-up, renews its
leases while it runs, takes over the tables of a server whose lease ran out (its process died),
stops the tables of a server whose lease it lost, and gives every lease back when it stops.

It also keeps each server's limits: how many tables may be open (in all, and per host; checked
again inside the storage transaction that opens one), and it closes a table nobody has sat at
for the server's idle time.

Languages: every interaction tells the user's locale (:meth:`GameRuntime.note_locale`), kept so
that his direct messages speak it; each table speaks its server's language
(:meth:`GameRuntime.channel_locale`), and a server that changes it is heard at once by its open
tables (:meth:`GameRuntime.set_language`).
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
from bot.i18n import resolve_locale, t
from bot.runtime.budget import RequestBudget
from bot.runtime.config import RuntimeOptions, TableConfig
from bot.runtime.direct import DmChannels
from bot.runtime.messenger import NOBODY, ViewFactory
from bot.runtime.ownership import Ownership, ShardPlan
from bot.runtime.recovery import RestoredTable, restore_table
from bot.runtime.runner import TableRunner, TableServices, check_bomb
from bot.storage import Database, StorageError, economy, hands, invariant, locales, tables
from bot.storage.tables import TableInfo
from engine.table import Table, TableOptions

log = logging.getLogger(__name__)


def _no_buttons(table_id: int, buttons: Sequence[object]) -> None:
    return None


def language_of(setting: str, guild_locale: object) -> str:
    """The catalog of a server's language setting ("auto" reads the server's locale)."""
    return resolve_locale(guild_locale if setting == "auto" else setting)


class GameRuntime:
    """Every live table of the bot, found by table id or by channel."""

    def __init__(
        self,
        client: discord.Client,
        db: Database,
        options: RuntimeOptions | None = None,
        view_factory: ViewFactory = _no_buttons,
        plan: ShardPlan | None = None,
    ) -> None:
        self.client = client
        self.db = db
        self.options = options if options is not None else RuntimeOptions()
        self.view_factory = view_factory
        self.ownership = Ownership(
            db, plan if plan is not None else ShardPlan(), lease_seconds=self.options.lease_seconds
        )
        # Held while a table is stored and registered, so that taking over tables never
        # restores one this process is opening.
        self._tables_lock = asyncio.Lock()
        self.budget = RequestBudget(self.options.requests_per_second * self.ownership.plan.share)
        self.dm_channels = DmChannels()
        self._unrestorable: set[int] = set()
        self._lease_keeper: asyncio.Task[None] | None = None
        self.runners: dict[int, TableRunner] = {}
        self._by_channel: dict[int, int] = {}
        self._guilds: set[int] = set()
        self._background: set[asyncio.Task[None]] = set()
        self._closing: set[TableRunner] = set()  # closed tables whose last messages go out
        # Shuffles and first buttons come from the operating system's generator.
        self.rng: random.Random = random.SystemRandom()
        self._sweeper: asyncio.Task[None] | None = None
        # The locale each user's client reported last (and stored): read at every deal.
        self._locales: dict[int, str] = {}

    @classmethod
    async def open(
        cls,
        client: discord.Client,
        database_url: str,
        options: RuntimeOptions,
        view_factory: ViewFactory = _no_buttons,
        plan: ShardPlan | None = None,
    ) -> GameRuntime:
        """Open and check the database, then bring back the open tables this process runs."""
        db = await Database.open(database_url)
        try:
            await invariant.verify_invariant(db)
        except StorageError:
            # verify_invariant logged every discrepancy at CRITICAL. Starting anyway keeps every
            # player's chips reachable; refusing would lock them all away.
            log.critical("starting anyway: the chip invariant is broken, see the lines above")
        runtime = cls(client, db, options, view_factory, plan)
        try:
            await runtime.restore()
        except BaseException:
            await runtime.close()
            raise
        return runtime

    # -- lookups ---------------------------------------------------------------------------

    def in_channel(self, channel_id: int | None) -> TableRunner:
        """The table of a channel; players act where the table is, nowhere else."""
        table_id = self._by_channel.get(channel_id) if channel_id is not None else None
        if table_id is None:
            raise BotError("no_table")
        return self.runners[table_id]

    def table(self, table_id: int) -> TableRunner:
        runner = self.runners.get(table_id)
        if runner is None:
            raise BotError("table_closed")
        return runner

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
            on_closed=self._closed,
            locales=self.locales_of,
            budget=self.budget,
            dm_channels=self.dm_channels,
        )

    def _register(self, runner: TableRunner) -> None:
        self.runners[runner.table_id] = runner
        self._by_channel[runner.channel_id] = runner.table_id

    def _closed(self, runner: TableRunner) -> None:
        """A table closed: forget it, and let its last messages go out in the background."""
        self.runners.pop(runner.table_id, None)
        if self._by_channel.get(runner.channel_id) == runner.table_id:
            del self._by_channel[runner.channel_id]
        self._closing.add(runner)

        async def goodbye() -> None:
            try:
                await runner.shutdown(drain=self.options.drain_timeout)
            finally:
                self._closing.discard(runner)

        self.keep(asyncio.create_task(goodbye(), name=f"goodbye-{runner.table_id}"))

    # -- guilds ----------------------------------------------------------------------------

    async def serves(self, guild_id: int | None) -> bool:
        """Whether this process acts for a server (its shard is here and its lease ours)."""
        return await self.ownership.serves(guild_id)

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
        for runner in list(self.runners.values()):
            if runner.guild_id == guild_id:
                await runner.set_locale(locale)
        return locale

    async def guild_locale_changed(self, guild_id: int, guild_locale: object) -> None:
        """The server's preferred locale changed: tables of a server on "auto" follow it."""
        if not any(runner.guild_id == guild_id for runner in self.runners.values()):
            return
        settings = await economy.get_settings(self.db, guild_id)
        if settings.language != "auto":
            return
        locale = language_of(settings.language, guild_locale)
        for runner in list(self.runners.values()):
            if runner.guild_id == guild_id:
                await runner.set_locale(locale)

    # -- tables ----------------------------------------------------------------------------

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
    ) -> TableRunner:
        await self.ensure_guild(guild_id)
        if channel_id in self._by_channel:
            raise BotError("channel_has_table")
        table = Table(options, self.rng)
        config = TableConfig(options=options, timer=timer, locale=locale, state=table.to_json())
        if bombs is not None and bombs[0]:
            check_bomb(bombs[1], options)
            config.bomb_every, config.bomb_amount = bombs
        low, high = options.buy_in_range
        async with self._tables_lock:
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
            )
            runner = TableRunner(info, config, RestoredTable(table), self._services())
            self._register(runner)
        await runner.start()
        return runner

    async def restore(self) -> None:
        """Bring back the open tables of the servers this process runs (at start-up; one that
        fails is logged and skipped), then keep the leases."""
        await self._settle_orphans()
        await self.adopt()
        log.info("restored %d table(s) (%s)", len(self.runners), self.ownership.plan.describe())
        self.keep(asyncio.create_task(self._sync_closed_messages(), name="closed-messages"))
        self._sweeper = asyncio.create_task(self._sweep_idle(), name="idle-tables")
        self._lease_keeper = asyncio.create_task(self._keep_leases(), name="leases")

    async def adopt(self) -> list[int]:
        """Restore every open table this process should run and does not yet: at start-up, and
        after another process's lease ran out. The table ids restored."""
        restored = []
        async with self._tables_lock:
            for table_id, guild_id in (await tables.open_table_guilds(self.db)).items():
                if table_id in self.runners or table_id in self._unrestorable:
                    continue
                if not await self.ownership.serves(guild_id):
                    continue
                try:
                    runner = await self._restore_one(await tables.get_table(self.db, table_id))
                except Exception:
                    log.critical("table %d could not be restored", table_id, exc_info=True)
                    self._unrestorable.add(table_id)
                    continue
                self._register(runner)
                self._guilds.add(guild_id)
                restored.append(table_id)
                # Posting the table again needs Discord: not inside start-up.
                self.keep(asyncio.create_task(self._start(runner), name=f"restore-{table_id}"))
        return restored

    async def _keep_leases(self) -> None:
        """Renew the leases every third of their lifetime; stop the tables of a server whose
        lease was lost, and take over the tables of servers whose lease ran out elsewhere."""
        while True:
            await asyncio.sleep(self.ownership.ttl / 3)
            try:
                for guild_id in await self.ownership.renew():
                    await self._let_go(guild_id)
                taken = await self.adopt()
                if taken:
                    log.warning("took over %d table(s): %s", len(taken), taken)
            except Exception:
                log.exception("keeping the leases failed; trying again")

    async def _let_go(self, guild_id: int) -> None:
        """Another process runs this server now: stop its tables here, saying nothing (the
        state is in the database, and the other process posts the tables)."""
        mine = [r for r in self.runners.values() if r.guild_id == guild_id]
        for runner in mine:
            self.runners.pop(runner.table_id, None)
            if self._by_channel.get(runner.channel_id) == runner.table_id:
                del self._by_channel[runner.channel_id]
        self._guilds.discard(guild_id)
        await asyncio.gather(*(runner.shutdown() for runner in mine), return_exceptions=True)

    async def _restore_one(self, info: TableInfo) -> TableRunner:
        config = TableConfig.from_json(info.config)
        restored = await restore_table(self.db, info, config.state, config.options, self.rng)
        config.options = restored.table.options
        return TableRunner(info, config, restored, self._services())

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

    async def _start(self, runner: TableRunner) -> None:
        try:
            await runner.start()
        except Exception:
            log.exception("table %d: could not resume after the restart", runner.table_id)

    async def _sync_closed_messages(self) -> None:
        """Bring the last message of tables closed before a stop up to date: it may still show
        buttons or "paused" if the bot stopped before it was edited."""
        try:
            stale = await tables.closed_with_message(self.db)
        except StorageError:
            log.exception("could not list closed tables")
            return
        for guild_id, table_id, channel_id, message_id, locale in stale:
            if not await self.serves(guild_id):
                continue
            channel = self.client.get_partial_messageable(channel_id)
            await self.budget.spend()
            try:
                await channel.get_partial_message(message_id).edit(
                    content=t("table.closed", locale), attachments=[], view=None,
                    allowed_mentions=NOBODY,
                )
            except discord.NotFound:
                pass  # deleted: nothing left to correct
            except discord.HTTPException as exc:
                log.info("table %d: could not correct its last message (%s)", table_id, exc)
                continue
            with contextlib.suppress(StorageError):
                await tables.set_table_message(self.db, table_id, None)

    async def _sweep_idle(self) -> None:
        """Close tables nobody has sat at for the server's idle time (checked every minute)."""
        while True:
            await asyncio.sleep(self.options.idle_check_interval)
            try:
                await self.close_idle_tables()
            except Exception:
                log.exception("idle table sweep failed")

    async def close_idle_tables(self, now: float | None = None) -> list[int]:
        """Close every table empty for longer than its server allows; the table ids closed."""
        now = time.monotonic() if now is None else now
        closed = []
        for runner in list(self.runners.values()):
            if runner.empty_since is None:
                continue
            limits = await economy.get_settings(self.db, runner.guild_id)
            if not limits.idle_close or now - runner.empty_since < limits.idle_close:
                continue
            with contextlib.suppress(BotError):
                await runner.close(None, idle=True)
                closed.append(runner.table_id)
        return closed

    async def close(self) -> None:
        """Stop every table. Storage has the state already (it is written before every reply);
        the messages queued get ``drain_timeout`` seconds to go out."""
        for task in (self._sweeper, self._lease_keeper):
            if task is not None:
                task.cancel()
        drain = self.options.drain_timeout
        runners = list(self.runners.values()) + list(self._closing)
        await asyncio.gather(
            *(runner.shutdown(drain=drain) for runner in runners), return_exceptions=True
        )
        self.runners.clear()
        self._by_channel.clear()
        for task in list(self._background):
            task.cancel()
        # Every table is stored and stopped: another process may take them over at once.
        await self.ownership.release()
        await self.db.close()

