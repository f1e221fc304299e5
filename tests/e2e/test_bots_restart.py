"""A practice tournament with bots seated, its process killed with SIGKILL in the middle of a
hand: started again, the hand resumes from its stored actions and the bots go on acting, to
the end of the tournament; no wallet and no ledger row moved, and no hand nobody showed
reached a message anyone could read. In Hold'em and in PLO Hi-Lo."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from bot.storage import Database, hands, invariant, tournaments
from engine.bots.ids import is_bot
from tests.e2e.game_kit import settled
from tests.e2e.harness import World
from tests.e2e.processes import bot_process
from tests.e2e.secrets_kit import hidden_cards, public_leaks
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

FAST_BOTS = {"POKER_BOT_PAUSE": "0.05"}


async def stored(url: str) -> tuple[int, int, int, int]:
    """(tournament id, running hand id, its stored actions, ledger rows)."""
    db = await Database.open(url)
    try:
        (tid,) = await tournaments.open_tournament_guilds(db)
        info = await tournaments.get_tournament(db, tid)
        running = await hands.tournament_hands_running(db, info.tournament_id)
        rows = int((await db.fetchall("SELECT COUNT(*) FROM ledger"))[0][0])
        if not running:
            return info.tournament_id, 0, 0, rows
        return info.tournament_id, running[0].hand_id, len(running[0].actions), rows
    finally:
        await db.close()


async def fold(fake: FakeDiscord, user: FakeUser, channel: FakeChannel) -> None:
    """Fold if it is his turn (every other answer, "not your turn" to "the table is closed",
    is fine: whether it was is found by asking)."""
    handle = await fake.slash(user, channel, "fold")
    reply = await handle.response(timeout=10)
    assert not reply.content.startswith("Something"), reply.content


@pytest.mark.parametrize("dealt", ["nlhe", "plo8"])
async def test_sigkill_with_bots_seated_resumes_the_hand_and_the_bots_play_on(
    fake: FakeDiscord, world: World, tmp_path: Path, dealt: str
) -> None:
    alice = world.alice
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"

    async with bot_process(fake, tmp_path, log, environ=FAST_BOTS) as first:
        await fake.wait_for_session(timeout=30)
        await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
        for command, subcommand, options in (
            ("chips", "balance", {}),
            ("tournament", "create", {"name": "Drill", "kind": "freeze_out", "buy_in": 0,
                                      "starting_stack": 1000,
                                      # Quick levels: the channel's send budget paces hands
                                      # (about one every few seconds), so blinds must rise.
                                      # The last level's big blind is every chip in
                                      # play: from then on each hand is all-in.
                                      "structure": "10/20 0.1, 100/200 0.1, 500/1000 0.2,"
                                                   " 4000/8000 5",
                                      "bots": 3, "max_players": 4, "game": dealt}),
            ("tournament", "register", {}),
            ("tournament", "start", {}),
        ):
            handle = await fake.slash(alice, channel, command, subcommand=subcommand,
                                      options=options)
            reply = await settled(handle)
            assert reply.ephemeral and not reply.content.startswith("Something"), reply.content
        # Alice folds whenever it is her turn; the bots play; kill once a hand has actions.
        for _ in range(400):
            await fold(fake, alice, channel)
            _, hand_id, actions, _ = await stored(url)
            if hand_id and actions >= 2:
                break
            await asyncio.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
    tid, hand_id, actions, rows = await stored(url)
    assert hand_id and actions >= 2, "no hand was in progress at the kill"

    mark = fake.mark()

    def over(message: FakeMessage) -> bool:
        return message.channel_id == channel.id and "**Drill** is over" in message.content

    async with bot_process(fake, tmp_path, log, environ=FAST_BOTS) as second:
        await fake.wait_for_session(timeout=30)
        # By the clock, not by a number of tries: a busy machine answers slowly.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 150
        while loop.time() < deadline:
            if any(over(e.message) for e in fake.events[mark:]):
                break
            await fold(fake, alice, channel)
            await asyncio.sleep(0.05)
        await fake.wait_for_message(over, channel=channel, after=mark, timeout=60)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)

    db = await Database.open(url)
    try:
        finished = await hands.load_hand(db, hand_id)
        after = await tournaments.get_tournament(db, tid)
        report = await invariant.check_invariant(db)
        ledger = int((await db.fetchall("SELECT COUNT(*) FROM ledger"))[0][0])
        acted = await db.fetchall(
            "SELECT COUNT(*) FROM hand_actions a JOIN hand_players p"
            " ON p.hand_id = a.hand_id WHERE a.hand_id > ? AND p.user_id <> ?",
            (hand_id, alice.id),
        )
        ids = await db.fetchall(
            "SELECT hand_id FROM hands WHERE tournament_id = ? AND status = 'finished'", (tid,))
        played = [hands.rebuild_hand(await hands.load_hand(db, int(r[0]))) for r in ids]
        hidden, shown = await hidden_cards(db, "h.tournament_id = ?", (tid,))
    finally:
        await db.close()
    # The hand of the crash was finished from what was stored, then play went on.
    assert finished.status == "finished"
    assert len(finished.actions) >= actions
    assert after.status == "finished" and after.pool == 0
    assert any(is_bot(e.user_id) for e in after.entries)
    assert int(acted[0][0]) > 0
    assert report.ok, report
    assert ledger == rows  # a practice tournament moves no chip of the economy
    assert played and all(h.game.code == dealt for h in played)
    events = list(fake.events)
    places = {channel.id} | {h.channel_id for h in hidden}
    assert hidden and public_leaks(events, places, hidden, shown) == []
    to_alice = [m.content for m in fake.messages_in(alice)] + [
        e.message.content for e in events if e.message.ephemeral]
    assert not [h for h in hidden if h.owner != alice.id
                and any(h.cards in text for text in to_alice)]
