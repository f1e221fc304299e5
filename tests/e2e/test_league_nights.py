"""Tournaments with a start time on the server's calendar, over the fake Discord (which holds
every request to Discord's OpenAPI spec): the event follows the tournament (scheduled, active,
completed; cancelled with it), the members who marked it Interested are reminded with a
Register button that registers them, and neither a bot without Manage Events nor a moderator
deleting the event stalls anything; each such failure is a WARNING, the host told once."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from bot.i18n import t
from bot.storage import calendar, tournaments
from tests.e2e.game_kit import Game, settled, until
from tests.e2e.tournament_kit import tournament, tournament_of
from tests.fakediscord import FakeDiscord
from tests.fakediscord.events import ACTIVE, CANCELED, COMPLETED, SCHEDULED, FakeScheduledEvent

pytestmark = pytest.mark.timeout(120)

NIGHT = {"name": "Night", "kind": "freeze_out", "buy_in": 100, "starting_stack": 1000,
         "structure": "10/20 5"}


async def event_of(fake: FakeDiscord, guild_id: int) -> FakeScheduledEvent:
    return await until(lambda: next(iter(fake.calendar.in_guild(guild_id)), None),
                       what="a scheduled event")


async def test_the_event_follows_the_tournament(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    guild = game.world.guild
    await tournament(game, alice, "create", **NIGHT, starts_at="1h")
    event = await event_of(game.fake, guild.id)
    live = tournament_of(game)
    assert live is not None
    assert event.name == "Night" and event.status == SCHEDULED
    assert event.location == f"https://discord.com/channels/{guild.id}/{game.channel.id}"
    assert abs(event.start - time.time() - 3600) < 60 and event.end > event.start
    for player in (alice, bob):
        await tournament(game, player, "register")
    await tournament(game, alice, "start")
    await until(lambda: event.status == ACTIVE or None, what="the event active")
    await tournament(game, alice, "cancel")
    await until(lambda: event.status == COMPLETED or None, what="the event completed")
    assert event.history == [SCHEDULED, ACTIVE, COMPLETED]
    stored = await calendar.event_of(game.db, live.tournament_id)
    for _ in range(50):
        if stored is not None and stored.status == COMPLETED:
            break
        await asyncio.sleep(0.1)
        stored = await calendar.event_of(game.db, live.tournament_id)
    assert stored is not None and (stored.event_id, stored.status) == (event.id, COMPLETED)
    # One cancelled before its start is cancelled on the calendar too.
    lobby = guild.channel("lobby")
    await tournament(game, alice, "create", lobby, **{**NIGHT, "name": "Later"}, starts_at="2h")
    later = await until(lambda: next((e for e in game.fake.calendar.in_guild(guild.id)
                                      if e.name == "Later"), None), what="the second event")
    await tournament(game, alice, "cancel", lobby)
    await until(lambda: later.status == CANCELED or None, what="the event cancelled")
    assert game.fake.schema_violations == []


async def test_without_manage_events_everything_else_works_and_the_host_hears_once(
    game: Game, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob = game.world.alice, game.world.bob
    guild = game.world.guild
    game.fake.calendar.guild_allows[guild.id] = False
    caplog.set_level(logging.INFO)
    told = t("event.no_permission")
    for name, channel in (("One", game.channel), ("Two", guild.channel("lobby"))):
        reply = await tournament(game, alice, "create", channel, **{**NIGHT, "name": name},
                                 starts_at="1h")
        assert reply.startswith("Tournament **"), reply
        await until(lambda: any(m.content == told for m in game.fake.dm_messages(alice))
                    or None, what="the host told")
    await tournament(game, bob, "register")
    assert tournament_of(game) is not None
    await until(lambda: sum("not put on the server's calendar" in r.getMessage()
                            for r in caplog.records) >= 2 or None, what="both refusals")
    assert [m.content for m in game.fake.dm_messages(alice)].count(told) == 1
    assert game.fake.calendar.in_guild(guild.id) == []
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_event_deleted_by_a_moderator_stalls_nothing(
    game: Game, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob = game.world.alice, game.world.bob
    caplog.set_level(logging.INFO)
    await tournament(game, alice, "create", **NIGHT, starts_at="4s")
    event = await event_of(game.fake, game.world.guild.id)
    live = tournament_of(game)
    assert live is not None
    for player in (alice, bob):
        await tournament(game, player, "register")
    await game.fake.calendar.delete_by_moderator(event.id)
    # It starts at its time all the same; the bot leaves the deleted event alone.
    await until(lambda: live.running or None, timeout=20, what="the automatic start")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    stored = await calendar.event_of(game.db, live.tournament_id)
    while (stored is None or stored.status != calendar.GONE) and loop.time() < deadline:
        await asyncio.sleep(0.1)
        stored = await calendar.event_of(game.db, live.tournament_id)
    assert stored is not None and stored.status == calendar.GONE
    info = await tournaments.get_tournament(game.db, live.tournament_id)
    assert info.status == "running"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any("deleted" in r.getMessage() and r.levelno == logging.WARNING
               for r in caplog.records)


async def test_interested_members_are_reminded_and_register_from_the_reminder(
    game: Game,
) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    game.runtime.calendar.reminder_lead = 58.0  # the reminder two seconds after the opening
    await tournament(game, alice, "create", **NIGHT, starts_at="60s")
    event = await event_of(game.fake, game.world.guild.id)
    live = tournament_of(game)
    assert live is not None
    await tournament(game, alice, "register")
    for member in (alice, bob, carol):  # carol's DMs are closed: nothing breaks
        await game.fake.calendar.mark_interested(member, event.id)
    reminder = await game.fake.wait_for_message(
        lambda m: "Register now?" in m.content, channel=game.fake.dm_channel(bob), timeout=20)
    assert "**Night**" in reminder.content and f"<#{game.channel.id}>" in reminder.content
    # alice registered already: no reminder for her.
    assert not any("Register now?" in m.content for m in game.fake.dm_messages(alice))
    handle = await game.fake.click(bob, reminder, f"event:register:{live.tournament_id}")
    answer = await settled(handle)
    assert answer.content.startswith("You're registered for **Night**"), answer.content
    assert bob.id in live.state.players_left()
    # A second press is refused as any second registration is.
    again = await settled(await game.fake.click(bob, reminder,
                                                f"event:register:{live.tournament_id}"))
    assert again.content == t("error.already_registered"), again.content
    stored = await calendar.event_of(game.db, live.tournament_id)
    assert stored is not None and stored.reminded


async def test_the_fake_tells_interest_only_to_sessions_with_the_intent(
    fake: FakeDiscord, game: Game
) -> None:
    """The bot reads the Interested list when it reminds, so it needs no gateway intent; the
    fake sends GUILD_SCHEDULED_EVENT_USER_ADD only to a session that asked for it (1 << 16)."""
    await tournament(game, game.world.alice, "create", **NIGHT, starts_at="1h")
    event = await event_of(fake, game.world.guild.id)
    (session,) = fake.gateway.live_sessions
    sent_before = session.seq
    await fake.calendar.mark_interested(game.world.bob, event.id)
    assert session.seq == sent_before  # the bot did not ask for GUILD_SCHEDULED_EVENTS
    session.intents |= 1 << 16
    await fake.calendar.mark_interested(game.world.carol, event.id)
    assert session.seq == sent_before + 1
