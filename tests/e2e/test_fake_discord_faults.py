"""The fake Discord's bad days, one knob at a time: each fault does what Discord's does, to a
plain HTTP client (what reached the wire) and to the real discord.py client (what the bot meets),
and is recorded; with no knob on, nothing changes (the other fake tests run with none).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot.client import PokerBot
from tests.e2e.harness import World, running_bot
from tests.e2e.probe_cog import TableButton
from tests.fakediscord import FakeChannel, FakeDiscord
from tests.fakediscord.faults import (
    CALLBACK,
    CHANNEL_MESSAGE,
    CHANNEL_MESSAGES,
    STATUS_FAULTS,
    in_channel,
)
from tests.fakediscord.state import NONCE_WINDOW, OLD_MESSAGE_AGE

pytestmark = pytest.mark.timeout(60)

ALREADY_ACKNOWLEDGED = 40060
OLD_MESSAGE_EDITS = 30046


@dataclass
class Answer:
    status: int
    body: Any
    content_type: str
    headers: dict[str, str]

    @property
    def code(self) -> int | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


class Raw:
    """Plain requests to the fake with the bot's token: what reaches the wire, no discord.py
    retry in the way."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def __call__(self, method: str, path: str, body: Any = None) -> Answer:
        headers = {"Authorization": f"Bot {self.fake.token}"}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        async with self.session.request(
            method, f"{self.fake.api_base}{path}", data=data, headers=headers
        ) as response:
            raw = await response.read()
            kind = response.headers.get("Content-Type", "")
            parsed = json.loads(raw) if raw and kind == "application/json" else raw.decode()
            return Answer(response.status, parsed, kind, dict(response.headers))

    async def post(self, channel: FakeChannel, body: dict[str, Any]) -> Answer:
        return await self("POST", f"/channels/{channel.id}/messages", body)

    async def edit(self, channel: FakeChannel, message_id: object, body: dict[str, Any]) -> Answer:
        return await self("PATCH", f"/channels/{channel.id}/messages/{message_id}", body)


@pytest.fixture
async def raw(fake: FakeDiscord) -> AsyncIterator[Raw]:
    async with aiohttp.ClientSession() as session:
        yield Raw(fake, session)


def poker(world: World) -> FakeChannel:
    return world.guild.channel("poker")


# ---------------------------------------------------------------------- status faults


@pytest.mark.parametrize("status", STATUS_FAULTS)
async def test_a_status_fault_is_answered_before_the_request_takes_effect(
    fake: FakeDiscord, raw: Raw, world: World, status: int
) -> None:
    fake.set_rate_limits(channel_rate=(5, 60.0))
    channel = poker(world)
    first = await raw.post(channel, {"content": "one"})
    remaining = first.headers["X-RateLimit-Remaining"]
    fake.fail(status, CHANNEL_MESSAGES, method="POST")
    failed = await raw.post(channel, {"content": "two"})
    assert failed.status == status
    # Discord's own JSON for a 500; the edge's or the proxy's text for the others.
    if status == 500:
        assert failed.body == {"message": "500: Internal Server Error", "code": 0}
    else:
        assert failed.content_type.startswith("text/") and failed.body, failed
        assert status == 503 or f"{status} " in failed.body
    assert [m.content for m in fake.messages_in(channel)] == ["one"]
    # It never reached the API: the channel's bucket did not count it.
    third = await raw.post(channel, {"content": "three"})
    assert third.status == 200
    assert int(third.headers["X-RateLimit-Remaining"]) == int(remaining) - 1
    (served,) = fake.faults
    assert (served.kind, served.method, served.status) == ("status", "POST", status)
    assert served.path == f"/channels/{channel.id}/messages"


