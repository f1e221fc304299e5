"""A tournament's bot killed with SIGKILL in the middle of a level and of a hand, then started
again: the level resumes with the time it had left (the downtime is charged to nobody), the
hand in progress is finished from its stored actions, and the places and prizes come out
right; with several tables, each comes back in its own thread."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from pathlib import Path

import pytest

from bot.storage import Database, hands, invariant, tournaments
from tests.e2e.game_kit import STARTING_BALANCE, settled
from tests.e2e.harness import World
from tests.e2e.processes import act_as_whoever_may, bot_process
from tests.e2e.tournament_kit import assert_settled_in, big_world, members
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

pytestmark = [pytest.mark.timeout(150), pytest.mark.slow]


@pytest.fixture
def world() -> World:
    """The usual three members and one more, for two tables of two."""
    return big_world(1)

TO_ACT = re.compile(r"<@(\d+)> to act")
# Longer than the heartbeat, so the clock would visibly lose time if downtime were charged.
DOWNTIME = 3.0


async def answer(fake: FakeDiscord, user: FakeUser, channel: FakeChannel, command: str,
                 subcommand: str | None = None, **options: object) -> str:
    handle = await fake.slash(user, channel, command, subcommand=subcommand, options=options)
    reply = await settled(handle)
    assert reply.ephemeral and not reply.content.startswith("Something"), reply.content
    return reply.content


async def open_and_start(fake: FakeDiscord, channel: FakeChannel, players: list[FakeUser],
                         **options: object) -> None:
    """The first player opens "Night", everybody registers, and it starts."""
    await fake.wait_for_session(timeout=30)
    await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
    await answer(fake, players[0], channel, "tournament", "create", name="Night",
                 kind="freeze_out", buy_in=100, starting_stack=1000,
                 structure="10/20 10, 20/40 10", **options)
    for user in players:
        await answer(fake, user, channel, "tournament", "register")
    await answer(fake, players[0], channel, "tournament", "start")


async def play_out(fake: FakeDiscord, channel: FakeChannel, tables: list[FakeChannel],
                   players: list[FakeUser], mark: int) -> FakeMessage:
    """Everybody shoves or calls at every table until the tournament is over; its result."""
    def over(message: FakeMessage) -> bool:
        return message.channel_id == channel.id and "**Night** is over" in message.content

    # By the clock, not by a number of tries: between hands (an all-in's board is run out street
    # by street, each shown for a while) nobody can act, and a busy machine polls slowly.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while loop.time() < deadline:
        if any(over(e.message) for e in fake.events[mark:]):
            break
        acted = False
        for table in tables:
            acted = bool(await act_as_whoever_may(fake, table, players, "allin")
                         or await act_as_whoever_may(fake, table, players, "call")) or acted
        if not acted:
            await asyncio.sleep(0.1)
    return await fake.wait_for_message(over, channel=channel, after=mark, timeout=30)


def clock_elapsed(clock: list[float | None], at: float) -> float:
    started, paused_at, paused_total, _ = clock
    assert started is not None and paused_at is None
    return at - started - float(paused_total or 0.0)


async def test_sigkill_mid_level_and_mid_hand_then_restart(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice, bob = world.alice, world.bob
    players = [alice, bob]
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"

    async with bot_process(fake, tmp_path, log) as first:
        await open_and_start(fake, channel, players)
        await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                    channel=channel, timeout=30)
        assert await act_as_whoever_may(fake, channel, players, "call")
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")

    db = await Database.open(url)
    try:
        (info,) = [await tournaments.get_tournament(db, tid)
                   for tid in await tournaments.open_tournament_guilds(db)]
        (running,) = await hands.tournament_hands_running(db, info.tournament_id)
        assert running.actions  # the call was stored before it was acknowledged
    finally:
        await db.close()
    clock = info.state["clock"]
    # The last moment the dead process was seen alive: its state or its heartbeat.
    last_seen = max(float(clock[3]), (info.alive_at or 0) / 1000)
    elapsed_at_death = clock_elapsed(clock, last_seen)
    assert info.state["level"] == 1
    await asyncio.sleep(DOWNTIME)

    mark = fake.mark()
    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=30)
        # The table is shown again, the hand waiting for the same decision.
        await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                    channel=channel, after=mark, timeout=30)
        over = await play_out(fake, channel, [channel], players, mark)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)
    ended = time.time()

    db = await Database.open(url)
    try:
        after = await tournaments.get_tournament(db, info.tournament_id)
        finished = await hands.load_hand(db, running.hand_id)
        report = await invariant.check_invariant(db)
        wallets = {row[0]: row[1] for row in await db.fetchall(
            "SELECT user_id, balance FROM wallets WHERE guild_id = ?", (info.guild_id,))}
    finally:
        await db.close()
    # The hand of the crash was finished from its stored actions.
    assert finished.status == "finished"
    assert finished.actions[:len(running.actions)] == running.actions
    assert sum(finished.final_stacks or ()) == 2000
    # The clock: the downtime went to the pause total, so the level kept the time it had.
    credited = float(after.state["clock"][2]) - float(clock[2])
    assert DOWNTIME <= credited <= ended - last_seen
    assert after.state["level"] == 1
    assert elapsed_at_death <= clock_elapsed(after.state["clock"], ended)
    # Places, prizes and chips.
    assert report.ok, report
    assert (after.status, after.pool) == ("finished", 0)
    places = {e.user_id: (e.place, e.prize) for e in after.entries}
    assert sorted(places.values()) == [(1, 200), (2, 0)]
    winner = next(user for user, (place, _) in places.items() if place == 1)
    assert f"Winner: <@{winner}>" in over.content
    assert {wallets[u.id] for u in players} == {STARTING_BALANCE + 100, STARTING_BALANCE - 100}
    assert wallets[winner] == STARTING_BALANCE + 100


async def test_sigkill_with_tables_in_threads_then_restart(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    players = members(world)[:4]
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"

    async with bot_process(fake, tmp_path, log) as first:
        await open_and_start(fake, channel, players, seats_per_table=2, max_players=4)
        threads = fake.threads_of(channel)
        assert len(threads) == 2
        for thread in threads:
            await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                        channel=thread, timeout=30)
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")

    mark = fake.mark()
    async with bot_process(fake, tmp_path, log) as second:
        # A new process starts (imports, database, gateway) slowly on a loaded machine: the
        # deadlines leave room for it, since what is tested is what comes back, not how fast.
        await fake.wait_for_session(timeout=60)
        # Each table is shown again in its own thread, its hand waiting for a decision.
        for thread in threads:
            await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                        channel=thread, after=mark, timeout=60)
        await play_out(fake, channel, threads, players, mark)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)
    assert fake.threads_of(channel) == threads  # no table was opened anew

    db = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    try:
        (tournament_id,) = [row[0] for row in await db.fetchall(
            "SELECT tournament_id FROM tournaments")]
        await assert_settled_in(db, await tournaments.get_tournament(db, tournament_id))
    finally:
        await db.close()
