"""``/league`` over the fake Discord, the worst member first: names that would ping or break a
line, points nobody can compute, another server's league, a bystander closing a league or
counting his own tournament toward it, and a practice tournament in a league are each refused
with their sentence and change nothing; the standings come as an image and as text."""

from __future__ import annotations

import pytest

from bot.i18n import t
from bot.storage import economy, leagues, tournaments
from tests.e2e.game_kit import Game, settled
from tests.e2e.tournament_kit import tournament, tournament_of
from tests.fakediscord import FakeUser
from tests.fakediscord.interactions import InteractionCallback

pytestmark = pytest.mark.timeout(120)

TOURNAMENT = {"name": "Night", "kind": "freeze_out", "buy_in": 100, "starting_stack": 1000,
              "structure": "10/20"}


async def league(game: Game, who: FakeUser, subcommand: str, **options: object) -> str:
    reply = await standings(game, who, subcommand, **options)
    return reply.content


async def standings(game: Game, who: FakeUser, subcommand: str,
                    **options: object) -> InteractionCallback:
    handle = await game.fake.slash(who, game.channel, "league", subcommand=subcommand,
                                   options=options)
    reply = await settled(handle)
    assert reply.ephemeral, reply
    return reply


async def test_names_that_ping_or_break_a_line_are_refused(game: Game) -> None:
    bob = game.world.bob
    refusal = t("error.bad_league_name", maximum=50)
    for name in ("@everyone", "<@123456789012345678>", "**Spring**", "Spring\u202e2026",
                 "#general", "Spring `2026`", "Z\u0334\u0335\u0336", "||spoiler||",
                 "a > b", "\u200b"):
        assert await league(game, bob, "create", name=name) == refusal, name
    assert await leagues.list_leagues(game.db, game.world.guild.id) == []
    reply = await league(game, bob, "create", name="  Spring   2026 ", points="flat")
    assert reply == t("reply.league_created", league="Spring 2026",
                      points=t("league.rule.flat"))


async def test_points_nobody_can_compute_are_refused(game: Game) -> None:
    bob = game.world.bob
    cases = {
        "25, -18, 15": t("error.league_points_negative", value="-18"),
        "10, 20": t("error.league_points_rising", place=2),
        ", ".join(["1"] * 1001): t("error.league_too_many_places", places=1001,
                                   maximum="1,000"),
        "ten, nine": t("error.bad_league_points", maximum="1,000"),
        "0": t("error.bad_league_points", maximum="1,000"),
    }
    for points, refusal in cases.items():
        assert await league(game, bob, "create", name="Spring", points=points) == refusal
    assert await leagues.list_leagues(game.db, game.world.guild.id) == []


async def test_another_servers_league_is_refused_everywhere(game: Game) -> None:
    other = game.world.guild.id + 1
    await economy.ensure_guild(game.db, other)
    theirs = await leagues.create_league(game.db, other, game.world.bob.id, name="Spring")
    alice = game.world.alice  # a manager here: still nothing of theirs
    unknown = t("error.unknown_league")
    assert await league(game, alice, "standings", name="Spring") == unknown
    assert await league(game, alice, "standings") == unknown
    assert await league(game, alice, "close", name="Spring") == unknown
    assert await tournament(game, alice, "create", **TOURNAMENT, league="Spring") == unknown
    assert tournament_of(game) is None
    assert not (await leagues.find_league(game.db, other, "Spring")).closed
    assert (await leagues.league_standings(game.db, theirs.league_id)).rows == ()


async def test_only_the_host_or_a_manager_runs_a_league(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    await league(game, bob, "create", name="Bobs")
    # A bystander can neither count his tournament toward it nor close it.
    assert (await tournament(game, carol, "create", **TOURNAMENT, league="Bobs")
            == t("error.not_league_host"))
    assert await league(game, carol, "close", name="Bobs") == t("error.not_league_host")
    # A practice tournament never counts, whoever asks.
    assert (await tournament(game, bob, "create", **{**TOURNAMENT, "buy_in": 0}, bots=2,
                             league="Bobs") == t("error.league_practice"))
    assert tournament_of(game) is None
    # The server's manager may use it; while that tournament is open the league stays open.
    reply = await tournament(game, alice, "create", **TOURNAMENT, league="Bobs")
    assert reply.endswith(t("reply.tournament_league", league="Bobs")), reply
    live = tournament_of(game)
    assert live is not None
    found = await leagues.league_of(game.db, live.tournament_id)
    assert found is not None and found.name == "Bobs"
    assert (await league(game, bob, "close", name="Bobs")
            == t("error.league_has_open_tournaments", tournaments=1))
    await tournament(game, alice, "cancel")
    assert await league(game, bob, "close", name="Bobs") == t("reply.league_closed",
                                                              league="Bobs")
    assert await league(game, bob, "close", name="Bobs") == t("error.league_closed")
    assert (await tournament(game, alice, "create", **TOURNAMENT, league="Bobs")
            == t("error.league_closed"))
    listed = await league(game, carol, "list")
    assert t("reply.league_list_line", league="Bobs", status=t("league.status.closed"),
             points=t("league.rule.standard")) in listed
    info = await tournaments.list_tournaments(game.db, game.world.guild.id)
    assert [i.status for i in info] == ["cancelled"]


async def test_standings_come_as_an_image_and_as_text(game: Game) -> None:
    bob = game.world.bob
    await league(game, bob, "create", name="Spring", points="25, 18, 15")
    reply = await standings(game, bob, "standings", name="Spring")
    assert reply.content.startswith(t("reply.league_standings_title", league="Spring",
                                      tournaments=0, points="25, 18, 15"))
    assert t("reply.league_standings_empty") in reply.content
    (image,) = reply.attachments
    assert image.filename == "league.png" and image.data.startswith(b"\x89PNG")
    assert image.description is not None and "Spring" in image.description
