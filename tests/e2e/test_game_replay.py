"""``/history replay`` over the fake Discord: six players play a hand, then a player replays it.
The animation arrives privately within Discord's limits (the fake refuses anything beyond
them), its alt text tells the hand, and no folded or mucked hand is in either; a hand of
another table, a voided hand and a hand still running are refused in words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.i18n import t
from bot.render.replay import MAX_BYTES
from bot.storage import hands, stats
from engine.cards import pretty_cards
from engine.table import TableOptions
from tests.e2e.game_kit import (
    Game,
    StackedDeck,
    quick_options,
    running_game,
    seat_order,
    settled,
    stack_deck,
)
from tests.e2e.harness import World
from tests.fakediscord import FakeDiscord, FakeGuild, FakeUser

pytestmark = pytest.mark.timeout(120)

SEED = 20240607
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank")
HOLES = ("AsAh", "KsKh", "QsQh", "7c2d", "8c3d", "9c4d")
BOARD = "Ad Kd 9h 5c 3s"
DESCRIPTION_LIMIT, CONTENT_LIMIT = 1024, 2000


@pytest.fixture
async def six(tmp_path: Path) -> AsyncIterator[tuple[Game, list[FakeUser], FakeGuild]]:
    """Six players in #poker of one server; two of them also in a second server."""
    users = [FakeUser(name) for name in NAMES]
    guild = FakeGuild.create("Casino", channels=["poker", "lobby"], members=users)
    other = FakeGuild.create("Elsewhere", channels=["poker"], members=users[:2])
    world = World(alice=users[0], bob=users[1], carol=users[2], guild=guild)
    options = TableOptions(small_blind=5, big_blind=10, min_buy_in=100, max_buy_in=1000, seats=6)
    order = seat_order(options, {u.id: k + 1 for k, u in enumerate(users)}, SEED)
    deck = StackedDeck()
    deck.push(stack_deck(order, {u.id: HOLES[k] for k, u in enumerate(users)}, BOARD))
    async with (
        FakeDiscord(guilds=[guild, other], users=users) as fake,
        running_game(fake, world, tmp_path, deck=deck, options=quick_options(deck),
                     seed=SEED) as game,
    ):
        yield game, users, other


async def _play_first_hand(game: Game, users: list[FakeUser]) -> None:
    """Someone opens with a raise; dave, erin and frank fold; the others call and check down."""
    folders = {u.id for u in users[3:]}
    raised = False
    while game.hand is not None and game.live_table().table.hand_number == 1:
        user = await game.wait_turn()
        legal = game.hand.legal() if game.hand is not None else None
        if legal is None:
            continue
        if not raised:
            await game.ok(user, "raise", to=30)
            raised = True
        elif user.id in folders and legal.to_call:
            await game.ok(user, "fold")
        else:
            await game.ok(user, "check" if legal.can_check else "call")


async def test_a_hand_is_replayed_privately_with_only_what_was_shown(
    six: tuple[Game, list[FakeUser], FakeGuild],
) -> None:
    game, users, other = six
    alice, bob, carol, dave, erin = users[:5]
    await game.ok(alice, "poker", "create", small_blind=5, big_blind=10, min_buy_in=100,
                  max_buy_in=1000, seats=6)
    for seat, user in enumerate(users, start=1):
        await game.ok(user, "poker", "join", buy_in=1000, seat=seat)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    await _play_first_hand(game, users)
    await game.wait_result(1)

    handle = await game.fake.slash(bob, game.channel, "history", subcommand="replay",
                                   options={"hand": 1})
    reply = await settled(handle, timeout=60)
    assert reply.ephemeral and reply.content.startswith("**Replay of hand #1** · blinds 5/10")
    (gif,) = reply.attachments
    assert gif.filename == "replay.gif"
    assert gif.data.startswith(b"GIF89a") and gif.size <= MAX_BYTES
    image = gif.open_image()
    assert image.format == "GIF" and image.n_frames >= 10
    alt = gif.description or ""
    assert alt.startswith("Replay of hand #1, blinds 5/10.") and len(alt) <= DESCRIPTION_LIMIT
    messages = [reply.content, *(m.content for m in handle.followups[1:])]
    assert all(len(text) <= CONTENT_LIMIT for text in messages)
    told = "\n".join(messages)
    assert "Pre-flop:" in told and "Flop A♦ K♦ 9♥" in told and "River 3♠" in told

    # What the stored hand showed, and nothing else: the folded hands are nowhere.
    summary = next(s for s in await stats.recent_hands(game.db, game.live_table().table_id)
                   if s.hand_no == 1)
    stored = await hands.load_hand(game.db, summary.hand_id)
    hand = hands.rebuild_hand(stored)
    assert hand.result is not None
    shown = set(hand.result.shown)
    by_index = {p.player: p.user_id for p in stored.players}
    names = {u.id: u.name for u in users}
    for index, user_id in by_index.items():
        cards = pretty_cards(hand.hole_cards(index))
        if index in shown:
            assert f"{names[user_id]} shows {cards}" in told
        else:
            for card in hand.hole_cards(index):
                assert pretty_cards([card]) not in told and pretty_cards([card]) not in alt
    assert {by_index[i] for i in range(6) if hand.folded[i]} == {u.id for u in users[3:]}
    # Checked down, the losers mucked: one hand shown, so no chances are told (a
    # mucked hand is as unknown as a folded one).
    assert len(shown) == 1 and " · odds " not in told and " · odds " not in alt

    # Refused, in words: a hand the table never had, no table here, another server's channel.
    missing = await game.slash(bob, "history", "replay", hand=99)
    assert missing.ephemeral and missing.content == t("error.no_such_hand", hand=99)
    lobby = await game.slash(carol, "history", "replay", hand=1,
                             channel=game.world.guild.channel("lobby"))
    assert lobby.content == t("error.no_table")
    elsewhere = await game.slash(alice, "history", "replay", hand=1, channel=other.channel("poker"))
    assert elsewhere.content == t("error.no_table")

    # A voided hand has nothing to replay, and a running one is not over.
    await game.wait_hand(2)
    await game.ok(alice, "poker", "void")
    voided = await game.slash(carol, "history", "replay", hand=2)
    assert voided.content == t("error.replay_voided", hand=2)
    await game.wait_hand(3)
    running = await game.slash(dave, "history", "replay", hand=3)
    assert running.content == t("error.hand_not_finished", hand=3)
    # Without a number: the last finished hand, hand 1.
    latest = await game.slash(erin, "history", "replay")
    assert latest.content.startswith("**Replay of hand #1**")
    await game.ok(alice, "poker", "pause")
