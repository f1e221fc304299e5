"""Settings, proxies, i18n, the lateness clock and the command-schema hash, without a gateway."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import discord
import discord.gateway
import discord.http
import pytest
import yarl
from discord import app_commands

from bot.client import CommandSyncState, command_schema_hash
from bot.errors import BotError, describe_error
from bot.guards import InteractionClock
from bot.i18n import resolve_locale, t
from bot.settings import Settings, SettingsError, apply_proxies
from engine.errors import EngineError
from tests.fakediscord import new_snowflake


@pytest.fixture(autouse=True)
def _restore_proxies() -> Iterator[None]:
    yield
    apply_proxies(Settings())


def test_settings_read_env_file_and_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        "DISCORD_TOKEN=from-file\nDEV_GUILD_ID=123\nLOG_LEVEL=debug\nDISCORD_API_BASE=\n",
        encoding="utf-8",
    )
    settings = Settings.from_env({"DISCORD_TOKEN": "from-env"}, dotenv_path=env_file)
    assert settings.discord_token == "from-env"
    assert settings.dev_guild_id == 123
    assert settings.log_level == "DEBUG"
    assert settings.discord_api_base is None
    assert settings.database_url == "sqlite:///./data/poker.db"
    assert settings.sqlite_path == Path("data/poker.db")
    assert settings.data_dir == Path("data")


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({}, "DISCORD_TOKEN"),
        ({"DISCORD_TOKEN": "x", "DEV_GUILD_ID": "abc"}, "DEV_GUILD_ID"),
        ({"DISCORD_TOKEN": "x", "LOG_LEVEL": "loud"}, "LOG_LEVEL"),
        ({"DISCORD_TOKEN": "x", "DISCORD_GATEWAY_URL": "http://x"}, "DISCORD_GATEWAY_URL"),
        ({"DISCORD_TOKEN": "x", "DISCORD_API_BASE": "ftp://x"}, "DISCORD_API_BASE"),
    ],
)
def test_bad_settings_name_the_variable(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings.from_env(environ, dotenv_path=None)


def test_apply_proxies_points_discord_py_at_the_proxy_and_back() -> None:
    default_base = discord.http.Route.BASE
    default_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    apply_proxies(
        Settings(
            discord_api_base="http://127.0.0.1:9/api/v10/",
            discord_gateway_url="ws://127.0.0.1:9/gateway",
        )
    )
    assert discord.http.Route("GET", "/users/@me").url == "http://127.0.0.1:9/api/v10/users/@me"
    gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    assert isinstance(gateway, yarl.URL)
    assert str(gateway.with_query(v=10)) == "ws://127.0.0.1:9/gateway?v=10"
    apply_proxies(Settings())
    assert default_base == discord.http.Route.BASE
    assert default_gateway == discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


def test_i18n_falls_back_to_english_and_keeps_unknown_placeholders() -> None:
    # Chinese has catalogs of its own now (issue 12): other Chinese variants read Traditional
    # Chinese, every other language English.
    assert resolve_locale("zh-CN", "en-US") == "zh-CN"
    assert resolve_locale(discord.Locale.taiwan_chinese) == "zh-TW"
    assert resolve_locale("zh-HK") == resolve_locale("zh") == resolve_locale("zh-MO") == "zh-TW"
    assert resolve_locale("fr", None) == resolve_locale(discord.Locale.japanese) == "en"
    assert resolve_locale(discord.Locale.american_english) == "en"
    assert t("error.cooldown", discord.Locale.french, retry_after=3) == (
        "Slow down: try again in 3 seconds."
    )
    assert t("error.cooldown", discord.Locale.chinese, retry_after=3) == "慢一点：请 3 秒后再试。"
    assert t("error.cooldown", "en-US") == "Slow down: try again in {retry_after} seconds."
    assert t("no.such.key", "en-US") == "no.such.key"


def test_known_errors_become_sentences() -> None:
    assert describe_error(BotError("guild_only")) == (t("error.guild_only"), True)
    assert describe_error(EngineError("not_your_turn", player=1, to_act=2)) == (
        t("error.not_your_turn"),
        True,
    )
    assert describe_error(EngineError("unheard_of")) == (t("error.illegal_action"), True)
    message, expected = describe_error(ValueError("internal detail"))
    assert message == t("error.internal") and not expected
    assert str(BotError("cooldown", retry_after=3)) == "cooldown: retry_after=3"


def test_interaction_clock_measures_lateness_against_the_fastest_delivery() -> None:
    now = [1000.0]
    clock = InteractionClock(2.5, monotonic=lambda: now[0])
    wall = time.time()
    # Our wall clock may be off; only differences between deliveries matter.
    assert clock.lateness(new_snowflake(wall - 30.0)) == 0.0
    now[0] += 1.0
    assert clock.lateness(new_snowflake(wall - 29.0)) == pytest.approx(0.0, abs=0.002)
    now[0] += 1.0
    assert not clock.is_late(new_snowflake(wall - 30.0))  # 2 s late: still answerable
    assert clock.is_late(new_snowflake(wall - 40.0))


async def test_schema_hash_changes_only_with_the_schema(tmp_path: Path) -> None:
    client = discord.Client(intents=discord.Intents.none())
    tree = app_commands.CommandTree(client)

    @tree.command(name="ping", description="pong")
    async def ping(interaction: discord.Interaction) -> None:
        del interaction

    first = await command_schema_hash(tree)
    assert first == await command_schema_hash(tree)

    @tree.command(name="join", description="sit down")
    async def join(interaction: discord.Interaction, seat: int) -> None:
        del interaction, seat

    assert await command_schema_hash(tree) != first

    state = CommandSyncState(tmp_path / "nested" / "sync.json")
    assert state.get("1:global") is None
    state.set("1:global", first)
    assert CommandSyncState(state.path).get("1:global") == first
    state.path.write_text("not json", encoding="utf-8")
    assert state.get("1:global") is None


def test_settings_never_print_the_token_nor_a_database_password() -> None:
    settings = Settings(discord_token="MTIz.secret-token",
                        database_url="postgresql://poker:hunter2@db.internal/poker")
    for text in (repr(settings), str(settings)):
        assert "secret-token" not in text and "hunter2" not in text
        assert "log_level='INFO'" in text  # the rest is still there to read
