"""An all-in run-out over the fake Discord (issue 13, all-in equity): once nobody can bet, the
table message shows every live hand's chances street by street, on the image and in words,
each street held for ``runout_pause``, and only then the result. The figures are counted
off the event loop; the press that closed the betting is still answered in time."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.i18n import t
from bot.render.labels import format_percent
from engine.cards import parse_cards, pretty_cards
from engine.equity import equity
from engine.table import TableOptions
from tests.e2e.game_kit import (
    Game,
    StackedDeck,
    button_id,
    press_answer,
    quick_options,
    running_game,
    seat_order,
    stack_deck,
    total_chips,
)
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord, FakeMessage

pytestmark = pytest.mark.timeout(90)

SEED = 20261201
HOLES = {"alice": "AsAh", "bob": "KsKh"}
BOARD = "2c 7d 9h 4s 5d"


async def heads_up_all_in(
    fake: FakeDiscord, world: World, tmp_path: Path, pause: float
) -> tuple[list[FakeMessage], FakeMessage, str]:
    """Alice (aces) and Bob (kings) all in before the flop; the table message's versions
    from the all-in to the result, the result, and what the caller's press was answered."""
    alice, bob = world.alice, world.bob
    seats = {alice.id: 1, bob.id: 2}
    options = TableOptions(small_blind=5, big_blind=10, min_buy_in=100, max_buy_in=1000, seats=2)
    deck = StackedDeck()
    holes = {alice.id: HOLES["alice"], bob.id: HOLES["bob"]}
    deck.push(stack_deck(seat_order(options, seats, SEED), holes, BOARD))
    run = quick_options(deck, runout_pause=pause)
    async with running_game(fake, world, tmp_path, deck=deck, options=run, seed=SEED) as game:
        await game.ok(alice, "poker", "create", min_buy_in=100, max_buy_in=1000, seats=2)
        await game.ok(alice, "poker", "join", buy_in=1000, seat=1)
        await game.ok(bob, "poker", "join", buy_in=1000, seat=2)
        await game.ok(alice, "poker", "start")
        await game.wait_hand(1)
        first = await game.wait_turn()
        await game.ok(first, "allin")
        second = await game.wait_turn()
        mark = fake.mark()
        table = await table_message(game)
        answer = await press_answer(await fake.click(second, table, button_id(table, "call")))
        result = await game.wait_result(1)
        versions = [
            e.message for e in fake.events[mark:]
            if e.kind == "edit" and e.message.id == table.id and e.index < result_index(fake)
        ]
        await total_chips(game.db, world.guild.id)
        return versions, result, answer


async def table_message(game: Game) -> FakeMessage:
    await game.wait_idle()
    message_id = game.live_table().messenger.message_id
    assert message_id is not None
    return game.fake.message(message_id)


def result_index(fake: FakeDiscord) -> int:
    return next(e.index for e in fake.events
                if e.kind == "create" and e.message.content.startswith("**Hand #1: result**"))


def chances_in(content: str) -> dict[str, str]:
    """Player name -> the "to win" figure said for him."""
    found = {}
    for line in content.split("\n"):
        said = line.split(" to win")[0]
        if said != line and ": " in said:
            name, figure = said.rsplit(": ", 1)
            found[name] = figure
    return found


def expected_chances(board: str) -> dict[str, str]:
    figures = equity([parse_cards(HOLES["alice"]), parse_cards(HOLES["bob"])], parse_cards(board))
    return {name: format_percent(hand.win, figures.exact)
            for name, hand in zip(("alice", "bob"), figures.hands, strict=True)}


async def test_the_run_out_shows_each_streets_chances_before_the_result(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    versions, result, answer = await heads_up_all_in(fake, world, tmp_path, pause=0.0)
    assert answer.startswith("table: ")
    streets = [v for v in versions if chances_in(v.content)]
    boards = ["", "2c 7d 9h", "2c 7d 9h 4s"]
    assert len(streets) == len(boards), "\n----\n".join(v.content for v in versions)
    for version, board in zip(streets, boards, strict=True):
        assert chances_in(version.content) == expected_chances(board), version.content
        if board:
            assert t("table.board", cards=pretty_cards(parse_cards(board))) in version.content
        else:
            assert "Board" not in version.content
        # The same figures on the image's description, for screen readers.
        alt = version.attachment("table.png").description or ""
        for figure in expected_chances(board).values():
            assert figure in alt, alt
        # Nobody can act during the run-out: no buttons to press.
        assert not version.custom_ids()
    # The tabled hands were face up from the all-in on; the result names the winner.
    assert "alice wins" in result.content


async def test_the_press_that_closes_the_betting_is_answered_before_the_pauses(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """Three streets held 1.5 s each outlast Discord's 3 s deadline: the caller's press must be
    answered by the first street's edit, not by the table after the run-out."""
    versions, result, answer = await heads_up_all_in(fake, world, tmp_path, pause=1.5)
    assert answer.startswith("table: ")
    assert len([v for v in versions if chances_in(v.content)]) == 3
    assert "alice wins" in result.content
