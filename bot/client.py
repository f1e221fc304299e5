"""The Discord client: ``PokerBot``, and its whole life in one place.

``setup_hook`` runs after login and before the gateway connects, so no interaction can arrive
half-ready. In order, it:

0. with ``METRICS_PORT`` set, starts the operator's endpoint (``bot.health``: ``/metrics``,
   ``/healthz``, ``/readyz``), so a long restore already answers the liveness probe;
1. opens the game runtime (``bot.runtime.manager.GameRuntime.open``): the database, migrated and
   checked, and every open table of the servers this process runs restored (its shards, and
   the servers' leases: ``bot.runtime.ownership``);
2. loads the cogs (one per feature area: ``/poker``, the action commands, ``/chips``,
   ``/tournament``);
3. registers the persistent buttons, so buttons on messages posted before a restart still work;
4. gives the command tree the catalogs' translator (:class:`CatalogTranslator`), so Discord's
   command picker shows each user the descriptions in his language;
5. syncs the command schema with Discord, only if it changed since the last sync.

Every REST request the process makes, discord.py's own included, waits for one request budget
(``bot.runtime.budget``) as it leaves discord.py's HTTP session, to which ``__init__`` gives it.

While running, it registers each server's economy as the server becomes available, notes the
locale of every user who interacts (his direct messages are written in it), logs the invite
link when ready, and answers any button press or form that no handler took (a forged or
outdated one) so nobody is left with "interaction failed". It tells the process's link to
Discord (``bot.runtime.link``, ``budget.link``) when a shard's gateway drops and when it is back:
the drop is one WARNING with its cause, ``/readyz`` says not ready until it is back, and the
tables hold their clocks while Discord is out of reach. ``close`` stops the tables first —
their queued messages get a few seconds to go out — then the connection, then the database,
and the endpoint last.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.ui.dynamic import DynamicItem

from bot.errors import BotError, is_discord_fault, report_error
from bot.guards import LATE_AFTER_SECONDS, InteractionClock, PokerTree, is_claimed
from bot.health import OpsServer
from bot.i18n import DEFAULT_LOCALE, catalog, resolve_locale
from bot.invite import invite_url
from bot.logs import cause_of, tame_discord_faults
from bot.metrics import NO_METRICS, Metrics, PrometheusMetrics
from bot.runtime.budget import RequestBudget, budget_trace
from bot.runtime.config import RuntimeOptions
from bot.runtime.manager import GameRuntime
from bot.runtime.ownership import ShardPlan
from bot.runtime.recaps import RecapPoster
from bot.runtime.rendering import prepare
from bot.runtime.results import prepare as prepare_all_in
from bot.settings import Settings, apply_proxies
from bot.storage import StorageError
from bot.ui import DYNAMIC_ITEMS, build_view

log = logging.getLogger(__name__)

# Cogs loaded at start-up; each module's ``setup(bot)`` adds its commands and buttons.
EXTENSIONS: tuple[str, ...] = (
    "cogs.poker", "cogs.actions", "cogs.chips", "cogs.tournament", "cogs.history",
    "cogs.league",
)
# A press or a form no handler took within this long is answered as out of date.
ORPHAN_AFTER = 1.5
# How long /readyz waits for the database's answer (the probe itself gives up at 2 s).
DATABASE_CHECK_TIMEOUT = 1.5
# Loggers that would write request bodies or SQL parameters (hole cards in a DM, the deck and
# its secret seed) at DEBUG: they never go below INFO, whatever LOG_LEVEL says.
PAYLOAD_LOGGERS = ("discord.http", "discord.gateway", "discord.webhook", "aiosqlite")


def silence_payload_loggers() -> None:
    for name in PAYLOAD_LOGGERS:
        logger = logging.getLogger(name)
        if logger.getEffectiveLevel() < logging.INFO:
            logger.setLevel(logging.INFO)


async def command_schema_hash(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None = None
) -> str:
    """A digest of exactly what ``tree.sync(guild=guild)`` would upload."""
    translator = tree.translator
    payload = []
    for command in tree.get_commands(guild=guild):
        if translator is not None:
            payload.append(await command.get_translated_payload(tree, translator))
        else:
            payload.append(command.to_dict(tree))
    payload.sort(key=lambda entry: (int(entry.get("type", 1)), str(entry.get("name"))))
    encoded = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


class CatalogTranslator(app_commands.Translator):
    """Discord's command picker in each user's language: descriptions and choice names are
    ``locale_str``s carrying their catalog key (``bot.interact.command_text``); for each
    Discord locale with a catalog of its own (zh-TW, zh-CN) the key's words there. Names of
    commands and options stay English, the same for everyone."""

    KEPT = frozenset(
        {
            app_commands.TranslationContextLocation.command_name,
            app_commands.TranslationContextLocation.group_name,
            app_commands.TranslationContextLocation.parameter_name,
        }
    )

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        key = string.extras.get("key")
        if not isinstance(key, str) or context.location in self.KEPT:
            return None
        tag = resolve_locale(locale)
        # Only an exact catalog: Discord falls back to the English default by itself.
        if tag == DEFAULT_LOCALE or tag != locale.value:
            return None
        text = catalog(tag).get(key)
        return text or None


class CommandSyncState:
    """The schema hash last synced per scope, in a small JSON file (survives restarts)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning("ignoring unreadable command sync state %s", self.path, exc_info=True)
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, scope: str) -> str | None:
        return self._load().get(scope)

    def set(self, scope: str, digest: str) -> None:
        data = self._load()
        data[scope] = digest
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        temporary.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
        # Atomic: a crash mid-write must not leave a file that forces (or hides) a sync.
        os.replace(temporary, self.path)


