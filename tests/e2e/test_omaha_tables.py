"""Six-handed Pot-Limit Omaha and Omaha Hi-Lo tables, each played 14 hands end to end by a real
bot process over the fake Discord: slash commands, the table's buttons (the Pot button among
them) and the raise form, with raises above the pot refused on the way, and one SIGKILL in the
middle. Afterwards every chip is where the ledger says, every hand dealt four cards a player,
and no hand nobody showed reached a message anyone else could read."""

from __future__ import annotations

import asyncio
import random
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.i18n import t
from bot.storage import Database, hands, invariant
from tests.e2e.game_kit import STARTING_BALANCE, press_answer, settled
from tests.e2e.processes import bot_process
from tests.e2e.secrets_kit import hidden_cards, public_leaks
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser
from tests.timing import scaled

pytestmark = [pytest.mark.timeout(900), pytest.mark.slow]

HANDS = 14
KILL_AT = 6  # hands finished at both tables before the process is killed
BUY_IN = 1000
TITLES = {"plo": "**Pot-Limit Omaha** ·", "plo8": "**Pot-Limit Omaha Hi-Lo** ·"}
RESULT = re.compile(r"^\*\*Hand #(\d+): result\*\*", re.MULTILINE)
ABOVE_POT = "That's more than the pot limit"
# Answers that only mean the table moved on before the press arrived: look again.
MOVED_ON = (t("error.not_your_turn"), t("error.stale_message"), t("error.no_hand"))


@dataclass
class Seen:
    """What the simulated players did, to show each way of acting was taken."""

    slash: int = 0
    buttons: int = 0
    pot_buttons: int = 0
    forms: int = 0
    refused_above_pot: int = 0
    answers: list[str] = field(default_factory=list)


def results(fake: FakeDiscord, channel: FakeChannel) -> set[int]:
    return {int(n) for m in fake.messages_in(channel) if not m.ephemeral
            for n in RESULT.findall(m.content)}


def table_message(fake: FakeDiscord, channel: FakeChannel, game: str) -> FakeMessage | None:
    for message in reversed(fake.messages_in(channel)):
        if not message.ephemeral and message.content.startswith(TITLES[game]):
            return message
    return None


def to_act(message: FakeMessage, players: list[FakeUser]) -> FakeUser | None:
    return next((u for u in players if f"{u.mention} to act" in message.content), None)


def ids(message: FakeMessage, action: str) -> list[str]:
    pattern = re.compile(rf"poker:\d+:{action}(?:@\d+\.\d+)?(?::\d+)?")
    return [cid for cid in message.custom_ids() if pattern.fullmatch(cid)]


async def act(fake: FakeDiscord, channel: FakeChannel, message: FakeMessage, user: FakeUser,
              rng: random.Random, seen: Seen) -> str:
    """One action of ``user``, in one of the ways a player may act; what he was answered."""
    style = rng.random()
    if style < 0.3:
        # Typed: now and then a raise far above the pot first, which must be refused.
        if rng.random() < 0.3:
            handle = await fake.slash(user, channel, "raise", options={"to": 10**6})
            answer = (await settled(handle)).content
            if answer.startswith(ABOVE_POT):
                seen.refused_above_pot += 1
            elif answer not in MOVED_ON:
                return answer
        name = rng.choice(["check", "call", "call", "fold"])
        handle = await fake.slash(user, channel, name)
        answer = (await settled(handle)).content
        if answer.startswith("You can't check"):
            handle = await fake.slash(user, channel, "call")
            answer = (await settled(handle)).content
        seen.slash += 1
        return answer
    if style < 0.5 and ids(message, "raise_modal"):
        press = await fake.click(user, message, ids(message, "raise_modal")[0])
        opener = await press.response()
        if not opener.is_modal or not opener.custom_id:
            return opener.content
        # Half the time more than the pot first: refused, with the pot's size in the answer.
        if rng.random() < 0.5:
            submitted = await fake.submit_modal(user, opener.custom_id, {"amount": "9999999"})
            answer = await press_answer(submitted)
            if answer.startswith(ABOVE_POT):
                seen.refused_above_pot += 1
            else:
                return answer
        pot = [cid for cid in ids(message, "raise") if cid.count(":") == 3]
        amount = pot[0].rsplit(":", 1)[1] if pot else "1"
        submitted = await fake.submit_modal(user, opener.custom_id, {"amount": amount})
        seen.forms += 1
        return await press_answer(submitted)
    choices = [a for a in ("fold", "check", "call", "allin", "raise") if ids(message, a)]
    weights = {"fold": 3, "check": 4, "call": 4, "allin": 1, "raise": 2}
    action = rng.choices(choices, [weights[a] for a in choices])[0]
    custom_id = rng.choice(ids(message, action))
    handle = await fake.click(user, message, custom_id)
    seen.buttons += 1
    if action == "allin" and "Pot " in str(message.component(custom_id).get("label", "")):
        seen.pot_buttons += 1
    return await press_answer(handle)


