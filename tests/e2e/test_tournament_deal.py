"""A deal at a four-player final table, through a real bot process against the fake Discord: one
table accepts an ICM deal and the bot is killed with SIGKILL as the last answer arrives; another
turns a deal down, is killed in the middle of a second vote, and plays on to the end. Either
way the prizes are paid once, nothing is lost, and the chips add up to the chip."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import pytest

from bot.i18n import t
from bot.storage import Database, invariant, tournaments
from bot.storage.tournaments import TournamentInfo
from tests.e2e.game_kit import STARTING_BALANCE, settled
from tests.e2e.harness import World
from tests.e2e.processes import act_as_whoever_may, bot_process
from tests.e2e.test_tournament_restart import TO_ACT, answer, open_and_start, play_out
from tests.e2e.tournament_kit import assert_settled_in, big_world, members
from tests.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.fakediscord.interactions import InteractionCallback

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

FIGURE = re.compile(r"<@(\d+)>: ([\d,]+) chips → ([\d,]+)")
BUY_IN = 100


@pytest.fixture
def world() -> World:
    return big_world(2)


PROPOSED = "proposes a deal (ICM). Play is paused"  # the notice, not the held proposal's


def proposed(message: FakeMessage) -> bool:
    return PROPOSED in message.content


async def fold_until(fake: FakeDiscord, channel: FakeChannel, players: list[FakeUser],
                     mark: int, done: str) -> FakeMessage:
    """Everybody folds (or checks) until a message containing ``done`` is posted."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while loop.time() < deadline:
        for event in fake.events[mark:]:
            if event.message.channel_id == channel.id and done in event.message.content:
                return event.message
        if not (await act_as_whoever_may(fake, channel, players, "fold")
                or await act_as_whoever_may(fake, channel, players, "check")):
            await asyncio.sleep(0.1)
    raise AssertionError(f"no message with {done!r}")


async def press(fake: FakeDiscord, user: FakeUser, message: FakeMessage | int,
                custom_id: str) -> InteractionCallback:
    return await settled(await fake.click(user, message, custom_id))


async def figures_for(fake: FakeDiscord, user: FakeUser,
                      notice: FakeMessage) -> tuple[InteractionCallback, str]:
    """His private view of the deal (and the notice's button id)."""
    (show,) = [c for c in notice.custom_ids() if ":deal_show:" in c]
    view = await press(fake, user, notice, show)
    assert view.ephemeral and view.message is not None, view.content
    return view, show


async def vote(fake: FakeDiscord, user: FakeUser, notice: FakeMessage, accept: bool) -> str:
    view, show = await figures_for(fake, user, notice)
    assert view.message is not None
    action = "deal_accept" if accept else "deal_reject"
    reply = await press(fake, user, view.message, show.replace("deal_show", action))
    assert reply.ephemeral
    return reply.content


async def stored(url: str) -> tuple[TournamentInfo, dict[int, int], bool]:
    """The tournament, the wallets, and whether the chips add up (pool, wallets, ledger)."""
    db = await Database.open(url)
    try:
        (tid,) = [row[0] for row in await db.fetchall("SELECT tournament_id FROM tournaments")]
        info = await tournaments.get_tournament(db, tid)
        report = await invariant.check_invariant(db)
        wallets = {int(row[0]): int(row[1]) for row in await db.fetchall(
            "SELECT user_id, balance FROM wallets WHERE guild_id = ?", (info.guild_id,))}
    finally:
        await db.close()
    return info, wallets, report.ok


async def assert_results_show_the_deal(fake: FakeDiscord, user: FakeUser,
                                       channel: FakeChannel) -> None:
    results = await answer(fake, user, channel, "tournament", "results", name="Night")
    assert t("tournament.finished_deal") in results and "(deal)" in results
    status = await answer(fake, user, channel, "tournament", "status", name="Night")
    assert status.startswith(t("tournament.deal_status_made", kind="ICM")), status


async def killed(process: asyncio.subprocess.Process, fake: FakeDiscord) -> None:
    process.send_signal(signal.SIGKILL)
    assert await process.wait() == -signal.SIGKILL
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")


