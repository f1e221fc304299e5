"""The floor cannot take chips: a host's kick and a player's leave decide who plays the hand,
never who wins it (issue 10, defects 1 and 11)."""

from __future__ import annotations

import pytest

from bot.i18n import t
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    Game,
    button_id,
    settled,
    total_chips,
)

pytestmark = pytest.mark.timeout(60)


async def test_a_kick_during_a_hand_never_folds_the_kicked_players_bet(game: Game) -> None:
    """Heads-up, Alice raises to 500 and the host Bob kicks her: she plays the hand out (RULES 8:
    a player is removed between hands), so Bob's raise cannot win her 500 by a forced fold."""
    alice, bob = game.world.alice, game.world.bob
    await game.ok(bob, "poker", "create", small_blind=5, big_blind=10, max_buy_in=5000)
    await game.ok(alice, "poker", "join", buy_in=5000)
    await game.ok(bob, "poker", "join", buy_in=5000)
    await game.ok(bob, "poker", "start")
    await game.wait_hand(1)
    if await game.wait_turn() is bob:
        await game.ok(bob, "call")
    assert await game.wait_turn() is alice
    await game.ok(alice, "raise", to=500)
    assert await game.wait_turn() is bob

    kicked = await game.ok(bob, "poker", "kick", user=alice)
    assert kicked == t("reply.kicked_after_hand", player=alice.mention)
    hand = game.hand
    assert hand is not None
    index = game.live_table().table.hand_index(alice.id)
    assert index is not None and not hand.folded[index] and index not in hand.preselected

    await game.ok(bob, "raise", to=1500)
    # Her hand is still hers: it is her decision now, and her call stands.
    assert not hand.is_over and await game.wait_turn() is alice
    assert (await game.ok(alice, "call")).startswith("You called")
    await game.passive_round(1)
    await game.wait_result(1)
    live_table = game.live_table()
    assert live_table.table.seat_of(alice.id) is None  # removed once the hand ended
    assert hand.result is not None
    final = hand.result.stacks[index]
    assert await game.balance(alice) == STARTING_BALANCE - 5000 + final
    wallets, seats, in_hands = await total_chips(game.db, game.world.guild.id)
    assert wallets + seats + in_hands == 2 * STARTING_BALANCE


async def test_a_player_who_left_cannot_take_back_his_fold(game: Game) -> None:
    """Carol leaves while Alice is to act: her hand is folded when her turn comes, and nothing
    she presses afterwards (call any, check/fold, a slash command) brings it back."""
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await game.ok(alice, "poker", "create")
    for user in (alice, bob, carol):
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    live_table = game.live_table()
    # Wait for a turn that is not Carol's, then she leaves.
    turn = await game.wait_turn()
    if turn is carol:
        legal = hand.legal()
        assert legal is not None
        await game.ok(carol, "check" if legal.can_check else "call")
        turn = await game.wait_turn()
    assert turn is not carol
    assert await game.ok(carol, "poker", "leave") == t("reply.leaving_after_hand")
    index = live_table.table.hand_index(carol.id)
    assert index is not None

    await game.wait_idle()
    message = game.fake.message(live_table.message_id)  # type: ignore[arg-type]
    for action in ("pre_call_any", "pre_check_fold"):
        press = await settled(await game.fake.click(carol, message, button_id(message, action)))
        assert press.ephemeral and press.content == t("error.left_the_table")
    for command in ("call", "check", "allin"):
        refused = await game.slash(carol, command)
        assert refused.ephemeral and refused.content in (
            t("error.left_the_table"),
            t("error.not_your_turn"),
        )

    # Play on: when her turn comes, her fold is what happens.
    while not hand.is_over:
        user = await game.wait_turn()
        legal = hand.legal()
        assert legal is not None and user is not carol
        await game.ok(user, "check" if legal.can_check else "call")
    assert hand.folded[index]
    await game.wait_result(1)
    assert live_table.table.seat_of(carol.id) is None
    wallets, seats, in_hands = await total_chips(game.db, game.world.guild.id)
    assert wallets + seats + in_hands == 3 * STARTING_BALANCE


async def test_a_kicked_player_cannot_undo_the_kick(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await game.ok(alice, "poker", "create")
    for user in (alice, bob, carol):
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    await game.ok(alice, "poker", "kick", user=carol)
    for command in ("sitin", "sitout", "leave"):
        refused = await game.slash(carol, "poker", command)
        assert refused.ephemeral and refused.content in (
            t("error.leaving"),
            t("error.not_sitting_out"),
        ), (command, refused.content)
    refused = await game.slash(carol, "poker", "rebuy", amount=100)
    assert refused.ephemeral and refused.content == t("error.rebuy_in_hand")
    await game.passive_round(1)
    await game.wait_result(1)
    assert game.live_table().table.seat_of(carol.id) is None
