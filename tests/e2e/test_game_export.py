"""``/history export`` and ``/history hand format:pokerstars`` through the real bot over the
fake Discord: a cash session is played, then each player takes the session's zip. Its files
parse (the PokerStars text by the tests' own reader and by PokerKit, every PHH file as TOML
with the hand's actions) and hold no hole card their asker may not see; the attachment is
within the file size the interaction says Discord takes. The worst member is refused in
words: a member who did not play, another server's session, a practice table, a hand number
from another table, export spam, a server whose file limit the zip would pass.
"""

from __future__ import annotations

import re
import tomllib
import warnings
import zipfile
from collections.abc import AsyncIterator
from io import BytesIO
from pathlib import Path

import pytest
from pokerkit import HandHistory

from bot.errors import BotError, coded_message
from bot.i18n import t
from bot.storage import hands, recaps, sessions
from engine.cards import format_card
from tests.e2e.game_kit import Game, running_game, settled
from tests.e2e.harness import World
from tests.engine.pokerstars_reader import read_hand, split_hands
from tests.fakediscord import FakeDiscord, FakeGuild, FakeUser

pytestmark = pytest.mark.timeout(180)

CARD_GROUP = re.compile(r"\[((?:[2-9TJQKA][cdhs] ?)+)\]")
ZIP_LIMIT = 10 * 1024 * 1024


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[tuple[Game, list[FakeUser], FakeGuild]]:
    """Three players with names that break the PokerStars format, a member who watches, and
    a second server two of them are in too."""
    alice = FakeUser("alice", global_name="Seat 1: Alice [As Kd]")
    bob = FakeUser("bob", global_name="bob: calls 20")
    carol = FakeUser("carol", dms_open=False, global_name="*** SUMMARY ***")
    dave = FakeUser("dave")
    users = [alice, bob, carol, dave]
    guild = FakeGuild.create("Casino", channels=["poker", "lobby", "side"], members=users)
    other = FakeGuild.create("Elsewhere", channels=["poker"], members=[alice, bob])
    world = World(alice=alice, bob=bob, carol=carol, guild=guild)
    async with (
        FakeDiscord(guilds=[guild, other], users=users) as fake,
        running_game(fake, world, tmp_path) as game,
    ):
        yield game, users, other


def refusal(code: str, **params: object) -> str:
    return coded_message(BotError(code, **params), "en-US")[0]


async def play_hands(game: Game, count: int) -> None:
    """``count`` hands: the first player to act raises and the rest fold every third hand,
    else everybody checks or calls to the showdown."""
    for number in range(1, count + 1):
        await game.wait_hand(number)
        if number % 3 == 0:
            await game.ok(await game.wait_turn(), "raise", to=40)
            while game.hand is not None and game.live_table().table.hand_number == number:
                user = game.to_act()
                if user is not None:
                    await game.ok(user, "fold")
        else:
            await game.passive_round(number)
        await game.wait_result(number)


async def allowed(game: Game, hand_id: int, viewer: int) -> set[str]:
    stored = await hands.load_hand(game.db, hand_id)
    hand = hands.rebuild_hand(stored)
    assert hand.result is not None
    seen = {c for board in hand.boards for c in board}
    for p in stored.players:
        if p.player in hand.result.shown or p.user_id == viewer:
            seen |= set(hand.hole_cards(p.player))
    return {format_card(c) for c in seen}


