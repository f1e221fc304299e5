"""Fixtures for the attack suite's reproductions: the attack world (ten members, a manager, an
outsider), the real bot on the fake Discord, the log trap and the hand recorder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from tests.attack.kit import AttackWorld, HandRecorder, LogTrap, make_world
from tests.e2e import conftest as e2e
from tests.e2e.game_kit import Game, StackedDeck, quick_options, running_game
from tests.fakediscord import FakeDiscord


@pytest.fixture
def world() -> AttackWorld:
    return make_world()


fake = e2e.fake  # the e2e fixture, on the attack world


@pytest.fixture
def trap() -> Iterator[LogTrap]:
    trap = LogTrap()
    trap.install()
    try:
        yield trap
    finally:
        trap.uninstall()


@pytest.fixture
def recorder() -> Iterator[HandRecorder]:
    recorder = HandRecorder()
    recorder.install()
    try:
        yield recorder
    finally:
        recorder.uninstall()


@pytest.fixture
def deck() -> StackedDeck:
    return StackedDeck()


@pytest.fixture
async def game(
    fake: FakeDiscord,
    world: AttackWorld,
    tmp_path: Path,
    deck: StackedDeck,
    trap: LogTrap,
    recorder: HandRecorder,
) -> AsyncIterator[Game]:
    options = quick_options(deck)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        yield game
