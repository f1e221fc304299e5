"""The real PokerBot against the fake Discord: login, sync, commands, DMs, buttons, modals."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.client import PokerBot
from bot.i18n import t
from tests.e2e.harness import World, running_bot, settings_for
from tests.e2e.probe_cog import CARD_ALT_TEXT, Probe, TableButton
from tests.fakediscord import EPHEMERAL, FakeDiscord, FakeMessage

pytestmark = pytest.mark.timeout(60)


def probe_cog(bot: PokerBot) -> Probe:
    cog = bot.get_cog("Probe")
    # load_extension executes the module afresh (not the sys.modules copy this test
    # imported), so isinstance against our Probe class would be False.
    assert cog is not None and type(cog).__name__ == "Probe"
    return cog  # type: ignore[return-value]


async def post_table(fake: FakeDiscord, world: World, table_id: int = 7) -> FakeMessage:
    channel = world.guild.channel("poker")
    handle = await fake.slash(
        world.alice, channel, "probe", subcommand="table", options={"table_id": table_id}
    )
    reply = await handle.response()
    assert reply.ephemeral and reply.content == "table posted"
    return await fake.wait_for_message(
        lambda m: m.content == f"table {table_id}" and not m.ephemeral, channel=channel
    )


async def test_bot_logs_in_and_syncs_the_command_schema(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert bot.application_id == fake.application_id
    assert fake.identify_count == 1
    session = fake.sessions[0]
    # Only the guilds intent: nothing privileged is asked for.
    assert session.intents == 1
    # The client asks for zlib-stream yet reads the fake's plain-text JSON frames.
    assert session.query == {"v": "10", "encoding": "json", "compress": "zlib-stream"}

    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.member_count == len(world.guild.members)
    assert guild.get_channel(world.guild.channel("poker").id) is not None

    assert bot.last_sync_changed is True
    assert [call.guild_id for call in fake.sync_calls] == [None]
    probe = fake.command("probe")
    assert probe is not None and probe["id"]
    subcommands = {option["name"] for option in probe["options"]}
    assert {"table", "cards", "bet", "boom", "refuse", "slow"} <= subcommands
    assert fake.command("ping") is not None
    assert not fake.unhandled


async def test_slash_command_gets_an_ephemeral_reply(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    channel = world.guild.channel("poker")
    handle = await fake.slash(world.alice, channel, "ping")
    reply = await handle.response()
    assert reply.type == 4
    assert reply.ephemeral
    assert reply.content == "pong"
    original = handle.original
    assert original is not None and original.visible_to == world.alice.id
    assert original.flags & EPHEMERAL
    assert [m.content for m in fake.messages_in(channel)] == ["pong"]


async def test_dm_carries_a_png_with_alt_text(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    channel = world.guild.channel("poker")
    handle = await fake.slash(
        world.alice, channel, "probe", subcommand="cards", options={"user": world.bob}
    )
    reply = await handle.response()
    assert reply.ephemeral and reply.content == "sent to bob"

    dm = await fake.wait_for_message(channel=world.bob)
    assert dm.content == "Your cards"
    attachment = dm.attachment("cards.png")
    assert attachment.description == CARD_ALT_TEXT
    image = attachment.open_image()
    assert image.format == "PNG" and image.size == (64, 40)
    assert fake.dm_channel(world.bob).recipient is world.bob


async def test_closed_dms_raise_50007_and_the_bot_falls_back(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    channel = world.guild.channel("poker")
    handle = await fake.slash(
        world.alice, channel, "probe", subcommand="cards", options={"user": world.carol}
    )
    reply = await handle.response()
    assert probe_cog(bot).dm_failures == [50007]
    assert reply.ephemeral
    assert reply.content == t("error.dm_closed_notice", "en-US", user=f"<@{world.carol.id}>")
    # The fallback shows the same image privately in the channel.
    assert [a.filename for a in reply.attachments] == ["cards.png"]
    assert reply.attachments[0].description == CARD_ALT_TEXT
    assert fake.dm_messages(world.carol) == []
    refused = [r for r in fake.requests if r.status == 403]
    assert len(refused) == 1 and refused[0].path.endswith("/messages")


async def test_button_click_and_modal_submit_round_trip(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    table = await post_table(fake, world)
    assert table.custom_ids() == ["poker:7:fold", "poker:7:raise", "poker:7:boom"]

    press = await fake.click(world.bob, table, "poker:7:fold")
    update = await press.response()
    assert update.type == 7
    edited = fake.message(table)
    assert edited.content == "table 7: bob pressed fold"
    assert edited.custom_ids() == table.custom_ids()  # the buttons survive the edit

    mark = fake.mark()
    opener = await fake.click(world.alice, table, "poker:7:raise")
    modal = await opener.response()
    assert modal.is_modal and modal.custom_id == "raise:7"
    assert modal.data["title"] == "Raise"

    submit = await fake.submit_modal(world.alice, "raise:7", {"amount": "250"})
    answer = await submit.response()
    assert answer.ephemeral and answer.content == "raised to 250"
    raised = await fake.wait_for_message(lambda m: m.id == table.id, kinds=("edit",), after=mark)
    assert raised.content == "table 7: alice raised to 250"
    assert raised.version == 2


async def test_bad_modal_input_is_refused_privately(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    table = await post_table(fake, world)
    opener = await fake.click(world.alice, table, "poker:7:raise")
    await opener.response()
    submit = await fake.submit_modal(world.alice, "raise:7", {"amount": "lots"})
    answer = await submit.response()
    assert answer.ephemeral
    assert answer.content == t("error.bad_option", "en-US", option="amount")
    assert fake.message(table).content == "table 7"


async def test_errors_become_ephemeral_sentences(
    fake: FakeDiscord, bot: PokerBot, world: World, caplog: pytest.LogCaptureFixture
) -> None:
    channel = world.guild.channel("poker")

    boom = await (await fake.slash(world.alice, channel, "probe", subcommand="boom")).response()
    assert boom.ephemeral and boom.content == t("error.internal")
    assert "secret" not in boom.content and "Traceback" not in boom.content
    assert any("secret internal detail" in str(r.exc_info) for r in caplog.records if r.exc_info)

    refuse = await (await fake.slash(world.alice, channel, "probe", subcommand="refuse")).response()
    assert refuse.ephemeral and refuse.content == t("error.not_allowed")

    # Discord's client would refuse -5 (min_value 1); the bot must check again.
    bet = await fake.slash(world.alice, channel, "probe", subcommand="bet", options={"amount": -5})
    answer = await bet.response()
    assert answer.ephemeral and answer.content == t("error.bad_option", option="amount")

    table = await post_table(fake, world)
    press = await (await fake.click(world.bob, table, "poker:7:boom")).response()
    assert press.ephemeral and press.content == t("error.internal")


async def test_deferred_reply_is_replaced_by_the_first_followup(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    handle = await fake.slash(world.alice, world.guild.channel("poker"), "probe", subcommand="slow")
    reply = await handle.response()
    assert reply.type == 5 and reply.ephemeral
    done = await handle.wait_original()
    assert done.content == "done thinking" and done.ephemeral and not done.loading
    assert (await handle.followup()).id == done.id


async def test_late_interactions_are_dropped_unanswered(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    channel = world.guild.channel("poker")
    await (await fake.slash(world.alice, channel, "ping")).response()
    stale = await fake.slash(world.alice, channel, "ping", age=10.0)
    fresh = await fake.slash(world.bob, channel, "ping")
    await fresh.response()
    assert stale.callback is None
    assert not any(str(stale.id) in r.path for r in fake.requests)


async def test_missing_channel_permission_is_reported_not_raised(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    readonly = world.guild.channel("readonly")
    handle = await fake.slash(world.alice, readonly, "probe", subcommand="table")
    reply = await handle.response()
    assert reply.ephemeral and reply.content == t("error.bot_forbidden")
    assert [m.content for m in fake.messages_in(readonly)] == [t("error.bot_forbidden")]


async def test_slash_command_in_a_dm(fake: FakeDiscord, bot: PokerBot, world: World) -> None:
    handle = await fake.slash(world.bob, fake.dm_channel(world.bob), "ping")
    assert "member" not in handle.payload and handle.payload["context"] == 1
    reply = await handle.response()
    assert reply.content == "pong"


async def test_gateway_drop_is_resumed(fake: FakeDiscord, bot: PokerBot, world: World) -> None:
    resumed = asyncio.Event()

    async def on_resumed() -> None:
        resumed.set()

    bot.add_listener(on_resumed, "on_resumed")
    await fake.drop_gateway(code=4000)
    await asyncio.wait_for(resumed.wait(), timeout=10)
    assert fake.identify_count == 1
    reply = await (await fake.slash(world.alice, world.guild.channel("poker"), "ping")).response()
    assert reply.content == "pong"


async def test_rate_limited_send_is_retried(fake: FakeDiscord, bot: PokerBot, world: World) -> None:
    fake.rate_limit("POST", r"/channels/\d+/messages", retry_after=0.05)
    table = await post_table(fake, world)
    assert table.content == "table 7"
    assert len(fake.rate_limited) == 1


async def test_dev_guild_sync_goes_to_that_guild(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    settings = settings_for(fake, tmp_path, dev_guild_id=world.guild.id)
    async with running_bot(fake, tmp_path, settings=settings) as bot:
        assert bot.last_sync_changed is True
        assert [call.guild_id for call in fake.sync_calls] == [world.guild.id]
        handle = await fake.slash(world.alice, world.guild.channel("lobby"), "ping")
        assert handle.data["guild_id"] == str(world.guild.id)
        assert (await handle.response()).content == "pong"


async def test_restart_keeps_buttons_working_and_skips_an_unchanged_sync(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_bot(fake, tmp_path, dynamic_items=[TableButton]) as first:
        assert first.last_sync_changed is True
        table = await post_table(fake, world, table_id=42)
    assert first.is_closed()
    await fake.wait_for(lambda: not fake.sessions, what="the first bot to disconnect")

    async with running_bot(fake, tmp_path, dynamic_items=[TableButton]) as second:
        assert second is not first
        assert second.last_sync_changed is False
        assert len(fake.sync_calls) == 1
        assert fake.identify_count == 2

        press = await fake.click(world.carol, table, "poker:42:fold")
        update = await press.response()
        assert update.type == 7
        assert fake.message(table).content == "table 42: carol pressed fold"


async def test_waits_time_out_with_a_report(fake: FakeDiscord, bot: PokerBot, world: World) -> None:
    await (await fake.slash(world.alice, world.guild.channel("poker"), "ping")).response()
    with pytest.raises(TimeoutError, match=r"did not happen within [0-9.]+s(.|\n)*'pong'"):
        await fake.wait_for_message(lambda m: m.content == "never", timeout=0.05)
    # Discord only offers synced commands, so the fake refuses the others.
    with pytest.raises(LookupError, match="not synced"):
        await fake.slash(world.alice, world.guild.channel("poker"), "missing")
