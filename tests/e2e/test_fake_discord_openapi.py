"""The fake Discord holds every request body to Discord's own OpenAPI spec.

The spec sits beside the repository (``../shared/data/discord-api-spec/openapi.json``); without
it these tests skip, except under ``CI=true``, where its absence fails them (see
``tests/fakediscord/openapi.py``).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest

from bot.client import PokerBot
from tests.e2e.harness import World, make_world
from tests.fakediscord import FakeDiscord
from tests.fakediscord.openapi import (
    SERVED,
    RequestBodies,
    adapt_schemas,
    discord_errors,
    find_spec,
    request_bodies,
    spec_path,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def bodies() -> RequestBodies:
    loaded = request_bodies()
    if loaded is None:
        pytest.skip(f"Discord's OpenAPI spec not found at {spec_path()}")
    return loaded


def problems_of(bodies: RequestBodies, method: str, path: str, body: Any) -> list[str]:
    operation = bodies.operation(method, path)
    assert operation is not None, (method, path)
    return [str(problem) for problem in bodies.problems(operation, body)]


# ---------------------------------------------------------------------- the planted payload


async def test_a_body_the_spec_refuses_is_answered_400_and_recorded(
    fake: FakeDiscord, bot: PokerBot, world: World, bodies: RequestBodies
) -> None:
    """An embed colour above 0xFFFFFF: discord.py sends it, nothing else in the fake checks
    it, Discord's spec bounds it. Refused as JSON and as the payload_json of a multipart."""
    poker = world.guild.channel("poker")
    channel = bot.get_channel(poker.id)
    assert isinstance(channel, discord.TextChannel)
    planted = discord.Embed(title="planted", colour=0x1000000)
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send(embed=planted)
    assert (refused.value.status, refused.value.code) == (400, 50035)
    # discord.py reads Discord's errors object: the field at fault is named.
    assert "In embeds.0.color: must be smaller than or equal to 16777215" in refused.value.text
    with pytest.raises(discord.HTTPException) as refused_with_file:
        await channel.send(embed=planted, file=discord.File(io.BytesIO(b"png"), "a.png"))
    assert refused_with_file.value.code == 50035

    violations = fake.take_schema_violations()
    assert [v.operation for v in violations] == ["POST /channels/{channel_id}/messages"] * 2
    for violation in violations:
        assert [(p.location, p.rule) for p in violation.problems] == [
            (("embeds", 0, "color"), "maximum")
        ]
    assert fake.messages_in(poker) == []
    # The same embed in range goes through.
    await channel.send(embed=discord.Embed(title="fine", colour=0xFFFFFF))
    assert not fake.schema_violations


async def test_a_refusal_the_bot_swallows_still_fails_the_test(tmp_path: Path) -> None:
    world = make_world()
    poker = world.guild.channel("poker")
    with pytest.raises(AssertionError, match=r"(?s)refuses request bodies.*content: must be"):
        async with FakeDiscord(guilds=[world.guild], users=world.users) as fake:
            if fake.rest.request_bodies is None:
                pytest.skip("Discord's OpenAPI spec not found")
            async with (
                aiohttp.ClientSession() as session,
                session.post(
                    f"{fake.api_base}/channels/{poker.id}/messages",
                    data=json.dumps({"content": 5}),
                    headers={
                        "Authorization": f"Bot {fake.token}",
                        "Content-Type": "application/json",
                    },
                ) as answer,
            ):
                body = await answer.json()
            # Whoever sent it ignores the answer; the fake remembers.
            assert answer.status == 400
            assert body["errors"] == {
                "content": {
                    "_errors": [{"code": "BASE_TYPE_BAD_TYPE", "message": "must be string or null"}]
                }
            }


async def test_a_route_the_fake_does_not_serve_fails_the_test() -> None:
    """A request the fake cannot route had its body checked by nobody: it fails the test at
    the fake's exit, as a refused body does."""
    world = make_world()
    with pytest.raises(AssertionError, match=r"(?s)routes the fake does not serve.*"
                                             r"PATCH /applications/1/role-connections"):
        async with (
            FakeDiscord(guilds=[world.guild], users=world.users) as fake,
            aiohttp.ClientSession() as session,
            session.patch(
                f"{fake.api_base}/applications/1/role-connections/metadata",
                json={"anything": 1},
                headers={"Authorization": f"Bot {fake.token}"},
            ) as answer,
        ):
            assert answer.status == 404


# ---------------------------------------------------------------------- the rules


