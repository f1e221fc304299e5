"""Every live tournament of this process: opened here, found by channel and by table, brought
back after a restart, and handed over with its server's lease like the cash tables.

:class:`~bot.runtime.manager.GameRuntime` owns one hall and gives it what a tournament needs
from the bot (``TournamentServices``, but the random source read when each tournament is made,
so a test may seed it). A tournament belongs to its server's lease: the process that serves the
server runs it, restores it at start-up, and lets it go (saying nothing) when the lease moves.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

import discord

from bot.errors import BotError
from bot.i18n import t
from bot.presenter import chips, labels_for, safe_text, stakes_text
from bot.runtime.budget import RequestBudget
from bot.runtime.config import RuntimeOptions
from bot.runtime.direct import DmChannels
from bot.runtime.messenger import ViewFactory
from bot.runtime.tourney import (
    TournamentRunner,
    TournamentServices,
    TournamentSettings,
    TournamentTable,
)
from bot.storage import Database, hands, tournaments
from bot.storage.tournaments import TournamentInfo
from engine.tournament import Tournament, TournamentConfig

log = logging.getLogger(__name__)


class TournamentHall:
    """The tournaments this process runs, by id; their main channels and tables found fast."""

    def __init__(
        self,
        *,
        db: Database,
        options: RuntimeOptions,
        client: discord.Client,
        view_factory: ViewFactory,
        rng: Callable[[], random.Random],
        locales: Callable[[Sequence[int]], Awaitable[dict[int, str]]],
        budget: RequestBudget,
        dm_channels: DmChannels,
        serves: Callable[[int], Awaitable[bool]],
    ) -> None:
        self.db = db
        self.options = options
        self.client = client
        self.view_factory = view_factory
        self.rng = rng
        self.locales = locales
        self.budget = budget
        self.dm_channels = dm_channels
        self.serves = serves
        self.runners: dict[int, TournamentRunner] = {}
        self._lock = asyncio.Lock()  # opening one and adopting never interleave
        self._unrestorable: set[int] = set()
        self._background: set[asyncio.Task[None]] = set()

    def _services(self) -> TournamentServices:
        return TournamentServices(
            db=self.db,
            options=self.options,
            client=self.client,
            view_factory=self.view_factory,
            rng=self.rng(),
            locales=self.locales,
            on_closed=self._closed,
            budget=self.budget,
            dm_channels=self.dm_channels,
        )

    def _keep(self, task: asyncio.Task[None]) -> None:
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- lookups -------------------------------------------------------------------------------

    def in_channel(self, channel_id: int | None) -> TournamentRunner | None:
        """The open tournament whose channel this is, or one of whose tables plays here."""
        for runner in self.runners.values():
            if runner.channel_id == channel_id or (
                channel_id is not None and runner.table_in_channel(channel_id) is not None
            ):
                return runner
        return None

    def table_in_channel(self, channel_id: int | None) -> TournamentTable | None:
        if channel_id is None:
            return None
        for runner in self.runners.values():
            found = runner.table_in_channel(channel_id)
            if found is not None:
                return found
        return None

    def table(self, table_id: int) -> TournamentTable | None:
        for runner in self.runners.values():
            for table in runner.tables.values():
                if table.table_id == table_id:
                    return table
        return None

    def of_guild(self, guild_id: int) -> list[TournamentRunner]:
        return [r for r in self.runners.values() if r.guild_id == guild_id]

    # -- opening -------------------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        name: str,
        config: TournamentConfig,
        settings: TournamentSettings,
    ) -> TournamentRunner:
        """Open registration in a channel (one tournament per channel, never where a cash
        table plays: storage checks both in the transaction that opens it)."""
        engine = Tournament(config, self.rng())
        async with self._lock:
            info = await tournaments.create_tournament(
                self.db, guild_id, channel_id, host_id, name=name, kind=settings.kind,
                buy_in=config.buy_in, max_players=config.max_players,
                config={**settings.to_json(), "engine": config.to_json()},
                state=engine.to_json(),
                starts_at=None if settings.starts_at is None else int(settings.starts_at),
            )
            runner = TournamentRunner(info, settings, engine, self._services())
            self.runners[info.tournament_id] = runner
        self._announce_opening(runner)
        await runner.start()
        return runner

    def _announce_opening(self, runner: TournamentRunner) -> None:
        config = runner.engine.config
        loc = runner.locale
        first = config.levels[0]
        lines = [t("tournament.opened", loc, name=safe_text(runner.name),
                   host=f"<@{runner.host_id}>", buy_in=chips(config.buy_in, loc),
                   stack=chips(config.starting_stack, loc), players=config.max_players)]
        lines.append(t("tournament.opened_levels", loc, levels=len(config.levels),
                       minutes=f"{first.minutes:g}",
                       stakes=stakes_text(first.small_blind, first.big_blind, first.ante,
                                          config.ante_kind, loc)))
        if runner.settings.kind == "time_limited" and runner.settings.ends_at is not None:
            lines.append(t("tournament.opened_ends", loc,
                           ends=f"<t:{int(runner.settings.ends_at)}:f>"))
        if runner.settings.starts_at is not None:
            lines.append(t("tournament.opened_starts", loc,
                           starts=f"<t:{int(runner.settings.starts_at)}:R>"))
        lines.append(t("tournament.opened_register", loc))
        runner.voice(runner.channel_id).post("\n".join(lines), labels_for(loc))

    # -- restoring -----------------------------------------------------------------------------

    async def adopt(self) -> list[int]:
        """Bring back every open tournament this process should run and does not yet."""
        restored: list[int] = []
        async with self._lock:
            for tournament_id, guild_id in (
                await tournaments.open_tournament_guilds(self.db)
            ).items():
                if tournament_id in self.runners or tournament_id in self._unrestorable:
                    continue
                if not await self.serves(guild_id):
                    continue
                try:
                    runner = await self._restore_one(
                        await tournaments.get_tournament(self.db, tournament_id)
                    )
                except Exception:
                    log.critical("tournament %d could not be restored", tournament_id,
                                 exc_info=True)
                    self._unrestorable.add(tournament_id)
                    continue
                self.runners[tournament_id] = runner
                restored.append(tournament_id)
                self._keep(asyncio.create_task(self._start(runner),
                                               name=f"restore-tournament-{tournament_id}"))
        return restored

    async def _restore_one(self, info: TournamentInfo) -> TournamentRunner:
        settings = TournamentSettings.from_json(info.config)
        rows = {row.table_id: row for row in await tournaments.tournament_tables(
            self.db, info.tournament_id)}
        running: dict[int, Any] = {}
        hand_of: dict[int, tuple[int, Any]] = {}
        for stored in await hands.tournament_hands_running(self.db, info.tournament_id):
            row = rows.get(stored.table_id)
            if row is None:
                raise BotError("bad_tournament_state", value="a hand at a closed table")
            running[row.table_no] = hands.rebuild_hand(stored)
            hand_of[row.table_no] = (stored.hand_id, stored.commitment)
        state = dict(info.state)
        if info.alive_at is not None and state.get("clock"):
            # The clock was seen alive later than the state was saved: resume from there.
            clock = list(state["clock"])
            seen = clock[3] if clock[3] is not None else 0.0
            clock[3] = max(float(seen), info.alive_at / 1000)
            state["clock"] = clock
        rng = self.rng()
        engine = Tournament.from_json(state, rng, hands=running)
        runner = TournamentRunner(info, settings, engine, replace(self._services(), rng=rng))
        for row in sorted(rows.values(), key=lambda r: r.table_no):
            if row.table_no in engine.tables:
                hand_id, commitment = hand_of.get(row.table_no, (None, None))
                runner._add_table(row, hand_id=hand_id, commitment=commitment)
        return runner

    async def _start(self, runner: TournamentRunner) -> None:
        try:
            await runner.start()
        except Exception:
            log.exception("tournament %d: could not resume after the restart",
                          runner.tournament_id)

    # -- closing -------------------------------------------------------------------------------

    def _closed(self, runner: TournamentRunner) -> None:
        """Over or cancelled: forget it once its last messages went out."""
        self.runners.pop(runner.tournament_id, None)

        async def goodbye() -> None:
            for voice in list(runner._voices.values()):
                await voice.flush(60.0)
            await runner.shutdown(drain=self.options.drain_timeout)

        self._keep(asyncio.create_task(goodbye(), name=f"goodbye-t{runner.tournament_id}"))

    async def let_go(self, guild_id: int) -> None:
        """Another process runs this server now: stop its tournaments here, saying nothing."""
        mine = self.of_guild(guild_id)
        for runner in mine:
            self.runners.pop(runner.tournament_id, None)
        await asyncio.gather(*(r.shutdown() for r in mine), return_exceptions=True)

    async def close(self, drain: float) -> None:
        runners = list(self.runners.values())
        await asyncio.gather(*(r.shutdown(drain=drain) for r in runners),
                             return_exceptions=True)
        self.runners.clear()
        for task in list(self._background):
            task.cancel()

    def refuse_cash_table(self, channel_id: int) -> None:
        """A cash table never opens where a tournament plays."""
        if self.in_channel(channel_id) is not None:
            raise BotError("channel_has_tournament")
