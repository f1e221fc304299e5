"""The gateway on a bad day, at a cash table in the middle of a hand: closed with 1006 (no close
frame), 4000 and 4009 (the session timed out: a resume is refused), told to RECONNECT (op 7),
its session invalidated (op 9, resumable or not), and left open but silent (a zombie: no
heartbeat ACK, no event, until discord.py notices). Players go on pressing as they see the
table; what they press while the bot is away reaches it when it resumes (the events are
replayed), or, after a new IDENTIFY, never (as on Discord). Every promise of the fault suite
is checked afterwards (``fault_kit``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.fault_kit import cash_scene
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize(("fault", "resumed"), [
    ("close 1006", True),
    ("close 4000", True),
    ("close 4009", False),
    ("op 7 RECONNECT", True),
    ("op 9 resumable", True),
    ("op 9 not resumable", False),
])
async def test_the_gateway_drops_in_the_middle_of_a_hand(
    fake: FakeDiscord, world: World, tmp_path: Path, fault: str, resumed: bool
) -> None:
    async with cash_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        (before,) = fake.sessions
        if fault.startswith("close"):
            await fake.drop_gateway(int(fault.split()[1]))
        elif fault == "op 7 RECONNECT":
            await fake.send_reconnect()
        else:
            await fake.invalidate_session(resumable=fault == "op 9 resumable")
        await scene.gateway_back(before)
        await scene.finish(hand)
        assert (fake.gateway.resume_count, fake.identify_count) == (
            (1, 1) if resumed else (0, 2)), "the gateway did not come back as Discord allows"


async def test_a_press_made_while_the_bot_is_away_is_replayed_on_the_resume(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with cash_scene(fake, world, tmp_path) as scene:
        hand = await scene.mid_hand()
        (before,) = fake.sessions
        async with scene.crowd.holding():
            await scene.shown_as_stored()
            await fake.drop_gateway(1006)
            await fake.wait_for(lambda: not fake.sessions, what="the connection to drop")
            press = await scene.crowd.act_now(scene.places[0])
        assert press is not None and press.told, (
            f"a press made while the bot was away was not answered after the resume: {press}")
        await scene.gateway_back(before)
        await scene.finish(hand)
        assert fake.gateway.resume_count == 1


async def test_a_zombie_connection_in_the_middle_of_a_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """Heartbeat ACKs stop coming (and events with them); discord.py gives up on the
    connection after its heartbeat timeout (shortened here from 60 s) and resumes."""
    fake.gateway.heartbeat_interval = 0.5
    async with cash_scene(fake, world, tmp_path, heartbeat_timeout=3.0) as scene:
        hand = await scene.mid_hand()
        (before,) = fake.sessions
        fake.zombie_gateway()
        await scene.gateway_back(before)
        await scene.finish(hand)
        # Resumed, not identified again (a busy machine may add a spurious resume of its own).
        assert fake.gateway.resume_count >= 1 and fake.identify_count == 1
