"""A restart with many tables in the middle of their hands (a deploy, or a crash of a busy
process): every table comes back at once, within the bot's request budget. Tables where a
player is to act are shown again before the others, interactions sent meanwhile are answered
within Discord's 3 s, and Discord never answers 429. ``bench.e2e --only restart`` measures the
same at 250 to 1,000 tables; here nothing is timed but Discord's own deadline."""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord
import pytest

from bot.client import PokerBot
from bot.i18n import t
from bot.runtime.config import RuntimeOptions
from bot.runtime.manager import GameRuntime
from bot.runtime.registry import Venue
from bot.storage import Database
from tests.e2e.harness import running_bot, settings_for
from tests.e2e.restart_kit import restart_world, seed_tables, shown_again, tidied
from tests.fakediscord import FakeDiscord, InteractionHandle

pytestmark = pytest.mark.timeout(120)

TABLES = 30
RATE = 8.0  # requests a second: slow enough that the tables queue for the budget


async def test_a_restart_brings_every_table_back_players_first(tmp_path: Path) -> None:
    world = restart_world(TABLES, first=20, others=5)
    async with FakeDiscord(guilds=world.guilds, users=world.users) as fake:
        settings = settings_for(fake, tmp_path)
        db = await Database.open(settings.database_url)
        try:
            seeded = await seed_tables(db, fake, world, paused_every=3)
        finally:
            await db.close()
        waiting = [s for s in seeded if s.awaits_player]
        assert 0 < len(waiting) < len(seeded)
        since = len(fake.requests)
        options = RuntimeOptions(requests_per_second=RATE)
        bot = PokerBot(settings, runtime_options=options, guild_ready_timeout=0.01)
        async with running_bot(fake, tmp_path, bot=bot, ready_timeout=30.0):
            runtime = bot.runtime
            assert runtime is not None
            # Players act while their tables are still being posted again: on a table message
            # not out yet, and from the old message's buttons, which act on the same decision.
            sent: list[InteractionHandle] = []
            for n, table in enumerate(waiting[-6:]):
                live_table = runtime.registry.table(table.table_id)
                hand = live_table.hand
                assert hand is not None and hand.to_act is not None
                user = next(u for u in table.seat.players
                            if u.id == live_table.player_of(hand.to_act))
                legal = hand.legal()
                assert legal is not None
                action = "check" if legal.can_check else "call"
                if n % 2:
                    sent.append(await fake.slash(user, table.seat.channel, action))
                else:
                    old = fake.message(table.old_message_id)
                    (button,) = [c for c in old.custom_ids() if f":{action}@" in c]
                    sent.append(await fake.click(user, old, button))
            rail = world.spectators[0]
            sent.append(await fake.slash(rail, world.seats[0].channel, "chips",
                                         subcommand="balance"))
            for handle in sent:
                # Discord refuses an answer past its deadline: the fake does too.
                answer = await handle.response(timeout=3.0)
                assert answer.content != t("error.command_outdated"), answer
            await fake.wait_for(
                lambda: all(shown_again(fake, runtime, s) and tidied(fake, s) for s in seeded),
                timeout=60, what="every table shown again, its old buttons off",
            )
        assert not fake.rate_limited
        count = fake.door(since)
        assert count.busiest <= RATE + max(1.0, RATE / 10)
        # The new table messages reached Discord players first.
        waits = {s.seat.channel.id: s.awaits_player for s in seeded}
        posted = [
            int(r.path.split("/")[2]) for r in fake.requests[since:]
            if r.method == "POST" and r.path.endswith("/messages")
            and int(r.path.split("/")[2]) in waits
        ]
        first_posts = list(dict.fromkeys(posted))
        assert len(first_posts) == len(seeded)
        order = [waits[channel] for channel in first_posts]
        assert order == sorted(order, reverse=True), order



async def test_the_tables_with_a_player_to_act_are_started_first(tmp_path: Path) -> None:
    """Whatever their order in storage (here every other table is paused)."""
    world = restart_world(8)
    async with FakeDiscord(guilds=world.guilds, users=world.users) as fake:
        db = await Database.open(settings_for(fake, tmp_path).database_url)
        seeded = await seed_tables(db, fake, world, paused_every=2)
        assert [s.awaits_player for s in seeded] == [True, False] * 4
        runtime = GameRuntime(discord.Client(intents=discord.Intents.none()), db)
        started: list[Venue] = []

        async def start(venue: Venue) -> None:
            started.append(venue)

        runtime.venues.start = start  # type: ignore[method-assign]
        try:
            restored = await runtime.adopt()
            await asyncio.sleep(0)
            waits = [venue.awaits_player for venue in started]
        finally:
            await runtime.close()
    assert waits == [True] * 4 + [False] * 4
    assert restored == [venue.venue_key for venue in started]
