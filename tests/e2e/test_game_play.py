"""Whole hands over the fake Discord: slash commands, buttons, DMs, closed DMs, leaving."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.i18n import t
from engine.cards import parse_cards, pretty_cards
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    Game,
    button_id,
    press_answer,
    running_game,
    settled,
    total_chips,
    until,
)
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord, FakeMessage

pytestmark = pytest.mark.timeout(60)

CARDS_IN_DM = re.compile(r"Hand #(\d+) · Your cards: (\S+ \S+)")


def dm_cards(game: Game, message: FakeMessage) -> tuple[int, str]:
    match = CARDS_IN_DM.search(message.content)
    assert match, message.content
    return int(match[1]), match[2]


async def test_three_players_play_whole_hands_by_slash_commands(game: Game) -> None:
    world, fake = game.world, game.fake
    alice, bob, carol = world.alice, world.bob, world.carol
    created = await game.poker(alice, "create", small_blind=5, big_blind=10)
    assert created.ephemeral and "blinds 5/10" in created.content
    table = await game.table_message()
    assert table.attachment("table.png").open_image().format == "PNG"

    for user, buy_in in ((alice, 1000), (bob, 800), (carol, 600)):
        reply = await game.poker(user, "join", buy_in=buy_in)
        assert reply.ephemeral and f"with {buy_in:,} chips" in reply.content
    assert await total_chips(game.db, world.guild.id) == (3 * STARTING_BALANCE - 2400, 2400, 0)

    mark = fake.mark()
    started = await game.poker(alice, "start")
    assert started.content == t("reply.started")
    hand = await game.wait_hand(1)

    # Hole cards by DM, as an image with alt text and as text; never in the channel.
    for user in (alice, bob):
        dm = await fake.wait_for_message(channel=user, after=mark, timeout=20)
        number, cards = dm_cards(game, dm)
        index = game.live_table().table.hand_index(user.id)
        assert number == 1 and cards == pretty_cards(hand.hole_cards(index))
        image = dm.attachment("cards.png")
        assert image.open_image().format == "PNG" and image.description
    # Carol's DMs are closed: the channel says so once, and she uses "My cards".
    notice = t("error.dm_closed_notice", user=carol.mention)
    await fake.wait_for_message(lambda m: m.content == notice, channel=game.channel, timeout=20)
    mine = await game.poker(carol, "cards")
    assert mine.ephemeral and mine.attachments[0].open_image().format == "PNG"
    carol_index = game.live_table().table.hand_index(carol.id)
    assert pretty_cards(hand.hole_cards(carol_index)) in mine.content

    # The table message names the player to act and the deadline as a Discord timestamp.
    first = await game.wait_turn()
    message = await game.turn_message(first, 1)
    assert re.search(r"<t:\d+:R>", message.content)
    assert f"`{game.live_table().commitment.root_hex}`" in message.content  # type: ignore[union-attr]
    assert "poker:" in message.custom_ids()[0]

    await game.passive_round(1)
    result = await game.wait_result(1)
    assert result.attachment("table.png").open_image().size == (1280, 800)
    assert "wins" in result.content and "/history verify hand:1" in result.content

    # Hand 2 is dealt by itself; Carol is not told again that her DMs are closed.
    await game.wait_hand(2)
    await game.passive_round(2)
    await game.wait_result(2)
    notices = [m for m in fake.messages_in(game.channel) if m.content == notice]
    assert len(notices) == 1

    wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
    assert wallets + seats + in_hands == 3 * STARTING_BALANCE

    # Hidden cards never reached the channel: only shown hands appear there.
    hidden = []
    for user in (alice, bob):
        for dm in fake.dm_messages(user):
            number, cards = dm_cards(game, dm)
            if number > 2:
                continue  # hand 3 is being dealt meanwhile
            result_text = next(
                m.content for m in fake.messages_in(game.channel)
                if m.content.startswith(f"**Hand #{number}: result**")
            )
            if f"{user.name} shows" not in result_text:
                hidden.append(cards)
    public = "\n".join(m.content for m in fake.messages_in(game.channel) if not m.ephemeral)
    for cards in hidden:
        assert cards not in public

    # Everyone leaves between hands (or when the hand ends): every chip is back in a wallet.
    await game.poker(alice, "pause")
    if game.hand is not None:  # hand 3 was dealt before the pause: play it out
        await game.passive_round(game.live_table().table.hand_number)
    await until(lambda: game.live_table().hand is None, what="the hand to end")
    for user in (alice, bob, carol):
        reply = await game.poker(user, "leave")
        assert reply.ephemeral and "went back to your wallet" in reply.content
    assert await total_chips(game.db, world.guild.id) == (3 * STARTING_BALANCE, 0, 0)


async def test_a_hand_played_with_buttons_and_the_raise_form(game: Game) -> None:
    world, fake = game.world, game.fake
    alice, bob = world.alice, world.bob
    await game.poker(alice, "create", small_blind=5, big_blind=10, min_buy_in=100,
                     max_buy_in=1000)
    await game.poker(alice, "join", buy_in=1000)
    await game.poker(bob, "join", buy_in=1000)
    await game.poker(bob, "start")
    await game.wait_hand(1)
    live_table = game.live_table()

    first = await game.wait_turn()
    other = bob if first is alice else alice
    table = await game.turn_message(first, 1)
    labels = {c["custom_id"]: c.get("label") for c in table.walk_components() if "custom_id" in c}
    tid = live_table.table_id
    # Action buttons name the hand and decision they were drawn for.
    assert labels[f"poker:{tid}:call@1.0"] == "Call 5"
    assert labels[f"poker:{tid}:raise@1.0:20"] == "Min 20"
    assert labels[f"poker:{tid}:cards"] == "My cards"

    # "My cards" answers privately with the image.
    cards = await settled(await fake.click(other, table, button_id(table, "cards")))
    assert cards.ephemeral and cards.attachments and cards.content.startswith("Your cards")

    # The player not to act pre-selects "check/fold".
    pre = await (await fake.click(other, table, button_id(table, "pre_check_fold"))).response()
    assert pre.ephemeral and pre.content == t("preselect.check_fold")

    # The button raises to the minimum; the pre-selection then folds the other player.
    # A press is answered by the table message itself, updated to show what it did (here the
    # raise and the fold it brought, which ended the hand).
    raised = await press_answer(await fake.click(first, table, button_id(table, "raise", 20)))
    assert raised.startswith("table: ") and t("table.hand_over") in raised, raised
    result = await game.wait_result(1)
    assert f"{first.name} wins 20 from the pot" in result.content
    assert not fake.message(table).custom_ids()  # buttons removed from a finished hand

    # Hand 2: call with the button, then a custom raise through the form.
    await game.wait_hand(2)
    first = await game.wait_turn()
    other = bob if first is alice else alice
    table = await game.turn_message(first, 2)
    called = await press_answer(await fake.click(first, table, button_id(table, "call")))
    assert called == "table: " + t("table.last_action", action=f"{first.name} calls 5")
    table = await game.turn_message(other, 2)
    # The host pauses: hand 2 plays out and hand 3 waits, so the chips can be counted at rest
    # (on a busy machine hand 3 used to be dealt before the result was read).
    await game.ok(alice, "poker", "pause")
    opened = await (await fake.click(other, table, button_id(table, "raise_modal"))).response()
    assert opened.is_modal and opened.custom_id == f"raise:{tid}:{other.id}:2.1"
    mark = fake.mark()
    submitted = await fake.submit_modal(other, f"raise:{tid}:{other.id}:2.1", {"amount": "45"})
    assert await press_answer(submitted) == "table: " + t(
        "table.last_action", action=f"{other.name} raises to 45"
    )
    table = await game.turn_message(first, 2, after=mark)
    # A double click: one fold is taken, the other is refused, and the table is intact.
    fold = button_id(table, "fold")
    presses = [await fake.click(first, table, fold) for _ in range(2)]
    answers = [await press_answer(p) for p in presses]
    # The fold ends the hand: its press is answered by the table showing the hand over.
    folded = [a for a in answers if a.startswith("table: ") and t("table.hand_over") in a]
    assert len(folded) == 1, answers
    # The other press was for a decision already made: it never acts again.
    (other_answer,) = (a for a in answers if a not in folded)
    assert other_answer in (t("error.already_acted"), t("error.no_hand"),
                            t("error.stale_message"))
    result = await game.wait_result(2)
    assert f"{other.name} wins 20 from the pot" in result.content
    # The next hand may be dealt already: its chips are on the table either way.
    wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
    assert (wallets, seats + in_hands) == (2 * STARTING_BALANCE - 2000, 2000)


async def test_hole_cards_are_dealt_by_dm_with_a_link_back(game: Game) -> None:
    world, fake = game.world, game.fake
    await game.poker(world.alice, "create")
    await game.poker(world.alice, "join")
    await game.poker(world.bob, "join")
    mark = fake.mark()
    await game.poker(world.alice, "start")
    hand = await game.wait_hand(1)
    dm = await fake.wait_for_message(channel=world.bob, after=mark, timeout=20)
    assert f"/channels/{world.guild.id}/{game.channel.id}" in dm.content
    index = game.live_table().table.hand_index(world.bob.id)
    first, second = (c for c in hand.hole_cards(index))
    attachment = dm.attachment("cards.png")
    assert attachment.description and "Your cards" in attachment.description
    assert pretty_cards([first, second]) in dm.content
    assert parse_cards("As")  # the catalog's card symbols are the engine's


async def test_whole_hands_on_postgresql(
    fake: FakeDiscord, world: World, tmp_path: Path, postgres_url: str
) -> None:
    """The same bot on the shared store: a table, two players, hands to their results, and
    every chip where the ledger says (the storage tests run on both backends; this is the whole
    bot on PostgreSQL)."""
    async with running_game(fake, world, tmp_path, database_url=postgres_url) as game:
        assert game.db.backend == "postgresql"
        alice, bob = world.alice, world.bob
        await game.open_table(alice, bob)
        await game.ok(alice, "poker", "start")
        for number in (1, 2):
            await game.wait_hand(number)
            await game.passive_round(number)
            await game.wait_result(number)
        wallets, seats, in_hands = await total_chips(game.db, world.guild.id)
        assert wallets + seats + in_hands == 2 * STARTING_BALANCE
