"""The session ledger, statistics and leaderboards over the fake Discord: ``/poker ledger``
(message, CSV and chart; reset by the host or a manager only, mid-hand too; a closed table's
last session), ``/chips stats`` with every figure's count and a chart, ``/chips leaderboard``
by period; names that try markdown, mentions or spreadsheet formulas, and a player who left
the server."""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass

import pytest

from bot.i18n import t
from bot.storage import sessions
from tests.e2e.game_kit import Game, until
from tests.e2e.harness import World, make_world
from tests.fakediscord import FakeUser
from tests.fakediscord.interactions import InteractionCallback

pytestmark = pytest.mark.timeout(90)

# A display name that tries everything: markdown, a mass mention, a user mention, and a
# spreadsheet formula at the start.
SNEAKY = '=HYPERLINK("http://x") **boss** @everyone <@123456789012345678>'
DAY = 86_400


@dataclass
class LedgerWorld(World):
    dave: FakeUser | None = None

    @property
    def users(self) -> list[FakeUser]:
        return [self.alice, self.bob, self.carol, *([self.dave] if self.dave else [])]


@pytest.fixture
def world() -> World:
    base = make_world()
    dave = FakeUser("dave", global_name=SNEAKY)
    base.guild.members.append(dave)
    return LedgerWorld(base.alice, base.bob, base.carol, base.guild, dave)


def dave_of(game: Game) -> FakeUser:
    assert isinstance(game.world, LedgerWorld) and game.world.dave is not None
    return game.world.dave


async def play_hands(game: Game, count: int) -> None:
    """Deal and play ``count`` hands by checking and calling, then pause the table between
    hands, so what follows sees settled stacks."""
    live_table = game.live_table()
    host = game.user(live_table.host_id)
    first = live_table.table.hand_number + 1
    await game.ok(host, "poker", "start")
    for number in range(first, first + count):
        await game.wait_hand(number, timeout=30)
        await game.passive_round(number)
        await game.wait_result(number)
    await game.ok(host, "poker", "pause")
    if game.hand is not None:
        await game.passive_round(live_table.table.hand_number)
    await until(lambda: game.live_table().hand is None, what="the hand to end")


def attachment(reply: InteractionCallback, suffix: str) -> object:
    found = [a for a in reply.attachments if a.filename.endswith(suffix)]
    assert len(found) == 1, [a.filename for a in reply.attachments]
    return found[0]


def csv_sections(reply: InteractionCallback) -> list[str]:
    """The CSV file's sections: the players, then (after a blank row) who pays whom."""
    file = attachment(reply, ".csv")
    data: bytes = file.data  # type: ignore[attr-defined]
    assert data.startswith(b"\xef\xbb\xbf")  # UTF-8 with its mark, for spreadsheets
    return data.decode("utf-8-sig").split("\r\n\r\n")


def csv_rows(reply: InteractionCallback) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(csv_sections(reply)[0])))


def settlement_rows(reply: InteractionCallback) -> list[dict[str, str]]:
    """The CSV's settlement section: a row naming it, then one row per transfer."""
    title, table = csv_sections(reply)[1].split("\r\n", 1)
    assert title == "settlement"
    return list(csv.DictReader(io.StringIO(table)))


def assert_chart(reply: InteractionCallback, name: str, starts: str) -> None:
    chart = attachment(reply, name)
    assert chart.open_image().format == "PNG"  # type: ignore[attr-defined]
    description = chart.description  # type: ignore[attr-defined]
    assert description and len(description) <= 1024 and description.startswith(starts)


