"""The host's commands (pause, resume, settings, kick, void, close), hand history and the
shuffle check, and the ``/chips`` economy."""

from __future__ import annotations

import re

import pytest

from bot.i18n import t
from bot.storage import hands, stats
from bot.storage.hands import StoredHand
from engine.cards import format_cards
from engine.commitment import Opening
from tests.e2e.game_kit import STARTING_BALANCE, Game, total_chips
from tests.engine.test_commitment import CHECKERS

pytestmark = pytest.mark.timeout(60)


async def test_the_host_runs_the_table(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    await game.ok(alice, "poker", "create", small_blind=5, big_blind=10)
    for user in (alice, bob, carol):
        await game.ok(user, "poker", "join", buy_in=1000)
    await game.ok(bob, "poker", "start")
    live_table = game.live_table()
    hand = await game.wait_hand(1)

    # New blinds wait for the next hand; the hand in progress keeps its own.
    reply = await game.ok(alice, "poker", "settings", small_blind=10, big_blind=20)
    assert reply == t("reply.settings_next_hand")
    assert hand.config.big_blind == 10

    # Voiding gives every chip back; the next hand is dealt with the new blinds.
    stacks = dict(zip(live_table.table.hand_players, hand.config.stacks, strict=True))
    await game.ok(await game.wait_turn(), "call")
    assert await game.ok(alice, "poker", "void") == t("reply.voided")
    voided = await game.fake.wait_for_message(
        lambda m: m.content.startswith("**Hand #1: result**"), channel=game.channel, timeout=20
    )
    assert t("result.voided") in voided.content
    assert {v.player_id: v.stack for v in live_table.table.seats()} == stacks
    hand = await game.wait_hand(2)
    assert hand.config.big_blind == 20

    # Kicking a player in a hand removes him when it ends (RULES 8: between hands); until then
    # his hand is his to play.
    victim = carol
    reply = await game.ok(alice, "poker", "kick", user=victim)
    assert reply == t("reply.kicked_after_hand", player=victim.mention)
    index = live_table.table.hand_index(victim.id)
    assert index is not None
    assert not hand.folded[index] and index not in hand.preselected
    # Pause: this hand is played out, no other is dealt.
    reply = await game.slash(bob, "poker", "pause")
    assert reply.content == t("error.not_host")
    assert await game.ok(alice, "poker", "pause") == t("reply.paused")
    # Bob folds when his turn comes, so hand 2 has a hand nobody may ever see.
    while game.to_act() is not bob:
        user = await game.wait_turn()
        if user is bob:
            break
        legal = game.hand.legal()  # type: ignore[union-attr]
        await game.ok(user, "check" if legal is not None and legal.can_check else "call")
    await game.ok(bob, "fold")
    await game.passive_round(2)
    await game.wait_result(2)
    assert live_table.table.seat_of(victim.id) is None
    second = await _stored(game, 2)
    final = next(p.final_stack for p in second.players if p.user_id == victim.id)
    assert final is not None and await game.balance(victim) == STARTING_BALANCE - 1000 + final
    await game.wait_idle()
    assert live_table.hand is None and live_table.table.paused
    assert await game.ok(alice, "poker", "resume") == t("reply.resumed")
    await game.wait_hand(3)

    # History of a finished hand: the summary and a PHH file with only shown cards.
    reply = await game.slash(bob, "history", "hand", hand=2)
    assert reply.ephemeral and reply.content.startswith("**Hand #2**")
    (phh,) = reply.attachments
    text = phh.data.decode()
    assert phh.filename == "hand-2.phh" and "finishing_stacks" in text
    # A voided hand has no history: history says it was voided, as replay does, and never
    # that it "isn't finished yet".
    voided_history = await game.slash(bob, "history", "hand", hand=1)
    assert voided_history.ephemeral
    assert voided_history.content == t("error.history_voided", hand=1)
    assert voided_history.content != t("error.hand_not_finished", hand=1)
    # Verify: the cards everybody saw are opened against the root posted during the hand, with
    # proofs anyone can check; nothing of an unshown hand is opened or written.
    reply = await game.slash(carol, "history", "verify", hand=2)
    root = re.search(r"Merkle root\): `([0-9a-f]{64})`", reply.content)
    assert root and root[1] == second.deck_digest, reply.content
    posted = [
        e.message for e in game.fake.events
        if e.message.channel_id == game.channel.id and not e.message.ephemeral
        and root[1] in e.message.content
    ]
    assert posted and posted[0].content.startswith("**Texas Hold'em** · Hand #2")
    proofs = next(a for a in reply.attachments if a.filename == "hand-2-proofs.txt")
    lines = proofs.data.decode().splitlines()
    assert lines[0] == f"root {root[1]}"
    openings = [Opening.from_text(line) for line in lines[1:]]
    assert openings and all(o.verify(root[1]) for o in openings)
    # Anyone can check them with the few lines of Python the README shows.
    readme_check = CHECKERS["README.md"]
    assert all(readme_check(root[1], line) for line in lines[1:])
    n = len(second.players)
    shown = set(second.result["shown"])
    hidden = [p.player for p in second.players if p.player not in shown]
    opened = {o.position for o in openings}
    asker = next(p.player for p in second.players if p.user_id == bob.id)
    for index in hidden:
        assert not {index, index + n} & opened
        cards = format_cards([second.deck[index], second.deck[index + n]])
        if index == asker:
            assert cards in text  # his own hand, folded or not, is his to read
        else:
            assert cards not in text  # the PHH file writes others' unshown hands as ????
    others = [index for index in hidden if index != asker]
    assert asker in hidden and ("????" in text) == bool(others)

    # Closing: the hand in progress is voided, every stack goes back to its wallet.
    reply = await game.ok(alice, "poker", "close")
    assert reply.startswith("The table is closed")
    assert await total_chips(game.db, world.guild.id) == (3 * STARTING_BALANCE, 0, 0)
    no_table = await game.slash(bob, "fold")
    assert no_table.content == t("error.no_table")
    await game.ok(bob, "poker", "create")  # the channel is free again


async def _stored(game: Game, hand_no: int) -> StoredHand:
    for summary in await stats.recent_hands(game.db, game.live_table().table_id):
        if summary.hand_no == hand_no:
            return await hands.load_hand(game.db, summary.hand_id)
    raise LookupError(hand_no)


async def test_chips_commands(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    assert await game.balance(bob) == STARTING_BALANCE
    reply = await game.slash(alice, "chips", "balance", user=carol)
    assert reply.content == t("error.no_wallet", user=carol.mention)
    reply = await game.slash(alice, "chips", "balance", user=bob)
    assert reply.content == t("reply.balance_other", user=bob.mention, amount="10,000")

    daily = await game.slash(bob, "chips", "daily")
    assert daily.content.startswith("You got 1,000 chips")
    again = await game.slash(bob, "chips", "daily")
    assert again.ephemeral and again.content.startswith("You've had your daily chips")
    assert await game.balance(bob) == STARTING_BALANCE + 1000

    # Alice owns the server (Manage Server): she may grant chips and change the economy.
    granted = await game.slash(alice, "chips", "grant", user=carol, amount=500)
    assert granted.content == t("reply.granted", user=carol.mention, amount="500",
                                balance="10,500")
    refused = await game.slash(bob, "chips", "grant", user=bob, amount=500)
    assert refused.content == t("error.missing_permissions", permissions="Manage Server")
    for bad in (-1, 0, 2.5):
        reply = await game.slash(alice, "chips", "grant", user=carol, amount=bad)
        assert reply.ephemeral and reply.content.startswith("The amount must"), reply.content
    settings = await game.slash(alice, "chips", "settings", starting_balance=5000,
                                daily_amount=0, daily_hours=12)
    assert settings.content.splitlines()[0] == t(
        "reply.economy", starting="5,000", daily="0", hours=12
    )
    assert (await game.slash(carol, "chips", "daily")).content == t("error.daily_disabled")

    # Statistics and the leaderboard after a hand.
    await game.ok(alice, "poker", "create")
    await game.ok(alice, "poker", "join", buy_in=500)
    await game.ok(bob, "poker", "join", buy_in=500)
    await game.ok(alice, "poker", "start")
    await game.wait_hand(1)
    folder = await game.wait_turn()
    await game.ok(folder, "fold")
    await game.wait_result(1)
    board = await game.slash(carol, "chips", "leaderboard")
    assert board.content.startswith("**Leaderboard: chips won**")
    assert "1. " in board.content and "(1 hands)" in board.content
    stats = await game.slash(carol, "chips", "stats", user=alice)
    won = 0 if folder is alice else 1
    assert stats.content.startswith(f"**{alice.mention}** · All time\n1 hands, {won} won")
    assert "VPIP 0.0% (0/1)" in stats.content and stats.attachments[0].filename == "net.png"
