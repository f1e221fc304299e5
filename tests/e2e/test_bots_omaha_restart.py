"""Computer players at Omaha through a real bot process: a six-seat Pot-Limit Omaha practice
table (five bots, one person) killed with SIGKILL in the middle of a hand, started again and
played on; and a five-card PLO practice tournament at nine seats, the most the deck deals.
Afterwards every play chip is still at the table, no wallet or ledger row moved, and no hand
nobody showed reached a message anyone could read."""

from __future__ import annotations

import asyncio
import random
import re
import signal
from pathlib import Path

import pytest

from bot.storage import Database, hands, invariant
from engine.bots.ids import is_bot
from tests.e2e.game_kit import settled
from tests.e2e.harness import World
from tests.e2e.processes import bot_process
from tests.e2e.secrets_kit import hidden_cards, public_leaks
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.timing import scaled

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

FAST_BOTS = {"POKER_BOT_PAUSE": "0.05"}
STACK = 1000
BEFORE_KILL = 3  # hands with a result before the kill is armed
AFTER_KILL = 3  # hands with a result after the restart
RESULT = re.compile(r"^\*\*Hand #(\d+): result\*\*", re.MULTILINE)


def results(fake: FakeDiscord, channel: FakeChannel) -> set[int]:
    return {int(n) for m in fake.messages_in(channel) if not m.ephemeral
            for n in RESULT.findall(m.content)}


def table_message(fake: FakeDiscord, channel: FakeChannel, title: str) -> FakeMessage | None:
    for message in reversed(fake.messages_in(channel)):
        if not message.ephemeral and title in message.content:
            return message
    return None


async def person_plays(fake: FakeDiscord, channel: FakeChannel, user: FakeUser,
                       title: str, rng: random.Random) -> None:
    """If the table names ``user`` to act: he checks when it is free, else calls now and then
    (a small price only) or folds; whatever he is answered, nothing went wrong."""
    message = table_message(fake, channel, title)
    if message is None or f"{user.mention} to act" not in message.content:
        await asyncio.sleep(0.05)
        return
    reply = (await settled(await fake.slash(user, channel, "check"))).content
    if reply.startswith("You can't check"):
        command = "call" if rng.random() < 0.3 and ", 5 to call" in message.content else "fold"
        reply = (await settled(await fake.slash(user, channel, command))).content
    assert not reply.startswith("Something went wrong"), reply


async def running_hand(url: str, channel_id: int) -> tuple[int, int]:
    """(hand id, stored actions) of the hand running at the table of ``channel_id``, (0, 0)."""
    db = await Database.open(url)
    try:
        rows = await db.fetchall(
            "SELECT h.hand_id FROM hands h JOIN poker_tables t ON t.table_id = h.table_id"
            " WHERE t.channel_id = ? AND h.status = 'running'", (channel_id,))
        if not rows:
            return 0, 0
        hand_id = int(rows[0][0])
        return hand_id, len((await hands.load_hand(db, hand_id)).actions)
    finally:
        await db.close()


async def test_a_plo_practice_table_of_five_bots_and_a_person_plays_on_through_a_sigkill(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    alice = world.alice
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"
    title = "**Pot-Limit Omaha** ·"
    rng = random.Random(7)
    loop = asyncio.get_running_loop()

    async with bot_process(fake, tmp_path, log, environ=FAST_BOTS) as first:
        await fake.wait_for_session(timeout=30)
        await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
        handle = await fake.slash(alice, channel, "poker", subcommand="practice", options={
            "bots": 5, "level": "strong", "blinds": "5/10", "stack": STACK, "game": "plo"})
        reply = await settled(handle)
        assert reply.ephemeral and "play chips" in reply.content, reply.content
        deadline = loop.time() + scaled(90)
        # A few hands, then the kill as soon as a hand has stored actions of bots and people.
        while True:
            assert loop.time() < deadline, f"{len(results(fake, channel))} hands only"
            await person_plays(fake, channel, alice, title, rng)
            if len(results(fake, channel)) >= BEFORE_KILL:
                killed_hand, actions = await running_hand(url, channel.id)
                if killed_hand and actions >= 3:
                    break
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
    killed_hand, actions = await running_hand(url, channel.id)
    assert killed_hand and actions >= 3, "no hand was in progress at the kill"
    before = len(results(fake, channel))

    async with bot_process(fake, tmp_path, log, environ=FAST_BOTS) as second:
        await fake.wait_for_session(timeout=30)
        deadline = loop.time() + scaled(90)
        while len(results(fake, channel)) < before + AFTER_KILL:
            assert loop.time() < deadline, f"{len(results(fake, channel)) - before} hands after"
            await person_plays(fake, channel, alice, title, rng)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=30)
    events = list(fake.events)
    to_alice = [m.content for m in fake.messages_in(alice)] + [
        e.message.content for e in events if e.message.ephemeral]

    db = await Database.open(url)
    try:
        report = await invariant.check_invariant(db)
        ledger = int((await db.fetchall("SELECT COUNT(*) FROM ledger"))[0][0])
        (table_id,) = await db.fetchall(
            "SELECT table_id FROM poker_tables WHERE channel_id = ? AND practice = 1",
            (channel.id,))
        seated = await db.fetchall(
            "SELECT COALESCE(SUM(stack), 0) FROM seats WHERE table_id = ?", (table_id[0],))
        pending = await db.fetchall(
            "SELECT COALESCE(SUM(chips), 0) FROM hands WHERE table_id = ? AND status = 'running'",
            (table_id[0],))
        finished = await hands.load_hand(db, killed_hand)
        rows = await db.fetchall(
            "SELECT hand_id FROM hands WHERE table_id = ? AND status = 'finished'",
            (table_id[0],))
        stored = [await hands.load_hand(db, int(r[0])) for r in rows]
        dealt = [hands.rebuild_hand(h) for h in stored]
        owners = {int(r[0]) for r in await db.fetchall(
            "SELECT DISTINCT p.user_id FROM hand_players p JOIN hands h USING (hand_id)"
            " WHERE h.table_id = ?", (table_id[0],))}
        hidden, shown = await hidden_cards(db, "t.table_id = ?", (table_id[0],))
    finally:
        await db.close()
    # The hand of the kill was finished from its stored actions, and play went on after it.
    assert finished.status == "finished" and len(finished.actions) >= actions
    assert len(dealt) >= before + AFTER_KILL - 1
    assert all(h.game.code == "plo" and all(len(h.hole_cards(i)) == 4 for i in range(h.n))
               for h in dealt)
    hers = [sum(1 for a in hand.actions if a.player == p.player)
            for record, hand in zip(stored, dealt, strict=True)
            for p in record.players if p.user_id == alice.id]
    assert sum(hers) > 0  # the person acted, not only the bots
    assert owners - {alice.id} and all(is_bot(o) for o in owners - {alice.id})
    # Play chips: the six stacks stay at the table, whatever the kill; the economy is untouched.
    assert int(seated[0][0]) + int(pending[0][0]) == 6 * STACK
    assert report.ok, report
    assert ledger <= 1  # at most Alice's welcome: a practice table writes no ledger row
    assert public_leaks(events, {channel.id}, hidden, shown) == []
    bots_hidden = [h for h in hidden if h.owner != alice.id]
    assert bots_hidden  # most hands end with bots folded: plenty to look for
    assert not [h for h in bots_hidden if any(h.cards in text for text in to_alice)]


