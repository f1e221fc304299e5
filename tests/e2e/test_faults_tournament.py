"""Faults at a tournament over threads: four players at two tables of two, each table in a
thread of its own under #poker, every player acting as people do (``fault_kit``). Discord's
faults hit one table's thread (a refused edit, a lost new message, an answer cut mid-body),
the gateway drops for both, and SQLite's writes fail for a while; every promise of the fault
suite is checked afterwards at both tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.fault_kit import Place, sqlite_writes_fail, tournament_scene
from tests.e2e.harness import World
from tests.e2e.tournament_kit import big_world
from tests.fakediscord import FakeDiscord
from tests.fakediscord.faults import CALLBACK, FaultRule

pytestmark = pytest.mark.timeout(150)


@pytest.fixture
def world() -> World:
    return big_world(1)


FAULTS: dict[str, Callable[[FakeDiscord, Place], FaultRule]] = {
    "503 on the thread's table edit": lambda f, p: f.fail(503, p.edits, method="PATCH"),
    "502 on the thread's next message": lambda f, p: f.fail(502, p.posts),
    "the thread's next message lost": lambda f, p: f.lose_answers(p.posts),
    "an answer at the table cut mid-body": lambda f, p: f.reset_connections(CALLBACK),
}


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_discord_fault_at_a_tournament_table(
    fake: FakeDiscord, world: World, tmp_path: Path, fault: str
) -> None:
    # A fault on an edit comes after a typed command; the players then press what they see.
    edit = "edit" in fault
    async with tournament_scene(fake, world, tmp_path,
                                ways=("button",) if edit else ("button", "slash")) as scene:
        place = scene.places[0]
        hand = await scene.fault_on_a_press(FAULTS[fault], place,
                                            way="slash" if edit else "button")
        await scene.finish(hand, place=place)


async def test_the_gateway_drops_during_a_tournament(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with tournament_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        (before,) = fake.sessions
        await fake.drop_gateway(1006)
        await scene.gateway_back(before)
        await scene.finish(hand)


async def test_sqlite_writes_failing_during_a_tournament(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with tournament_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        with sqlite_writes_fail() as refused:
            await asyncio.sleep(6)
        scene.back_now()
        assert refused, "no write was tried while the disk failed: the fault tested nothing"
        await scene.finish(hand)
