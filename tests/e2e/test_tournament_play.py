"""Whole tournaments over the fake Discord, from registration to prizes."""

from __future__ import annotations

import itertools
import re

import pytest

from bot.i18n import t
from bot.presenter import cards_text, chips
from bot.runtime.history import stored_hand
from bot.storage import hands
from tests.e2e.game_kit import STARTING_BALANCE, Game, settled, until
from tests.e2e.tournament_kit import (
    Players,
    always_all_in,
    assert_settled,
    check_or_fold,
    create,
    register,
    tournament,
    wait_over,
)

pytestmark = pytest.mark.timeout(180)


async def test_heads_up_from_registration_to_the_prize(game: Game) -> None:
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice)
    await register(game, alice, bob)
    assert await game.balance(alice) == STARTING_BALANCE - 100
    await game.ok(alice, "tournament", "start")
    players = Players(game, live, policy=always_all_in)
    await players.play_until(lambda: live.closed)
    info = await wait_over(game, live)
    await assert_settled(game, info)
    winner = next(e for e in info.entries if e.place == 1)
    loser = next(e for e in info.entries if e.place == 2)
    assert (winner.prize, loser.prize) == (200, 0)
    assert await game.balance(game.fake.users[winner.user_id]) == STARTING_BALANCE + 100
    result = await game.fake.wait_for_message(lambda m: "**Friday** is over" in m.content,
                                              channel=game.channel, timeout=20)
    assert f"Winner: <@{winner.user_id}>" in result.content


async def test_a_tournament_hand_has_its_history_proofs_and_replay(game: Game) -> None:
    """Stored like a cash hand, labelled with the tournament and the level it was dealt at."""
    alice, bob = game.world.alice, game.world.bob
    live = await create(game, alice, structure="10/20 10")
    await register(game, alice, bob)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    players = Players(game, live, policy=check_or_fold)
    await players.play_until(lambda: table.table.hand_number >= 2)
    stored = await stored_hand(game.db, table.table_id, 1)
    assert (stored.status, stored.level) == ("finished", 1)
    # Each player's hole cards came by DM, and /poker cards shows them to him alone, as at a
    # cash table.
    dealt = hands.rebuild_hand(stored)
    for player in stored.players:
        user = game.fake.users[player.user_id]
        cards = cards_text(dealt.hole_cards(player.player))
        await game.fake.wait_for_message(lambda m, cards=cards: cards in m.content,
                                         channel=user, timeout=20)
    hand = await until(lambda: table.hand if table.table.hand_number >= 2 else None,
                       what="hand 2")
    index = table.table.hand_index(bob.id)
    assert index is not None
    mine = await game.slash(bob, "poker", "cards")
    assert mine.ephemeral and cards_text(hand.hole_cards(index)) in mine.content

    history = await game.slash(bob, "history", "hand", hand=1)
    assert history.ephemeral and history.content.startswith("**Hand #1**")
    assert t("history.tournament", name="Friday", level=1) in history.content
    (phh,) = history.attachments
    assert "event = 'Friday'" in phh.data.decode()

    proofs = await game.slash(alice, "history", "verify", hand=1)
    root = re.search(r"Merkle root\): `([0-9a-f]{64})`", proofs.content)
    assert root and root[1] == stored.deck_digest, proofs.content

    replay = await game.slash(bob, "history", "replay", hand=1)
    assert replay.ephemeral and replay.content.startswith("**Replay of hand #1** · blinds 10/20")
    (gif,) = replay.attachments
    assert gif.data.startswith(b"GIF89a")


