"""Whole tournaments over the fake Discord, from registration to prizes."""

from __future__ import annotations

import pytest

from tests.e2e.game_kit import STARTING_BALANCE, Game
from tests.e2e.tournament_kit import (
    Players,
    always_all_in,
    assert_settled,
    create,
    register,
    wait_over,
)

pytestmark = pytest.mark.timeout(180)


async def test_heads_up_from_registration_to_the_prize(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    runner = await create(game, alice)
    await register(game, alice, bob)
    assert await game.balance(alice) == STARTING_BALANCE - 100
    await game.ok(alice, "tournament", "start")
    players = Players(game, runner, policy=always_all_in)
    await players.play_until(lambda: runner.closed)
    info = await wait_over(game, runner)
    await assert_settled(game, info)
    winner = next(e for e in info.entries if e.place == 1)
    loser = next(e for e in info.entries if e.place == 2)
    assert (winner.prize, loser.prize) == (200, 0)
    assert await game.balance(game.fake.users[winner.user_id]) == STARTING_BALANCE + 100
    result = await game.fake.wait_for_message(lambda m: "**Friday** is over" in m.content,
                                              channel=game.channel, timeout=20)
    assert f"Winner: <@{winner.user_id}>" in result.content
