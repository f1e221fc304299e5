"""A server's tables: none opens where the bot cannot post, losing access pauses the table and
tells its players, and each server limits how many tables are open and closes empty ones
(issue 10, defects 9 and 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import t
from bot.storage import economy, tables
from tests.e2e.game_kit import Game, StackedDeck, quick_options, running_game, until
from tests.e2e.harness import World
from tests.fakediscord import FakeChannel, FakeDiscord
from tests.fakediscord.models import READ_MESSAGE_HISTORY, VIEW_CHANNEL

pytestmark = pytest.mark.timeout(60)

READ_ONLY = VIEW_CHANNEL | READ_MESSAGE_HISTORY
MISSING = "Attach Files, Embed Links, Send Messages"  # as Discord's settings name them


async def test_no_table_opens_or_deals_where_the_bot_cannot_post(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    readonly = game.world.guild.channel("readonly")
    refused = await game.slash(alice, "poker", "create", channel=readonly)
    assert refused.ephemeral and refused.content == t(
        "error.bot_missing_permissions", permissions=MISSING
    )
    assert not game.runtime.registry.cash_tables()
    await game.open_table(alice, bob)
    # The joins' table updates out first: one caught by the lost access would pause the table
    # (a channel lost mid-game), which is another test's story.
    await game.wait_idle()
    poker: FakeChannel = game.channel
    poker.bot_permissions = READ_ONLY
    refused = await game.slash(alice, "poker", "start")
    assert refused.ephemeral and refused.content == t(
        "error.bot_missing_permissions", permissions=MISSING
    )
    assert game.live_table().hand is None and not game.live_table().config.dealing
    poker.bot_permissions = None
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)


async def test_losing_the_channel_pauses_the_table_and_tells_its_players(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    live_table = game.live_table()
    await game.wait_idle()
    game.channel.bot_permissions = READ_ONLY
    mark = game.fake.mark()
    await game.ok(await game.wait_turn(), "fold")  # the result cannot be posted any more
    assert hand.is_over
    await until(lambda: live_table.table.paused, what="the table to pause", timeout=10)
    notice = t("notice.channel_lost", channel=f"<#{game.channel.id}>")
    for user in (alice, bob):
        await game.fake.wait_for_message(
            lambda m: m.content == notice, channel=user, after=mark, timeout=10
        )
    assert live_table.hand is None  # no hand is dealt into a channel nobody can read
    # Access back: /poker start does not claim to deal at a paused table, it says how the
    # table goes on, and changes nothing.
    game.channel.bot_permissions = None
    before = live_table.table.snapshot()
    refused = await game.slash(bob, "poker", "start")
    assert refused.ephemeral and refused.content == t("error.table_paused")
    assert live_table.table.snapshot() == before and live_table.hand is None
    # The host resumes: the game goes on where everyone can see it.
    assert await game.ok(alice, "poker", "resume") == t("reply.resumed")
    await game.wait_hand(2, timeout=10)
    await game.fake.wait_for_message(
        lambda m: "Hand #2 ·" in m.content, channel=game.channel, after=mark, timeout=10
    )


async def test_a_server_limits_open_tables_in_all_and_per_host(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    guild = game.world.guild
    extra = [FakeChannel(f"room{k}") for k in range(3)]
    for channel in extra:
        channel.guild_id = guild.id
        guild.channels.append(channel)
        game.fake.channels[channel.id] = channel
    # Defaults: 10 tables per server, 2 per host.
    await game.ok(alice, "poker", "create")
    await game.ok(alice, "poker", "create", channel=extra[0])
    refused = await game.slash(alice, "poker", "create", channel=extra[1])
    assert refused.ephemeral and refused.content == t("error.too_many_hosted", maximum=2)
    settings = await game.slash(alice, "chips", "settings", max_tables=3, max_tables_per_host=5)
    assert settings.ephemeral and "At most 3 tables" in settings.content
    await game.ok(alice, "poker", "create", channel=extra[1])
    refused = await game.slash(bob, "poker", "create", channel=extra[2])
    assert refused.ephemeral and refused.content == t("error.too_many_tables", maximum=3)
    # Members without Manage Server cannot change the limits.
    refused = await game.slash(bob, "chips", "settings", max_tables=50)
    assert refused.content == t("error.missing_permissions", permissions="Manage Server")
    # Bad values are refused with the option named as people say it (issue 12: not
    # "max_tables").
    refused = await game.slash(alice, "chips", "settings", max_tables=0)
    assert refused.content == "The table limit must be between 1 and 500."
    assert len(game.runtime.registry.cash_tables()) == 3


async def test_a_table_nobody_sits_at_closes_itself(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.ok(alice, "poker", "create")
    await game.ok(bob, "poker", "join", buy_in=1000)
    live_table = game.live_table()
    await economy.update_settings(game.db, game.world.guild.id, idle_close=60)
    # Somebody is seated: however long, the table stays.
    assert await game.runtime.close_idle_tables(now=live_table.table_id + 10**9) == []
    reply = await game.ok(bob, "poker", "leave")
    assert reply == t("reply.left", amount="1,000")
    assert live_table.empty_since is not None
    assert await game.runtime.close_idle_tables(now=live_table.empty_since + 59) == []
    closed = await game.runtime.close_idle_tables(now=live_table.empty_since + 61)
    assert closed == [live_table.table_id]
    await game.fake.wait_for_message(
        lambda m: m.content.startswith(t("notice.closed_idle")), channel=game.channel, timeout=10
    )
    assert (await tables.get_table(game.db, live_table.table_id)).status == "closed"
    assert not game.runtime.registry.cash_tables()
    # The setting 0 keeps empty tables open for good.
    await economy.update_settings(game.db, game.world.guild.id, idle_close=0)
    await game.ok(alice, "poker", "create")
    assert await game.runtime.close_idle_tables(now=10**12) == []


async def test_the_sweep_closes_an_abandoned_table_by_itself(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """Nobody calls ``close_idle_tables`` here: the runtime's own sweep must find the table."""
    deck = StackedDeck()
    options = quick_options(deck, idle_check_interval=0.2)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        await economy.update_settings(game.db, world.guild.id, idle_close=1)
        await game.ok(world.alice, "poker", "create")
        live_table = game.live_table()
        await game.fake.wait_for_message(
            lambda m: m.content.startswith(t("notice.closed_idle")), channel=game.channel,
            timeout=15,
        )
        assert (await tables.get_table(game.db, live_table.table_id)).status == "closed"
        assert not game.runtime.registry.cash_tables()
