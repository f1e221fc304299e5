"""The game runtime of the whole bot: the database, and one runner per open table.

It is what ``PokerBot.storage`` holds: opened in ``setup_hook`` (before the gateway connects,
so no interaction finds a table half-restored) and closed last, after the client.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence

import discord

from bot.errors import BotError
from bot.runtime.config import RuntimeOptions, TableConfig
from bot.runtime.messenger import ViewFactory
from bot.runtime.recovery import RestoredTable, restore_table
from bot.runtime.runner import TableRunner
from bot.storage import Database, economy, tables
from bot.storage.tables import TableInfo
from engine.table import Table, TableOptions

log = logging.getLogger(__name__)


def _no_buttons(table_id: int, buttons: Sequence[object]) -> None:
    return None


class GameRuntime:
    """Every live table of the bot, found by table id or by channel."""

    def __init__(
        self,
        client: discord.Client,
        db: Database,
        options: RuntimeOptions | None = None,
        view_factory: ViewFactory = _no_buttons,
    ) -> None:
        self.client = client
        self.db = db
        self.options = options if options is not None else RuntimeOptions()
        self.view_factory = view_factory
        self.runners: dict[int, TableRunner] = {}
        self._by_channel: dict[int, int] = {}
        self._guilds: set[int] = set()
        self._background: set[asyncio.Task[None]] = set()
        # Shuffles and first buttons come from the operating system's generator.
        self.rng = random.SystemRandom()

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

    def forget(self, runner: TableRunner) -> None:
        self.runners.pop(runner.table_id, None)
        if self._by_channel.get(runner.channel_id) == runner.table_id:
            del self._by_channel[runner.channel_id]

    def _register(self, runner: TableRunner) -> None:
        self.runners[runner.table_id] = runner
        self._by_channel[runner.channel_id] = runner.table_id

    # -- guilds ----------------------------------------------------------------------------

    async def ensure_guild(self, guild_id: int) -> None:
        """Register a server's economy once (default settings)."""
        if guild_id in self._guilds:
            return
        await economy.ensure_guild(self.db, guild_id)
        self._guilds.add(guild_id)

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
    ) -> TableRunner:
        await self.ensure_guild(guild_id)
        if channel_id in self._by_channel:
            raise BotError("channel_has_table")
        table = Table(options, self.rng)
        config = TableConfig(options=options, timer=timer, locale=locale, state=table.to_json())
        low, high = options.buy_in_range
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
        )
        runner = TableRunner(self, info, config, RestoredTable(table), self.rng)
        self._register(runner)
        await runner.start()
        return runner

    async def restore(self) -> None:
        """Bring back every open table (at start-up); one that fails is logged and skipped."""
        for info in await tables.open_tables(self.db):
            try:
                runner = await self._restore_one(info)
            except Exception:
                log.critical("table %d could not be restored", info.table_id, exc_info=True)
                continue
            self._register(runner)
            self._guilds.add(info.guild_id)
            # Posting the table again needs Discord: not inside start-up.
            self.keep(asyncio.create_task(self._start(runner), name=f"restore-{info.table_id}"))
        log.info("restored %d table(s)", len(self.runners))

    async def _restore_one(self, info: TableInfo) -> TableRunner:
        config = TableConfig.from_json(info.config)
        restored = await restore_table(self.db, info, config.state, config.options, self.rng)
        config.options = restored.table.options
        return TableRunner(self, info, config, restored, self.rng)

    async def _start(self, runner: TableRunner) -> None:
        try:
            await runner.start()
        except Exception:
            log.exception("table %d: could not resume after the restart", runner.table_id)

    async def close(self) -> None:
        """Stop every table (nothing to save: storage is written before every reply)."""
        for runner in list(self.runners.values()):
            await runner.shutdown()
        self.runners.clear()
        self._by_channel.clear()
        await self.db.close()
