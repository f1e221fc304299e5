"""Home-game extras over the fake Discord (issue 13): straddles, bomb pots, running it twice,
the rabbit hunt, sitting out the next big blind, and how a new player comes in. Each rule is
the engine's (tested there); these tests check the commands and buttons that reach it, and
what a host, a bystander or a player must not be able to do with them."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from bot.errors import BotError
from bot.i18n import t
from bot.runtime.history import stored_hand, verification
from bot.runtime.play import DOUBLE_CLICK
from bot.storage import invariant, tables
from bot.storage.hands import StoredHand
from engine.cards import pretty_cards
from engine.hand import board_positions
from engine.table import PlayerState
from tests.e2e.game_kit import (
    Game,
    StackedDeck,
    button_id,
    quick_options,
    running_game,
    settled,
    until,
)
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord, FakeMessage


async def table_now(game: Game) -> FakeMessage:
    await game.wait_idle()
    message_id = game.live_table().messenger.message_id
    assert message_id is not None
    return game.fake.message(message_id)


async def press(game: Game, user: object, action: str) -> str:
    """Press ``action`` on the table message as it is now; the private answer (or "table:"
    when the table's update answered)."""
    message = await table_now(game)
    answer = await settled(await game.fake.click(user, message, button_id(message, action)))
    return "table:" if answer.type == 7 else answer.content


async def stored_hand_one(game: Game) -> StoredHand:
    return await stored_hand(game.db, game.live_table().table_id, 1)


async def both_all_in(game: Game) -> None:
    """Heads-up, whoever acts first goes all-in and the other calls."""
    first = await game.wait_turn()
    await game.ok(first, "allin")
    second = await game.wait_turn()
    await game.ok(second, "call")


async def invariant_holds(game: Game) -> None:
    report = await invariant.check_invariant(game.db)
    assert report.ok, report


# -- run it twice -----------------------------------------------------------------------------


async def test_everyone_agreeing_runs_the_board_twice(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, run_it_twice="ask")
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    await both_all_in(game)
    await until(lambda: hand.run_choice_pending, what="the run-twice question")
    message = await table_now(game)
    assert "Run it twice?" in message.content
    # They decide seeing their chances, on the image and in words.
    assert message.content.count("% to win") == 2
    assert (message.attachment("table.png").description or "").count("% to win") == 2
    # A bystander, and a player answering twice, change nothing.
    carol = game.world.carol
    assert await press(game, carol, "run_twice") == t("error.not_in_hand")
    assert await press(game, alice, "run_twice") in ("table:", t("reply.voted_twice"))
    assert hand.run_choice_pending
    assert await press(game, alice, "run_twice") == t("error.already_voted")
    assert await press(game, bob, "run_twice") in ("table:", t("reply.voted_twice"))
    result = await game.wait_result(1)
    assert hand.second_board is not None and len(hand.second_board) == 5
    assert "Board, run 2:" in result.content and " on run 2" in result.content
    await invariant_holds(game)


async def test_anyone_saying_once_runs_it_once(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, run_it_twice="ask")
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    await both_all_in(game)
    await until(lambda: hand.run_choice_pending, what="the run-twice question")
    assert await press(game, bob, "run_once") in ("table:", t("reply.voted_once"))
    result = await game.wait_result(1)
    assert not hand.second_board and "Board, run 2:" not in result.content


async def test_nobody_answering_runs_it_once(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    deck = StackedDeck()
    options = replace(quick_options(deck), run_twice_vote=0.3)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice, bob = world.alice, world.bob
        await game.open_table(alice, bob, run_it_twice="ask")
        await game.ok(alice, "poker", "start")
        hand = await game.wait_hand(1)
        await both_all_in(game)
        await game.wait_result(1, timeout=10)
        assert not hand.second_board


async def test_always_runs_twice_without_asking(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, run_it_twice="always")
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    await both_all_in(game)
    await game.wait_result(1)
    assert hand.second_board is not None


# -- straddles --------------------------------------------------------------------------------


async def test_a_straddle_is_asked_for_by_button_and_posted_from_the_straddle_seat(
    game: Game,
) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await game.open_table(alice, bob, carol, straddle="utg")
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    for user in (alice, bob, carol):
        assert await press(game, user, "straddle_always") == t("reply.straddle_always_on")
    # Pressed again at once, it is the second click of a double click: still on.
    assert await press(game, alice, "straddle_always") == t("reply.straddle_always_on")
    await game.passive_round(1)
    hand = await game.wait_hand(2)
    straddle = hand.config.straddle_index
    assert straddle is not None and hand.config.blinds[straddle] == 20  # twice the big blind
    # The straddler acts last before the flop.
    live_table = game.live_table()
    assert live_table.table.hand_players[straddle] != live_table.player_of(hand.to_act)
    # Asking again, deliberately (later than a double click), stops it.
    await asyncio.sleep(DOUBLE_CLICK)
    assert await press(game, alice, "straddle_always") == t("reply.straddle_always_off")
    assert alice.id not in game.live_table().config.straddle_always


async def test_a_table_without_straddles_refuses_them(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    message = await table_now(game)
    assert not [c for c in message.custom_ids() if "straddle" in c]
    # Asked any other way, the table refuses all the same.
    with pytest.raises(BotError) as refused:
        await game.live_table().straddle(alice.id, always=False)
    assert refused.value.code == "straddle_off"


# -- bomb pots --------------------------------------------------------------------------------


async def test_the_host_orders_a_bomb_pot_for_the_next_hand(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await game.open_table(alice, bob, carol)
    refused = await game.slash(bob, "poker", "bomb", amount=50)
    assert refused.content == t("error.not_host")
    assert (await game.slash(alice, "poker", "bomb", amount=10**9)).content == t(
        "error.bomb_too_large", amount="1,000,000,000", maximum="1,000"
    )
    ordered = await game.ok(alice, "poker", "bomb", amount=50)
    assert ordered == t("reply.bomb_ordered", amount="50")
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    assert hand.config.bomb_pot and len(hand.board) == 3  # the flop at once
    assert hand.config.blinds == (50, 50, 50) and hand.total_pot() == 150
    await game.passive_round(1)
    second = await game.wait_hand(2)
    assert not second.config.bomb_pot  # once
    await invariant_holds(game)


async def test_a_bomb_pot_of_whole_stacks_is_run_out_before_its_result(game: Game) -> None:
    """Everyone all in at the deal: the hand's first table message is the run-out's first
    street (the flop, with each hand's chances), never the final board and the winner; the
    river and the result come after it."""
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, buy_in=200)
    await game.ok(alice, "poker", "bomb", amount=200)
    mark = game.fake.mark()
    await game.ok(alice, "poker", "start")
    result = await game.wait_result(1)
    await game.wait_idle()
    shown = [e for e in game.fake.events[mark:]
             if e.kind in ("create", "edit") and e.message.channel_id == game.channel.id
             and "Hand #1 ·" in e.message.content and e.index < result_index_of(game, result)]
    assert shown, "no table message before the result"
    first = shown[0]
    assert first.kind == "create"
    assert " to win" in first.message.content, first.message.content
    stored = await stored_hand_one(game)
    river = pretty_cards([stored.deck[board_positions(2)[4]]])
    assert river not in first.message.content, first.message.content
    assert "wins" not in first.message.content
    await invariant_holds(game)


def result_index_of(game: Game, result: FakeMessage) -> int:
    return next(e.index for e in game.fake.events if e.kind == "create" and e.message is result)


async def test_bomb_pots_every_few_hands(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob, bomb_every=2, bomb_amount=30)
    await game.ok(alice, "poker", "start")
    for number in (1, 2, 3, 4):
        hand = await game.wait_hand(number)
        assert bool(hand.config.bomb_pot) == (number % 2 == 0), number
        await game.passive_round(number)


# -- the rabbit -------------------------------------------------------------------------------


async def test_a_player_of_the_hand_hunts_the_rabbit_once_and_verify_opens_it(
    game: Game,
) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await game.open_table(alice, bob)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    await game.ok(await game.wait_turn(), "fold")
    result = await game.wait_result(1)
    rabbit = button_id(result, "rabbit")
    bystander = await settled(await game.fake.click(carol, result, rabbit))
    assert bystander.content == t("error.not_in_that_hand")
    mark = game.fake.mark()
    answer = await settled(await game.fake.click(bob, result, rabbit))
    assert answer.content == t("reply.rabbit")
    shown = await game.fake.wait_for_message(
        lambda m: "hunts the rabbit of hand #1" in m.content, channel=game.channel, after=mark
    )
    board = [hand.deck[p] for p in board_positions(2)]
    assert pretty_cards(board) in shown.content
    again = await settled(await game.fake.click(alice, result, rabbit))
    assert again.content == t("error.rabbit_shown")
    # Everybody saw the whole board now: verifying the hand opens all five positions.
    stored = await stored_hand_one(game)
    shown = verification(stored, carol.id)
    opened = {opening.position for opening in shown.public}
    assert set(board_positions(2)) <= opened


# -- sitting out the next big blind, new players ----------------------------------------------


async def test_a_player_sits_out_when_his_big_blind_comes(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await game.open_table(alice, bob, carol)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    live_table = game.live_table()
    # Three-handed, the button moves on one seat: this hand's button is the next big blind.
    due = int(live_table.table.hand_players[-1])
    skipper = next(u for u in (alice, bob, carol) if u.id == due)
    assert await game.ok(skipper, "poker", "sitout", next_big_blind=True) == t(
        "reply.skip_big_blind_on"
    )
    await game.passive_round(1)
    second = await game.wait_hand(2, timeout=10)
    # He was sat out instead of posting it, and is not dealt in.
    assert live_table.table.player(skipper.id).state is PlayerState.SITTING_OUT  # type: ignore[union-attr]
    assert skipper.id not in [int(p) for p in live_table.table.hand_players]
    assert second is not None


async def test_new_options_are_checked_like_the_others(game: Game) -> None:
    alice = game.world.alice
    bad = await game.slash(alice, "poker", "create", straddle="sideways")
    assert bad.ephemeral and bad.content == t("error.bad_option", option=t("label.straddle"))
    bad = await game.slash(alice, "poker", "create", new_players="deal_in")
    assert bad.content == t("error.bad_option", option=t("label.new_players"))
    bad = await game.slash(alice, "poker", "create", bomb_every=3, bomb_amount=7, big_blind=10,
                           small_blind=5, max_buy_in=5)
    assert bad.ephemeral
    assert not game.runtime.registry.cash_tables()
    ok = await game.ok(alice, "poker", "create", new_players="post_bb", run_it_twice="always")
    assert ok.startswith("Table open")
    options = game.live_table().table.options
    assert options.new_player.value == "post_bb" and options.run_it_twice.value == "always"
    assert (await tables.open_tables(game.db))[0].table_id == game.live_table().table_id