async def test_the_board_the_list_and_the_results(game: Game) -> None:
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, structure="10/20 10, 20/40 10")
    await register(game, alice, bob)
    # Anyone in the channel reads the board, before the start too: an image and the same
    # facts as text.
    board = await game.slash(carol, "tournament", "status")
    assert board.ephemeral and board.content.startswith("Tournament Friday")
    assert "Registration open" in board.content and "Registered: alice, bob." in board.content
    (image,) = board.attachments
    assert image.open_image().format == "PNG" and image.description == board.content
    await game.ok(alice, "tournament", "start")
    board = await game.slash(carol, "tournament", "status")
    assert board.content.startswith("Tournament Friday. Level 1: blinds 10/20."), board.content
    assert "Prize pool 200: 1. 200." in board.content, board.content

    listed = await game.ok(carol, "tournament", "list")
    assert "**Friday** · running · 2/100 players · buy-in 100" in listed, listed
    refused = await tournament(game, carol, "results", name="Friday")
    assert refused == t("error.tournament_not_over")

    await Players(game, live, policy=always_all_in).play_until(lambda: live.closed)
    info = await wait_over(game, live)
    winner = next(e.user_id for e in info.entries if e.place == 1)
    results = await tournament(game, carol, "results", name="Friday")
    assert results.startswith("**Friday** is over!")
    assert f"Winner: <@{winner}>" in results
    # Over: the board is found by its name from any channel of the server.
    lobby = game.world.guild.channel("lobby")
    over = await tournament(game, carol, "status", lobby, name="Friday")
    assert "Finished" in over, over
    unknown = await tournament(game, carol, "results", lobby, name="Saturday")
    assert unknown == t("error.unknown_tournament")


async def test_time_runs_out_mid_hand_and_the_survivors_rank_by_chips(game: Game) -> None:
    """The clock runs out while a hand waits for a decision: that hand is the last one, no
    other is dealt, and the players left are ranked by their chips."""
    alice, bob, carol = game.world.alice, game.world.bob, game.world.carol
    live = await create(game, alice, kind="time_limited", ends_at="12s",
                          structure="10/20 10")
    await register(game, alice, bob, carol)
    await game.ok(alice, "tournament", "start")
    table = await until(lambda: live.tables.get(1), what="table 1")
    # Nobody acts (the decision timer is longer than the tournament): time runs out mid-hand.
    await until(lambda: live.state.time_up, timeout=40, what="the end of time")
    hand = table.hand
    assert hand is not None and table.table.hand_number == 1
    await game.fake.wait_for_message(lambda m: m.content == t("tournament.time_up"),
                                     channel=game.channel)
    await Players(game, live, policy=check_or_fold).play_until(lambda: live.closed)
    info = await wait_over(game, live)
    await assert_settled(game, info)
    assert table.table.hand_number == 1  # the hand in progress was the last
    assert live.state.finish_reason == "time"
    # Places follow the stacks the last hand left (equal stacks share a place).
    result = hand.result
    assert result is not None
    stacks = {int(p): s for p, s in zip(table.table.hand_players, result.stacks, strict=True)}
    place = {e.user_id: e.place for e in info.entries}
    for one, other in itertools.permutations(stacks, 2):
        if stacks[one] > stacks[other]:
            assert place[one] < place[other]
        elif stacks[one] == stacks[other]:
            assert place[one] == place[other]
    over = await game.fake.wait_for_message(lambda m: "**Friday** is over" in m.content,
                                            channel=game.channel)
    assert t("tournament.finished_time") in over.content


async def test_the_tournament_speaks_the_servers_language_and_replies_the_readers(
    game: Game,
) -> None:
    alice, bob = game.world.alice, game.world.bob
    await game.ok(alice, "chips", "settings", language="zh-CN")
    live = await create(game, alice, structure="10/20 10")
    opened = t("tournament.opened", "zh-CN", name="Friday", host=alice.mention,
               buy_in=chips(100, "zh-CN"), stack=chips(1000, "zh-CN"), players=100)
    await game.fake.wait_for_message(lambda m: m.content.startswith(opened),
                                     channel=game.channel)
    handle = await game.fake.slash(bob, game.channel, "tournament", subcommand="register",
                                   locale="zh-TW")
    registered = await settled(handle)
    assert registered.content == t("reply.tournament_registered", "zh-TW", name="Friday",
                                   buy_in=chips(100, "zh-TW"),
                                   balance=chips(STARTING_BALANCE - 100, "zh-TW"))
    told = t("tournament.registered", "zh-CN", player=bob.mention, entrants=1,
             pool=chips(100, "zh-CN"))
    await game.fake.wait_for_message(lambda m: m.content == told, channel=game.channel)
    handle = await game.fake.slash(bob, game.channel, "tournament", subcommand="status",
                                   locale="zh-TW")
    board = await settled(handle)
    assert board.content.startswith(t("board.title", "zh-TW", name="Friday")), board.content
    assert live.locale == "zh-CN"