async def test_a_played_session_exports_as_a_zip_with_only_what_each_player_may_see(
    club: tuple[Game, list[FakeUser], FakeGuild],
) -> None:
    game, users, other = club
    alice, bob, carol, dave = users
    await game.open_table(alice, bob, carol)
    await game.ok(alice, "poker", "start")
    await play_hands(game, 5)
    await game.ok(alice, "poker", "pause")
    await game.wait_idle()
    table_id = game.live_table().table_id

    texts: dict[int, str] = {}
    for user in (alice, bob, carol):
        handle = await game.fake.slash(user, game.channel, "history", subcommand="export")
        first = await handle.response(timeout=3)
        assert first.type == 5 and first.ephemeral  # deferred at once: a zip takes time
        reply = await settled(handle, timeout=60)
        assert reply.ephemeral and reply.content.startswith("Hands #1 to #"), reply.content
        (attachment,) = reply.attachments
        assert attachment.size <= ZIP_LIMIT and attachment.filename.endswith(".zip")
        with zipfile.ZipFile(BytesIO(attachment.data)) as archive:
            files = {name: archive.read(name).decode() for name in archive.namelist()}
        (text,) = [body for name, body in files.items() if name.endswith(".txt")]
        texts[user.id] = text
        blocks = split_hands(text)
        phh = {name: body for name, body in files.items() if name.endswith(".phh")}
        assert len(blocks) == len(phh) >= 5
        for block in blocks:
            read = read_hand(block)
            assert read.table == "poker" and read.play_money
            assert set(read.seats) == {"Seat_1_Alice_As_Kd", "bob_calls_20", "SUMMARY"}
            written = {c for group in CARD_GROUP.findall(block) for c in group.split()}
            assert written <= await allowed(game, read.hand, user.id), (user.name, read.hand)
        for body in phh.values():
            parsed = tomllib.loads(body)
            stored = (await sessions.session_page(
                game.db, await sessions.table_session(game.db, table_id),
                sessions.Page(0, parsed["hand"] - 1), limit=1))[0]
            cards = {a.split()[-1][k:k + 2] for a in parsed["actions"]
                     if a.startswith(("d dh", "d db")) or " sm " in a
                     for k in range(0, len(a.split()[-1]), 2)} - {"??"}
            assert cards <= await allowed(game, stored.hand_id, user.id)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert len(list(HandHistory.from_pokerstars(text, error_status=True))) == len(blocks)
    # Each asker's file deals him his own cards and nobody else's.
    for user in (alice, bob, carol):
        dealt = {name for b in split_hands(texts[user.id]) for name in read_hand(b).dealt}
        assert len(dealt) == 1

    # One hand as PokerStars writes it: his own cards, the channel's name, the hand's stakes.
    reply = await game.slash(bob, "history", "hand", hand=2, format="pokerstars")
    (file,) = reply.attachments
    assert reply.ephemeral and file.filename == "hand-2.txt"
    one = read_hand(file.data.decode())
    assert one.table == "poker" and (one.small_blind, one.big_blind) == (5, 10)
    assert list(one.dealt) == ["bob_calls_20"]
    phh = await game.slash(bob, "history", "hand", hand=2)
    (file,) = phh.attachments
    assert file.filename == "hand-2.phh"
    parsed = tomllib.loads(file.data.decode())
    stored = (await sessions.session_page(
        game.db, await sessions.table_session(game.db, table_id),
        sessions.Page(0, 1), limit=1))[0]
    hand = hands.rebuild_hand(await hands.load_hand(game.db, stored.hand_id))
    assert hand.result is not None
    unseen = [p for p in (await hands.load_hand(game.db, stored.hand_id)).players
              if p.user_id != bob.id and p.player not in hand.result.shown]
    dealt = [a.split()[-1] for a in parsed["actions"] if a.startswith("d dh")]
    # Whether hand 2 went to a showdown is the deal's luck: every hand nobody showed is hidden.
    assert sum(set(cards) == {"?"} for cards in dealt) == len(unseen)
    assert {c[k:k + 2] for c in dealt for k in range(0, len(c), 2)} - {"??"} <= await allowed(
        game, stored.hand_id, bob.id)

    # The worst member: he watched and played nothing.
    watcher = await game.slash(dave, "history", "export")
    assert watcher.ephemeral and watcher.content == refusal("export_not_played")
    # A hand number of this table asked at another table: that table has no such hand.
    side = game.world.guild.channel("side")
    await game.ok(dave, "poker", "create", channel=side)
    await game.ok(dave, "poker", "join", buy_in=1000, channel=side)
    await game.ok(alice, "poker", "join", buy_in=1000, channel=side)
    foreign = await game.slash(alice, "history", "hand", hand=4, channel=side)
    assert foreign.content == t("error.no_such_hand", hand=4)
    # A practice table's hands are play chips.
    lobby = game.world.guild.channel("lobby")
    await game.ok(carol, "poker", "practice", bots=1, channel=lobby)
    practice = await game.slash(carol, "history", "export", channel=lobby)
    assert practice.content == refusal("export_practice")
    # Export spam: a few an hour, then the clock.
    for _ in range(2):
        assert (await game.slash(bob, "history", "export")).attachments
    spam = await game.slash(bob, "history", "export")
    assert spam.ephemeral and spam.content.startswith("Slow down")

    # The session ends (a ledger reset): the number its recap gives names it, here only.
    played = {len(split_hands(text)) for text in texts.values()}
    await game.poker(alice, "ledger", reset=True)
    ended = await recaps.latest_in_channel(game.db, game.world.guild.id, game.channel.id)
    assert ended is not None
    named = await game.slash(carol, "history", "export", session=ended)
    assert named.content.startswith("Hands #1 to #") and named.attachments, named.content
    with zipfile.ZipFile(BytesIO(named.attachments[0].data)) as archive:
        (text,) = [archive.read(n).decode() for n in archive.namelist() if n.endswith(".txt")]
    assert {len(split_hands(text))} == played
    # Another server's session, named by its number from a channel there.
    elsewhere = await game.slash(alice, "history", "export", session=ended,
                                 channel=other.channel("poker"))
    assert elsewhere.content == refusal("no_such_recap", session=ended)


async def test_a_zip_past_the_servers_file_limit_is_refused_with_what_to_ask_for(
    tmp_path: Path,
) -> None:
    """The limit is the interaction's own (``attachment_size_limit``): where Discord takes
    small files the session is refused, with how many hands fit, and that part comes. (The
    table is played at Discord's usual limit, its images being larger than the small one.)"""
    world_users = [FakeUser("alice"), FakeUser("bob")]
    guild = FakeGuild.create("Casino", channels=["poker"], members=world_users)
    world = World(alice=world_users[0], bob=world_users[1], carol=FakeUser("carol"), guild=guild)
    async with (
        FakeDiscord(guilds=[guild], users=world_users) as fake,
        running_game(fake, world, tmp_path) as game,
    ):
        alice, bob = world_users
        await game.open_table(alice, bob)
        await game.ok(alice, "poker", "start")
        await play_hands(game, 6)
        await game.ok(alice, "poker", "pause")
        await game.wait_idle()
        fake.state.attachment_size_limit = 3_000
        reply = await game.slash(alice, "history", "export")
        match = re.search(r"at most (\d+) hands", reply.content)
        assert reply.ephemeral and "0.00286 MB" in reply.content and match, reply.content
        fits = int(match[1])
        assert 1 <= fits < 6
        part = await game.slash(alice, "history", "export", **{"from": 1, "to": fits})
        (attachment,) = part.attachments
        assert attachment.size <= 3_000
        with zipfile.ZipFile(BytesIO(attachment.data)) as archive:
            assert sum(name.endswith(".phh") for name in archive.namelist()) == fits
