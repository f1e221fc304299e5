"""A side pot over the fake Discord, with a stacked deck: the main pot and the side pot go to
different players, the uncalled chips go back, and every chip is accounted for."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage import hands
from engine.table import TableOptions
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    StackedDeck,
    quick_options,
    running_game,
    seat_order,
    stack_deck,
    total_chips,
)
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(60)

SEED = 20240601


async def test_all_in_for_different_stacks_makes_a_side_pot(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    buy_ins = {alice.id: 200, bob.id: 500, carol.id: 1000}
    seats = {alice.id: 1, bob.id: 2, carol.id: 3}
    options = TableOptions(small_blind=5, big_blind=10, min_buy_in=100, max_buy_in=1000, seats=3)
    order = seat_order(options, seats, SEED)
    # Alice has the best hand, Bob the second best, Carol the worst.
    deck = StackedDeck()
    deck.push(
        stack_deck(
            order,
            {alice.id: "AsAh", bob.id: "KsKh", carol.id: "7c2d"},
            "Ad Kd 9h 5c 3s",
        )
    )
    async with running_game(
        fake, world, tmp_path, deck=deck, options=quick_options(deck), seed=SEED
    ) as game:
        await game.poker(alice, "create", small_blind=5, big_blind=10, min_buy_in=100,
                         max_buy_in=1000, seats=3)
        for user in (alice, bob, carol):
            await game.poker(user, "join", buy_in=buy_ins[user.id], seat=seats[user.id])
        await game.poker(alice, "start")
        hand = await game.wait_hand(1)
        live_table = game.live_table()
        assert tuple(live_table.table.hand_players) == order
        hand_id = live_table.hand_id

        # Everybody all-in, pre-flop.
        while game.hand is not None and live_table.table.hand_number == 1:
            user = await game.wait_turn()
            reply = await game.ok(user, "allin")
            assert reply.startswith(("You raised", "You called")), reply

        result = await game.wait_result(1)
        lines = result.content.splitlines()
        assert "alice wins 600 from the main pot with Three of a kind, aces" in lines
        assert "bob wins 600 from side pot 1 with Three of a kind, kings" in lines
        assert any(line.startswith("carol shows") for line in lines)
        assert hand.result is not None
        assert [p.amount for p in hand.result.pots] == [600, 600]
        final = dict(zip(order, hand.result.stacks, strict=True))
        # Carol's 500 nobody could match came back to her.
        assert final == {alice.id: 600, bob.id: 600, carol.id: 500}

        stored = await hands.load_hand(game.db, hand_id)  # type: ignore[arg-type]
        assert stored.status == "finished"
        assert {p.user_id: p.final_stack for p in stored.players} == final
        wallets, seats_total, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats_total + in_hands == 3 * STARTING_BALANCE

        # Between hands everyone leaves: each wallet is its start plus what the hand gave.
        await game.poker(alice, "pause")
        if game.hand is not None:
            await game.poker(alice, "void")
        for user in (alice, bob, carol):
            reply = await game.poker(user, "leave")
            assert f"{final[user.id]:,} chips went back" in reply.content
        for user in (alice, bob, carol):
            balance = await game.balance(user)
            assert balance == STARTING_BALANCE - buy_ins[user.id] + final[user.id]
        assert await total_chips(game.db, world.guild.id) == (3 * STARTING_BALANCE, 0, 0)


async def test_a_busted_player_sits_out_until_he_rebuys(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice, bob = world.alice, world.bob
    seats = {alice.id: 1, bob.id: 2}
    options = TableOptions(small_blind=5, big_blind=10, min_buy_in=100, max_buy_in=1000, seats=2)
    order = seat_order(options, seats, SEED)
    deck = StackedDeck()
    deck.push(stack_deck(order, {alice.id: "7c2d", bob.id: "AsAh"}, "Ad Kd 9h 5c 3s"))
    async with running_game(
        fake, world, tmp_path, deck=deck, options=quick_options(deck), seed=SEED
    ) as game:
        await game.ok(alice, "poker", "create", min_buy_in=100, max_buy_in=1000, seats=2)
        await game.ok(alice, "poker", "join", buy_in=100, seat=1)
        await game.ok(bob, "poker", "join", buy_in=1000, seat=2)
        await game.ok(alice, "poker", "start")
        await game.wait_hand(1)
        while game.hand is not None:
            await game.ok(await game.wait_turn(), "allin")
        result = await game.wait_result(1)
        assert f"{alice.mention} is out of chips" in result.content
        live_table = game.live_table()
        seat = live_table.table.player(alice.id)
        assert seat is not None and seat.stack == 0 and not live_table.table.can_start()

        # A rebuy brings her back to the table and the game goes on.
        reply = await game.ok(alice, "poker", "rebuy", amount=300)
        assert reply == "Done: your stack is now 300."
        await game.wait_hand(2)
        assert await game.balance(alice) == STARTING_BALANCE - 400
        wallets, seats_total, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats_total + in_hands == 2 * STARTING_BALANCE