async def test_a_final_table_accepts_an_icm_deal_and_a_sigkill_pays_it_once(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    players = members(world)
    players = [p for p in players if p is not world.carol][:4]
    outsider = world.carol
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"
    shown: dict[int, tuple[int, int]] = {}

    async with bot_process(fake, tmp_path, log) as first:
        await open_and_start(fake, channel, players)
        await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                    channel=channel, timeout=30)
        mark = fake.mark()
        # Proposed during the first hand: held until it ends, and no second one meanwhile.
        assert await answer(fake, players[0], channel, "tournament", "deal",
                            kind="icm") == t("reply.deal_held")
        assert await answer(fake, players[1], channel, "tournament", "deal",
                            kind="chips") == t("error.deal_open")
        refused = await settled(await fake.slash(outsider, channel, "tournament",
                                                 subcommand="deal", options={"kind": "icm"}))
        assert refused.content == t("error.deal_not_in")
        notice = await fold_until(fake, channel, players, mark, PROPOSED)
        after_notice = fake.mark()
        # A bystander may neither see the figures nor answer.
        (show,) = [c for c in notice.custom_ids() if ":deal_show:" in c]
        assert (await press(fake, outsider, notice, show)).content == t("error.not_in_deal")
        for user in players[:3]:
            assert await vote(fake, user, notice, True) == t("reply.deal_accepted")
        view, _ = await figures_for(fake, players[3], notice)
        for player, stack, prize in FIGURE.findall(view.content):
            shown[int(player)] = (int(stack.replace(",", "")), int(prize.replace(",", "")))
        assert set(shown) == {p.id for p in players}
        assert sum(prize for _, prize in shown.values()) == BUY_IN * len(players)
        # Play waits for the vote: no hand was dealt since the notice.
        assert not any(TO_ACT.search(e.message.content) for e in fake.events[after_notice:]
                       if e.message.channel_id == channel.id)
        # The last Accept, and the process killed as it arrives.
        assert view.message is not None
        await fake.click(players[3], view.message, show.replace("deal_show", "deal_accept"))
        await killed(first, fake)

    info, wallets, ok = await stored(url)
    assert ok
    if info.status == "running":
        # Killed before the deal was stored: nothing was paid, and it is asked again.
        assert info.pool == BUY_IN * len(players)
        assert all(wallets[p.id] == STARTING_BALANCE - BUY_IN for p in players)
        async with bot_process(fake, tmp_path, log) as second:
            await fake.wait_for_session(timeout=60)
            mark = fake.mark()
            reply = await answer(fake, players[0], channel, "tournament", "deal", kind="icm")
            if reply == t("reply.deal_held"):
                notice = await fold_until(fake, channel, players, mark, PROPOSED)
            else:
                notice = await fake.wait_for_message(proposed, channel=channel, after=mark,
                                                     timeout=30)
            shown.clear()
            view, _ = await figures_for(fake, players[0], notice)
            for player, stack, prize in FIGURE.findall(view.content):
                shown[int(player)] = (int(stack.replace(",", "")), int(prize.replace(",", "")))
            for user in players:
                await vote(fake, user, notice, True)
            await fake.wait_for_message(lambda m: "made a deal" in m.content, channel=channel,
                                        after=mark, timeout=30)
            await assert_results_show_the_deal(fake, players[1], channel)
            second.send_signal(signal.SIGTERM)
            await asyncio.wait_for(second.wait(), timeout=20)
        info, wallets, ok = await stored(url)
        assert ok
    else:
        # Stored before the kill: a restart neither reopens nor pays it again.
        async with bot_process(fake, tmp_path, log) as second:
            await fake.wait_for_session(timeout=60)
            await assert_results_show_the_deal(fake, players[1], channel)
            second.send_signal(signal.SIGTERM)
            await asyncio.wait_for(second.wait(), timeout=20)
        again, wallets_again, ok = await stored(url)
        assert ok and again.entries == info.entries and wallets_again == wallets

    db = await Database.open(url)
    try:
        await assert_settled_in(db, info)
    finally:
        await db.close()
    prizes = {e.user_id: e.prize or 0 for e in info.entries}
    assert prizes == {p: prize for p, (_, prize) in shown.items()}
    # Places by chips, the deal's prizes paid once into the wallets.
    by_chips = sorted(shown, key=lambda p: -shown[p][0])
    places = {e.user_id: e.place for e in info.entries}
    assert places[by_chips[0]] == 1
    for p in players:
        assert wallets[p.id] == STARTING_BALANCE - BUY_IN + prizes[p.id]
    assert sum(wallets[p.id] for p in players) == STARTING_BALANCE * len(players)


async def test_a_final_table_rejects_a_deal_and_plays_on_through_a_sigkill(
    fake: FakeDiscord, world: World, tmp_path: Path
) -> None:
    players = [p for p in members(world) if p is not world.carol][:4]
    channel = world.guild.channel("poker")
    log = tmp_path / "bot.log"
    url = f"sqlite:///{tmp_path / 'poker.db'}"

    async with bot_process(fake, tmp_path, log) as first:
        await open_and_start(fake, channel, players)
        await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                    channel=channel, timeout=30)
        mark = fake.mark()
        assert await answer(fake, players[1], channel, "tournament", "deal",
                            kind="icm") == t("reply.deal_held")
        notice = await fold_until(fake, channel, players, mark, PROPOSED)
        assert await vote(fake, players[0], notice, True) == t("reply.deal_accepted")
        after = fake.mark()
        assert await vote(fake, players[2], notice, False) == t("reply.deal_rejected")
        await fake.wait_for_message(lambda m: "turned the deal down" in m.content,
                                    channel=channel, after=after, timeout=30)
        # Play resumes at once: a new hand is dealt.
        await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                    channel=channel, after=after, timeout=30)
        # The old offer's buttons act on nothing; its proposer waits a level.
        (show,) = [c for c in notice.custom_ids() if ":deal_show:" in c]
        stale = await press(fake, players[3], notice, show)
        assert stale.content == t("error.no_deal_vote")
        assert await answer(fake, players[1], channel, "tournament", "deal",
                            kind="icm") == t("error.deal_wait", level=2)
        # Another player proposes; the bot dies in the middle of that vote.
        mark = fake.mark()
        assert await answer(fake, players[0], channel, "tournament", "deal",
                            kind="icm") == t("reply.deal_held")
        second_notice = await fold_until(fake, channel, players, mark, PROPOSED)
        assert await vote(fake, players[0], second_notice, True) == t("reply.deal_accepted")
        await killed(first, fake)

    info, wallets, ok = await stored(url)
    assert ok and info.status == "running" and info.pool == BUY_IN * len(players)
    assert all(wallets[p.id] == STARTING_BALANCE - BUY_IN for p in players)

    mark = fake.mark()
    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=60)
        # The vote died with the process: play goes on, and the tournament is played out.
        await fake.wait_for_message(lambda m: TO_ACT.search(m.content) is not None,
                                    channel=channel, after=mark, timeout=60)
        over = await play_out(fake, channel, [channel], players, mark)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=20)
    assert "(deal)" not in over.content and "made a deal" not in over.content

    info, wallets, ok = await stored(url)
    assert ok
    db = await Database.open(url)
    try:
        await assert_settled_in(db, info)
    finally:
        await db.close()
    assert sum(wallets[p.id] for p in players) == STARTING_BALANCE * len(players)
