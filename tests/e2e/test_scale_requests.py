"""The bot's request budget (issue 15): Discord allows a bot about 50 requests a second in all,
interaction answers aside. A press on the table is answered by the table's own update, an edit
that changes nothing is not sent, a DM known to be refused is not tried at every hand, and the
whole process paces itself under its share of the budget, never drawing a 429. The budget is
spent in discord.py's HTTP session, so discord.py's own requests spend it too, each request
as it leaves; interaction answers never wait for it; Discord's 429s feed it back. What is
counted is what reached the fake's door."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace
from pathlib import Path

from bot.i18n import t
from bot.runtime.config import RuntimeOptions
from tests.e2e.game_kit import (
    UPDATED,
    Game,
    StackedDeck,
    button_id,
    quick_options,
    running_game,
    settled,
)
from tests.e2e.harness import World, running_bot
from tests.fakediscord import FakeDiscord, RecordedRequest

EDIT = re.compile(r"/channels/\d+/messages/\d+$")


def bot_requests(fake: FakeDiscord, since: int = 0) -> list[RecordedRequest]:
    """Requests on the bot's token: what Discord's global limit counts."""
    return [
        r for r in fake.requests[since:]
        if "/interactions/" not in r.path and "/webhooks/" not in r.path
    ]


def edits(fake: FakeDiscord, since: int) -> list[RecordedRequest]:
    return [r for r in bot_requests(fake, since) if r.method == "PATCH" and EDIT.search(r.path)]


async def test_a_hand_played_with_buttons_never_edits_the_table_on_the_bots_budget(
    game: Game,
) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob)
    await game.ok(alice, "poker", "start")
    hand = await game.wait_hand(1)
    await game.wait_idle()
    since = len(game.fake.requests)
    presses = 0
    while not hand.is_over:
        user = await game.wait_turn()
        await game.wait_idle()
        legal = hand.legal()
        assert legal is not None
        message_id = game.live_table().messenger.message_id
        assert message_id is not None
        table = game.fake.message(message_id)  # as it is now
        action = "check" if legal.can_check else "call"
        answer = await settled(await game.fake.click(user, table, button_id(table, action)))
        # Answered by updating the pressed message itself: free of the bot's budget.
        assert answer.type == UPDATED and answer.message is not None
        assert answer.message.id == table.id
        presses += 1
    await game.wait_result(1)
    await game.wait_idle()
    assert presses >= 4
    assert edits(game.fake, since) == []


async def test_an_edit_that_changes_nothing_is_not_sent(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    await game.wait_idle()
    live_table = game.live_table()
    since = len(game.fake.requests)
    for _ in range(3):
        live_table.refresh()  # the same state, drawn again
        await game.wait_idle()
    assert edits(game.fake, since) == []
    # A real change still goes out.
    user = await game.wait_turn()
    await game.ok(user, "call")
    await game.wait_idle()
    assert len(edits(game.fake, since)) == 1


async def test_a_player_with_closed_dms_is_not_written_to_at_every_hand(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice, carol = world.alice, world.carol  # carol's DMs are closed
    async with running_game(fake, world, tmp_path) as game:
        await game.open_table(alice, carol)
        await game.ok(alice, "poker", "start")
        for number in (1, 2, 3):
            await game.wait_hand(number)
            await game.passive_round(number)
            await game.wait_result(number)
        await game.wait_idle()
        refused = [r for r in fake.requests if r.status == 403 and r.method == "POST"]
        assert len(refused) == 1, refused  # tried once; "My cards" serves her after that
        notices = [
            m for m in fake.messages.values()
            if m.channel_id == game.channel.id and t("dm.closed_notice", name=carol.name)[:20]
            in m.content
        ]
        assert len(notices) <= 1


async def test_the_bot_paces_itself_under_its_request_budget(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """Two tables played as fast as slash commands go, with a budget of 4 requests a second:
    every action is taken and acknowledged at once (answers are free), the table updates
    wait their turn and coalesce, and the bot's requests never exceed the budget in any
    second."""
    options = replace(quick_options(StackedDeck()), requests_per_second=4.0)
    alice, bob = world.alice, world.bob
    lobby = world.guild.channel("lobby")
    async with running_game(fake, world, tmp_path, options=options) as game:
        await game.open_table(alice, bob)
        await game.ok(alice, "poker", "create", channel=lobby)
        for user in (alice, bob):
            await game.ok(user, "poker", "join", channel=lobby, buy_in=1000)
        since = len(fake.requests)
        await game.ok(alice, "poker", "start")
        await game.ok(alice, "poker", "start", channel=lobby)
        for number in (1, 2):
            await game.wait_hand(number, timeout=20)
            await game.passive_round(number)
            await game.wait_result(number, timeout=30)
        await game.wait_idle(30)
    stamps = sorted(r.at for r in bot_requests(fake, since))
    busiest = max(sum(1 for s in stamps if start <= s < start + 1.0) for start in stamps)
    # A burst of one (a tenth of a second's, at least one) on top of the rate.
    assert busiest <= 4 + 1, busiest
    assert not fake.rate_limited


async def test_discord_pys_own_requests_spend_the_same_budget_and_answers_never_wait(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """Eight look-ups discord.py makes itself (``fetch_user``), at 2 requests a second: they
    go out at the budget's pace as the fake's door counts them, while a slash command sent
    behind them is answered at once (its answer travels on the interaction's token)."""
    options = RuntimeOptions(requests_per_second=2.0)
    async with running_bot(fake, tmp_path, runtime_options=options) as bot:
        await asyncio.sleep(1.0)  # start-up's own requests leave the bucket full again
        since = len(fake.requests)
        loop = asyncio.get_running_loop()
        started = loop.time()
        lookups = [asyncio.create_task(bot.fetch_user(world.alice.id)) for _ in range(8)]
        await asyncio.sleep(0.2)
        handle = await fake.slash(world.alice, world.guild.channel("poker"), "ping")
        assert (await handle.response(timeout=1.0)).content == "pong"
        answered = loop.time() - started
        await asyncio.gather(*lookups)
        took = loop.time() - started
    assert answered < 1.0 < 3.0 <= took
    count = fake.door(since)
    assert count.by_route["GET /users/{id}"] == 8
    assert count.busiest <= 2 + 1  # the rate and its burst of one
    assert not fake.rate_limited


async def test_a_global_429_stops_the_budget_for_its_retry_after(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    async with running_bot(fake, tmp_path) as bot:
        since = len(fake.requests)
        fake.rate_limit("GET", r"/users/\d+", retry_after=0.6, is_global=True)
        await asyncio.gather(bot.fetch_user(world.alice.id), bot.fetch_user(world.bob.id))
        assert bot.budget.rate_limited == 1
    looked_up = [r for r in fake.requests[since:] if r.path.startswith("/users/")]
    assert [r.status for r in looked_up] == [429, 200, 200]
    # Nothing on the bot's token left before Discord's retry_after had passed.
    assert min(r.arrived for r in looked_up[1:]) - looked_up[0].arrived >= 0.6 - 0.02
