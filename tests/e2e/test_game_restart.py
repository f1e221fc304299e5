"""A restart in the middle of a hand costs nobody anything: the table comes back, its message is
posted again, the clock re-armed, and the hand goes on from the last stored action.

The second test runs the bot as a real process (``python -m bot``), kills it with SIGKILL in the
middle of a hand, starts it again, and finishes the hand with every chip accounted for.
"""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import pytest

from bot.storage import Database, hands, invariant, stats, tables
from tests.e2e.game_kit import STARTING_BALANCE, running_game, total_chips
from tests.e2e.harness import World
from tests.e2e.processes import act_as_whoever_may, bot_process
from tests.fakediscord import FakeDiscord, FakeMessage

pytestmark = pytest.mark.timeout(90)

REPO = Path(__file__).resolve().parents[2]
TO_ACT = re.compile(r"<@(\d+)> to act")


async def test_a_restarted_bot_resumes_the_hand_in_progress(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    async with running_game(fake, world, tmp_path) as game:
        await game.poker(alice, "create")
        for user in (alice, bob, carol):
            await game.poker(user, "join", buy_in=500)
        await game.poker(alice, "start")
        await game.wait_hand(1)
        # Pre-flop: everybody calls or checks; the flop comes.
        while not (game.hand and game.hand.board):
            user = await game.wait_turn()
            legal = game.hand.legal()  # type: ignore[union-attr]
            await game.ok(user, "check" if legal and legal.can_check else "call")
        live_table = game.live_table()
        await game.wait_idle()  # the table message is posted, with its buttons
        before = live_table.hand
        assert before is not None
        state = before.state_key()
        hand_id, old_message = live_table.hand_id, live_table.message_id
        actions = len(before.actions)
    await fake.wait_for(lambda: not fake.sessions, what="the first bot to disconnect")

    mark = fake.mark()
    async with running_game(fake, world, tmp_path) as game:
        live_table = game.live_table()
        after = live_table.hand
        assert after is not None and live_table.hand_id == hand_id
        assert after.state_key() == state and len(after.actions) == actions
        # The table is posted again, with the clock running, and the old buttons are gone.
        turn = game.to_act()
        assert turn is not None
        reposted = await fake.wait_for_message(
            lambda m: f"{turn.mention} to act" in m.content,
            channel=game.channel,
            kinds=("create",),
            after=mark,
            timeout=20,
        )
        assert reposted.id != old_message and reposted.custom_ids()
        await fake.wait_for(lambda: not fake.message(old_message).custom_ids(), what="old buttons")
        assert live_table.decision is not None

        await game.passive_round(1)
        await game.wait_result(1)
        stored = await hands.load_hand(game.db, hand_id)  # type: ignore[arg-type]
        assert stored.status == "finished"
        wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats + in_hands == 3 * STARTING_BALANCE


# --- the same with a real process and SIGKILL ----------------------------------------------


async def test_sigkill_mid_hand_then_restart_finishes_the_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice, bob = world.alice, world.bob
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    players = [alice, bob]

    async with bot_process(fake, tmp_path, log) as first:
        await fake.wait_for_session(timeout=30)
        await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
        for user, sub, options in (
            (alice, "create", {}),
            (alice, "join", {"buy_in": 1000}),
            (bob, "join", {"buy_in": 1000}),
            (alice, "start", {}),
        ):
            handle = await fake.slash(user, channel, "poker", subcommand=sub, options=options)
            reply = await handle.response(timeout=10)
            assert reply.ephemeral and not reply.content.startswith("Something"), reply
        # Pre-flop: the small blind completes, the big blind checks; on the flop one checks.
        await act_as_whoever_may(fake, channel, players, "call")
        await act_as_whoever_may(fake, channel, players, "check")
        checker = await act_as_whoever_may(fake, channel, players, "check")
        assert checker is not None
        # Every acknowledged action is stored: kill the process without any goodbye.
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")

    db = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    try:
        (running,) = await hands.unfinished_hands(db)
        assert running.hand_no == 1 and len(running.actions) == 3
        (info,) = await tables.open_tables(db)
    finally:
        await db.close()

    mark = fake.mark()
    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=30)
        table: FakeMessage = await fake.wait_for_message(
            lambda m: "Hand #1 ·" in m.content and TO_ACT.search(m.content) is not None,
            channel=channel,
            after=mark,
            timeout=30,
        )
        match = TO_ACT.search(table.content)
        assert match and int(match[1]) != checker.id  # the other player is to act on the flop
        # Check it down to the showdown (until nobody has a check to make in hand 1).
        while await act_as_whoever_may(fake, channel, players, "check"):
            pass
        await fake.wait_for_message(
            lambda m: m.content.startswith("**Hand #1: result**"), channel=channel, timeout=20
        )
        # Close the table: a hand 2 already dealt is voided, every stack goes home.
        handle = await fake.slash(alice, channel, "poker", subcommand="close")
        reply = await handle.response(timeout=10)
        assert reply.content.startswith("The table is closed"), reply.content
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=15)

    db = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    try:
        stored = await hands.load_hand(db, running.hand_id)
        assert stored.status == "finished" and stored.actions[:3] == running.actions
        assert sum(stored.final_stacks or ()) == 2000
        assert hands.rebuild_hand(stored).result.stacks == stored.final_stacks  # type: ignore[union-attr]
        report = await invariant.check_invariant(db)
        assert report.ok, report
        (guild,) = report.guilds
        assert (guild.wallets, guild.seats, guild.hands) == (2 * STARTING_BALANCE, 0, 0)
        board = await stats.leaderboard(db, info.guild_id)
        assert sum(row.value for row in board) == 0  # what one won, the other lost
    finally:
        await db.close()
