"""The clock: the table's timer, then the time bank; TDA 29 on timeout; sitting out after two
timeouts in a row, and coming back with the "I'm back" button."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.i18n import t
from tests.e2e.game_kit import StackedDeck, quick_options, running_game, total_chips, until
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(60)


async def test_timeouts_check_or_fold_then_sit_the_player_out(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_game(fake, world, tmp_path) as game:
        alice, bob = world.alice, world.bob
        await game.poker(alice, "create", timer=2)
        await game.poker(alice, "join")
        await game.poker(bob, "join")
        await game.table_message()
        await game.wait_idle()  # the renderer is warm: messages keep up with a short timer
        await game.poker(alice, "start")
        live_table = game.live_table()

        # Hand 1: the first player to act lets his time run out; owing chips, he folds.
        await game.wait_hand(1)
        idle = await game.wait_turn()
        other = bob if idle is alice else alice
        started = time.monotonic()
        await until(lambda: live_table.timeouts.get(idle.id) == 1, timeout=5, what="a timeout")
        assert time.monotonic() - started >= 1.9

        # Hand 2: the other player completes; the idle one, owing nothing, is checked for
        # (TDA 29): his second timeout in a row sits him out with an "I'm back" button.
        await game.wait_hand(2)
        assert await game.wait_turn() is other
        mark = fake.mark()
        await game.ok(other, "call")
        result = await game.wait_result(1)
        assert f"{other.name} wins" in result.content
        notice = await fake.wait_for_message(
            lambda m: m.content == t("notice.timed_out", player=idle.mention),
            channel=game.channel,
            after=mark,
            timeout=5,
        )
        hand = live_table.table.hand
        assert hand is not None and not hand.folded[live_table.table.hand_index(idle.id)]  # checked
        assert idle.id in live_table.away
        back_id = f"poker:{live_table.table_id}:back"
        assert notice.custom_ids() == [back_id]

        # Away, he is timed out at once for the rest of the hand; the other player plays on.
        while live_table.hand is not None and live_table.table.hand_number == 2:
            turn = game.to_act()
            if turn is other:
                await game.ok(other, "check")
            else:
                await until(lambda: game.to_act() is not idle or live_table.hand is None, timeout=2)
        await game.wait_result(2)
        # Sitting out, he is not dealt in: the table waits for two players.
        await fake.wait_for_message(
            lambda m: "Waiting for players" in m.content,
            channel=game.channel,
            after=mark,
            timeout=20,
        )
        assert live_table.hand is None and not live_table.table.can_start()

        # Only he can come back with the button (anyone else is not sitting out).
        refused = await (await fake.click(other, notice, back_id)).response()
        assert refused.ephemeral and refused.content == t("error.not_sitting_out")
        back = await (await fake.click(idle, notice, back_id)).response()
        assert back.ephemeral and back.content == t("reply.sat_in")
        await game.wait_hand(3)
        assert idle.id not in live_table.away
        wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats + in_hands == 20_000


async def test_the_time_bank_runs_after_the_timer_and_is_spent(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    deck = StackedDeck()
    options = quick_options(deck, time_bank=1.0, time_bank_refill=0.0, time_bank_cap=5.0)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice, bob = world.alice, world.bob
        await game.poker(alice, "create", timer=1)
        await game.poker(alice, "join")
        await game.poker(bob, "join")
        await game.table_message()
        await game.wait_idle()
        await game.poker(alice, "start")
        live_table = game.live_table()
        await game.wait_hand(1)
        idle = await game.wait_turn()
        # His time starts once the message naming him went out.
        first_deadline = await until(lambda: live_table.decision and live_table.decision.deadline)
        # After the timer the deadline moves on by the bank, and the message shows it.
        mark = fake.mark()
        started = time.monotonic()
        await until(lambda: live_table.decision and live_table.decision.bank_started, timeout=3)
        bank_deadline = live_table.decision.deadline  # type: ignore[union-attr]
        assert bank_deadline > first_deadline or bank_deadline >= int(time.time())
        await fake.wait_for_message(
            lambda m: f"<t:{bank_deadline}:R>" in m.content,
            channel=game.channel,
            after=mark,
            timeout=20,
        )
        await game.wait_result(1)
        assert time.monotonic() - started >= 0.9  # the bank ran before the fold
        assert live_table.config.banks[idle.id] == 0.0
