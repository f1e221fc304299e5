"""The recap of a night over the fake Discord: a session of five players with all-ins ends (the
host closes the table, or resets the ledger) with one recap in the channel whose figures are the
ledger's and the stored hands', whose transfers settle every net, and which shows no card that
was not shown; each player gets his own figures by DM. Then the worst member: /history recap
of another server's session, of a practice table, of a session with no hands, of a session he
did not play, asked again and again; and a recap whose post Discord took but failed to answer,
sent once."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.i18n import t
from bot.runtime.reports import signed
from bot.storage import economy, hands, recaps, sessions, stats
from bot.storage.errors import StorageUnavailable
from tests.e2e.game_kit import Game, running_game, settled, until
from tests.e2e.harness import World, make_world
from tests.e2e.recap_kit import (
    ISOLATES,
    RECAP,
    all_posted,
    amount,
    pause_between_hands,
    recap_csv,
    recap_rows,
    recaps_in,
    second_reading,
    shove_and_call,
)
from tests.e2e.secrets_kit import hidden_cards, public_leaks
from tests.e2e.test_game_ledger import csv_rows
from tests.e2e.tournament_kit import (
    Players,
    always_all_in,
    assert_no_hidden_card_in_public,
    create,
    register,
    wait_over,
)
from tests.fakediscord import FakeDiscord, FakeGuild, FakeUser

pytestmark = pytest.mark.timeout(240)


@dataclass
class NightWorld(World):
    dave: FakeUser | None = None
    erin: FakeUser | None = None

    @property
    def users(self) -> list[FakeUser]:
        return [self.alice, self.bob, self.carol, *(u for u in (self.dave, self.erin) if u)]


@pytest.fixture
def world() -> World:
    base = make_world()
    dave, erin = FakeUser("dave"), FakeUser("erin")
    base.guild.members.extend([dave, erin])
    return NightWorld(base.alice, base.bob, base.carol, base.guild, dave, erin)


async def a_night(game: Game, hands: tuple[int, ...] = (1, 2, 1)) -> int:
    """Five players buy in 1,000 and play a hand per entry of ``hands``: an all-in called by
    that many; then the host pauses. The table's id."""
    players = game.world.users
    live = await game.open_table(*players, buy_in=1_000)
    await game.ok(players[0], "poker", "start")
    for number, callers in enumerate(hands, start=1):
        await shove_and_call(game, number, callers)
    await pause_between_hands(game)
    return live.table_id


async def the_recap(game: Game, after: int) -> str:
    message = await game.fake.wait_for_message(
        lambda m: m.content.startswith(RECAP), channel=game.channel, kinds=("create",),
        after=after, timeout=30)
    return message.content


