"""Fixtures: a fresh fake Discord world per test, and the real bot running against it."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.client import PokerBot
from bot.logs import JsonFormatter
from tests.e2e.game_kit import Game, running_game
from tests.e2e.harness import World, make_world, running_bot
from tests.e2e.probe_cog import TableButton
from tests.fakediscord import FakeDiscord


@pytest.fixture
def world() -> World:
    return make_world()


@pytest.fixture
async def fake(world: World) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(guilds=[world.guild], users=world.users) as fake:
        yield fake


@pytest.fixture
async def game(fake: FakeDiscord, world: World, tmp_path: Path) -> AsyncIterator[Game]:
    """The real bot as ``poker-bot`` runs it (quick pacing, a deck the test may stack)."""
    async with running_game(fake, world, tmp_path) as game:
        yield game


@pytest.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[PokerBot]:
    async with running_bot(fake, tmp_path, dynamic_items=[TableButton]) as bot:
        yield bot


LOGGERS = ("discord", "aiosqlite", "asyncpg", "bot", "cogs", "asyncio")


@pytest.fixture(params=["text", "json"])
def every_log_line(request: pytest.FixtureRequest) -> Iterator[list[str]]:
    """Every record any logger writes, at DEBUG, formatted as a handler would write it (as with
    ``LOG_LEVEL=DEBUG``), in each ``LOG_FORMAT``: for ``json``, each line as it is written,
    then the text of each of its values (what a log pipeline indexes)."""
    lines: list[str] = []
    as_json = request.param == "json"
    malformed: list[str] = []  # logging swallows what a handler raises: kept, checked after

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            line = self.format(record)
            lines.append(line)
            if as_json:
                try:
                    entry = json.loads(line)
                except ValueError:
                    malformed.append(line)
                    return
                if not {"time", "level", "logger", "message"} <= set(entry) or "\n" in line:
                    malformed.append(line)
                lines.extend(str(value) for value in entry.values())

    handler = Keep(logging.DEBUG)
    handler.setFormatter(
        JsonFormatter() if as_json else logging.Formatter("%(name)s %(levelname)s %(message)s")
    )
    root = logging.getLogger()
    previous = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    for name in LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)
        for name in (*LOGGERS, "discord.http", "discord.gateway", "discord.webhook"):
            logging.getLogger(name).setLevel(logging.NOTSET)
    assert malformed == [], "JSON log lines that are not one object with the four fields"