async def test_anyone_in_the_channel_reads_the_ledger_as_text_csv_and_chart(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    live_table = await game.open_table(alice, bob, buy_in=1_000)
    await play_hands(game, 2)
    # Whoever lost chips buys them back: a top-up.
    loser = min((alice, bob), key=lambda u: live_table.table.player(u.id).stack)  # type: ignore
    lost = 1_000 - live_table.table.player(loser.id).stack  # type: ignore[union-attr]
    if lost:
        await game.ok(loser, "poker", "rebuy", amount=lost)

    reply = await game.poker(carol, "ledger")  # carol is not seated: the ledger is public here
    assert reply.ephemeral  # but private to whoever asked: no images flooding the channel
    text = reply.content
    assert text.startswith("**Ledger** · #poker · since the table opened <t:")
    assert f"{live_table.table.hand_number} hands played · 2 players" in text
    assert "The nets add up to 0: every chip is accounted for." in text
    rows = {row["player"]: row for row in csv_rows(reply)}
    assert set(rows) == {"alice", "bob"}
    assert sum(int(row["net"]) for row in rows.values()) == 0
    for user in (alice, bob):
        row = rows[user.name]
        seat = live_table.table.player(user.id)
        assert seat is not None and int(row["stack"]) == seat.stack
        assert (row["buy_ins"], row["user_id"], row["seated"]) == ("1000", str(user.id), "yes")
        assert int(row["net"]) == seat.stack - 1_000 - int(row["top_ups"])
        assert f"{user.name}: bought in 1,000" in text
    assert int(rows[loser.name]["top_ups"]) == lost
    if lost:
        assert "topped up" in text
    assert_chart(reply, ".png", "Line chart: Stacks at #poker.")

    # Another channel has no table: nobody there reads #poker's ledger.
    elsewhere = await game.slash(carol, "poker", "ledger", channel=world.guild.channel("lobby"))
    assert elsewhere.content == t("error.no_table")


async def test_only_the_host_or_a_manager_resets_and_the_channel_is_told(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    # Bob hosts; Alice owns the server (a manager); Carol only plays.
    await game.ok(bob, "poker", "create")
    for user in (bob, carol):
        await game.ok(user, "poker", "join", buy_in=1_000)
    await play_hands(game, 1)
    table_id = game.live_table().table_id
    number = game.live_table().table.hand_number + 1
    refused = await game.poker(carol, "ledger", reset=True)
    assert refused.content == t("error.not_host")
    assert (await sessions.session_ledger(game.db, table_id)).first_hand == 1

    mark = game.fake.mark()
    reply = await game.poker(bob, "ledger", reset=True)
    assert reply.content.startswith(t("ledger.reset_done", hand=number))
    # The reply is the session that just ended, with its nets.
    ended = {row["player"]: int(row["net"]) for row in csv_rows(reply)}
    assert set(ended) == {"bob", "carol"} and sum(ended.values()) == 0
    assert_chart(reply, ".png", "Line chart: Stacks at #poker.")
    notice = t("notice.ledger_reset", host=bob.mention, hand=number)
    await game.fake.wait_for_message(lambda m: m.content == notice, channel=game.channel,
                                     after=mark, timeout=20)

    fresh = await game.poker(carol, "ledger")
    assert "since the host reset it <t:" in fresh.content
    assert f"(from hand #{number})" in fresh.content
    assert "carried over" in fresh.content
    rows = csv_rows(fresh)
    assert all(int(row["net"]) == 0 and int(row["buy_ins"]) == 0 for row in rows)
    assert {int(row["carried"]) for row in rows} == {
        game.live_table().table.player(u.id).stack for u in (bob, carol)  # type: ignore[union-attr]
    }
    # A member with Manage Server is a floor for every table: Alice may reset it too.
    again = await game.poker(alice, "ledger", reset=True)
    assert again.content.startswith(t("ledger.reset_done", hand=number))


async def test_a_reset_mid_hand_begins_the_session_with_that_hand(game: Game) -> None:
    world = game.world
    alice, bob = world.alice, world.bob
    live_table = await game.open_table(alice, bob, buy_in=1_000)
    await play_hands(game, 1)
    before = {u.id: live_table.table.player(u.id).stack for u in (alice, bob)}  # type: ignore
    number = live_table.table.hand_number + 1
    await game.ok(alice, "poker", "resume")
    await game.wait_hand(number, timeout=30)
    reply = await game.poker(alice, "ledger", reset=True)
    assert reply.content.startswith(t("ledger.reset_done", hand=number))
    mid = csv_rows(await game.poker(bob, "ledger"))
    # Mid-hand the stacks read as the hand was dealt: nobody has won or lost yet.
    assert {int(r["user_id"]): (int(r["carried"]), int(r["net"])) for r in mid} == {
        uid: (stack, 0) for uid, stack in before.items()
    }
    await game.passive_round(number)
    await game.wait_result(number)
    await game.ok(alice, "poker", "pause")
    if game.hand is not None:
        await game.passive_round(live_table.table.hand_number)
    await until(lambda: game.live_table().hand is None, what="the hand to end")
    after = csv_rows(await game.poker(bob, "ledger"))
    for row in after:
        seat = live_table.table.player(int(row["user_id"]))
        assert seat is not None
        assert int(row["net"]) == seat.stack - before[int(row["user_id"])]
    assert sum(int(r["net"]) for r in after) == 0


async def test_names_cannot_format_ping_or_run_and_a_player_who_left_keeps_his(
    game: Game,
) -> None:
    world = game.world
    alice, dave = world.alice, dave_of(game)
    await game.open_table(alice, dave, buy_in=1_000)
    await play_hands(game, 1)
    await game.ok(dave, "poker", "leave")
    world.guild.members.remove(dave)  # and then he left the server
    reply = await game.poker(alice, "ledger")
    text = reply.content
    # No markdown, no mention, no ping in the message (and the reply pings nobody anyway).
    assert "**boss**" not in text and "@everyone" not in text
    assert "<@123456789012345678>" not in text
    assert "\\*\\*boss\\*\\*" in text
    assert ": bought in 1,000" in text and ", left · net" in text
    rows = {row["user_id"]: row for row in csv_rows(reply)}
    row = rows[str(dave.id)]
    # The spreadsheet reads the name as text, not as a formula.
    assert row["player"] == "'" + SNEAKY
    assert row["seated"] == "no" and row["stack"] == "0"
    assert int(row["cash_outs"]) == int(row["buy_ins"]) + int(row["net"])
    chart = attachment(reply, ".png")
    assert SNEAKY in chart.description  # type: ignore[attr-defined]  # alt text: raw


async def test_a_closed_tables_last_session_is_still_shown(game: Game) -> None:
    world = game.world
    alice, bob = world.alice, world.bob
    await game.open_table(alice, bob, buy_in=500)
    await play_hands(game, 1)
    await game.ok(alice, "poker", "close")
    reply = await game.poker(bob, "ledger")
    assert "the table is closed: this was its last session" in reply.content
    rows = csv_rows(reply)
    assert all(row["stack"] == "0" and row["seated"] == "no" for row in rows)
    assert sum(int(row["cash_outs"]) for row in rows) == 1_000
    assert sum(int(row["net"]) for row in rows) == 0
    refused = await game.poker(alice, "ledger", reset=True)
    assert refused.content == t("error.no_table")


async def test_stats_give_every_figure_with_its_count_and_a_net_chart(game: Game) -> None:
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    live_table = await game.open_table(alice, bob, buy_in=1_000)
    await play_hands(game, 2)
    played = live_table.table.hand_number
    reply = await game.slash(alice, "chips", "stats")
    assert reply.ephemeral
    lines = reply.content.split("\n")
    assert lines[0] == f"**{alice.mention}** · All time"
    assert lines[1].startswith(f"{played} hands, ")
    assert "VPIP " in lines[2] and f"/{played})" in lines[2] and "3-bet " in lines[2]
    assert lines[3].startswith("Went to showdown ") and "won at showdown " in lines[3]
    assert_chart(reply, "net.png", f"Line chart: alice: net chips. All time · {played} hands · ")
    other = await game.slash(carol, "chips", "stats", user=bob, period="week")
    assert other.content.startswith(f"**{bob.mention}** · Last 7 days")
    assert_chart(other, "net.png", "Line chart: bob: net chips.")
    nobody = await game.slash(alice, "chips", "stats", user=carol)
    assert nobody.content == t("error.no_wallet", user=carol.mention)
    bad = await game.slash(alice, "chips", "stats", period="decade")
    assert bad.content.startswith("That value isn't valid")


async def test_leaderboards_by_period(game: Game) -> None:
    world = game.world
    alice, bob = world.alice, world.bob
    live_table = await game.open_table(alice, bob, buy_in=1_000)
    await play_hands(game, 2)
    # The first hand ended ten days ago: in the month, not in the week.
    async with game.db.write() as tx:
        await tx.execute(
            "UPDATE hands SET ended_at = ? WHERE table_id = ? AND hand_no = 1",
            (int(time.time()) - 10 * DAY, live_table.table_id),
        )
    week = await game.slash(alice, "chips", "leaderboard", period="week")
    month = await game.slash(alice, "chips", "leaderboard", period="month", by="hands_won")
    every = await game.slash(alice, "chips", "leaderboard")
    assert week.content.startswith("**Leaderboard: chips won** · Last 7 days")
    played = live_table.table.hand_number
    assert f"({played - 1} hands)" in week.content and f"({played} hands)" not in week.content
    assert month.content.startswith("**Leaderboard: hands won** · Last 30 days")
    assert f"({played} hands)" in month.content
    assert every.content.startswith("**Leaderboard: chips won**\n")
    # Everything long ago: nothing in either period, all time unchanged.
    async with game.db.write() as tx:
        await tx.execute("UPDATE hands SET ended_at = ended_at - ?", (60 * DAY,))
    empty = await game.slash(alice, "chips", "leaderboard", period="month")
    assert empty.content == t("reply.leaderboard_empty_period", period="Last 30 days")
    assert (await game.slash(alice, "chips", "leaderboard")).content == every.content


async def test_drawn_replies_are_rationed_per_member(game: Game) -> None:
    """Charts share one render thread with every table's image: a member asking again and
    again is slowed down; the others are not."""
    world = game.world
    alice, bob, carol = world.alice, world.bob, world.carol
    await game.open_table(alice, bob, buy_in=1_000)
    for _ in range(5):
        assert (await game.poker(carol, "ledger")).attachments
    refused = await game.poker(carol, "ledger")
    assert refused.content.startswith("Slow down: try again in ") and not refused.attachments
    assert (await game.poker(bob, "ledger")).attachments
    for _ in range(5):
        await game.slash(carol, "chips", "stats", user=alice)
    slowed = await game.slash(carol, "chips", "stats", user=alice)
    assert slowed.content.startswith("Slow down")
