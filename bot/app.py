"""The bot as it runs: ``build_bot(settings)`` wires the client, the cogs, the persistent buttons
and the game runtime together.

Start-up (``PokerBot.setup_hook``) opens the database, checks the chip invariant (a broken
invariant is logged at CRITICAL for the operator; the bot still starts, since refusing would
lock every player's chips away), restores every open table, loads the cogs, registers the
buttons and syncs the commands if their schema changed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import discord

from bot.client import PokerBot
from bot.runtime.config import RuntimeOptions
from bot.runtime.manager import GameRuntime
from bot.runtime.rendering import prepare
from bot.settings import Settings
from bot.storage import Database, StorageError, invariant
from bot.ui import DYNAMIC_ITEMS, build_view

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = ("cogs.poker", "cogs.actions", "cogs.chips")


def quiet_http_bodies() -> None:
    """discord.py logs request and response bodies at DEBUG; a DM's body holds the player's
    hole cards, which must never reach a log. Everything else of discord.py stays as set."""
    http = logging.getLogger("discord.http")
    if http.getEffectiveLevel() < logging.INFO:
        http.setLevel(logging.INFO)


async def open_runtime(
    client: discord.Client, settings: Settings, options: RuntimeOptions
) -> GameRuntime:
    """Open and check the database, then bring back every open table."""
    db = await Database.open(settings.database_url)
    try:
        await invariant.verify_invariant(db)
    except StorageError:
        # verify_invariant has logged every discrepancy at CRITICAL.
        log.critical("starting anyway: the chip invariant is broken, see the lines above")
    # The first table of the day should not wait for fonts and card art to load.
    warming = asyncio.create_task(prepare(), name="renderer-warm-up")
    runtime = GameRuntime(client, db, options, build_view)
    runtime.keep(warming)
    try:
        await runtime.restore()
    except BaseException:
        await runtime.close()
        raise
    return runtime


def build_bot(
    settings: Settings, *, runtime_options: RuntimeOptions | None = None, **options: Any
) -> PokerBot:
    """The bot, ready for ``bot.run(token)`` (``options`` go to ``commands.Bot``)."""
    game_options = runtime_options if runtime_options is not None else RuntimeOptions.from_env()
    quiet_http_bodies()

    async def opener(settings: Settings) -> GameRuntime:
        return await open_runtime(bot, settings, game_options)

    bot = PokerBot(
        settings,
        extensions=EXTENSIONS,
        dynamic_items=DYNAMIC_ITEMS,
        open_storage=opener,
        **options,
    )

    async def on_ready() -> None:
        from bot.__main__ import invite_url

        if bot.application_id is not None:
            log.info("invite the bot with: %s", invite_url(bot.application_id))

    async def on_guild_available(guild: discord.Guild) -> None:
        runtime = bot.storage
        if isinstance(runtime, GameRuntime):
            try:
                await runtime.ensure_guild(guild.id)
            except StorageError:
                log.exception("could not register guild %d", guild.id)

    bot.add_listener(on_ready, "on_ready")
    bot.add_listener(on_guild_available, "on_guild_available")
    bot.add_listener(on_guild_available, "on_guild_join")
    return bot
