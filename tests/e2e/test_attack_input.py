"""Buttons, forms and names from users: a double click acts once, odd text in the raise form gets
a clear answer, and a display name cannot ping anyone or hide a link (issue 10, defects 7, 10
and 12)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.i18n import t
from bot.runtime.play import DOUBLE_CLICK
from engine.hand import ActionKind, ActionTaken, PreAction
from tests.e2e.game_kit import Game, button_id, press_answer, running_game
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(60)


async def heads_up(game: Game, stacks: int = 1000) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.ok(alice, "poker", "create", small_blind=5, big_blind=10, max_buy_in=5000)
    await game.ok(alice, "poker", "join", buy_in=stacks)
    await game.ok(bob, "poker", "join", buy_in=stacks)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)


async def test_a_double_click_on_a_pre_selection_sets_it_once(game: Game) -> None:
    """A pre-selection toggles: a double click on "Call any" used to set it and take it back.
    Now the second click of a double click keeps it; a deliberate press later cancels it."""
    await heads_up(game)
    live_table = game.live_table()
    hand = live_table.hand
    assert hand is not None
    first = await game.wait_turn()
    waiting = game.world.bob if first is game.world.alice else game.world.alice
    message = await game.turn_message(first, 1)
    call_any = button_id(message, "pre_call_any")
    presses = await asyncio.gather(
        game.fake.click(waiting, message, call_any), game.fake.click(waiting, message, call_any)
    )
    answers = [await press_answer(p) for p in presses]
    assert answers == [t("preselect.call_any")] * 2, answers
    index = live_table.table.hand_index(waiting.id)
    assert index is not None
    chosen = hand.preselected.get(index)
    assert chosen is not None and chosen[0] is PreAction.CALL_ANY
    await asyncio.sleep(DOUBLE_CLICK)
    again = await press_answer(await game.fake.click(waiting, message, call_any))
    assert again == t("preselect.none") and index not in hand.preselected, again


async def test_a_double_click_acts_on_one_decision_only(game: Game) -> None:
    """Heads-up, the big blind double-clicks Check: he checks pre-flop, and the second click,
    drawn for that same decision, cannot check for him on the flop."""
    await heads_up(game)
    live_table = game.live_table()
    hand = live_table.hand
    assert hand is not None
    button = await game.wait_turn()
    await game.ok(button, "call")
    big_blind = await game.wait_turn()
    assert big_blind is not button
    message = await game.turn_message(big_blind, 1)
    check = button_id(message, "check")
    presses = await asyncio.gather(
        game.fake.click(big_blind, message, check), game.fake.click(big_blind, message, check)
    )
    answers = sorted([await press_answer(p) for p in presses])
    # One press checked, answered by the table message showing it; the other acted on nothing.
    assert answers[0] == t("error.already_acted"), answers
    assert answers[1] == "table: " + t(
        "table.last_action", action=t("action.check", player=big_blind.name)
    ), answers
    # One check, pre-flop; on the flop the big blind (first to act heads-up) still decides.
    checks = [
        e for e in hand.events
        if isinstance(e, ActionTaken) and e.kind is ActionKind.CHECK
        and live_table.player_of(e.player) == big_blind.id
    ]
    assert len(checks) == 1 and hand.board and live_table.player_of(hand.to_act) == big_blind.id


@pytest.mark.parametrize(
    ("typed", "reply"),
    [
        ("²", t("error.amount_not_whole", option="amount")),
        ("①", t("error.amount_not_whole", option="amount")),
        ("--5", t("error.amount_not_whole", option="amount")),
        ("0.99999999999999999", t("error.amount_not_whole", option="amount")),
        ("1e3", t("error.amount_not_whole", option="amount")),
        ("-40", t("error.amount_not_positive", option="amount")),
        ("2.5k", "raises to 2,500"),
        ("1,000", "raises to 1,000"),
    ],
)
async def test_odd_text_in_the_raise_form_gets_a_clear_answer(
    game: Game, typed: str, reply: str
) -> None:
    await heads_up(game, stacks=5000)
    turn = await game.wait_turn()
    message = await game.turn_message(turn, 1)
    press = await game.fake.click(turn, message, button_id(message, "raise_modal"))
    opener = await press.response()
    assert opener.is_modal and opener.custom_id
    submitted = await game.fake.submit_modal(turn, opener.custom_id, {"amount": typed})
    answer = await press_answer(submitted)
    if answer.startswith("table: "):  # accepted: the table message shows the raise
        assert answer.endswith(f"{turn.name} {reply}"), (typed, answer)
    else:
        assert answer == reply, (typed, answer)


async def test_a_display_name_can_neither_ping_nor_hide_a_link(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    carol = world.carol
    world.alice.global_name = f"<@{carol.id}> [free](https://x.y)"[:32]
    async with running_game(fake, world, tmp_path) as game:
        alice, bob = world.alice, world.bob
        await game.ok(bob, "poker", "create")
        await game.ok(alice, "poker", "join", buy_in=1000)
        await game.ok(bob, "poker", "join", buy_in=1000)
        await game.ok(bob, "poker", "start")
        hand = await game.wait_hand(1)
        while not hand.is_over:
            user = await game.wait_turn()
            legal = hand.legal()
            assert legal is not None
            await game.ok(user, "check" if legal.can_check else "call")
        await game.wait_result(1)
        await game.wait_idle()
    names_written = [
        e.message for e in fake.events
        if e.message.channel_id == game.channel.id and not e.message.ephemeral
        and "free" in e.message.content
    ]
    assert names_written, "the name appears in the table's messages"
    for message in names_written:
        assert f"<@{carol.id}>" not in message.content
        assert not re.search(r"(?<!\\)\[free\]\(https://x\.y\)", message.content)
    for event in fake.events:
        message = event.message
        if message.channel_id != game.channel.id or message.ephemeral:
            continue
        # A table message may ping the player to act, and nobody else; nothing else pings.
        assert carol.id not in message.pinged_user_ids
        assert len(message.pinged_user_ids) <= 1
        if not message.content.startswith("**Texas Hold'em**"):
            assert not message.pinged_user_ids, message.content
