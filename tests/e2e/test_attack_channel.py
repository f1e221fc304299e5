"""What the channel sees cannot be used to stall the game, and always arrives, in order
(issue 10, defects 6, 8, 16 and 17)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

import bot.interact
from bot.i18n import t
from bot.storage import hands, stats
from engine.cards import parse_cards
from engine.hand import deck_from_cards
from tests.e2e.game_kit import (
    STARTING_BALANCE,
    Game,
    StackedDeck,
    quick_options,
    running_game,
    settled,
    total_chips,
    until,
)
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord, FakeGuild, FakeUser

pytestmark = pytest.mark.timeout(120)

DEADLINE = re.compile(r"<t:(\d+):R>")


# -- 6: reposts, the clock and the order of messages --------------------------------------


async def test_reposting_the_table_cannot_flood_the_channel(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """A member who is not even seated asks twelve times: one repost goes out, the others are
    told it is on its way or to wait, and the channel keeps Discord's budget."""
    deck = StackedDeck()
    options = quick_options(deck, channel_sends=5, channel_window=5.0, calm_edit_interval=1.0)
    outsider = FakeUser("dave")
    world.guild.members.append(outsider)
    fake.users[outsider.id] = outsider
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice, bob = world.alice, world.bob
        await game.open_table(alice, bob)
        await game.ok(alice, "poker", "start")
        await game.wait_hand(1)
        await game.wait_idle()
        mark = fake.mark()
        replies = []
        for _ in range(12):
            replies.append((await game.slash(outsider, "poker", "table")).content)
        accepted = [r for r in replies if r == t("reply.reposted")]
        assert len(accepted) == 1, replies
        assert all(
            r in (t("reply.reposted"), t("reply.repost_pending"))
            or r.startswith("The table was posted for you a moment ago")
            for r in replies
        ), replies
        await game.wait_idle()
        posted = [
            e for e in fake.events[mark:]
            if e.kind == "create" and e.message.channel_id == game.channel.id
            and not e.message.ephemeral
        ]
        assert len(posted) == 1, [e.message.content[:40] for e in posted]