# The longest a disconnected shard waits between two tries to connect again.
RECONNECT_CAP = 8.0


class ReconnectPace:
    """How soon a disconnected shard tries to connect again: doubling from half a second, at
    most ``RECONNECT_CAP`` apart, spread a little.

    discord.py's own pace doubles up to seventeen minutes: after an outage of a minute a shard
    could stay away for as long again, its tables in view but nobody able to act. A try while
    Discord is away costs nothing (a refused connection counts against no limit of Discord's),
    so a shard keeps trying at a pace that brings it back within seconds of Discord. The pace
    starts over once a shard has stayed connected for a minute."""

    def __init__(self, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self._tries = 0
        self._last: float | None = None

    def delay(self) -> float:
        now = self._monotonic()
        if self._last is not None and now - self._last > 60.0:
            self._tries = 0
        self._last = now
        self._tries += 1
        wait = min(RECONNECT_CAP, 0.5 * 2.0 ** (self._tries - 1))
        return wait * random.uniform(0.8, 1.0)


class PokerBot(commands.AutoShardedBot):
    """The bot. Slash commands and buttons only: no privileged intents, no message content.

    Sharded as ``SHARD_COUNT`` and ``SHARD_IDS`` say; without them discord.py asks Discord how
    many shards the bot needs and runs them all in this process.

    ``apply_proxies(settings)`` runs here, before login, because discord.py reads the REST base
    when the first route is built. Extra keyword ``options`` go to ``commands.Bot`` (tests pass
    ``guild_ready_timeout`` so READY is not delayed by the 2 s default).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        runtime_options: RuntimeOptions | None = None,
        extensions: Sequence[str] = EXTENSIONS,
        dynamic_items: Sequence[type[DynamicItem[Any]]] = DYNAMIC_ITEMS,
        sync_state_path: Path | None = None,
        late_after: float = LATE_AFTER_SECONDS,
        **options: Any,
    ) -> None:
        apply_proxies(settings)
        silence_payload_loggers()
        # discord.py logs its gateway's reconnections as errors with a traceback: one line.
        tame_discord_faults()
        self.metrics: Metrics = (
            PrometheusMetrics(lambda: self.shard_count)
            if settings.metrics_port is not None
            else NO_METRICS
        )
        runtime_options = (
            runtime_options if runtime_options is not None else RuntimeOptions.from_env()
        )
        plan = ShardPlan(settings.shard_count, settings.shard_ids)
        # One budget for every request of the process, discord.py's own included: spent in
        # its HTTP session, where each request really leaves (``bot.runtime.budget``).
        self.budget = RequestBudget(
            runtime_options.requests_per_second * plan.share, metrics=self.metrics
        )
        options.setdefault("http_trace", budget_trace(self.budget, self.metrics.http_trace()))
        # While requests fail, the link asks Discord whether it answers again (one small GET).
        self.budget.link.probe = lambda: self.http.request(
            discord.http.Route("GET", "/gateway/bot"))
        intents = discord.Intents.none()
        # Guild and channel objects (GUILD_CREATE) are all the bot needs from the gateway.
        intents.guilds = True
        options.setdefault("max_messages", None)
        options.setdefault("chunk_guilds_at_startup", False)
        # Nothing pings anybody unless a message says so (the player to act, and only him).
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        if settings.shard_count is not None:
            options.setdefault("shard_count", settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=PokerTree,
            help_command=None,
            **options,
        )
        self.settings = settings
        self.runtime_options = runtime_options
        self.plan = plan
        self.extension_names: tuple[str, ...] = tuple(extensions)
        self.dynamic_item_types: tuple[type[DynamicItem[Any]], ...] = tuple(dynamic_items)
        self.runtime: GameRuntime | None = None
        self.interaction_clock = InteractionClock(late_after)
        self.sync_state = CommandSyncState(
            sync_state_path
            if sync_state_path is not None
            else settings.data_dir / "command_sync.json"
        )
        self.last_sync_changed: bool | None = None
        self._orphan_checks: set[asyncio.Task[None]] = set()
        self.ops: OpsServer | None = None

    # -- start-up --------------------------------------------------------------------------

    async def setup_hook(self) -> None:
        settings = self.settings
        if settings.metrics_port is not None:
            # First: a long restore must not read as a dead process to the orchestrator.
            self.ops = OpsServer(
                self.metrics,
                self.readiness,
                host=settings.metrics_host,
                port=settings.metrics_port,
                max_lag=settings.health_max_lag,
            )
            await self.ops.start()
        # The first table of the day should not wait for fonts and card art to load.
        warming = asyncio.create_task(prepare(), name="renderer-warm-up")
        # Nor the first all-in for the all-in EV count's tables.
        counting = asyncio.create_task(prepare_all_in(), name="all-in-ev-warm-up")
        self.runtime = await GameRuntime.open(
            self,
            settings.database_url,
            self.runtime_options,
            build_view,
            self.plan,
            self.metrics,
            self.budget,
        )
        self.runtime.keep(warming)
        self.runtime.keep(counting)
        for name in self.extension_names:
            # A cog that fails to load must stop start-up: a half-working table is worse.
            await self.load_extension(name)
            log.info("loaded %s", name)
        if self.dynamic_item_types:
            self.add_dynamic_items(*self.dynamic_item_types)
        await self.tree.set_translator(CatalogTranslator())
        self.last_sync_changed = await self.sync_commands_if_changed()

    def sync_scope(self) -> discord.Object | None:
        dev_guild = self.settings.dev_guild_id
        return None if dev_guild is None else discord.Object(id=dev_guild)

    async def sync_commands_if_changed(self, *, force: bool = False) -> bool:
        """Upload the command schema when it differs from the last upload; True if synced.

        Command creation is rate limited per day, so an unchanged schema is never re-sent.
        With DEV_GUILD_ID the commands go to that one guild, where changes show instantly.
        """
        guild = self.sync_scope()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        digest = await command_schema_hash(self.tree, guild)
        scope = f"{self.application_id}:{'global' if guild is None else guild.id}"
        if not force and self.sync_state.get(scope) == digest:
            log.info("command schema unchanged (%s); not syncing", scope)
            return False
        try:
            synced = await self.tree.sync(guild=guild)
        except Exception as exc:
            # Keep running with the schema Discord already has; the next start tries again.
            if is_discord_fault(exc):
                log.warning("command sync failed (%s): %s", scope, cause_of(exc))
            elif isinstance(exc, discord.HTTPException):
                log.exception("command sync failed (%s)", scope)
            else:
                raise
            return False
        self.sync_state.set(scope, digest)
        log.info("synced %d commands (%s)", len(synced), scope)
        return True

    # -- while running ---------------------------------------------------------------------

    async def readiness(self) -> list[str]:
        """Why this process is not ready to serve (empty: it is), for ``/readyz``: every
        shard's gateway connected, the database answering and taking writes (a write stored
        in the last seconds, else a test write: ``Database.check_writes``; the read pool
        reconnects by itself and would answer while nothing can be stored), and its servers'
        leases its own (``Ownership.trouble``)."""
        reasons = []
        if self.is_closed():
            reasons.append("gateway: closed")
        elif not self.is_ready():
            reasons.append("gateway: not connected yet")
        else:
            # discord.py's socket, and what the shard events said (a shard reconnecting, or
            # identifying again, has no session while its socket may look open).
            down = {sid for sid, shard in self.shards.items() if shard.is_closed()}
            down.update(self.budget.link.shards_down())
            if down:
                shards = ", ".join(map(str, sorted(down)))
                reasons.append(f"gateway: shard(s) {shards} disconnected")
        runtime = self.runtime
        if runtime is None:
            reasons.append("runtime: not open")
            return reasons
        db = runtime.db
        try:
            async with asyncio.timeout(DATABASE_CHECK_TIMEOUT):
                await db.fetchall("SELECT 1")
        except Exception as exc:
            reasons.append(f"database: does not answer ({type(exc).__name__})")
        try:
            async with asyncio.timeout(DATABASE_CHECK_TIMEOUT):
                await db.check_writes()
        except TimeoutError:
            reasons.append(f"database: a test write got no answer in {DATABASE_CHECK_TIMEOUT} s")
        if not db.health.available:
            reasons.append(f"database: {db.health.describe()}")
        reasons.extend(runtime.ownership.trouble())
        return reasons

    async def on_ready(self) -> None:
        user = self.user
        log.info("ready as %s (%s) in %d guilds", user, user.id if user else "?", len(self.guilds))
        if self.application_id is not None:
            log.info("invite the bot with: %s", invite_url(self.application_id))

    async def on_shard_disconnect(self, shard_id: int) -> None:
        if not self.is_closed():
            self.budget.link.gateway_lost(shard_id, self._drop_cause(shard_id))
        # discord.py's own pace has no public setting; the shard keeps ours from now on.
        shard = getattr(self.get_shard(shard_id), "_parent", None)
        if shard is not None and not isinstance(getattr(shard, "_backoff", None), ReconnectPace):
            shard._backoff = ReconnectPace()

    async def on_shard_connect(self, shard_id: int) -> None:
        self.budget.link.gateway_back(shard_id)

    async def on_shard_resumed(self, shard_id: int) -> None:
        self.budget.link.gateway_back(shard_id)

    def _drop_cause(self, shard_id: int) -> str:
        """What the dropped connection said, as far as discord.py keeps it: its close code."""
        ws = getattr(getattr(self.get_shard(shard_id), "_parent", None), "ws", None)
        code = getattr(ws, "_close_code", None) or getattr(
            getattr(ws, "socket", None), "close_code", None)
        return f"closed with code {code}" if code else "connection lost"

    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self._register_guild(guild)
        self._post_owed_recaps(guild)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self._register_guild(guild)

    async def _register_guild(self, guild: discord.Guild) -> None:
        if self.runtime is None:
            return
        try:
            await self.runtime.ensure_guild(guild.id)
        except StorageError:
            log.exception("could not register guild %d", guild.id)

    def _post_owed_recaps(self, guild: discord.Guild) -> None:
        """Post the recaps a crash left owed in this server (``bot.runtime.recaps``), now that
        its language is known, if this process runs it."""
        runtime = self.runtime
        if runtime is None:
            return

        async def post() -> None:
            try:
                if not await runtime.serves(guild.id):
                    return
            except StorageError as exc:
                log.warning("guild %d: owed recaps wait for the next start (%s)", guild.id,
                            cause_of(exc))
                return
            poster = RecapPoster(runtime.db, self, runtime.dm_channels, runtime.locales_of)

            async def language(guild_id: int) -> object:
                return await runtime.channel_locale(guild_id, guild.preferred_locale)

            await poster.post_owed([guild.id], language)

        runtime.keep(asyncio.create_task(post(), name=f"owed-recaps-{guild.id}"))

    async def on_guild_update(self, before: discord.Guild, after: discord.Guild) -> None:
        if self.runtime is None or before.preferred_locale == after.preferred_locale:
            return
        try:
            await self.runtime.guild_locale_changed(after.id, after.preferred_locale)
        except Exception:
            log.exception("could not follow the new locale of guild %d", after.id)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if self.runtime is not None and interaction.user is not None:
            # His client's language, for the DMs he will get (stored only when it changes).
            self.runtime.note_locale(interaction.user.id, interaction.locale)
        if interaction.type in (
            discord.InteractionType.component,
            discord.InteractionType.modal_submit,
        ):
            task = asyncio.create_task(self._answer_orphan(interaction))
            self._orphan_checks.add(task)
            task.add_done_callback(self._orphan_checks.discard)

    async def _answer_orphan(self, interaction: discord.Interaction[Any]) -> None:
        """A press or a form that no handler took (handlers claim theirs at once): answer it,
        rather than let Discord tell the user the interaction failed."""
        await asyncio.sleep(ORPHAN_AFTER)
        if is_claimed(interaction) or interaction.response.is_done():
            return
        runtime = self.runtime
        if runtime is None or not await runtime.serves(interaction.guild_id):
            return  # another process runs this server, and answers
        log.info("answering unclaimed interaction %s (%s)", interaction.id, interaction.data)
        await report_error(interaction, BotError("command_outdated"))

    # -- stopping --------------------------------------------------------------------------

    async def close(self) -> None:
        runtime, self.runtime = self.runtime, None
        self.budget.link.close()
        try:
            if runtime is not None:
                # Tables first, while the connection can still carry their last messages.
                await runtime.close()
        finally:
            try:
                await super().close()
            finally:
                # Last: the probes keep answering (not ready) while the tables drain.
                ops, self.ops = self.ops, None
                if ops is not None:
                    await ops.stop()