async def play(fake: FakeDiscord, channel: FakeChannel, game: str, players: list[FakeUser],
               until: int, seed: int, seen: Seen) -> None:
    """Whoever the table names acts, until ``until`` hands have a result."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + scaled(240)
    while len(results(fake, channel)) < until:
        assert loop.time() < deadline, f"{game}: {len(results(fake, channel))} hands only"
        message = table_message(fake, channel, game)
        user = None if message is None else to_act(message, players)
        if message is None or user is None:
            await asyncio.sleep(0.05)
            continue
        try:
            answer = await act(fake, channel, message, user, rng, seen)
        except (ValueError, LookupError):
            continue  # the message changed under the press (a button gone): look again
        assert not answer.startswith("Something went wrong"), answer
        seen.answers.append(answer)


async def open_table(fake: FakeDiscord, channel: FakeChannel, game: str,
                     players: list[FakeUser]) -> None:
    for user, name, subcommand, options in (
        (players[0], "poker", "create", {"game": game, "seats": 6, "small_blind": 5,
                                          "big_blind": 10}),
        *((user, "poker", "join", {"buy_in": BUY_IN}) for user in players),
        (players[0], "poker", "start", {}),
    ):
        handle = await fake.slash(user, channel, name, subcommand=subcommand, options=options)
        reply = await settled(handle)
        assert reply.ephemeral and not reply.content.startswith("Something"), reply.content


async def test_six_handed_omaha_and_hi_lo_play_fourteen_hands_through_a_sigkill(
    tmp_path: Path,
) -> None:
    users = [FakeUser(f"o{k}") for k in range(12)]
    guild = FakeGuild.create("Omaha night", channels=["plo", "hilo"], members=users)
    tables = {"plo": (guild.channel("plo"), users[:6]), "plo8": (guild.channel("hilo"), users[6:])}
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"
    seen = {game: Seen() for game in tables}
    async with FakeDiscord(guilds=[guild], users=users) as fake:
        async with bot_process(fake, tmp_path, log) as first:
            await fake.wait_for_session(timeout=30)
            await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
            for game, (channel, players) in tables.items():
                await open_table(fake, channel, game, players)
            await asyncio.gather(*(play(fake, channel, game, players, KILL_AT, 1, seen[game])
                                   for game, (channel, players) in tables.items()))
            first.send_signal(signal.SIGKILL)
            assert await first.wait() == -signal.SIGKILL
        await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
        async with bot_process(fake, tmp_path, log) as second:
            await fake.wait_for_session(timeout=30)
            await asyncio.gather(*(play(fake, channel, game, players, HANDS, 2, seen[game])
                                   for game, (channel, players) in tables.items()))
            second.send_signal(signal.SIGTERM)
            await asyncio.wait_for(second.wait(), timeout=30)
        events = list(fake.events)
        direct = {user.id: [m.content for m in fake.messages_in(user)] for user in users}

    db = await Database.open(url)
    try:
        report = await invariant.check_invariant(db)
        (balance,) = report.guilds
        rows = await db.fetchall(
            "SELECT t.channel_id, h.hand_id, h.status FROM hands h"
            " JOIN poker_tables t ON t.table_id = h.table_id")
        by_channel: dict[int, list[int]] = {}
        running: dict[int, list[int]] = {}
        for channel_id, hand_id, status in rows:
            # SIGTERM leaves the hand being played stored as it stands: the next start goes on.
            assert status in ("finished", "running"), (hand_id, status)
            place = by_channel if status == "finished" else running
            place.setdefault(int(channel_id), []).append(int(hand_id))
        for game, (channel, _) in tables.items():
            assert len(by_channel[channel.id]) >= HANDS, (game, len(by_channel[channel.id]))
            assert len(running.get(channel.id, [])) <= 1
            for hand_id in by_channel[channel.id]:
                hand = hands.rebuild_hand(await hands.load_hand(db, hand_id))
                assert hand.game.code == game
                assert all(len(hand.hole_cards(i)) == 4 for i in range(hand.n))
        hidden, shown = await hidden_cards(db, "1 = 1", ())
    finally:
        await db.close()
    assert report.ok, report
    # Twelve wallets and what sits at the two tables: the twelve welcome balances, no more.
    assert balance.held == len(users) * STARTING_BALANCE == balance.ledger_total
    places = {channel.id for channel, _ in tables.values()}
    assert public_leaks(events, places, hidden, shown) == []
    # Each player's DMs hold his own cards (every hand he was dealt), never anyone else's.
    assert all(any(h.cards in text for text in direct[h.owner]) for h in hidden)
    assert not [(h, user) for h in hidden for user, texts in direct.items()
                if user != h.owner and any(h.cards in text for text in texts)]
    assert len(hidden) > 40  # most hands end with somebody folded: plenty to look for
    for game, did in seen.items():
        assert did.slash and did.buttons and did.forms, (game, did)
        assert did.pot_buttons and did.refused_above_pot, (game, did)