async def test_a_players_time_starts_when_he_is_told_and_results_come_before_new_cards(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """With the channel's budget nearly spent the turn message waits; the player's clock waits
    with it (the deadline shown counts from when the message went out), and the next hand's
    hole cards never arrive before the last hand's result."""
    deck = StackedDeck()
    # One message every 2 s: every send after the first waits for the budget.
    options = quick_options(deck, channel_sends=1, channel_window=2.0, calm_edit_interval=0.0)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice, bob = world.alice, world.bob
        await game.open_table(alice, bob, timer=30)
        await game.ok(alice, "poker", "start")
        hand = await game.wait_hand(1)
        live_table = game.live_table()
        first = await game.wait_turn()
        await game.ok(first, "fold")  # hand 1 is over: its result is queued behind the budget
        await game.wait_hand(2, timeout=20)
        turn = await game.wait_turn(timeout=20)
        message = await game.turn_message(turn, 2)
        match = DEADLINE.search(message.content)
        assert match is not None
        deadline = int(match[1])
        # The message of hand 2 went out at least one budget window after the deal; the
        # deadline counts from then, not from the deal.
        shown_at = message.edited_at or message_time(message)
        assert deadline >= int(shown_at) + 30 - 1, (deadline, shown_at)
        # His time starts once Discord confirmed the message, a moment after the fake stored it.
        await until(
            lambda: live_table.decision is not None and live_table.decision.deadline == deadline,
            what="the clock started with the deadline shown")
        del hand
        await fake.wait_for_message(
            lambda m: m.content.startswith("Hand #2 ·"), channel=alice, timeout=20
        )
        # Order: hand 1's result before any hole card of hand 2.
        kinds = [
            (e.kind, e.message.channel_id, e.message.content) for e in fake.events
        ]
        result_at = next(
            i for i, (kind, channel, text) in enumerate(kinds)
            if kind == "create" and channel == game.channel.id
            and text.startswith("**Hand #1: result**")
        )
        dms_of_hand_2 = [
            i for i, (kind, channel, text) in enumerate(kinds)
            if kind == "create" and text.startswith("Hand #2 ·")
        ]
        assert dms_of_hand_2 and min(dms_of_hand_2) > result_at


def message_time(message: object) -> float:
    from tests.fakediscord.models import snowflake_time

    return snowflake_time(message.id)  # type: ignore[attr-defined]


# -- 8: the longest result of the largest table -------------------------------------------

# 32 characters, Discord's longest display name, of the characters that grow most when escaped.
LONG_NAMES = [f"*_~`|>{k}" + "*_" * 11 + "~~~" for k in range(10)]


async def test_the_longest_result_of_the_largest_table_reaches_the_channel(
    tmp_path: Path,
) -> None:
    """Ten players all-in for ten different amounts, a royal flush on the board: ten pots, each
    split among everyone in it, under the longest names. Every line of the result arrives."""
    users = [FakeUser(f"p{k}", global_name=LONG_NAMES[k]) for k in range(10)]
    for user in users:
        assert len(user.global_name or "") <= 32
    guild = FakeGuild.create("Big", channels=["poker"], members=users)
    world = World(alice=users[0], bob=users[1], carol=users[2], guild=guild)
    deck = StackedDeck()
    async with FakeDiscord(guilds=[guild], users=users) as fake, running_game(
        fake, world, tmp_path, deck=deck
    ) as game:
        await game.ok(users[0], "poker", "create", small_blind=5, big_blind=10, seats=10,
                      min_buy_in=100, max_buy_in=5000)
        for k, user in enumerate(users):
            await game.ok(user, "poker", "join", buy_in=1000 + 100 * k, seat=k + 1)
        # Whoever holds what, a royal flush on the board is everybody's best hand: all tie.
        deck.push(deck_from_cards(10, [None] * 10, parse_cards("AsKsQsJsTs")))
        await game.ok(users[0], "poker", "start")
        hand = await game.wait_hand(1)
        while not hand.is_over:
            await game.ok(await game.wait_turn(), "allin")
        await game.wait_idle()
        posts = [m for m in fake.messages_in(game.channel) if not m.ephemeral]
        start = next(k for k, m in enumerate(posts) if m.content.startswith("**Hand #1: result"))
        # The result, in as many messages as it takes, up to the next table message.
        result = []
        for message in posts[start:]:
            if message.content.startswith("**Texas Hold'em**"):
                break
            result.append(message)
        text = "\n".join(m.content for m in result)
        assert all(len(m.content) <= 2000 for m in result)
        assert hand.result is not None
        shares = sum(1 for pot in hand.result.pots for _, share in pot.shares if share)
        assert shares >= 40  # ten pots split among 10, 9, 8 ... players
        assert text.count(" wins ") == shares, text[:400]
        assert "/history verify hand:1" in text, [m.content[:30] for m in posts[start:]]
        failed = [r for r in fake.requests if r.status >= 400 and "/messages" in r.path
                  and r.status != 403]
        assert not failed, failed
        wallets, seats, in_hands = await total_chips(game.db, guild.id)
        assert wallets + seats + in_hands == 10 * STARTING_BALANCE


# -- 16: slow answers are deferred ---------------------------------------------------------


async def test_replies_that_draw_or_build_a_file_are_deferred(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under load a hole-card image, a history file or a verification can take longer than
    Discord's 3 s: the bot answers "thinking" at once and the reply follows."""
    alice, bob = game.world.alice, game.world.bob
    await game.open_table(alice, bob)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    await game.ok(await game.wait_turn(), "fold")
    await game.wait_result(1)
    await game.wait_hand(2)

    real_render, real_export = bot.interact.render, hands.export_phh

    async def slow_render(*args: object) -> object:
        await asyncio.sleep(3.5)
        return await real_render(*args)  # type: ignore[arg-type]

    async def slow_export(*args: object, **kwargs: object) -> str:
        await asyncio.sleep(3.5)
        return await real_export(*args, **kwargs)  # type: ignore[arg-type]

    async def slow_lookup(*args: object, **kwargs: object) -> object:
        await asyncio.sleep(3.5)
        return await real_lookup(*args, **kwargs)  # type: ignore[arg-type]

    real_lookup = stats.recent_hands
    monkeypatch.setattr(bot.interact, "render", slow_render)
    monkeypatch.setattr(hands, "export_phh", slow_export)
    monkeypatch.setattr(stats, "recent_hands", slow_lookup)
    for name, subcommand, options in (("poker", "cards", {}), ("history", "hand", {"hand": 1}),
                                      ("history", "verify", {"hand": 1})):
        handle = await game.fake.slash(alice, game.channel, name, subcommand=subcommand,
                                       options=options)
        first = await handle.response(timeout=3)
        assert first.type == 5 and first.ephemeral, (subcommand, first)
        final = await settled(handle)
        assert final.ephemeral and final.content and not final.content.startswith(
            "Something"
        ), (subcommand, final.content)


# -- 17: stopping sends what was queued, and starting corrects what was not ---------------


async def test_stopping_the_bot_sends_the_closing_messages_first(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    deck = StackedDeck()
    options = quick_options(deck, channel_sends=2, channel_window=2.0, drain_timeout=10.0)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice, bob = world.alice, world.bob
        await game.open_table(alice, bob)
        await game.ok(alice, "poker", "pause")
        await game.wait_idle()
        table_message = game.live_table().message_id
        assert table_message is not None
        await game.ok(alice, "poker", "close")
        # The bot stops at once (leaving the game closes it), with the notices still queued.
    closing = [m for m in fake.messages_in(world.guild.channel("poker"))
               if m.content.startswith(t("notice.closed", host=alice.mention))]
    assert closing, "the closing notice was lost"
    final = fake.message(table_message)
    assert t("table.closed") in final.content and not final.custom_ids()


async def test_a_table_closed_before_a_stop_shows_as_closed_after_the_start(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    deck = StackedDeck()
    # Nothing queued may go out at the stop: the last edit is lost on purpose.
    options = quick_options(deck, channel_sends=1, channel_window=3.0, drain_timeout=0.0)
    async with running_game(fake, world, tmp_path, deck=deck, options=options) as game:
        alice, bob = world.alice, world.bob
        await game.open_table(alice, bob)
        await game.ok(alice, "poker", "start")
        await game.wait_hand(1)
        await game.wait_idle()
        table_message = game.live_table().message_id
        assert table_message is not None and fake.message(table_message).custom_ids()
        await game.ok(alice, "poker", "close")
    stale = fake.message(table_message)
    assert stale.custom_ids() and t("table.closed") not in stale.content
    await fake.wait_for(lambda: not fake.sessions, what="the bot to stop")
    async with running_game(fake, world, tmp_path, deck=deck) as game:
        await until(
            lambda: t("table.closed") in fake.message(table_message).content
            and not fake.message(table_message).custom_ids(),
            what="the closed table's message corrected",
            timeout=10,
        )
        assert not game.runtime.registry.cash_tables()
