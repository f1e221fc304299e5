"""Run the real ``PokerBot`` against a ``FakeDiscord`` in the test's own event loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.client import PokerBot
from bot.settings import Settings, apply_proxies
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser
from tests.fakediscord.models import READ_MESSAGE_HISTORY, VIEW_CHANNEL

PROBE_EXTENSION = "tests.e2e.probe_cog"


@dataclass
class World:
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser  # DMs closed
    guild: FakeGuild

    @property
    def users(self) -> list[FakeUser]:
        return [self.alice, self.bob, self.carol]


def make_world() -> World:
    alice = FakeUser("alice")
    bob = FakeUser("bob")
    carol = FakeUser("carol", dms_open=False)
    # The bot may read but not write in #readonly.
    readonly = FakeChannel("readonly", bot_permissions=VIEW_CHANNEL | READ_MESSAGE_HISTORY)
    guild = FakeGuild.create(
        "Casino", channels=["poker", "lobby", readonly], members=[alice, bob, carol]
    )
    return World(alice=alice, bob=bob, carol=carol, guild=guild)


def settings_for(fake: FakeDiscord, data_dir: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "discord_token": fake.token,
        "database_url": f"sqlite:///{data_dir / 'poker.db'}",
        "discord_api_base": fake.api_base,
        "discord_gateway_url": fake.gateway_url,
    }
    values.update(overrides)
    return Settings(**values)


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord,
    data_dir: Path,
    *,
    extensions: Sequence[str] = (PROBE_EXTENSION,),
    dynamic_items: Sequence[type[Any]] = (),
    settings: Settings | None = None,
    ready_timeout: float = 10.0,
    bot: PokerBot | None = None,
    **options: Any,
) -> AsyncIterator[PokerBot]:
    """Start the bot, wait for READY (or its failure), yield it, then close it cleanly.

    ``bot`` runs a bot built by the caller instead of one with the probe cog.
    ``guild_ready_timeout`` is lowered because discord.py otherwise waits 2 s after the last
    GUILD_CREATE before it reports READY.
    """
    if bot is None:
        options.setdefault("guild_ready_timeout", 0.01)
        bot = PokerBot(
            settings if settings is not None else settings_for(fake, data_dir),
            extensions=extensions,
            dynamic_items=dynamic_items,
            **options,
        )
    ready = asyncio.Event()

    async def on_ready() -> None:
        ready.set()

    bot.add_listener(on_ready, "on_ready")
    live_table = asyncio.create_task(bot.start(bot.settings.discord_token), name="poker-bot")
    waiter = asyncio.create_task(ready.wait())
    try:
        done, _ = await asyncio.wait(
            {live_table, waiter}, timeout=ready_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if waiter not in done:
            if live_table in done:
                live_table.result()  # re-raise the start-up failure
                raise RuntimeError("the bot stopped before it was ready")
            raise TimeoutError(f"the bot was not ready within {ready_timeout}s")
        yield bot
    finally:
        waiter.cancel()
        try:
            await bot.close()
            if not live_table.done():
                await asyncio.wait_for(live_table, timeout=5.0)
        finally:
            # Leave discord.py pointing at Discord again for whatever runs next.
            apply_proxies(Settings())
