"""Fixtures: a fresh fake Discord world per test, and the real bot running against it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import PokerBot
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
