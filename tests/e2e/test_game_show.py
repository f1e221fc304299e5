"""RULES 6: a player who wins without a showdown may choose to show, and nobody else can."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.i18n import t
from bot.presenter import cards_text
from tests.e2e.game_kit import Game, StackedDeck, quick_options, running_game
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def game(fake: FakeDiscord, world: World, tmp_path: Path) -> AsyncIterator[Game]:
    deck = StackedDeck()
    # A long pause before the next deal: the show button lives until then.
    options = quick_options(deck, next_hand_delay=30.0)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        yield game


async def test_uncontested_winner_may_show_and_nobody_else(game: Game) -> None:
    world, fake = game.world, game.fake
    alice, bob, carol = world.alice, world.bob, world.carol
    await game.poker(alice, "create", small_blind=5, big_blind=10)
    await game.poker(alice, "join", buy_in=1000)
    await game.poker(bob, "join", buy_in=1000)
    await game.poker(bob, "start")
    hand = await game.wait_hand(1)
    live_table = game.live_table()
    first = await game.wait_turn()
    loser = bob if first is alice else alice
    index = live_table.table.hand_index(first.id)
    assert index is not None
    winner_cards = cards_text(hand.hole_cards(index))
    await game.ok(first, "raise", to=30)
    await game.ok(loser, "fold")
    result = await game.wait_result(1)
    show_id = f"poker:{live_table.table_id}:show@1.0"
    assert show_id in result.custom_ids()
    assert winner_cards not in result.content  # nothing is shown unless he chooses

    refused = await (await fake.click(loser, result, show_id)).response()
    assert refused.ephemeral and refused.content == t("error.cannot_show_folded")
    stranger = await (await fake.click(carol, result, show_id)).response()
    assert stranger.ephemeral and stranger.content == t("error.nothing_to_show")

    mark = fake.mark()
    shown = await (await fake.click(first, result, show_id)).response()
    assert shown.ephemeral and shown.content == t("reply.shown")
    public = await fake.wait_for_message(
        lambda m: f"{first.mention} shows" in m.content, channel=game.channel, after=mark,
        kinds=("create",),
    )
    assert winner_cards in public.content
    again = await (await fake.click(first, result, show_id)).response()
    assert again.content == t("error.already_shown")
