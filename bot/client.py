"""The Discord client: ``PokerBot`` (start-up sequence) and ``PokerTree`` (errors, deadlines).

Start-up, in ``setup_hook`` (after login, before the gateway connects, so no interaction can
arrive half-ready): open storage, load the cogs, register persistent buttons, sync the
command schema only if it changed since the last sync.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands
from discord.ui.dynamic import DynamicItem

from .errors import report_error
from .settings import Settings, apply_proxies

log = logging.getLogger(__name__)

# Cogs loaded at start-up; each module's ``setup(bot)`` adds its commands and buttons.
DEFAULT_EXTENSIONS: tuple[str, ...] = ()

# Discord gives 3 s to answer; past this an answer would likely be refused, so skip the work.
LATE_AFTER_SECONDS = 2.5


class ClosableStorage(Protocol):
    async def close(self) -> None: ...


StorageOpener = Callable[[Settings], Awaitable[ClosableStorage]]


class InteractionClock:
    """Tells how late an interaction reached us, immune to a wrong or jumping wall clock.

    An interaction id is a snowflake stamped with Discord's clock when the user acted. Comparing
    it with our wall clock would drop everything on a host whose clock is a few seconds off, so
    each id is compared with the monotonic clock instead: ``discord_time - monotonic`` is a
    constant minus the delivery delay, and the largest value seen recently stands for the
    fastest delivery. How far an interaction falls below it is how late it is. The first
    interactions after start-up therefore never count as late.
    """

    def __init__(
        self,
        limit: float = LATE_AFTER_SECONDS,
        *,
        window: int = 256,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self._offsets: deque[float] = deque(maxlen=window)
        self._monotonic = monotonic

    def lateness(self, interaction_id: int) -> float:
        created = discord.utils.snowflake_time(interaction_id).timestamp()
        offset = created - self._monotonic()
        self._offsets.append(offset)
        return max(self._offsets) - offset

    def is_late(self, interaction_id: int) -> bool:
        return self.lateness(interaction_id) > self.limit


def drop_if_late(interaction: discord.Interaction[Any]) -> bool:
    """True (and a log line) when the interaction is too late to answer."""
    clock = getattr(interaction.client, "interaction_clock", None)
    if not isinstance(clock, InteractionClock):
        return False
    lateness = clock.lateness(interaction.id)
    if lateness <= clock.limit:
        return False
    log.warning(
        "dropping interaction %s from user %s: %.2fs late",
        interaction.id,
        interaction.user.id,
        lateness,
    )
    return True


class PokerTree(app_commands.CommandTree["PokerBot"]):
    """The command tree: one error handler for every command, and a lateness gate."""

    async def interaction_check(self, interaction: discord.Interaction[PokerBot], /) -> bool:
        return not drop_if_late(interaction)

    async def on_error(
        self, interaction: discord.Interaction[PokerBot], error: app_commands.AppCommandError, /
    ) -> None:
        await report_error(interaction, error)


class GuardedItem:
    """Mixin for persistent buttons: ``class Fold(GuardedItem, DynamicItem[Button], template=...)``.

    discord.py only logs exceptions from a dynamic item's callback; this routes them to the same
    ephemeral reply as commands, and drops late presses. Subclasses implement ``handle``.
    """

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return not drop_if_late(interaction)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await self.handle(interaction)
        except Exception as error:
            await report_error(interaction, error)

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError


class PokerView(discord.ui.View):
    """A view whose errors become an ephemeral reply and whose late clicks are dropped."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return not drop_if_late(interaction)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await report_error(interaction, error)


class PokerModal(discord.ui.Modal):
    """A modal whose errors become an ephemeral reply and whose late submits are dropped."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return not drop_if_late(interaction)

    # discord.py's Modal itself narrows View.on_error to this signature.
    async def on_error(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], error: Exception, /
    ) -> None:
        await report_error(interaction, error)


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


class PokerBot(commands.Bot):
    """The bot. Slash commands and buttons only: no privileged intents, no message content.

    ``apply_proxies(settings)`` runs here, before login, because discord.py reads the REST base
    when the first route is built. Extra keyword ``options`` go to ``commands.Bot`` (tests pass
    ``guild_ready_timeout`` so READY is not delayed by the 2 s default).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        extensions: Sequence[str] = DEFAULT_EXTENSIONS,
        dynamic_items: Sequence[type[DynamicItem[Any]]] = (),
        open_storage: StorageOpener | None = None,
        sync_state_path: Path | None = None,
        late_after: float = LATE_AFTER_SECONDS,
        **options: Any,
    ) -> None:
        apply_proxies(settings)
        intents = discord.Intents.none()
        # Guild and channel objects (GUILD_CREATE) are all the bot needs from the gateway.
        intents.guilds = True
        options.setdefault("max_messages", None)
        options.setdefault("chunk_guilds_at_startup", False)
        options.setdefault(
            "allowed_mentions",
            discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False),
        )
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            tree_cls=PokerTree,
            help_command=None,
            **options,
        )
        self.settings = settings
        self.extension_names: tuple[str, ...] = tuple(extensions)
        self.dynamic_item_types: tuple[type[DynamicItem[Any]], ...] = tuple(dynamic_items)
        self._storage_opener = open_storage
        self.storage: ClosableStorage | None = None
        self.interaction_clock = InteractionClock(late_after)
        self.sync_state = CommandSyncState(
            sync_state_path
            if sync_state_path is not None
            else settings.data_dir / "command_sync.json"
        )
        self.last_sync_changed: bool | None = None

    async def setup_hook(self) -> None:
        await self.open_storage()
        await self.load_cogs()
        self.register_persistent_items()
        self.last_sync_changed = await self.sync_commands_if_changed()

    async def open_storage(self) -> None:
        if self._storage_opener is not None and self.storage is None:
            self.storage = await self._storage_opener(self.settings)

    async def load_cogs(self) -> None:
        for name in self.extension_names:
            # A cog that fails to load must stop start-up: a half-working table is worse.
            await self.load_extension(name)
            log.info("loaded %s", name)

    def register_persistent_items(self) -> None:
        """Buttons on old messages keep working after a restart through these templates."""
        if self.dynamic_item_types:
            self.add_dynamic_items(*self.dynamic_item_types)

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
        except discord.HTTPException:
            # Keep running with the schema Discord already has; the next start tries again.
            log.exception("command sync failed (%s)", scope)
            return False
        self.sync_state.set(scope, digest)
        log.info("synced %d commands (%s)", len(synced), scope)
        return True

    async def on_ready(self) -> None:
        user = self.user
        log.info("ready as %s (%s) in %d guilds", user, user.id if user else "?", len(self.guilds))

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            storage, self.storage = self.storage, None
            if storage is not None:
                await storage.close()