def test_snowflakes_may_be_integers_as_discord_py_sends_them(bodies: RequestBodies) -> None:
    post = ("POST", "/channels/1/messages")
    fine = {"allowed_mentions": {"parse": [], "users": [80351110224678912, "80351110224678913"]}}
    assert problems_of(bodies, *post, fine) == []
    assert problems_of(bodies, *post, {"message_reference": {"message_id": 1}}) == []
    assert problems_of(bodies, *post, {"allowed_mentions": {"users": [-1]}}) == [
        "allowed_mentions.users.0: must be bigger than or equal to 0 [minimum]"
    ]
    assert problems_of(bodies, *post, {"allowed_mentions": {"users": ["12a"]}}) == [
        "allowed_mentions.users.0: must match pattern ^(0|[1-9][0-9]*)$ [pattern]"
    ]
    assert problems_of(bodies, *post, {"allowed_mentions": {"users": [1.5]}}) != []
    assert problems_of(bodies, "POST", "/users/@me/channels", {"recipient_id": 42}) == []


def test_a_union_names_the_field_at_fault(bodies: RequestBodies) -> None:
    button = {"type": 2, "style": 1, "label": "x" * 81, "custom_id": "poker:1:fold"}
    body = {"type": 4, "data": {"components": [{"type": 1, "components": [button]}]}}
    callback = ("POST", "/interactions/1/token/callback")
    assert problems_of(bodies, *callback, body) == [
        "data.components.0.components.0.label: must be shorter than or equal to 80 characters"
        " [maxLength]"
    ]
    button["label"] = "x" * 80
    assert problems_of(bodies, *callback, body) == []
    operation = bodies.operation(*callback)
    assert operation is not None
    button["style"] = 9  # not a button style (the spec's oneOf of consts, held as an enum)
    (problem,) = bodies.problems(operation, body)
    assert problem.location == ("data", "components", 0, "components", 0, "style")
    assert discord_errors([problem])["data"]["components"]["0"]["components"]["0"]["style"] == {
        "_errors": [{"code": "BASE_TYPE_CHOICES", "message": problem.message}]
    }


def test_paths_match_the_specs_templates(bodies: RequestBodies) -> None:
    def template(method: str, path: str) -> str | None:
        operation = bodies.operation(method, path)
        return None if operation is None else operation.name

    assert template("PATCH", "/webhooks/1/tok/messages/@original") == (
        "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/@original"
    )
    assert template("PATCH", "/webhooks/1/tok/messages/2") == (
        "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
    )
    assert template("post", "/webhooks/1/tok") == "POST /webhooks/{webhook_id}/{webhook_token}"
    assert template("PUT", "/applications/1/guilds/2/commands") == (
        "PUT /applications/{application_id}/guilds/{guild_id}/commands"
    )
    assert template("POST", "/users/@me/channels") == "POST /users/@me/channels"
    assert template("GET", "/channels/1/messages") is None  # no body to check
    assert template("POST", "/channels/1/messages/2/nowhere") is None
    # Every operation with a body that the fake serves is in the spec (compiled at load).
    names = {operation.name for operation in bodies.operations}
    assert {f"{method.upper()} {path}" for method, path in SERVED} <= names


def test_an_enumeration_of_consts_becomes_an_enum() -> None:
    consts = {"type": "integer", "oneOf": [{"title": "A", "const": 1}, {"const": 2}]}
    refs = {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/E"}]}
    adapted = adapt_schemas({"E": consts, "U": refs, "SnowflakeType": {"type": "string"}})
    assert adapted["E"] == {"type": "integer", "enum": [1, 2]}
    assert adapted["U"] == refs
    assert adapted["SnowflakeType"]["anyOf"][0] == {"type": "string"}


def test_the_spec_is_compiled_once_per_process(bodies: RequestBodies) -> None:
    assert request_bodies() is bodies
    compiled = len(bodies._validators)
    problems_of(bodies, "POST", "/channels/1/messages", {"content": "hi"})
    problems_of(bodies, "PATCH", "/webhooks/1/tok/messages/@original", {"content": "hi"})
    assert len(bodies._validators) == compiled  # the fake's operations are compiled at load


def test_missing_spec_skips_for_users_and_fails_in_ci(tmp_path: Path) -> None:
    root = tmp_path / "repo"  # no ../shared beside it
    assert find_spec(root, {}) is None
    assert find_spec(root, {"CI": "false"}) is None
    with pytest.warns(UserWarning, match="not validated"):
        assert request_bodies(root, {}) is None
    for ci in ("true", "TRUE"):
        with pytest.raises(pytest.fail.Exception, match="CI=true"):
            find_spec(root, {"CI": ci})
        with pytest.raises(pytest.fail.Exception, match="CI=true"):
            request_bodies(root, {"CI": ci})
    spec = tmp_path / "shared" / "data" / "discord-api-spec" / "openapi.json"
    spec.parent.mkdir(parents=True)
    spec.write_text("{}", encoding="utf-8")
    assert find_spec(root, {"CI": "true"}) == spec
