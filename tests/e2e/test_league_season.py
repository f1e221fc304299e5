"""A season through a real bot process against the fake Discord: a league over three
tournaments, the second one's bot SIGKILLed in the middle of a hand and started again, and
standings, as ``/league standings`` shows them and as stored, equal to the standard formula's
points of the places each tournament really gave, to the hundredth."""

from __future__ import annotations

import asyncio
import math
import re
import signal
from pathlib import Path

import pytest

from bot.i18n import t
from bot.storage import Database, invariant, leagues, tournaments
from engine.league import hundredths_text
from tests.e2e.game_kit import settled
from tests.e2e.harness import World
from tests.e2e.processes import act_as_whoever_may, bot_process
from tests.e2e.tournament_kit import big_world
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

TO_ACT = re.compile(r"<@(\d+)> to act")
# (name, buy-in, structure): b = buy-in / the first big blind is 5, 0 and 2.
NIGHTS = (("N1", 100, "10/20 10"), ("N2", 0, "25/50 10"), ("N3", 200, "50/100 10"))


@pytest.fixture
def world() -> World:
    return big_world(0)


async def answer(fake: FakeDiscord, user: FakeUser, channel: FakeChannel, command: str,
                 subcommand: str | None = None, **options: object) -> str:
    handle = await fake.slash(user, channel, command, subcommand=subcommand, options=options)
    reply = await settled(handle, timeout=30)
    assert reply.ephemeral and not reply.content.startswith("Something"), reply.content
    return reply.content


async def play_out(fake: FakeDiscord, channel: FakeChannel, players: list[FakeUser],
                   name: str, mark: int) -> None:
    """Everybody shoves or calls until the tournament says it is over."""
    over = t("tournament.finished", name=name)

    def done() -> bool:
        return any(e.message.channel_id == channel.id and over in e.message.content
                   for e in fake.events[mark:])

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 120
    while not done() and loop.time() < deadline:
        acted = bool(await act_as_whoever_may(fake, channel, players, "allin")
                     or await act_as_whoever_may(fake, channel, players, "call"))
        if not acted:
            await asyncio.sleep(0.1)
    assert done(), f"{name} did not finish"


def standard(n: int, k: int, tied: int, b: float) -> int:
    """The standard rule written out independently (hundredths); players sharing places share
    the mean of their points."""
    shared = [10 * math.sqrt(n / place) * (1 + math.log10(b + 0.25))
              for place in range(k, k + tied)]
    return round(100 * sum(shared) / tied)


async def test_a_league_over_three_tournaments_scores_the_formula(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    players = [world.alice, world.bob, world.carol]
    alice = world.alice
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"

    async def night(index: int, kill: bool) -> bool:
        """Tournament ``index`` opened, filled, started and played (``kill``: the bot is
        SIGKILLed after its first action; True then, and the caller plays it out)."""
        name, buy_in, structure = NIGHTS[index]
        mark = fake.mark()
        await answer(fake, alice, channel, "tournament", "create", name=name,
                     kind="freeze_out", buy_in=buy_in, starting_stack=1000,
                     structure=structure, league="Season")
        for user in players:
            await answer(fake, user, channel, "tournament", "register")
        await answer(fake, alice, channel, "tournament", "start")
        if kill:
            await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                        channel=channel, after=mark, timeout=30)
            assert await act_as_whoever_may(fake, channel, players, "call")
            return True
        await play_out(fake, channel, players, name, mark)
        return False

    async with bot_process(fake, tmp_path, log) as first:
        await fake.wait_for_session(timeout=30)
        await fake.wait_for(lambda: fake.sync_calls, timeout=30, what="the command sync")
        reply = await answer(fake, alice, channel, "league", "create", name="Season")
        assert reply == t("reply.league_created", league="Season",
                          points=t("league.rule.standard"))
        await night(0, kill=False)
        await night(1, kill=True)
        first.send_signal(signal.SIGKILL)
        assert await first.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")

    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=30)
        await play_out(fake, channel, players, "N2", 0)
        await night(2, kill=False)
        text = await answer(fake, world.bob, channel, "league", "standings", name="Season")
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)

    db = await Database.open(url)
    try:
        league = await leagues.find_league(db, world.guild.id, "Season")
        standings = await leagues.league_standings(db, league.league_id)
        expected: dict[int, int] = {}
        for name, buy_in, structure in NIGHTS:
            info = await tournaments.find_tournament(db, world.guild.id, name)
            assert info.status == "finished"
            big_blind = int(structure.split()[0].split("/")[1])
            for entry in info.entries:
                assert entry.place is not None and entry.tied is not None
                expected[entry.user_id] = expected.get(entry.user_id, 0) + standard(
                    len(info.entries), entry.place, entry.tied, buy_in / big_blind)
        report = await invariant.check_invariant(db)
    finally:
        await db.close()
    assert report.ok, report
    assert standings.tournaments == 3
    assert {row.user_id: row.points for row in standings.rows} == expected
    # The reply says the same, player by player, in the order of the points.
    lines = text.splitlines()[1:]
    assert [f"<@{row.user_id}>" in line for row, line in zip(standings.rows, lines,
                                                               strict=True)] == [True] * 3
    for row, line in zip(standings.rows, lines, strict=True):
        assert f": {hundredths_text(row.points)} points" in line, line
    assert [row.points for row in standings.rows] == sorted(expected.values(), reverse=True)
