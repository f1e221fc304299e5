"""The fake Discord refuses what real Discord refuses, with Discord's status and error code.

Most tests talk to the fake directly over HTTP with the bot's token (what discord.py would send,
without discord.py's own checks in the way); a few run the real bot to show the client reacting
as it does to Discord. Sizes are built to sit exactly on a limit, then one character past it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from multidict import CIMultiDictProxy

from bot.client import PokerBot
from tests.e2e.harness import World, running_bot
from tests.e2e.probe_cog import TableButton
from tests.fakediscord import (
    DISCORD_CHANNEL_RATE,
    DISCORD_GLOBAL_RATE,
    FakeChannel,
    FakeDiscord,
    FakeUser,
    InteractionHandle,
    SchemaViolation,
)

pytestmark = pytest.mark.timeout(60)

INVALID_FORM_BODY = 50035


@dataclass
class Answer:
    status: int
    body: Any
    headers: CIMultiDictProxy[str]

    @property
    def code(self) -> int | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


class Api:
    """Raw requests to the fake, authenticated as the bot unless told otherwise.

    These bodies are the tests' own, many of them one past a limit on purpose: the violations
    of Discord's OpenAPI spec they cause are taken into ``violations`` (for a test to look at)
    instead of failing the test as the bot's would.
    """

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session
        self.violations: list[SchemaViolation] = []

    async def __call__(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        files: Mapping[str, bytes] | None = None,
        query: str = "",
        bot_token: bool = True,
    ) -> Answer:
        headers = {"Authorization": f"Bot {self.fake.token}"} if bot_token else {}
        url = f"{self.fake.api_base}{path}{query}"
        data: Any = None
        if files is not None:
            form = aiohttp.FormData(quote_fields=False)
            form.add_field("payload_json", json.dumps(body), content_type="application/json")
            for index, (name, content) in enumerate(files.items()):
                form.add_field(f"files[{index}]", content, filename=name)
            data = form
        elif body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        async with self.session.request(method, url, data=data, headers=headers) as response:
            raw = await response.read()
            parsed = json.loads(raw) if raw else None
        self.violations.extend(self.fake.take_schema_violations(method, path))
        return Answer(response.status, parsed, response.headers)

    async def post(self, channel: FakeChannel | int, body: Any, **kwargs: Any) -> Answer:
        channel_id = channel.id if isinstance(channel, FakeChannel) else channel
        return await self("POST", f"/channels/{channel_id}/messages", body, **kwargs)

    async def put_commands(self, commands: list[dict[str, Any]]) -> Answer:
        return await self("PUT", f"/applications/{self.fake.application_id}/commands", commands)


@pytest.fixture
async def api(fake: FakeDiscord) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as session:
        yield Api(fake, session)


def assert_refused(answer: Answer, status: int = 400, code: int = INVALID_FORM_BODY) -> None:
    assert (answer.status, answer.code) == (status, code), answer.body


# ---------------------------------------------------------------------- messages and embeds


async def test_content_over_2000_characters_is_refused(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")
    assert (await api.post(poker, {"content": "x" * 2000})).status == 200
    assert_refused(await api.post(poker, {"content": "x" * 2001}))
    assert [len(m.content) for m in fake.messages_in(poker)] == [2000]


def _embed(**fields: Any) -> dict[str, Any]:
    return {"type": "rich", **fields}


def _field(name: str = "n", value: str = "v") -> dict[str, Any]:
    return {"name": name, "value": value, "inline": False}


# (what, embeds exactly at the limit, embeds one past it)
EMBED_CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]] = [
    ("title", [_embed(title="t" * 256)], [_embed(title="t" * 257)]),
    ("description", [_embed(description="d" * 4096)], [_embed(description="d" * 4097)]),
    ("fields", [_embed(fields=[_field()] * 25)], [_embed(fields=[_field()] * 26)]),
    (
        "field name",
        [_embed(fields=[_field(name="n" * 256)])],
        [_embed(fields=[_field(name="n" * 257)])],
    ),
    (
        "field value",
        [_embed(fields=[_field(value="v" * 1024)])],
        [_embed(fields=[_field(value="v" * 1025)])],
    ),
    (
        "footer text",
        [_embed(footer={"text": "f" * 2048})],
        [_embed(footer={"text": "f" * 2049})],
    ),
    (
        "author name",
        [_embed(author={"name": "a" * 256})],
        [_embed(author={"name": "a" * 257})],
    ),
    (
        "6000 across the message's embeds",
        # 4096 + 1904 = 6000, then 4096 + 256 + 1024 + 625 = 6001 spread over the kinds.
        [_embed(description="d" * 4096), _embed(description="d" * 1904)],
        [
            _embed(description="d" * 4096),
            _embed(title="t" * 256, fields=[_field("n", "v" * 1023)]),
            _embed(footer={"text": "f" * 400}, author={"name": "a" * 225}),
        ],
    ),
    ("embeds", [_embed(title="t")] * 10, [_embed(title="t")] * 11),
]


@pytest.mark.parametrize(
    ("ok", "too_much"), [(ok, bad) for _, ok, bad in EMBED_CASES], ids=[c[0] for c in EMBED_CASES]
)
async def test_embed_limits(
    fake: FakeDiscord,
    api: Api,
    world: World,
    ok: list[dict[str, Any]],
    too_much: list[dict[str, Any]],
) -> None:
    poker = world.guild.channel("poker")
    posted = await api.post(poker, {"embeds": ok})
    assert posted.status == 200, posted.body
    assert_refused(await api.post(poker, {"embeds": too_much}))
    # An edit is held to the same limits, and a refused one leaves the message as it was.
    message_id = posted.body["id"]
    edit = await api("PATCH", f"/channels/{poker.id}/messages/{message_id}", {"embeds": too_much})
    assert_refused(edit)
    assert list(fake.message(int(message_id)).embeds) == ok
    assert len(fake.messages_in(poker)) == 1


# ---------------------------------------------------------------------- attachments


async def test_alt_text_over_1024_characters_is_refused(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")

    def body(alt: str) -> dict[str, Any]:
        return {"content": "", "attachments": [{"id": 0, "filename": "a.png", "description": alt}]}

    fine = await api.post(poker, body("a" * 1024), files={"a.png": b"png"})
    assert fine.status == 200, fine.body
    assert fake.message(int(fine.body["id"])).attachment("a.png").description == "a" * 1024
    assert_refused(await api.post(poker, body("a" * 1025), files={"a.png": b"png"}))
    assert len(fake.messages_in(poker)) == 1


async def test_more_than_10_files_are_refused(fake: FakeDiscord, api: Api, world: World) -> None:
    poker = world.guild.channel("poker")
    ten = {f"f{i}.txt": b"x" for i in range(10)}
    fine = await api.post(poker, {"content": "ten"}, files=ten)
    assert fine.status == 200 and len(fine.body["attachments"]) == 10
    eleven = {f"f{i}.txt": b"x" for i in range(11)}
    assert_refused(await api.post(poker, {"content": "eleven"}, files=eleven))
    assert [m.content for m in fake.messages_in(poker)] == ["ten"]


# ---------------------------------------------------------------------- command sync


def command(name: str = "cmd", **fields: Any) -> dict[str, Any]:
    return {"name": name, "type": 1, "description": "A command", **fields}


def option(name: str = "opt", **fields: Any) -> dict[str, Any]:
    return {"name": name, "type": 3, "description": "An option", "required": False, **fields}


def choice(name: str, value: Any = "v", **fields: Any) -> dict[str, Any]:
    return {"name": name, "value": value, **fields}


BAD_COMMANDS: dict[str, dict[str, Any]] = {
    "localized name with a capital": command(name_localizations={"de": "Befehl"}),
    "localized name of 33 characters": command(name_localizations={"fr": "n" * 33}),
    "localized name with a space": command(name_localizations={"fr": "deux mots"}),
    "empty localized name": command(name_localizations={"fr": ""}),
    "localized description of 101 characters": command(
        description_localizations={"zh-TW": "說" * 101}
    ),
    "empty localized description": command(description_localizations={"zh-CN": ""}),
    "unknown locale": command(description_localizations={"xx-YY": "Hello"}),
    "option's localized name": command(options=[option(name_localizations={"ja": "Opt"})]),
    "option's localized description": command(
        options=[option(description_localizations={"ko": "d" * 101})]
    ),
    "subcommand's localized description": command(
        options=[{**option("sub"), "type": 1, "description_localizations": {"it": ""}}]
    ),
    "choice name of 101 characters": command(options=[option(choices=[choice("c" * 101)])]),
    "empty choice name": command(options=[option(choices=[choice("")])]),
    "choice's localized name of 101 characters": command(
        options=[option(choices=[choice("ok", name_localizations={"de": "c" * 101})])]
    ),
    "choice's empty localized name": command(
        options=[option(choices=[choice("ok", name_localizations={"de": ""})])]
    ),
    "choice value of 101 characters": command(options=[option(choices=[choice("ok", "v" * 101)])]),
}


async def test_good_localizations_and_choices_are_accepted(fake: FakeDiscord, api: Api) -> None:
    good = command(
        name_localizations={"zh-TW": "指令", "de": "befehl"},
        description_localizations={"zh-TW": "說" * 100, "de": "d" * 100},
        options=[
            option(
                name_localizations={"zh-CN": "选项"},
                description_localizations={"zh-CN": "d" * 100},
                choices=[choice("c" * 100, "v" * 100, name_localizations={"de": "c" * 100})],
            )
        ],
    )
    answer = await api.put_commands([good])
    assert answer.status == 200, answer.body
    assert fake.command("cmd") is not None


@pytest.mark.parametrize("bad", list(BAD_COMMANDS.values()), ids=list(BAD_COMMANDS))
async def test_a_bad_localization_or_choice_refuses_the_whole_sync(
    fake: FakeDiscord, api: Api, bad: dict[str, Any]
) -> None:
    before = [command("keep")]
    assert (await api.put_commands(before)).status == 200
    assert_refused(await api.put_commands([command("fine"), {**bad, "name": "bad"}]))
    # The upload is refused as a whole: the previous commands stay, untouched.
    listed = await api("GET", f"/applications/{fake.application_id}/commands")
    assert [c["name"] for c in listed.body] == ["keep"]
    assert fake.command("keep") is not None and fake.command("fine") is None
    assert len(fake.sync_calls) == 1


async def test_at_most_100_global_chat_input_commands(fake: FakeDiscord, api: Api) -> None:
    hundred = [command(f"c{i:03d}") for i in range(100)]
    assert (await api.put_commands(hundred)).status == 200
    assert_refused(await api.put_commands([*hundred, command("c100")]))
    assert len(fake.commands[None]) == 100
    # Context-menu commands do not count against the 100 chat-input ones.
    user_command = {"name": "Look at", "type": 2, "description": ""}
    assert (await api.put_commands([*hundred, user_command])).status == 200


def big_command(
    description: str = "d" * 97,
    localized: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """A command of exactly 4,000 characters in its default locale with the defaults:
    name 3 + description 97, 20 options of name 3 + description 97 (2,000), and on the first
    option 19 choices of name 97 + value 3 (1,900). ``localized`` maps a field ("command" or
    an option's name) to its description localizations."""
    localized = localized or {}
    options = []
    for index in range(20):
        name = f"o{index:02d}"
        entry = option(name, description="x" * 97)
        if name in localized:
            entry["description_localizations"] = dict(localized[name])
        options.append(entry)
    options[0]["choices"] = [choice(f"{i:02d}" + "c" * 95, f"v{i:02d}") for i in range(19)]
    result = command("big", description=description, options=options)
    if "command" in localized:
        result["description_localizations"] = dict(localized["command"])
    return result


def size_in(command_payload: Mapping[str, Any], locale: str | None) -> int:
    """A command's characters in one locale: each name, description and choice value, in that
    locale's words where it has them (the way the project's DESIGN.md states the limit)."""

    def text(node: Mapping[str, Any], key: str) -> str:
        localized = node.get(f"{key}_localizations") or {}
        return str(localized.get(locale, node.get(key, ""))) if locale else str(node.get(key, ""))

    total = len(text(command_payload, "name")) + len(text(command_payload, "description"))
    for item in command_payload.get("choices") or []:
        total += len(text(item, "name")) + len(str(item["value"]))
    for child in command_payload.get("options") or []:
        total += size_in(child, locale)
    return total


async def test_4000_characters_per_command(fake: FakeDiscord, api: Api) -> None:
    exactly = big_command()
    assert size_in(exactly, None) == 4000
    answer = await api.put_commands([exactly])
    assert answer.status == 200, answer.body

    over = big_command(description="d" * 98)
    assert size_in(over, None) == 4001
    assert_refused(await api.put_commands([over]))
    assert fake.command("big") == answer.body[0]


async def test_4000_characters_in_each_locale(fake: FakeDiscord, api: Api) -> None:
    # Within 4,000 in English, 4,063 in Traditional Chinese: refused.
    long_in_chinese = big_command(
        description="d" * 87,
        localized={
            "command": {"zh-TW": "說" * 100},
            **{f"o{i:02d}": {"zh-TW": "說" * 100} for i in range(20)},
        },
    )
    assert size_in(long_in_chinese, None) == 3990
    assert size_in(long_in_chinese, "zh-TW") == 4063
    assert_refused(await api.put_commands([long_in_chinese]))
    assert fake.commands == {}


async def test_4000_characters_count_the_longest_localization_of_each_field(
    fake: FakeDiscord, api: Api
) -> None:
    """Discord's documentation counts, for each field, its longest localization (the default
    included): a command within 4,000 in every single locale can still be over."""
    mixed = big_command(
        description="d" * 90,
        localized={
            "command": {"zh-TW": "說" * 100, "zh-CN": "说" * 85},
            "o00": {"zh-TW": "說" * 90, "zh-CN": "说" * 100},
        },
    )
    assert [size_in(mixed, locale) for locale in (None, "zh-TW", "zh-CN")] == [3993, 3996, 3991]
    # Longest of each: 100 (command) + 100 (o00) instead of 90 + 97, so 4,006.
    assert_refused(await api.put_commands([mixed]))

    within = big_command(
        description="d" * 90,
        localized={"command": {"zh-TW": "說" * 97}, "o00": {"zh-CN": "说" * 97}},
    )
    assert (await api.put_commands([within])).status == 200


# ---------------------------------------------------------------------- rate limits


def assert_429(answer: Answer, *, is_global: bool) -> None:
    assert answer.status == 429, answer.body
    assert answer.body["global"] is is_global
    assert answer.body["retry_after"] > 0
    assert answer.headers["Via"] == "1.1 google"
    assert answer.headers["X-RateLimit-Scope"] == ("global" if is_global else "user")
    if is_global:
        assert answer.headers["X-RateLimit-Global"] == "true"
    else:
        assert "X-RateLimit-Global" not in answer.headers
        assert answer.headers["X-RateLimit-Remaining"] == "0"
        assert float(answer.headers["X-RateLimit-Reset-After"]) == answer.body["retry_after"]


async def test_defaults_are_discords_limits(fake: FakeDiscord) -> None:
    assert fake.channel_rate == DISCORD_CHANNEL_RATE == (5, 5.0)
    assert fake.global_rate == DISCORD_GLOBAL_RATE == (50, 1.0)
    assert fake.interaction_deadline == 3.0
    assert fake.interaction_token_lifetime == 15 * 60


async def test_messages_in_one_channel_share_5_per_5_seconds(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker, lobby = world.guild.channel("poker"), world.guild.channel("lobby")
    first = await api.post(poker, {"content": "1"})
    second = await api.post(poker, {"content": "2"})
    message_id = second.body["id"]
    # Create, edit and delete count against the same bucket.
    edited = await api("PATCH", f"/channels/{poker.id}/messages/{message_id}", {"content": "2b"})
    third = await api.post(poker, {"content": "3"})
    deleted = await api("DELETE", f"/channels/{poker.id}/messages/{third.body['id']}")
    answers = [first, second, edited, third, deleted]
    assert [a.status for a in answers] == [200, 200, 200, 200, 204]
    # Every answer tells the client where it stands, as Discord's do.
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["4", "3", "2", "1", "0"]
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"5"}
    assert len({a.headers["X-RateLimit-Bucket"] for a in answers}) == 1
    assert all(0 < float(a.headers["X-RateLimit-Reset-After"]) <= 5 for a in answers)

    refused = await api.post(poker, {"content": "6"})
    assert_429(refused, is_global=False)
    assert refused.body["retry_after"] <= 5
    assert refused.headers["X-RateLimit-Bucket"] == first.headers["X-RateLimit-Bucket"]
    refused_edit = await api(
        "PATCH", f"/channels/{poker.id}/messages/{message_id}", {"content": "2c"}
    )
    assert_429(refused_edit, is_global=False)
    assert [m.content for m in fake.messages_in(poker)] == ["1", "2b"]
    assert [(r.method, r.limit) for r in fake.rate_limited] == [("POST", "user"), ("PATCH", "user")]

    # Another channel has its own bucket; reading is not limited.
    assert (await api.post(lobby, {"content": "hi"})).status == 200
    assert (await api("GET", f"/channels/{poker.id}/messages")).status == 200


async def test_a_dm_channel_is_a_channel_too(fake: FakeDiscord, api: Api, world: World) -> None:
    opened = await api("POST", "/users/@me/channels", {"recipient_id": str(world.alice.id)})
    dm_id = int(opened.body["id"])
    statuses = [(await api.post(dm_id, {"content": str(i)})).status for i in range(6)]
    assert statuses == [200] * 5 + [429]
    assert len(fake.dm_messages(world.alice)) == 5
    # Closed DMs still spend the bucket: Discord counts the request before refusing it.
    carol_dm = await api("POST", "/users/@me/channels", {"recipient_id": str(world.carol.id)})
    closed = [(await api.post(int(carol_dm.body["id"]), {"content": "x"})) for _ in range(6)]
    assert [a.status for a in closed] == [403] * 5 + [429]
    assert closed[0].code == 50007


async def test_the_bucket_refills_when_its_window_ends(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")
    fake.set_rate_limits(channel_rate=(2, 1.0))
    assert fake.channel_rate == (2, 1.0) and fake.global_rate == DISCORD_GLOBAL_RATE
    assert [(await api.post(poker, {"content": "x"})).status for _ in range(2)] == [200, 200]
    refused = await api.post(poker, {"content": "x"})
    assert_429(refused, is_global=False)
    assert refused.body["retry_after"] <= 1.0
    await asyncio.sleep(refused.body["retry_after"] + 0.02)
    again = await api.post(poker, {"content": "x"})
    assert again.status == 200 and again.headers["X-RateLimit-Remaining"] == "1"


async def test_a_limit_can_be_turned_off(world: World) -> None:
    async with (
        FakeDiscord(guilds=[world.guild], users=world.users, channel_rate=None) as fake,
        aiohttp.ClientSession() as session,
    ):
        api = Api(fake, session)
        poker = world.guild.channel("poker")
        answers = [await api.post(poker, {"content": str(i)}) for i in range(8)]
        assert {a.status for a in answers} == {200}
        assert "X-RateLimit-Remaining" not in answers[0].headers
        assert not fake.rate_limited


async def test_global_limit_counts_bot_token_routes_only(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    fake.set_rate_limits(global_rate=(4, 2.0))
    poker = world.guild.channel("poker")
    spent = [
        await api("GET", "/users/@me"),
        await api("GET", f"/guilds/{world.guild.id}"),
        await api.post(poker, {"content": "counted"}),
        await api("GET", "/gateway/bot"),
    ]
    assert [a.status for a in spent] == [200] * 4
    for refused in (await api("GET", "/users/@me"), await api.post(poker, {"content": "no"})):
        assert_429(refused, is_global=True)
        assert refused.body["retry_after"] <= 2.0
    # Interaction-token routes are outside the global limit: these reach their handlers.
    callback = await api(
        "POST", "/interactions/1/nope/callback", {"type": 4, "data": {}}, bot_token=False
    )
    assert_refused(callback, 404, 10062)
    webhook = await api(
        "POST", f"/webhooks/{fake.application_id}/nope", {"content": "x"}, bot_token=False
    )
    assert_refused(webhook, 404, 10015)
    assert [m.content for m in fake.messages_in(poker)] == ["counted"]
    assert [r.limit for r in fake.rate_limited] == ["global", "global"]


async def test_every_request_on_the_bots_token_counts_whatever_its_route(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    """``GET /gateway`` needs no token, and an unknown route is Discord's business: sent with
    the bot's token, both count against its global limit, as Discord counts them."""
    fake.set_rate_limits(global_rate=(3, 2.0))
    assert (await api("GET", "/gateway")).status == 200
    assert (await api("GET", "/gateway", bot_token=False)).status == 200  # not the bot's
    assert (await api("GET", "/no/such/route")).status == 404
    assert (await api("GET", "/users/@me")).status == 200
    assert_429(await api("GET", "/gateway"), is_global=True)
    count = fake.door()
    assert (count.counted, count.free, count.refused) == (4, 1, 1)
    assert count.by_route == {
        "GET /gateway": 2, "GET /no/such/route": 1, "GET /users/@me": 1
    }
    assert [(r.method, r.path) for r in fake.take_unhandled()] == [("GET", "/no/such/route")]


async def test_the_door_counts_the_busiest_second_by_route(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")
    fake.set_rate_limits(channel_rate=None)
    for n in range(6):
        await api.post(poker, {"content": str(n)})
    # An answer on an interaction's token (an unknown one here) is outside the count.
    await api("POST", "/interactions/1/nope/callback", {"type": 4, "data": {}}, bot_token=False)
    count = fake.door()
    assert count.counted == count.busiest == 6  # all within a second
    assert count.free == 1
    assert count.by_route == {"POST /channels/{id}/messages": 6}
    assert count.rate >= 6
    later = len(fake.requests)
    await asyncio.sleep(1.0)
    await api.post(poker, {"content": "later"})
    assert fake.door().busiest == 6 and fake.door(since=later).counted == 1


async def test_interaction_answers_pass_while_the_bot_is_over_its_global_budget(
    fake: FakeDiscord, api: Api, bot: PokerBot, world: World
) -> None:
    fake.set_rate_limits(global_rate=(3, 5.0))
    for _ in range(3):
        assert (await api("GET", "/users/@me")).status == 200
    assert (await api("GET", "/users/@me")).status == 429
    reply = await (await fake.slash(world.alice, world.guild.channel("poker"), "ping")).response()
    assert reply.content == "pong"


async def test_discord_py_paces_itself_from_the_headers(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """The fake answers like Discord, so the real client learns the bucket and waits for it
    instead of collecting 429s: three tables posted at once in a channel allowing two per
    0.5 s all arrive, the third after the window."""
    fake.set_rate_limits(channel_rate=(2, 0.5))
    poker = world.guild.channel("poker")
    async with running_bot(fake, tmp_path, dynamic_items=[TableButton]):
        handles = [
            await fake.slash(
                world.alice, poker, "probe", subcommand="table", options={"table_id": n}
            )
            for n in (1, 2, 3)
        ]
        for handle in handles:
            assert (await handle.response()).content == "table posted"
        await fake.wait_for(
            lambda: len([m for m in fake.messages_in(poker) if not m.ephemeral]) == 3,
            what="three tables",
        )
    posts = [r for r in fake.requests if r.method == "POST" and r.path.endswith("/messages")]
    assert [r.status for r in posts] == [200, 200, 200]
    assert posts[2].at - posts[0].at >= 0.45
    assert not fake.rate_limited


# ---------------------------------------------------------------------- allowed mentions


async def test_pings_follow_allowed_mentions(fake: FakeDiscord, api: Api, world: World) -> None:
    fake.set_rate_limits(channel_rate=None)  # many posts in one channel, not a pacing test
    poker = world.guild.channel("poker")
    alice, bob, carol = world.alice, world.bob, world.carol
    text = f"{alice.mention} <@!{bob.id}> and carol"

    async def pinged(body: dict[str, Any]) -> frozenset[int]:
        answer = await api.post(poker, {"content": text, **body})
        assert answer.status == 200, answer.body
        message = fake.message(int(answer.body["id"]))
        assert message.allowed_mentions == body.get("allowed_mentions")
        return message.pinged_user_ids

    assert await pinged({}) == {alice.id, bob.id}
    assert await pinged({"allowed_mentions": {"parse": []}}) == set()
    assert await pinged({"allowed_mentions": {"parse": ["users"]}}) == {alice.id, bob.id}
    assert await pinged({"allowed_mentions": {"parse": ["roles"]}}) == set()
    # Listed ids ping only if the text mentions them (carol is named, not mentioned).
    listed = {"allowed_mentions": {"users": [str(bob.id), str(carol.id)]}}
    assert await pinged(listed) == {bob.id}
    # An empty list does not clash with parse; a filled one does.
    assert await pinged({"allowed_mentions": {"parse": ["users"], "users": []}}) == {
        alice.id,
        bob.id,
    }
    clash = {"content": text, "allowed_mentions": {"parse": ["users"], "users": [str(bob.id)]}}
    assert_refused(await api.post(poker, clash))
    too_many = {"content": text, "allowed_mentions": {"users": [str(n) for n in range(101)]}}
    assert_refused(await api.post(poker, too_many))
    unknown = {"content": text, "allowed_mentions": {"parse": ["members"]}}
    assert_refused(await api.post(poker, unknown))


async def test_everyone_and_roles_follow_allowed_mentions(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")
    text = "@everyone <@&42> look"
    default = await api.post(poker, {"content": text})
    assert default.body["mention_everyone"] is True and default.body["mention_roles"] == ["42"]
    only_everyone = await api.post(
        poker, {"content": text, "allowed_mentions": {"parse": ["everyone"]}}
    )
    message = fake.message(int(only_everyone.body["id"]))
    assert message.pings_everyone and not message.pinged_role_ids


async def test_edits_are_parsed_again_but_never_notify(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    fake.set_rate_limits(channel_rate=None)
    poker = world.guild.channel("poker")
    alice, bob = world.alice, world.bob
    created = await api.post(
        poker, {"content": alice.mention, "allowed_mentions": {"users": [str(alice.id)]}}
    )
    path = f"/channels/{poker.id}/messages/{created.body['id']}"
    assert fake.message(int(created.body["id"])).pinged_user_ids == {alice.id}

    # Without allowed_mentions the new content is parsed with the defaults (not the create's).
    await api("PATCH", path, {"content": f"{alice.mention} {bob.mention}"})
    edited = fake.message(int(created.body["id"]))
    assert edited.allowed_mentions is None
    assert edited.mentioned_user_ids == {alice.id, bob.id}
    # ... but an edit highlights, it does not notify.
    assert edited.pinged_user_ids == set()

    await api("PATCH", path, {"content": bob.mention, "allowed_mentions": {"parse": []}})
    assert fake.message(int(created.body["id"])).mentioned_user_ids == set()
    # An edit that leaves the content alone leaves its mentions alone.
    await api("PATCH", path, {"embeds": [_embed(title="t")]})
    last = fake.message(int(created.body["id"]))
    assert last.allowed_mentions == {"parse": []} and last.mentioned_user_ids == set()

    silent = await api.post(poker, {"content": alice.mention, "flags": 1 << 12})
    message = fake.message(int(silent.body["id"]))
    assert message.mentioned_user_ids == {alice.id} and message.pinged_user_ids == set()


async def _answered_ping(
    fake: FakeDiscord, user: FakeUser, channel: FakeChannel, age: float = 0.0
) -> InteractionHandle:
    """A ``/ping`` the bot answered (or, ``age`` past the deadline, one it dropped)."""
    handle = await fake.slash(user, channel, "ping", age=age)
    if age == 0.0:
        await handle.response()
    return handle


async def test_webhook_messages_record_allowed_mentions(
    fake: FakeDiscord, api: Api, bot: PokerBot, world: World
) -> None:
    alice, bob = world.alice, world.bob
    handle = await _answered_ping(fake, alice, world.guild.channel("poker"))
    base = f"/webhooks/{fake.application_id}/{handle.token}"
    text = f"{alice.mention} {bob.mention} <@&42> @everyone"
    followup = await api("POST", base, {"content": text}, query="?wait=true", bot_token=False)
    assert followup.status == 200, followup.body
    message = fake.message(int(followup.body["id"]))
    # In interactions Discord parses only users by default.
    assert message.pinged_user_ids == {alice.id, bob.id}
    assert not message.pinged_role_ids and not message.pings_everyone
    allowed = {"users": [str(bob.id)]}
    patched = await api(
        "PATCH",
        f"{base}/messages/{message.id}",
        {"content": f"{alice.mention} {bob.mention}", "allowed_mentions": allowed},
        bot_token=False,
    )
    assert patched.status == 200, patched.body
    assert fake.message(message).allowed_mentions == allowed
    assert fake.message(message).mentioned_user_ids == {bob.id}


async def test_the_bot_sends_allowed_mentions(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    handle = await fake.slash(
        world.alice, world.guild.channel("poker"), "probe", subcommand="table"
    )
    await handle.response()
    table = await fake.wait_for_message(lambda m: m.content.startswith("table"), kinds=("create",))
    # The client's default (nobody) travels with every message that names no one to ping.
    assert table.allowed_mentions == {"parse": []}


# ---------------------------------------------------------------------- interaction deadlines


async def test_the_first_answer_must_come_within_3_seconds(
    fake: FakeDiscord, api: Api, bot: PokerBot, world: World
) -> None:
    late = await fake.slash(world.alice, world.guild.channel("poker"), "ping", age=3.1)
    answer = await api(
        "POST",
        f"/interactions/{late.id}/{late.token}/callback",
        {"type": 4, "data": {"content": "too late"}},
        bot_token=False,
    )
    assert_refused(answer, 404, 10062)
    assert late.expired and late.callback is None


async def test_interaction_tokens_expire_after_15_minutes(
    fake: FakeDiscord, api: Api, bot: PokerBot, world: World
) -> None:
    poker = world.guild.channel("poker")
    fresh = await _answered_ping(fake, world.alice, poker)
    ok = await api(
        "PATCH",
        f"/webhooks/{fake.application_id}/{fresh.token}/messages/@original",
        {"content": "edited"},
        bot_token=False,
    )
    assert ok.status == 200, ok.body

    old = await _answered_ping(fake, world.alice, poker, age=15 * 60 + 1)
    base = f"/webhooks/{fake.application_id}/{old.token}"
    for method, path in (
        ("POST", base),
        ("PATCH", f"{base}/messages/@original"),
        ("GET", f"{base}/messages/@original"),
        ("DELETE", f"{base}/messages/@original"),
    ):
        answer = await api(method, path, {"content": "x"}, bot_token=False)
        assert_refused(answer, 401, 50027)
        assert answer.body["message"] == "Invalid Webhook Token"
    assert not any(m.content == "x" for m in fake.messages.values())
    assert time.time() - old.created_at > fake.interaction_token_lifetime


# ---------------------------------------------------------------------- threads


async def test_a_thread_is_started_with_discords_checks(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")

    async def start(channel: FakeChannel | int, body: dict[str, Any]) -> Answer:
        channel_id = channel.id if isinstance(channel, FakeChannel) else channel
        return await api("POST", f"/channels/{channel_id}/threads", body)

    made = await start(poker, {"name": "Table 2", "type": 11, "auto_archive_duration": 1440})
    assert made.status == 201, made.body
    thread = fake.channels[int(made.body["id"])]
    assert thread.is_thread and thread.parent is poker
    assert fake.threads_of(poker) == [thread]
    assert made.body["parent_id"] == str(poker.id)
    assert made.body["thread_metadata"]["archived"] is False
    # The name is 1 to 100 characters; the archive time one of Discord's four.
    assert_refused(await start(poker, {"name": "", "type": 11}))
    assert_refused(await start(poker, {"name": "x" * 101, "type": 11}))
    assert_refused(await start(poker, {"name": "ok", "type": 11, "auto_archive_duration": 30}))
    # Not in a thread, not in a DM; not without the permission to create threads.
    assert_refused(await start(thread, {"name": "inner", "type": 11}), 400, 50024)
    readonly = world.guild.channel("readonly")
    assert_refused(await start(readonly, {"name": "t", "type": 11}), 403, 50013)
    assert len(fake.threads_of(poker)) == 1
    # Messages go in it as in a channel, with "Send Messages in Threads".
    assert (await api.post(thread, {"content": "hello"})).status == 200
    assert [m.content for m in fake.messages_in(thread)] == ["hello"]


async def test_an_archived_thread_reopens_unless_locked(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")
    made = await api("POST", f"/channels/{poker.id}/threads", {"name": "T", "type": 11})
    thread = fake.channels[int(made.body["id"])]
    archived = await api("PATCH", f"/channels/{thread.id}", {"archived": True})
    assert archived.status == 200 and thread.archived
    # Its creator may archive it but not lock it without Manage Threads.
    assert_refused(await api("PATCH", f"/channels/{thread.id}", {"locked": True}), 403, 50013)
    assert (await api.post(thread, {"content": "back"})).status == 200
    assert not thread.archived
    thread.archived = thread.locked = True
    assert_refused(await api.post(thread, {"content": "no"}), 400, 50083)
    # Only threads are edited this way here.
    assert_refused(await api("PATCH", f"/channels/{poker.id}", {"name": "x"}), 403, 50013)


async def test_at_most_1000_active_threads_in_a_guild(
    fake: FakeDiscord, api: Api, world: World
) -> None:
    poker = world.guild.channel("poker")
    for n in range(1000):
        world.guild.threads.append(
            FakeChannel(f"t{n}", type=11, guild_id=world.guild.id, parent=poker)
        )
    full = await api("POST", f"/channels/{poker.id}/threads", {"name": "one more", "type": 11})
    assert_refused(full, 400, 160006)
    world.guild.threads[0].archived = True
    assert (await api("POST", f"/channels/{poker.id}/threads", {"name": "now", "type": 11})
            ).status == 201


async def test_the_bot_starts_a_thread_and_hears_commands_from_it(
    fake: FakeDiscord, bot: PokerBot, world: World
) -> None:
    import discord

    poker = bot.get_channel(world.guild.channel("poker").id)
    assert isinstance(poker, discord.TextChannel)
    thread = await poker.create_thread(name="Table 1", type=discord.ChannelType.public_thread,
                                       auto_archive_duration=1440)
    fake_thread = fake.channels[thread.id]
    assert fake_thread.parent is world.guild.channel("poker")
    # The client learnt of it from the gateway too.
    await fake.wait_for(lambda: bot.get_channel(thread.id) is not None, what="THREAD_CREATE")
    await thread.send("in the thread")
    assert fake.messages_in(fake_thread)[-1].content == "in the thread"
    await thread.edit(archived=True)
    assert fake_thread.archived