async def test_a_fault_takes_its_method_its_route_and_its_count(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    channel = poker(world)
    posted = await raw.post(channel, {"content": "table"})
    message_id = posted.body["id"]
    rule = fake.fail(503, CHANNEL_MESSAGE, method="PATCH", count=2)
    assert (await raw.post(channel, {"content": "other"})).status == 200  # not its route
    assert (await raw("GET", f"/channels/{channel.id}/messages/{message_id}")).status == 200
    statuses = [(await raw.edit(channel, message_id, {"content": f"v{n}"})).status
                for n in range(3)]
    assert statuses == [503, 503, 200]
    assert rule.served == 2 and not rule.active
    assert fake.message(int(message_id)).content == "v2"
    # Another channel's routes are apart: ``in_channel`` names one channel's.
    lobby = world.guild.channel("lobby")
    fake.fail(500, in_channel(lobby.id), count=None)
    assert (await raw.post(channel, {"content": "here"})).status == 200
    assert (await raw.post(lobby, {"content": "there"})).status == 500


async def test_a_fault_for_a_while_and_a_fault_by_chance(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    fake.set_rate_limits(channel_rate=None)
    channel = poker(world)
    rule = fake.fail(502, CHANNEL_MESSAGES, count=None, for_seconds=0.4)
    during = [(await raw.post(channel, {"content": "x"})).status for _ in range(3)]
    assert during == [502, 502, 502]
    await asyncio.sleep(0.45)
    assert (await raw.post(channel, {"content": "after"})).status == 200
    assert not rule.active

    fake.fail(504, CHANNEL_MESSAGES, count=None, fraction=0.3)
    statuses = [(await raw.post(channel, {"content": "x"})).status for _ in range(60)]
    failed = statuses.count(504)
    assert set(statuses) == {200, 504} and 8 <= failed <= 30, failed
    fake.clear_faults()
    assert (await raw.post(channel, {"content": "quiet"})).status == 200


async def test_a_faulted_body_is_still_held_to_discords_spec(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    fake.fail(503, CHANNEL_MESSAGES)
    answer = await raw.post(poker(world), {"content": 5})  # content must be a string
    assert answer.status == 503
    (violation,) = fake.take_schema_violations()
    assert violation.method == "POST"


@pytest.mark.parametrize("status", STATUS_FAULTS)
async def test_discord_py_retries_500_502_and_504_and_gives_up_on_503(
    fake: FakeDiscord, bot: PokerBot, world: World, status: int
) -> None:
    channel = poker(world)
    fake.fail(status, CHANNEL_MESSAGES, method="POST")
    handle = await fake.slash(world.alice, channel, "probe", subcommand="table")
    reply = await handle.response(timeout=10)
    tables = [m for m in fake.messages_in(channel) if m.content == "table 7"]
    if status == 503:
        # Not retried: the command failed, and the bot said so.
        assert tables == [] and reply.ephemeral and reply.content != "table posted", reply
    else:
        assert len(tables) == 1 and reply.content == "table posted"
    posts = [r.status for r in fake.requests if r.method == "POST" and r.path.endswith(
        f"/channels/{channel.id}/messages")]
    assert posts == ([503] if status == 503 else [status, 200])


async def test_a_fault_may_keep_to_the_answers_of_one_kind_of_interaction(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    channel = poker(world)
    await (await fake.slash(world.alice, channel, "probe", subcommand="table")).response()
    table = next(m for m in fake.messages_in(channel) if m.content == "table 7")
    rule = fake.fail(503, CALLBACK, answering="button")
    assert (await (await fake.slash(world.alice, channel, "ping")).response()).content == "pong"
    assert rule.served == 0
    press = await fake.click(world.bob, table, "poker:7:fold")
    update = await press.response(timeout=10)  # the answer's client retries a 5xx
    assert update.type == 7 and rule.served == 1
    callbacks = [r.status for r in fake.requests if r.path.endswith("/callback")]
    assert callbacks[-2:] == [503, 200]
    with pytest.raises(ValueError, match="answering"):
        fake.fail(503, CALLBACK, answering="autocomplete")


# ---------------------------------------------------------------------- lost answers


async def test_a_lost_answer_takes_effect_and_a_retry_makes_a_second_message(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    channel = poker(world)
    fake.lose_answers(CHANNEL_MESSAGES, method="POST")
    lost = await raw.post(channel, {"content": "table"})
    assert lost.status == 502 and "Bad Gateway" in lost.body
    assert [m.content for m in fake.messages_in(channel)] == ["table"]
    assert (await raw.post(channel, {"content": "table"})).status == 200
    assert [m.content for m in fake.messages_in(channel)] == ["table", "table"]
    (served,) = fake.faults
    assert (served.kind, served.status, served.detail) == ("lost", 502, "the answer was 200")


async def test_an_edit_whose_answer_was_lost_is_in_place(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    channel = poker(world)
    message_id = (await raw.post(channel, {"content": "v1"})).body["id"]
    fake.lose_answers(CHANNEL_MESSAGE, method="PATCH", status=504)
    assert (await raw.edit(channel, message_id, {"content": "v2"})).status == 504
    assert fake.message(int(message_id)).content == "v2"


async def test_a_lost_interaction_answer_was_given_and_the_retry_meets_40060(
    fake: FakeDiscord, bot: PokerBot, raw: Raw, world: World
) -> None:
    fake.lose_answers(CALLBACK)
    handle = await fake.slash(world.alice, poker(world), "ping")
    reply = await handle.response()
    assert reply.content == "pong"  # the first attempt took effect
    # discord.py retried the 502 a second later and met Discord's refusal.
    await fake.wait_for(
        lambda: len([r for r in fake.requests if r.path.endswith("/callback")]) >= 2,
        timeout=10, what="the retried callback",
    )
    statuses = [r.status for r in fake.requests if r.path.endswith("/callback")]
    assert statuses == [502, 400], statuses
    # Its shape, as Discord sends it.
    again = await raw("POST", f"/interactions/{handle.id}/{handle.token}/callback",
                      {"type": 4, "data": {"content": "again"}})
    assert (again.status, again.body) == (
        400, {"message": "Interaction has already been acknowledged.",
              "code": ALREADY_ACKNOWLEDGED})


# ---------------------------------------------------------------------- resets and delays


async def test_a_reset_cuts_the_answer_in_the_middle_of_its_body(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    channel = poker(world)
    fake.reset_connections(CHANNEL_MESSAGES, method="POST")
    with pytest.raises(aiohttp.ClientPayloadError, match="not completed"):
        await raw.post(channel, {"content": "kept"})
    assert [m.content for m in fake.messages_in(channel)] == ["kept"]
    fake.reset_connections(CHANNEL_MESSAGES, method="POST", applied=False)
    with pytest.raises(aiohttp.ClientOSError) as reset:
        await raw.post(channel, {"content": "never"})
    assert reset.value.errno == 104  # connection reset by peer
    assert [m.content for m in fake.messages_in(channel)] == ["kept"]
    assert [(f.kind, f.status) for f in fake.faults] == [("reset", 200), ("reset", 0)]
    assert (await raw.post(channel, {"content": "fine"})).status == 200


async def test_a_delay_holds_requests_and_the_deadline_counts_from_their_arrival(
    fake: FakeDiscord, bot: PokerBot, raw: Raw, world: World
) -> None:
    fake.delay(CHANNEL_MESSAGES, method="POST", by=(1.0, 1.2), count=1)
    started = time.monotonic()
    assert (await raw.post(poker(world), {"content": "slow"})).status == 200
    assert time.monotonic() - started >= 1.0
    (served,) = fake.faults
    assert served.kind == "delay" and 1.0 <= float(served.detail.rstrip("s")) <= 1.2
    # The bot answered in time; Discord was slow to take it: accepted.
    fake.delay(CALLBACK, by=(1.5, 1.5))
    handle = await fake.slash(world.alice, poker(world), "ping", age=2.0)
    reply = await handle.response(timeout=10)
    assert reply.content == "pong" and handle.age() > 3.0


# ---------------------------------------------------------------------- an outage


async def test_an_outage_refuses_connections_and_drops_the_gateway_until_it_ends(
    fake: FakeDiscord, bot: PokerBot, raw: Raw, world: World
) -> None:
    channel = poker(world)
    assert (await raw.post(channel, {"content": "before"})).status == 200  # kept alive
    port = fake.port
    await fake.go_down()
    # The connection kept alive was reset; a new one is refused.
    with pytest.raises(aiohttp.ClientOSError):
        await raw.post(channel, {"content": "during"})
    with pytest.raises(aiohttp.ClientConnectorError):
        await raw.post(channel, {"content": "during"})
    await fake.wait_for(lambda: not fake.sessions, what="the gateway to drop")
    # The bot's own REST calls fail as they would: no connection at all.
    with pytest.raises(aiohttp.ClientConnectorError):
        await bot.fetch_channel(channel.id)
    await fake.come_back()
    assert fake.port == port
    assert (await raw.post(channel, {"content": "after"})).status == 200
    await fake.wait_for_session(timeout=30)
    reply = await (await fake.slash(world.alice, channel, "ping")).response()
    assert reply.content == "pong"
    public = [m.content for m in fake.messages_in(channel) if not m.ephemeral]
    assert public == ["before", "after"]
    kinds = [f.detail for f in fake.faults if f.kind == "outage" and f.method == "*"]
    assert kinds == ["Discord went down", "Discord is back"]


async def test_an_outage_that_accepts_connections_resets_them(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    async with fake.outage(refuse=False):
        with pytest.raises(aiohttp.ClientOSError):
            await raw.post(poker(world), {"content": "during"})
    assert fake.messages_in(poker(world)) == []
    assert (await raw.post(poker(world), {"content": "after"})).status == 200


# ---------------------------------------------------------------------- the gateway


async def _connected_again(fake: FakeDiscord, bot: PokerBot, world: World) -> None:
    await fake.wait_for(lambda: fake.sessions, timeout=20, what="the gateway back")
    reply = await (await fake.slash(world.alice, poker(world), "ping")).response(timeout=10)
    assert reply.content == "pong"


@pytest.mark.parametrize(("code", "resumed"), [(1006, True), (4000, True), (4009, False)])
async def test_a_gateway_close_is_resumed_unless_the_session_timed_out(
    fake: FakeDiscord, bot: PokerBot, world: World, code: int, resumed: bool
) -> None:
    await fake.drop_gateway(code)
    await fake.wait_for(
        lambda: fake.gateway.resume_count + fake.identify_count >= 2,
        timeout=20, what="a resume or a new identify",
    )
    await _connected_again(fake, bot, world)
    assert (fake.gateway.resume_count, fake.identify_count) == ((1, 1) if resumed else (0, 2))
    (served,) = fake.faults
    assert (served.kind, served.detail) == ("gateway", f"close {code}")


@pytest.mark.parametrize(
    ("op", "resumed"), [("reconnect", True), ("invalid true", True), ("invalid false", False)]
)
async def test_reconnect_and_invalid_session(
    fake: FakeDiscord, bot: PokerBot, world: World, op: str, resumed: bool
) -> None:
    if op == "reconnect":
        await fake.send_reconnect()
    else:
        await fake.invalidate_session(resumable=op == "invalid true")
    await fake.wait_for(
        lambda: fake.gateway.resume_count + fake.identify_count >= 2,
        timeout=20, what="a resume or a new identify",
    )
    await _connected_again(fake, bot, world)
    assert (fake.gateway.resume_count, fake.identify_count) == ((1, 1) if resumed else (0, 2))


async def test_a_resume_replays_what_was_dispatched_while_the_client_was_away(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    await fake.drop_gateway(1006)
    await fake.wait_for(lambda: not fake.sessions, what="the connection to drop")
    # Pushed while nobody is connected: kept in the session, replayed on the resume.
    handle = await fake.slash(world.alice, poker(world), "ping")
    assert not fake.sessions
    reply = await handle.response(timeout=10)
    assert reply.content == "pong"
    assert (fake.gateway.resume_count, fake.identify_count) == (1, 1)


async def test_a_zombie_connection_is_noticed_and_resumed(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    fake.gateway.heartbeat_interval = 0.5
    async with running_bot(fake, tmp_path, dynamic_items=[TableButton],
                           heartbeat_timeout=2.0) as bot:
        zombie = fake.sessions[0]
        fake.zombie_gateway()
        handle = await fake.slash(world.alice, poker(world), "ping")
        # Nothing reaches the bot until it gives up on the silent connection and resumes.
        await asyncio.sleep(0.5)
        assert handle.callback is None
        reply = await handle.response(timeout=15)
        assert reply.content == "pong"
        assert zombie.ws.closed and fake.sessions and fake.sessions[0] is not zombie
        # Resumed, not identified again (a busy machine may add a spurious resume of its own).
        assert fake.gateway.resume_count >= 1 and fake.identify_count == 1
        assert bot.is_ready()


# ---------------------------------------------------------------------- Discord's own rules


async def test_an_edit_of_a_message_older_than_an_hour_is_refused_30046(
    fake: FakeDiscord, bot: PokerBot, raw: Raw, world: World
) -> None:
    fake.set_rate_limits(channel_rate=None)
    channel = poker(world)
    old = (await raw.post(channel, {"content": "old"})).body["id"]
    fake.advance_clock(OLD_MESSAGE_AGE - 60)
    assert (await raw.edit(channel, old, {"content": "still fine"})).status == 200
    fake.advance_clock(61)
    refused = await raw.edit(channel, old, {"content": "too late"})
    assert (refused.status, refused.code) == (429, OLD_MESSAGE_EDITS)
    # No rate-limit answer to wait on: discord.py gives up at once.
    assert "Via" not in refused.headers and "retry_after" not in refused.body
    assert fake.message(int(old)).content == "still fine"
    new = (await raw.post(channel, {"content": "new"})).body["id"]
    assert (await raw.edit(channel, new, {"content": "new, edited"})).status == 200
    partial = bot.get_partial_messageable(channel.id).get_partial_message(int(old))
    with pytest.raises(discord.HTTPException) as raised:
        await partial.edit(content="through discord.py")
    assert (raised.value.status, raised.value.code) == (429, OLD_MESSAGE_EDITS)
    assert [f.kind for f in fake.faults] == ["old_edit", "old_edit"]
    assert fake.rate_limited == []  # not one of the rate limits the bot paces itself by


async def test_a_create_with_an_enforced_nonce_returns_the_first_message(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    channel = poker(world)
    first = await raw.post(channel, {"content": "table", "nonce": "t1", "enforce_nonce": True})
    again = await raw.post(channel, {"content": "table", "nonce": "t1", "enforce_nonce": True})
    assert again.status == 200 and again.body["id"] == first.body["id"]
    assert first.body["nonce"] == "t1"
    assert [m.content for m in fake.messages_in(channel)] == ["table"]
    assert [m.id for m in fake.nonce_replays] == [int(first.body["id"])]
    # Without enforce_nonce a nonce is only echoed; another nonce is another message.
    await raw.post(channel, {"content": "table", "nonce": "t1"})
    await raw.post(channel, {"content": "table", "nonce": "t2", "enforce_nonce": True})
    assert len(fake.messages_in(channel)) == 3
    # In another channel the same nonce is another message; past the window too.
    await raw.post(world.guild.channel("lobby"),
                   {"content": "table", "nonce": "t1", "enforce_nonce": True})
    fake.advance_clock(NONCE_WINDOW + 1)
    late = await raw.post(channel, {"content": "table", "nonce": "t1", "enforce_nonce": True})
    assert late.body["id"] != first.body["id"] and len(fake.messages_in(channel)) == 4


async def test_a_lost_create_retried_with_its_nonce_leaves_one_message(
    fake: FakeDiscord, raw: Raw, world: World
) -> None:
    channel = poker(world)
    fake.lose_answers(CHANNEL_MESSAGES, method="POST")
    body = {"content": "table", "nonce": "hand-3", "enforce_nonce": True}
    assert (await raw.post(channel, body)).status == 502
    retried = await raw.post(channel, body)
    assert retried.status == 200 and [m.content for m in fake.messages_in(channel)] == ["table"]
