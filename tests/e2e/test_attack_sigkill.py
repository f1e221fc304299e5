"""A real bot process killed with SIGKILL right after each of its database commits, then
started again (issue 10, defect 3): whatever the boundary, the chip invariant holds, no hand is
left running on a table that is not open, and the table plays a whole hand again.

The scenario covers every kind of transition: open a table, two buy-ins, the deal, actions,
a void, the next deal, a leave in the middle of a hand, and closing the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
from pathlib import Path

import pytest

from bot.storage import Database, hands, invariant, tables
from tests.e2e.harness import World
from tests.e2e.processes import bot_process
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

# Commits the scenario makes before it ends (guild, table, buy-ins, deals, actions, void,
# leave, close, and the table message ids stored on the way): each is a boundary to die at.
BOUNDARIES = range(1, 17)


async def command(
    fake: FakeDiscord,
    process: asyncio.subprocess.Process,
    user: FakeUser,
    channel: FakeChannel,
    name: str,
    subcommand: str | None = None,
    **options: object,
) -> str | None:
    """Run a command; its reply, or None once the process is dead."""
    if process.returncode is not None:
        return None
    handle = await fake.slash(user, channel, name, subcommand=subcommand, options=options)
    waiting = asyncio.ensure_future(handle.response(timeout=15))
    dying = asyncio.ensure_future(process.wait())
    done, _ = await asyncio.wait({waiting, dying}, return_when=asyncio.FIRST_COMPLETED)
    if waiting in done and waiting.exception() is None:
        dying.cancel()
        return waiting.result().content
    waiting.cancel()
    await process.wait()
    return None


async def any_player(
    fake: FakeDiscord,
    process: asyncio.subprocess.Process,
    players: list[FakeUser],
    channel: FakeChannel,
    name: str,
) -> bool:
    """``name`` (check, call) for whichever player it is accepted from; False if nobody."""
    for user in players:
        reply = await command(fake, process, user, channel, name)
        if reply is None:
            return False
        if reply.startswith(("You checked", "You called", "You folded")):
            return True
    return False


async def scenario(
    fake: FakeDiscord, process: asyncio.subprocess.Process, world: World
) -> None:
    alice, bob = world.alice, world.bob
    channel = world.guild.channel("poker")
    players = [alice, bob]
    await fake.wait_for_session(timeout=30)
    steps: list[tuple[FakeUser, str, dict[str, object]]] = [
        (alice, "create", {}),
        (alice, "join", {"buy_in": 1000}),
        (bob, "join", {"buy_in": 1000}),
        (alice, "start", {}),
    ]
    for user, sub, options in steps:
        if await command(fake, process, user, channel, "poker", sub, **options) is None:
            return
    await asyncio.sleep(0.3)  # the deal
    for name in ("call", "check"):
        await any_player(fake, process, players, channel, name)
    if await command(fake, process, alice, channel, "poker", "void") is None:
        return
    await asyncio.sleep(0.6)  # the next deal
    await any_player(fake, process, players, channel, "call")
    if await command(fake, process, bob, channel, "poker", "leave") is None:
        return
    await asyncio.sleep(0.3)
    await command(fake, process, alice, channel, "poker", "close")
    await asyncio.sleep(0.3)


RESULT = re.compile(r"\*\*Hand #(\d+): result\*\*")


async def hands_dealt(path: Path) -> int:
    db = await Database.open(f"sqlite:///{path}")
    try:
        return max((info.hand_count for info in await tables.open_tables(db)), default=0)
    finally:
        await db.close()


async def check_database(path: Path) -> bool:
    """The invariant holds and no hand runs on a table that is not open; True if a table is
    still open."""
    db = await Database.open(f"sqlite:///{path}")
    try:
        report = await invariant.check_invariant(db)
        assert report.ok, report
        open_ids = {info.table_id for info in await tables.open_tables(db)}
        for running in await hands.unfinished_hands(db):
            assert running.table_id in open_ids, running
        return bool(open_ids)
    finally:
        await db.close()


@pytest.mark.parametrize("boundary", BOUNDARIES)
async def test_sigkill_after_any_commit_then_restart_loses_nothing(
    fake: FakeDiscord, world: World, tmp_path: Path, boundary: int
) -> None:
    alice, bob = world.alice, world.bob
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    async with bot_process(fake, tmp_path, log, kill_after=boundary) as first:
        await scenario(fake, first, world)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first.wait(), timeout=5)
        assert first.returncode == -signal.SIGKILL, f"commit {boundary} never came"
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
    await check_database(tmp_path / "poker.db")

    dealt_before = await hands_dealt(tmp_path / "poker.db")

    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=30)
        mark = fake.mark()

        def new_hand_finished() -> bool:
            # A hand dealt after the restart reached its result.
            return any(
                (match := RESULT.match(e.message.content)) is not None
                and int(match[1]) > dealt_before
                for e in fake.events[mark:]
            )

        for _ in range(80):
            if new_hand_finished():
                break
            # Whatever the kill left, bring two players back to a dealing table and play.
            for user, sub, options in (
                (alice, "create", {}),
                (alice, "resume", {}),
                (alice, "join", {"buy_in": 1000}),
                (bob, "join", {"buy_in": 1000}),
                (alice, "start", {}),
            ):
                reply = await command(fake, second, user, channel, "poker", sub, **options)
                assert reply is not None and not reply.startswith("Something"), reply
            for _ in range(6):
                if not (
                    await any_player(fake, second, [alice, bob], channel, "check")
                    or await any_player(fake, second, [alice, bob], channel, "call")
                ):
                    await asyncio.sleep(0.2)
        assert new_hand_finished()
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)
    await check_database(tmp_path / "poker.db")
