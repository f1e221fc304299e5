"""A deal's vote at the bot, in process: the table waits while it is open, the status shows it,
a player whose DMs are closed still sees his figures, and a player who is away when a deal is
put to the table turns it down by being away."""

from __future__ import annotations

import asyncio

import pytest

from bot.i18n import t
from bot.runtime.tourney import copy_of
from tests.e2e.game_kit import Game, settled, until
from tests.e2e.tournament_kit import Players, check_or_fold, create, register

pytestmark = pytest.mark.timeout(120)


async def _propose(game: Game) -> None:
    """Alice proposes: put at once between hands, or held while a hand is played."""
    reply = await game.slash(game.world.alice, "tournament", "deal", kind="icm")
    assert reply.ephemeral
    assert reply.content == t("reply.deal_held") or reply.content.startswith(
        t("reply.deal_proposed")), reply.content


async def test_the_table_waits_for_the_vote_and_the_status_shows_it(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    players = Players(game, live, policy=check_or_fold)
    await _propose(game)
    await players.play_until(lambda: live.deals.offer is not None, timeout=60)
    dealt = table.table.hand_number
    await asyncio.sleep(1.0)  # several times the pause between hands
    assert table.table.hand_number == dealt and table.hand is None
    status = await game.slash(bob, "tournament", "status")
    voting = t("tournament.deal_status_open", kind="ICM", accepted=0, players=3, until="@")
    assert status.content.startswith(voting.split("@")[0]), status.content
    # Carol's DMs are closed: her figures come privately all the same.
    notice = await game.fake.wait_for_message(
        lambda m: "Play is paused" in m.content, channel=game.channel, timeout=20)
    (show,) = [c for c in notice.custom_ids() if ":deal_show:" in c]
    view = await settled(await game.fake.click(carol, notice, show))
    assert view.ephemeral and f"<@{carol.id}>:" in view.content
    assert view.message is not None
    reject = show.replace("deal_show", "deal_reject")
    answered = await settled(await game.fake.click(carol, view.message, reject))
    assert answered.content == t("reply.deal_rejected")
    assert live.deals.offer is None and not live.deals.holds
    await players.play_until(lambda: table.table.hand_number > dealt, timeout=30)


async def test_a_player_away_when_the_deal_is_put_turns_it_down(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    async with live.lock:  # bob is away, as two timeouts in a row would make him
        draft = copy_of(live.state, live.rng)
        draft.set_absent(bob.id, True)
        await live.commit(draft, live.settings, ())
    players = Players(game, live, policy=check_or_fold)
    mark = game.fake.mark()
    await _propose(game)
    turned = t("tournament.deal_rejected", player=f"<@{bob.id}>")

    def seen() -> bool:
        return any(turned in e.message.content for e in game.fake.events[mark:])

    await players.play_until(seen, timeout=60)
    assert live.deals.offer is None and not live.deals.holds and not live.closed
    dealt = table.table.hand_number
    await players.play_until(lambda: table.table.hand_number > dealt, timeout=30)
