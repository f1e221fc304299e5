r"""A fake Discord for end-to-end tests: the real discord.py client against 127.0.0.1.

The world::

    alice, carol = FakeUser("alice"), FakeUser("carol", dms_open=False)
    guild = FakeGuild.create("Casino", channels=["poker"], members=[alice, carol])
    async with FakeDiscord(guilds=[guild]) as fake:
        # run the bot with DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
        # DISCORD_TOKEN=fake.token (see tests/e2e/harness.py: running_bot)

Driving it (each call pushes one INTERACTION_CREATE and returns an ``InteractionHandle``)::

    h = await fake.slash(alice, guild.channel("poker"), "poker", subcommand="join",
                         options={"buy_in": 500, "user": carol})
    reply = await h.response()          # InteractionCallback: .type .ephemeral .content ...
    msg = await h.wait_original()       # after a "thinking" defer, once filled in
    first = await h.followup(0)
    h = await fake.click(carol, msg, "poker:7:fold")
    h = await fake.submit_modal(alice, "raise:7", {"amount": "250"})

Watching the bot (everything it posts, edits or deletes is an event; waits always time out)::

    mark = fake.mark()
    table = await fake.wait_for_message(lambda m: m.content.startswith("Table"),
                                        channel=guild.channel("poker"), after=mark)
    fake.messages_in(channel); fake.dm_messages(user); fake.message(id)  # current versions
    table.attachment("table.png").open_image()                           # PIL image
    fake.sync_calls; fake.command("poker"); fake.requests; fake.unhandled
    fake.rate_limit("POST", r"/channels/\d+/messages", retry_after=0.05)   # next send gets 429
    fake.door(since).busiest, fake.door().by_route     # the bot's requests a second, at the door
    message.pinged_user_ids                                   # who it notifies (allowed_mentions)

Discord's limits are enforced (see ``state`` for message, embed, file and command checks and
``rest`` for rate limits): 5 message writes per 5 s per channel and 50 bot-token requests per
second by default; ``FakeDiscord(channel_rate=..., global_rate=...)`` or, live,
``fake.set_rate_limits(channel_rate=(2, 1.0))`` change them, and ``fake.rate_limited`` lists
the requests that were refused with 429.

A bad day, on demand (``faults``; every knob off unless a test turns it on, each fault served
recorded in ``fake.faults``)::

    fake.fail(503, CHANNEL_MESSAGE, method="PATCH")        # the next edit: 503, nothing done
    fake.lose_answers(CALLBACK, answering="form")           # answered, then 502 (retry: 40060)
    fake.reset_connections(in_channel(poker.id, ""))        # created, then cut mid-body
    fake.delay(ANY, by=(1, 3), for_seconds=10)              # every answer 1-3 s late
    fake.fail(502, ANY, count=None, fraction=0.2)           # one request in five
    async with fake.outage(): ...                           # refused and reset, gateway gone
    await fake.drop_gateway(1006)                           # also 4000, 4009 (re-identify)
    await fake.send_reconnect(); await fake.invalidate_session(resumable=False)
    fake.zombie_gateway()                                   # no heartbeat ACK, no event
    fake.advance_clock(3 * 3600)                            # old messages: edits refused, 30046

Always on, as on Discord: a RESUME replays the events dispatched while the client was away, an
edit of a channel message older than an hour is refused (30046), and a create with a ``nonce``
and ``enforce_nonce`` returns the first message made with that nonce instead of a second one.
"""

from .door import DoorCount
from .interactions import InteractionCallback, InteractionHandle
from .models import (
    ADMINISTRATOR,
    CHANNEL_DM,
    EPHEMERAL,
    LOADING,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageEvent,
    new_snowflake,
    snowflake_time,
)
from .openapi import SchemaViolation
from .rest import DISCORD_CHANNEL_RATE, DISCORD_GLOBAL_RATE, INTERACTION_TOKEN_LIFETIME
from .server import FakeDiscord
from .state import ApiError, FakeState, RecordedRequest, SyncCall

__all__ = [
    "ADMINISTRATOR",
    "CHANNEL_DM",
    "DISCORD_CHANNEL_RATE",
    "DISCORD_GLOBAL_RATE",
    "EPHEMERAL",
    "INTERACTION_TOKEN_LIFETIME",
    "LOADING",
    "ApiError",
    "DoorCount",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMessage",
    "FakeRole",
    "FakeState",
    "FakeUser",
    "InteractionCallback",
    "InteractionHandle",
    "MessageEvent",
    "RecordedRequest",
    "SchemaViolation",
    "SyncCall",
    "new_snowflake",
    "snowflake_time",
]
