"""``/tournament create`` over the fake Discord: each refusal states the limit that really
applies, in the words the host reads, and names the option (or the pair of options) to change.
Settings a table could not play later (a level whose big blind no table takes, a preset too deep
for its stack, more chips in play than the chip limit) are refused here, at creation."""

from __future__ import annotations

import pytest

from bot.i18n import t
from engine.limits import MAX_CHIPS
from tests.e2e.game_kit import Game
from tests.e2e.tournament_kit import tournament, tournament_of
from tests.fakediscord import FakeChannel

pytestmark = pytest.mark.timeout(120)

BASE = {"name": "T", "kind": "freeze_out", "buy_in": 100, "starting_stack": 1000,
        "structure": "10/20"}


async def create(game: Game, **options: object) -> str:
    return await tournament(game, game.world.alice, "create", **{**BASE, **options})


async def test_stack_times_players_is_named(game: Game) -> None:
    # Every option within its own limit; the product of two is not.
    reply = await create(game, starting_stack=MAX_CHIPS, max_players=6)
    assert reply == t("error.tournament_chips_too_large", stack="1,000,000,000,000", players=6,
                      maximum="1,000,000,000,000")
    assert "starting stack × the number of players" in reply
    reply = await create(game, buy_in=MAX_CHIPS // 5, max_players=6)
    assert reply == t("error.tournament_pool_too_large", amount="200,000,000,000", players=6,
                      maximum="1,000,000,000,000")
    assert tournament_of(game) is None


async def test_a_level_no_table_can_play_is_refused_naming_it(game: Game) -> None:
    reply = await create(game, starting_stack=100_000_000_000, max_players=2,
                         structure="1/2 0.1, 10000000000/20000000000 30")
    assert reply == t("error.structure_big_blind_too_large", level=2,
                      amount="20,000,000,000", maximum="10,000,000,000")
    reply = await create(game, starting_stack=10_000_000_000, max_players=2,
                         structure="regular")
    assert reply == t("error.preset_stack_too_large", name="regular",
                      stack="10,000,000,000", maximum="2,100,000,000")
    assert tournament_of(game) is None


async def test_a_freeroll_is_allowed_and_a_negative_buy_in_says_so(game: Game) -> None:
    reply = await create(game, buy_in=-1)
    assert reply == t("error.amount_negative", option=t("label.buy_in"))
    assert "more than zero" not in reply
    # Level minutes: the refusal states the range really accepted, from 0.1 to 240.
    for minutes in (0.05, 240.5):
        reply = await create(game, level_minutes=minutes, structure="regular")
        assert reply == t("error.out_of_range", option=t("label.level_minutes"),
                          minimum="0.1", maximum="240")
    reply = await create(game, buy_in=0, level_minutes=0.5, structure="regular")
    assert reply.startswith("Tournament **"), reply
    live = tournament_of(game)
    assert live is not None and live.state.config.buy_in == 0
    assert live.state.config.levels[0].minutes == 0.5


async def test_an_end_too_far_ahead_says_how_far_it_may_be(game: Game) -> None:
    hundred_years = "<t:4900000000:f>"
    reply = await create(game, kind="time_limited", ends_at=hundred_years)
    assert reply == t("error.time_too_far", option=t("label.ends_at"), days=366)
    reply = await create(game, starts_at=hundred_years)
    assert reply == t("error.time_too_far", option=t("label.starts_at"), days=366)
    assert tournament_of(game) is None


async def test_tournaments_count_against_the_servers_table_limits(game: Game) -> None:
    """An open tournament is one of its host's tables (2 by default): the third of one member
    is refused, with no tournament opened, whether it would be a tournament or a cash table."""
    alice = game.world.alice
    guild = game.world.guild
    rooms = [FakeChannel(f"room{k}") for k in range(2)]
    for channel in rooms:
        channel.guild_id = guild.id
        guild.channels.append(channel)
        game.fake.channels[channel.id] = channel
    assert (await create(game)).startswith("Tournament **")
    reply = await tournament(game, alice, "create", rooms[0], **{**BASE, "name": "Second"})
    assert reply.startswith("Tournament **"), reply
    reply = await tournament(game, alice, "create", rooms[1], **{**BASE, "name": "Third"})
    assert reply == t("error.too_many_hosted", maximum=2)
    assert tournament_of(game, rooms[1]) is None
    refused = await game.slash(alice, "poker", "create", channel=rooms[1])
    assert refused.content == t("error.too_many_hosted", maximum=2)