async def test_a_night_of_five_ends_with_one_recap_that_settles_the_ledger(game: Game) -> None:
    world = game.world
    table_id = await a_night(game)
    mark = game.fake.mark()
    await game.ok(world.alice, "poker", "close")
    await the_recap(game, mark)
    await all_posted(game)
    (message,) = recaps_in(game, game.channel)  # one recap, never two
    text = message.content
    ledger = await sessions.session_ledger(game.db, table_id)
    nets = {p.user_id: p.net for p in ledger.players}
    assert sum(nets.values()) == 0 and len(nets) == 5
    # Results by net: the ledger's, in its order.
    names = {u.name: u.id for u in world.users}
    rows = recap_rows(text)
    assert [names[r.name] for r in rows] == [p.user_id for p in ledger.players]
    assert [r.net for r in rows] == [p.net for p in ledger.players]
    assert [r.rank for r in rows] == list(range(1, 6))
    # All-in EV and luck: a second reading of the stored hands gives the same.
    again = await second_reading(game.db, "h.table_id = ?", (table_id,))
    for r in rows:
        mine = again[names[r.name]]
        assert (r.ev, r.luck, r.all_in) == (mine.ev, mine.luck, mine.all_in), r
        assert mine.net == r.net  # a session's net is the sum of its hands'
    assert sum(r.luck or 0 for r in rows) == 0
    assert any(r.all_in for r in rows)
    # /chips stats says the same of each player's hands, with the count of all-in hands.
    for user in world.users:
        mine = again[user.id]
        stats = await game.slash(world.bob, "chips", "stats", user=user)
        assert (f"All-in EV: net {signed(mine.net, 'en')} · all-in EV net {signed(mine.ev, 'en')}"
                f" · luck {signed(mine.luck, 'en')} ({mine.all_in} all-in hands)"
                ) in stats.content.split("\n"), stats.content
    # Who pays whom: the same transfers in the text and the CSV, every net settled to zero.
    players, transfers = recap_csv(message)
    assert {int(p["user_id"]): int(p["net"]) for p in players} == nets
    left = dict(nets)
    for move in transfers:
        assert int(move["amount"]) > 0
        left[int(move["payer_id"])] += int(move["amount"])
        left[int(move["payee_id"])] -= int(move["amount"])
        line = f"{move['payer']} pays {move['payee']} {amount(move['amount']):,}"
        assert line in text.translate(str.maketrans("", "", "\u2068\u2069")), line
    assert set(left.values()) == {0}
    assert len(transfers) <= len([n for n in nets.values() if n]) - 1
    # The biggest pot's replay rides along, and the hand of the biggest swing is named.
    (replay,) = [a for a in message.attachments if a.filename.endswith((".gif", ".webp"))]
    assert replay.description and "**Biggest pot**: hand #" in text
    assert "**Biggest swing of equity**: hand #" in text
    # Nothing in the channel shows a card nobody showed: not the recap, not its replay.
    hidden, shown = await hidden_cards(game.db, "h.table_id = ?", (table_id,))
    assert hidden
    assert public_leaks(game.fake.events, {game.channel.id}, hidden, shown) == []
    for secret in hidden:
        if secret.cards not in shown:
            assert secret.cards not in (replay.description or "")
    # Each player's own figures by DM (carol's DMs are closed: she has the channel's).
    recap_id = int(text.rsplit("Recap #", 1)[1].split(",", 1)[0])
    for user in (world.alice, world.bob):
        dm = await game.fake.wait_for_message(
            lambda m: m.content.startswith("Your night at"), channel=user, timeout=20)
        assert f"(recap #{recap_id}): net " in dm.content
        his = next(r for r in rows if r.name == user.name)
        assert f"net {'+' if his.net > 0 else ''}{his.net:,}" in dm.content
    assert not any(m.content.startswith("Your night") for m in game.fake.dm_messages(world.carol))
    stored = await recaps.get_recap(game.db, recap_id)
    assert stored.state == "posted" and stored.table_id == table_id


async def test_a_ledger_reset_posts_the_recap_of_the_session_that_ended(game: Game) -> None:
    world = game.world
    alice, bob = world.alice, world.bob
    live = await game.open_table(alice, bob, buy_in=1_000)
    await game.ok(alice, "poker", "start")
    for number in (1, 2):
        await shove_and_call(game, number, 1)
        if not all(s.stack for s in live.table.seats()):
            break
    await pause_between_hands(game)
    mark = game.fake.mark()
    reply = await game.poker(alice, "ledger", reset=True)
    ended = {row["user_id"]: int(row["net"]) for row in csv_rows(reply)}
    await the_recap(game, mark)
    await all_posted(game)
    (message,) = recaps_in(game, game.channel)
    players, transfers = recap_csv(message)
    # The recap says what the reset's reply said the session was.
    assert {p["user_id"]: int(p["net"]) for p in players} == ended
    assert len(transfers) == (1 if any(ended.values()) else 0)
    # A session without a finished hand has nothing to recap: nothing is posted.
    await game.poker(alice, "ledger", reset=True)
    refused = await game.slash(bob, "history", "recap")
    assert refused.content == t("error.recap_no_hands", session=2)
    assert len(recaps_in(game, game.channel)) == 1
    # The first session's recap again, privately, with its files.
    again = await game.slash(bob, "history", "recap", session=1)
    assert again.ephemeral and again.content.startswith(RECAP)
    assert {a.filename for a in again.attachments} >= {"recap-1-ledger.csv"}


