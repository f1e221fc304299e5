"""A real bot process killed with SIGKILL between a session's end and its recap, then started
again: the recap is posted exactly once, whichever moment the kill picked.

- right after the commit that closed the table (the recap owed, nothing posted yet);
- right after the commit that claimed it for posting (nothing sent yet);
- after its message went out and before the commit that marks it posted: sent again at
  start-up with its nonce, Discord (the fake, as Discord does) answers with the message it
  made, and no second one appears.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from pathlib import Path

import pytest

from bot.storage import Database
from tests.e2e.harness import World
from tests.e2e.processes import bot_process
from tests.e2e.recap_kit import RECAP
from tests.e2e.test_attack_sigkill import command
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

pytestmark = [pytest.mark.timeout(150), pytest.mark.slow]

KILLS = {
    "ended": "after:INSERT INTO recaps",
    "claimed": "after:SET state = 'posting'",
    "sent": "before:SET state = 'posted'",
}


async def act(
    fake: FakeDiscord, process: asyncio.subprocess.Process, players: list[FakeUser],
    channel: FakeChannel, name: str,
) -> None:
    """``name`` (allin, call) from whichever player it is accepted."""
    for user in players:
        reply = await command(fake, process, user, channel, name)
        if reply is None or reply.startswith("You "):
            return


async def a_session_then_close(
    fake: FakeDiscord, process: asyncio.subprocess.Process, world: World
) -> None:
    alice, bob = world.alice, world.bob
    channel = world.guild.channel("poker")
    await fake.wait_for_session(timeout=30)
    for user, sub, options in ((alice, "create", {}), (alice, "join", {"buy_in": 1000}),
                               (bob, "join", {"buy_in": 1000}), (alice, "start", {})):
        assert await command(fake, process, user, channel, "poker", sub, **options)
    await fake.wait_for_message(lambda m: "Hand #1 ·" in m.content, channel=channel, timeout=30)
    await act(fake, process, [alice, bob], channel, "allin")
    await act(fake, process, [alice, bob], channel, "call")
    await fake.wait_for_message(lambda m: m.content.startswith("**Hand #1: result**"),
                                channel=channel, timeout=30)
    assert await command(fake, process, alice, channel, "poker", "pause")
    await asyncio.sleep(0.5)  # a hand dealt before the pause plays on: the close voids it
    await command(fake, process, alice, channel, "poker", "close")


def recaps_in(fake: FakeDiscord, channel: FakeChannel) -> list[str]:
    return [m.content for m in fake.messages_in(channel)
            if m.content.startswith(RECAP) and not m.ephemeral]


async def state_of_recap(path: Path) -> str | None:
    db = await Database.open(f"sqlite:///{path}")
    try:
        row = await db.fetchone("SELECT state FROM recaps WHERE state <> 'empty'")
        return None if row is None else str(row[0])
    finally:
        await db.close()


@pytest.mark.parametrize("moment", sorted(KILLS))
async def test_a_kill_between_the_end_and_the_recap_neither_loses_nor_doubles_it(
    fake: FakeDiscord, world: World, tmp_path: Path, moment: str
) -> None:
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    async with bot_process(fake, tmp_path, log,
                           environ={"POKER_TEST_KILL_ON": KILLS[moment]}) as first:
        await a_session_then_close(fake, first, world)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first.wait(), timeout=20)
        assert first.returncode == -signal.SIGKILL, f"the kill at {moment!r} never came"
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
    posted_before = len(recaps_in(fake, channel))
    assert posted_before == (1 if moment == "sent" else 0)
    assert await state_of_recap(tmp_path / "poker.db") in ("owed", "posting")

    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=30)
        await fake.wait_for(lambda: recaps_in(fake, channel), timeout=30, what="the recap")
        for _ in range(100):
            if await state_of_recap(tmp_path / "poker.db") == "posted":
                break
            await asyncio.sleep(0.1)
        assert await state_of_recap(tmp_path / "poker.db") == "posted"
        await fake.wait_for_message(lambda m: m.content.startswith("Your night at"),
                                    channel=world.alice, timeout=20)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)
    assert len(recaps_in(fake, channel)) == 1
    if moment == "sent":
        assert [m for m in fake.nonce_replays if m.content.startswith(RECAP)]
    letters = [m for m in fake.dm_messages(world.alice) if m.content.startswith("Your night")]
    assert len(letters) == 1