async def tournament_hands(url: str, status: str, *, acted: int = 0) -> list[int]:
    """The tournament hands of ``status`` with at least ``acted`` stored actions."""
    db = await Database.open(url)
    try:
        rows = await db.fetchall(
            "SELECT hand_id FROM hands WHERE tournament_id IS NOT NULL AND status = ?"
            " ORDER BY hand_id", (status,))
        found = [int(r[0]) for r in rows]
        return [h for h in found if len((await hands.load_hand(db, h)).actions) >= acted]
    finally:
        await db.close()


async def test_a_five_card_plo_practice_tournament_deals_nine_seats_through_a_sigkill(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    """Nine seats of five cards and a board of five: 50 of the 52 cards. Ten seats cannot be
    dealt, and are refused before anything is stored."""
    alice = world.alice
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"
    title = "**Five-card Pot-Limit Omaha**"
    rng = random.Random(9)
    loop = asyncio.get_running_loop()
    options: dict[str, object] = {
        "name": "Nine", "kind": "freeze_out", "buy_in": 0, "starting_stack": 2000,
        "structure": "5/10 30", "bots": 8, "max_players": 9, "game": "plo5"}

    async with bot_process(fake, tmp_path, log, environ=FAST_BOTS) as first:
        await fake.wait_for_session(timeout=30)
        await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
        handle = await fake.slash(alice, channel, "tournament", subcommand="create",
                                  options={**options, "seats_per_table": 10})
        refused = await settled(handle)
        assert refused.ephemeral and "at most 9 players" in refused.content, refused.content
        for subcommand, given in (("create", options), ("register", {}), ("start", {})):
            handle = await fake.slash(alice, channel, "tournament", subcommand=subcommand,
                                      options=given)
            reply = await settled(handle)
            assert reply.ephemeral and not reply.content.startswith("Something"), reply.content
        deadline = loop.time() + scaled(90)
        # The kill comes in the middle of the second hand or a later one.
        while not await tournament_hands(url, "finished") or not (
                await tournament_hands(url, "running", acted=3)):
            assert loop.time() < deadline, "no second hand dealt"
            await person_plays(fake, channel, alice, title, rng)
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
    (killed_hand,) = await tournament_hands(url, "running")

    async with bot_process(fake, tmp_path, log, environ=FAST_BOTS) as second:
        await fake.wait_for_session(timeout=30)
        deadline = loop.time() + scaled(90)
        while killed_hand not in await tournament_hands(url, "finished"):
            assert loop.time() < deadline, "the hand of the kill was not finished"
            await person_plays(fake, channel, alice, title, rng)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=30)
    events = list(fake.events)

    db = await Database.open(url)
    try:
        report = await invariant.check_invariant(db)
        ledger = int((await db.fetchall("SELECT COUNT(*) FROM ledger"))[0][0])
        made = await db.fetchall("SELECT COUNT(*) FROM tournaments")
        finished = await tournament_hands(url, "finished")
        dealt = [hands.rebuild_hand(await hands.load_hand(db, h)) for h in finished]
        hidden, shown = await hidden_cards(db, "h.tournament_id IS NOT NULL", ())
    finally:
        await db.close()
    assert int(made[0][0]) == 1  # the ten-seat one was refused before anything was stored
    first_hand = dealt[0]
    assert first_hand.game.code == "plo5" and first_hand.n == 9
    cards = [c for i in range(9) for c in first_hand.hole_cards(i)]
    assert len(cards) == 45 and len(set(cards)) == 45
    assert not set(cards) & set(first_hand.board)
    assert all(h.game.code == "plo5" and all(len(h.hole_cards(i)) == 5 for i in range(h.n))
               for h in dealt)
    assert report.ok, report
    assert ledger <= 1  # at most Alice's welcome: a practice tournament pays nothing
    places = {channel.id} | {h.channel_id for h in hidden}
    assert hidden and public_leaks(events, places, hidden, shown) == []
