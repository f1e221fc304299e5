"""Bigger fields over the fake Discord: nine players at one table, and thirty over four threads
that balance and break down to a final table. After each: prizes add up to the pool, the
ledger invariant holds, and every player has exactly one place."""

from __future__ import annotations

import pytest

from tests.e2e.game_kit import Game
from tests.e2e.harness import World
from tests.e2e.tournament_kit import (
    Players,
    assert_no_hidden_card_in_public,
    assert_settled,
    big_world,
    create,
    members,
    quiet,
    register,
    wait_over,
)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def world() -> World:
    return big_world(27)


async def test_nine_players_at_one_table(game: Game) -> None:
    field = members(game.world)[:9]
    live = await create(game, field[0], seats_per_table=9, max_players=9)
    await register(game, *field)
    await game.ok(field[0], "tournament", "start")
    assert len(live.tables) == 1 and live.tables[1].channel_id == game.channel.id
    await Players(game, live, seed=9).play_until(lambda: live.closed)
    info = await wait_over(game, live)
    await assert_settled(game, info)
    assert game.fake.threads_of(game.channel) == []
    # Places and prizes as the engine ranked them (50 / 30 / 20 % of 900, shared on ties).
    assert {(int(s.player_id), s.place, s.prize) for s in live.state.standings} == {
        (e.user_id, e.place, e.prize) for e in info.entries
    }
    assert await assert_no_hidden_card_in_public(game, live)


async def test_thirty_players_over_four_threads_down_to_a_final_table(game: Game) -> None:
    field = members(game.world)[:30]
    live = await create(game, field[0], seats_per_table=8, max_players=30)
    await register(game, *field)
    await game.ok(field[0], "tournament", "start")
    threads = game.fake.threads_of(game.channel)
    assert len(threads) == 4 and sorted(live.tables) == [1, 2, 3, 4]
    assert {t.channel_id for t in live.tables.values()} == {t.id for t in threads}
    sizes = sorted(len(t.table.seats()) for t in live.tables.values())
    assert sizes == [7, 7, 8, 8]
    await Players(game, live, seed=30).play_until(lambda: live.closed, timeout=240)
    info = await wait_over(game, live)
    await assert_settled(game, info)
    await quiet(live)
    # Tables were broken on the way down, and each broken thread was told and archived.
    broken = [t for t in threads if any("is broken" in m.content
                                         for m in game.fake.messages_in(t))]
    assert len(broken) >= 3
    # Every player moved was told by DM (his DMs open) and in both threads.
    moved_out = [m for t in threads for m in game.fake.messages_in(t)
                 if " moves to table " in m.content]
    moved_in = [m for t in threads for m in game.fake.messages_in(t)
                if " joins from table " in m.content]
    assert moved_out and len(moved_out) == len(moved_in)
    # A table's break moved its players: they were told it broke, not that the tables were
    # being balanced.
    assert any(m.content.endswith(": this table is broken.") for m in moved_out)
    dms = [m for user in field if user.dms_open for m in game.fake.dm_messages(user)
           if "you move to table" in m.content]
    assert dms
    final = [m for m in game.fake.messages_in(game.channel) if "Final table!" in m.content]
    assert len(final) == 1
    assert await assert_no_hidden_card_in_public(game, live)