async def test_a_host_who_turns_recaps_off_keeps_them_among_the_players(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    await game.open_table(alice, bob, buy_in=1_000)
    refused = await game.poker(bob, "settings", recap=False)
    assert refused.content == t("error.not_host")
    assert (await game.poker(alice, "settings", recap=False)).content == t("reply.settings")
    await game.ok(alice, "poker", "start")
    await shove_and_call(game, 1, 1)
    await pause_between_hands(game)
    await game.ok(alice, "poker", "close")
    await all_posted(game)
    assert recaps_in(game, game.channel) == []
    stored = await recaps.get_recap(game.db, 1)
    assert stored.state == "off"
    # Its players see it (privately); a member who did not play does not.
    mine = await game.slash(bob, "history", "recap")
    assert mine.ephemeral and mine.content.startswith(RECAP)
    theirs = await game.slash(carol, "history", "recap")
    assert theirs.content == t("error.recap_not_yours", session=1)


async def test_a_post_whose_mark_was_lost_is_sent_again_once(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord took the recap, then the database failed to record it (a crash there would do
    the same): the next start sends it again with its nonce, and Discord makes no second."""
    world = game.world
    alice, bob = world.alice, world.bob
    await game.open_table(alice, bob, buy_in=1_000)
    await game.ok(alice, "poker", "start")
    await shove_and_call(game, 1, 1)
    await pause_between_hands(game)
    marked = recaps.mark_posted
    failures: list[int] = []

    async def fail_once(db: object, recap_id: int, **kwargs: object) -> bool:
        if not failures:
            failures.append(recap_id)
            raise StorageUnavailable("connection_lost", detail="injected")
        return await marked(db, recap_id, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(recaps, "mark_posted", fail_once)
    mark = game.fake.mark()
    await game.ok(alice, "poker", "close")
    await the_recap(game, mark)
    await until(lambda: failures, what="the mark to fail")
    assert (await recaps.get_recap(game.db, 1)).state == "posting"
    guild = game.bot.get_guild(world.guild.id)
    assert guild is not None
    game.bot._post_owed_recaps(guild)  # what the next start does once the server is back
    await all_posted(game)
    assert len(recaps_in(game, game.channel)) == 1
    assert [m.content for m in game.fake.nonce_replays if m.content.startswith(RECAP)]
    for user in (alice, bob):
        await game.fake.wait_for_message(lambda m: m.content.startswith("Your night at"),
                                         channel=user, timeout=20)
        assert len([m for m in game.fake.dm_messages(user)
                    if m.content.startswith("Your night at")]) == 1


async def test_the_worst_member_asks_for_recaps_he_may_not_see(
    world: World, tmp_path: Path
) -> None:
    members = list(world.guild.members)
    elsewhere = FakeGuild.create("Elsewhere", channels=["felt"], members=members)
    async with FakeDiscord(guilds=[world.guild, elsewhere], users=world.users) as fake, \
            running_game(fake, world, tmp_path) as game:
        alice, bob = world.alice, world.bob
        assert isinstance(world, NightWorld) and world.dave is not None
        dave = world.dave
        lobby = world.guild.channel("lobby")
        nothing = await game.slash(dave, "history", "recap", channel=lobby)
        assert nothing.content == t("error.no_recap_here")
        await game.open_table(alice, bob, buy_in=1_000)
        await game.ok(alice, "poker", "start")
        await shove_and_call(game, 1, 1)
        await pause_between_hands(game)
        await game.ok(alice, "poker", "close")
        await all_posted(game)
        # Another server's session does not exist here, not even for one of its players.
        felt = elsewhere.channel("felt")
        other = await game.slash(alice, "history", "recap", channel=felt, session=1)
        assert other.content == t("error.no_such_recap", session=1)
        unknown = await game.slash(alice, "history", "recap", session=999)
        assert unknown.content == t("error.no_such_recap", session=999)
        # A practice table plays for play chips: it has no recap.
        await game.ok(bob, "poker", "practice", channel=lobby, bots=1, blinds="5/10")
        practice = await game.slash(bob, "history", "recap", channel=lobby)
        assert practice.content == t("error.recap_practice")
        off = await game.slash(bob, "poker", "settings", channel=lobby, recap=False)
        assert off.content == t("error.practice_no_ledger")
        # Drawing a replay takes the render thread every table shares: three a minute, his
        # refused one above among them.
        for _ in range(2):
            shown = await game.slash(dave, "history", "recap", session=1)
            assert shown.content.startswith(RECAP) and shown.attachments
        spam = await game.slash(dave, "history", "recap", session=1)
        assert spam.content.startswith("Slow down") and not spam.attachments
        assert (await game.slash(bob, "history", "recap", session=1)).attachments
        assert len(recaps_in(game, game.channel)) == 1


TOURNAMENT_ROW = re.compile(
    r"^(\d+)\. (.+?): prize ([\d,]+) · net \*\*([+-]?[\d,]+)\*\* · all-in EV net ([+-]?[\d,]+)"
    r" · luck ([+-]?[\d,]+) \((\d+) all-in hands\)$"
)


async def test_a_tournament_ends_with_its_recap_in_its_channel(game: Game) -> None:
    world = game.world
    assert isinstance(world, NightWorld) and world.dave is not None
    players = (world.alice, world.bob, world.dave)
    live = await create(game, world.alice)
    await register(game, *players)
    mark = game.fake.mark()
    await game.ok(world.alice, "tournament", "start")
    await Players(game, live, policy=always_all_in).play_until(lambda: live.closed)
    info = await wait_over(game, live)
    message = await game.fake.wait_for_message(
        lambda m: m.content.startswith("**Recap** · Friday"), channel=game.channel,
        kinds=("create",), after=mark, timeout=30)
    await all_posted(game)
    text = message.content.translate(ISOLATES)
    names = {u.name: u.id for u in players}
    again = await second_reading(game.db, "h.tournament_id = ?", (live.tournament_id,))
    rows = [TOURNAMENT_ROW.match(line) for line in text.split("\n")]
    found = [row.groups() for row in rows if row is not None]
    assert len(found) == 3
    for place, name, prize, net, ev, luck, all_in in found:
        entry = info.entry_of(names[name])
        assert entry is not None and int(place) == entry.place
        assert (amount(prize), amount(net)) == (entry.prize, (entry.prize or 0) - info.buy_in)
        # All-in EV and luck in tournament chips, as the stored hands give them again.
        mine = again[names[name]]
        assert (amount(ev), amount(luck), int(all_in)) == (mine.ev, mine.luck, mine.all_in)
    assert "Who pays whom" not in text  # a tournament's prizes are paid already
    # The player's own tournament figures, in tournament chips, apart from his wallet's.
    for user in players:
        mine = again[user.id]
        stats = (await game.slash(user, "chips", "stats")).content.split("\n")
        net, ev, luck = (signed(v, "en") for v in (mine.net, mine.ev, mine.luck))
        assert (f"Tournaments, in tournament chips: net {net} · all-in EV net {ev} · luck {luck}"
                f" ({mine.all_in} all-in hands)") in stats, stats
        assert not any(line.startswith("All-in EV") for line in stats)
    assert [a for a in message.attachments if a.filename.endswith(".gif")]
    assert await assert_no_hidden_card_in_public(game, live) >= 0
    assert len(recaps_in(game, game.channel, "**Recap** · Friday")) == 1
    dm = await game.fake.wait_for_message(lambda m: m.content.startswith("Your Friday"),
                                          channel=world.alice, timeout=20)
    assert "(recap #1): place " in dm.content.translate(ISOLATES)


async def test_a_table_that_closes_itself_idle_posts_its_recap(game: Game) -> None:
    """The third way a session ends: everybody left and the server's idle time ran out. The
    close stores the recap with the session; it is posted once, its nets the ledger's."""
    world = game.world
    alice, bob = world.alice, world.bob
    live = await game.open_table(alice, bob, buy_in=1_000)
    await game.ok(alice, "poker", "start")
    await shove_and_call(game, 1, 1)
    await pause_between_hands(game)
    for user in (alice, bob):
        if live.table.player(user.id) is not None:
            await game.ok(user, "poker", "leave")
    await economy.update_settings(game.db, world.guild.id, idle_close=60)
    assert live.empty_since is not None
    mark = game.fake.mark()
    # Not yet idle long enough: nothing closes, nothing is owed.
    assert await game.runtime.close_idle_tables(now=live.empty_since + 59) == []
    assert await recaps.latest_in_channel(game.db, world.guild.id, game.channel.id) is None
    assert await game.runtime.close_idle_tables(now=live.empty_since + 61) == [live.table_id]
    text = await the_recap(game, mark)
    await all_posted(game)
    assert len(recaps_in(game, game.channel)) == 1
    ledger = await sessions.session_ledger(game.db, live.table_id)
    assert [r.net for r in recap_rows(text)] == [p.net for p in ledger.players]
    recap_id = await recaps.latest_in_channel(game.db, world.guild.id, game.channel.id)
    assert recap_id is not None
    assert (await recaps.get_recap(game.db, recap_id)).state == "posted"
    # A second sweep finds the table gone: no second recap.
    assert await game.runtime.close_idle_tables(now=live.empty_since + 120) == []
    await all_posted(game)
    assert len(recaps_in(game, game.channel)) == 1


async def test_an_all_in_called_is_replayed_with_each_shown_hands_chances_by_street(
    game: Game,
) -> None:
    """Through the bot: a hand that went to showdown all in is replayed with the chances of
    the two hands shown on every street, in its words and its image's alt text; a third
    player who folded is named in none of them."""
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    await game.open_table(alice, bob, carol, buy_in=1_000)
    await game.ok(alice, "poker", "start")
    await shove_and_call(game, 1, 1)
    await pause_between_hands(game)
    stored = await hands.load_hand(
        game.db, (await stats.recent_hands(game.db, game.live_table().table_id))[0].hand_id)
    hand = hands.rebuild_hand(stored)
    assert hand.result is not None and len(hand.result.shown) == 2
    folded = next(p.user_id for p in stored.players if p.player not in hand.result.shown)
    names = {u.id: u.name for u in (alice, bob, carol)}
    handle = await game.fake.slash(carol, game.channel, "history", subcommand="replay",
                                   options={"hand": 1})
    reply = await settled(handle, timeout=60)
    told = "\n".join([reply.content, *(m.content for m in handle.followups[1:])])
    odds = [line for line in told.split("\n") if " · odds " in line]
    # One line a street from the deal to the river (no street is skipped when all in).
    assert [line.split(" ")[0] for line in odds] == ["Pre-flop", "Flop", "Turn", "River"]
    shown = {names[p.user_id] for p in stored.players if p.player in hand.result.shown}
    for line in odds:
        said = line.split(" · odds ", 1)[1].split(": ", 1)[0]
        assert all(name in said for name in shown) and names[folded] not in said, line
        assert all(re.search(rf"{re.escape(name)} ≈?[\d.]+%", said) for name in shown), line
    alt = reply.attachments[0].description or ""
    said_in_alt = [part.split(": ", 1)[0].split(". ", 1)[0] for part in alt.split(" · odds ")[1:]]
    assert len(said_in_alt) == 4, alt
    assert all(names[folded] not in said for said in said_in_alt), alt
