"""The table keeps inside Discord's channel rate limit (5 message writes per 5 s) by itself:
bursts of actions coalesce into fewer edits, and the message still ends on the latest state.

This test runs with Discord's real limits on both sides: the bot's production channel budget,
and the fake enforcing Discord's per-channel and global limits (with the rate-limit headers
that let discord.py pace itself, as Discord sends them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.runtime.config import RuntimeOptions
from tests.e2e.game_kit import StackedDeck, quick_options, running_game
from tests.e2e.harness import World
from tests.fakediscord import DISCORD_CHANNEL_RATE, DISCORD_GLOBAL_RATE, FakeDiscord

pytestmark = pytest.mark.timeout(60)


async def test_bursts_coalesce_within_the_channel_rate_limit(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    deck = StackedDeck()
    production = RuntimeOptions()
    options = quick_options(
        deck,
        channel_sends=production.channel_sends,
        channel_window=production.channel_window,
        calm_edit_interval=production.calm_edit_interval,
    )
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        # Both sides at Discord's values, not a test budget.
        assert (options.channel_sends, options.channel_window) == DISCORD_CHANNEL_RATE
        assert fake.channel_rate == DISCORD_CHANNEL_RATE
        assert fake.global_rate == DISCORD_GLOBAL_RATE
        alice, bob = world.alice, world.bob
        await game.ok(alice, "poker", "create")
        await game.ok(alice, "poker", "join")
        await game.ok(bob, "poker", "join")
        await game.ok(alice, "poker", "start")
        await game.ok(alice, "poker", "pause")  # this hand only
        hand = await game.wait_hand(1)
        live_table = game.live_table()
        # A burst: the whole hand checked down as fast as the players can type.
        await game.passive_round(1)
        changes = len(hand.events)
        result = await game.wait_result(1, timeout=30)
        assert result.attachments
        await game.wait_idle()

        path = f"/channels/{game.channel.id}/messages"
        sends = sorted(
            r.at for r in fake.requests if r.method in ("POST", "PATCH") and r.path.startswith(path)
        )
        # Measured where Discord would measure it; a little slack for the trip to the fake.
        for i, start in enumerate(sends):
            inside = [at for at in sends[i:] if at < start + 4.9]
            assert len(inside) <= 5, (len(inside), sends)
        assert not fake.rate_limited  # not one 429, per channel or global
        edits = [e for e in fake.events
                 if e.kind == "edit" and e.message.id == live_table.message_id]
        assert len(edits) < changes  # coalesced: not one edit per change
        # The table message ends on the state of the hand as it ended.
        final = fake.message(live_table.message_id)  # type: ignore[arg-type]
        assert "The hand is over." in final.content or "paused" in final.content
        assert not final.custom_ids()
