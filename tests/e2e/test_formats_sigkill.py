"""The tournament formats through a real bot process killed with SIGKILL in the middle, then
started again and played to the end: whatever the boundary, nothing creates or destroys a
chip. Every wallet plus every pool equals what the server's members were given, the ledger's
invariant holds, and once a tournament is over every chip paid in (buy-ins, re-entries,
rebuys, add-ons) came back out, to the chip, as prizes and bounties.

Three fields: nine players with rebuys (busted players offered one by DM, answered by its
buttons or by ``/tournament rebuy``) and an add-on at the break; thirteen players of a
progressive knockout over two threads to a final table; a repeating six-seat sit-and-go that
starts when full and opens the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.storage import Database, invariant, tournaments
from tests.e2e.harness import World
from tests.e2e.processes import bot_process
from tests.e2e.test_attack_sigkill import command
from tests.e2e.tournament_kit import big_world
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

STARTING_BALANCE = 10_000
# Levels of six seconds: rebuys close and the add-on opens while the test plays.
FAST = "10/20 0.1, 20/40 0.1, 40/80 0.1, 80/160 0.1, 150/300 0.1, 300/600 0.1, 600/1200 5"
# Rebuys for the first 18 seconds of play, time for every player to bust and answer, then a
# break of 9 seconds for the add-on.
REBUY_STRUCTURE = "10/20 0.3, break 0.15, " + FAST.split(", ", 1)[1]


ADD_ON_OPEN = "The add-on is open"
# Refusals that no other move would change: the next player is asked (a flood of commands
# would starve the bot's tables).
NOT_HIS = ("It's not your turn.", "You're not in this hand.",
           "No hand is being played right now.")
HAND_IN_PLAY = "A hand is being played: wait for it to end."
ACTED = ("You checked", "You called", "You're all-in", "You folded", "You bet", "You raised")


@dataclass
class Field:
    """The players of one run and what the driver has answered already."""

    fake: FakeDiscord
    channel: FakeChannel
    players: list[FakeUser]
    answered: set[int] = field(default_factory=set)  # DM message ids pressed
    shoving: bool = False
    # A restart may fall after the add-on was announced: the second process shoves from this
    # time on whatever it saw, or the check-and-fold half of the field could blind out slowly.
    shove_at: float = float("inf")

    def channels(self) -> list[FakeChannel]:
        return [self.channel, *self.fake.threads_of(self.channel)]


async def play_round(run: Field, process: asyncio.subprocess.Process) -> bool:
    """Everyone to act goes all in (or calls, or checks) at every table; busted players rebuy
    by DM (every other one declines), take the add-on when offered, or rebuy by command when
    their DMs are closed. False once the process is gone."""
    if not run.shoving:
        # Everyone shoves once the add-on was offered; until then two players do, the others
        # check or fold, so the field lasts to the break with busts and rebuys on the way.
        run.shoving = asyncio.get_running_loop().time() >= run.shove_at or any(
            ADD_ON_OPEN in m.content for m in run.fake.messages_in(run.channel))
    for channel in run.channels():
        for number, user in enumerate(run.players):
            moves = (("allin", "call", "check") if run.shoving or number in (1, 3)
                     else ("check", "fold"))
            for name in moves:
                reply = await command(run.fake, process, user, channel, name)
                if reply is None:
                    return False
                if reply.startswith(ACTED) or reply in NOT_HIS:
                    break
    await asyncio.sleep(0.05)
    for number, user in enumerate(run.players):
        if not user.dms_open:
            if await ask(run, process, user, "rebuy", {}) is None:
                return False
            continue
        for message in run.fake.dm_messages(user):
            if message.id in run.answered:
                continue
            ids = message.custom_ids()
            wanted = [c for c in ids if c.endswith(":t_add_on")]
            wanted += [c for c in ids if ":t_rebuy" in c] if number % 2 else []
            wanted += [c for c in ids if c.endswith(":t_decline")] if not number % 2 else []
            if not wanted:
                continue
            handle = await run.fake.click(user, message, wanted[0])
            with contextlib.suppress(TimeoutError):
                answer = await handle.response(timeout=10)
                # An add-on waits for the end of his hand: pressed again next round.
                if answer.content != HAND_IN_PLAY:
                    run.answered.add(message.id)
            if process.returncode is not None:
                return False
    return True


async def check_chips(path: Path, members: int) -> list[tournaments.TournamentInfo]:
    """The invariant, and every chip of the server where it started: in a wallet or a pool."""
    db = await Database.open(f"sqlite:///{path}")
    try:
        report = await invariant.check_invariant(db)
        assert report.ok, report
        wallets = await db.fetchall("SELECT COUNT(*), SUM(balance) FROM wallets")
        pools = await db.fetchall("SELECT COALESCE(SUM(pool), 0) FROM tournaments")
        opened, held = int(wallets[0][0]), int(wallets[0][1] or 0)
        assert opened <= members
        assert held + int(pools[0][0]) == opened * STARTING_BALANCE
        rows = await db.fetchall("SELECT guild_id FROM tournaments LIMIT 1")
        found = [] if not rows else await tournaments.list_tournaments(db, int(rows[0][0]))
        return [await tournaments.get_tournament(db, info.tournament_id) for info in found]
    finally:
        await db.close()


async def paid_in_and_out(path: Path, tournament_id: int) -> tuple[int, int, list[str]]:
    db = await Database.open(f"sqlite:///{path}")
    try:
        account = f"tournament:{tournament_id}"
        into = await db.fetchall(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE dest = ?", (account,))
        out = await db.fetchall(
            "SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE source = ?", (account,))
        reasons = await db.fetchall(
            "SELECT DISTINCT reason FROM ledger WHERE dest = ? OR source = ?",
            (account, account))
        return int(into[0][0]), int(out[0][0]), sorted(str(r[0]) for r in reasons)
    finally:
        await db.close()


Setup = Callable[[Field, asyncio.subprocess.Process], Awaitable[bool]]


async def run_killed_then_finished(
    fake: FakeDiscord, world: World, tmp_path: Path, boundary: int, setup: Setup,
    players: list[FakeUser], until_finished: int = 1, *, shoving: bool = True,
) -> list[tournaments.TournamentInfo]:
    """Set up and play in a process killed after ``boundary`` commits, then in a second one
    until ``until_finished`` tournaments are over (the setup run again where the kill left it
    short); every tournament as stored at the end."""
    channel = world.guild.channel("poker")
    run = Field(fake, channel, players, shoving=shoving)
    log = tmp_path / "bot.log"
    members = len(world.guild.members) - 1  # the bot has no wallet
    async with bot_process(fake, tmp_path, log, kill_after=boundary) as first:
        await fake.wait_for_session(timeout=30)
        if await setup(run, first):
            for _ in range(1500):
                if not await play_round(run, first):
                    break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first.wait(), timeout=20)
        assert first.returncode == -signal.SIGKILL, f"commit {boundary} never came"
    await fake.wait_for(lambda: not fake.sessions, timeout=10, what="the dead bot's socket")
    await check_chips(tmp_path / "poker.db", members)

    async with bot_process(fake, tmp_path, log) as second:
        await fake.wait_for_session(timeout=30)
        assert await setup(run, second)
        run.shove_at = asyncio.get_running_loop().time() + 45
        for _ in range(1500):
            found = await check_chips(tmp_path / "poker.db", members)
            if sum(info.status == "finished" for info in found) >= until_finished:
                break
            assert await play_round(run, second)
        second.send_signal(signal.SIGTERM)
        await asyncio.wait_for(second.wait(), timeout=30)
    found = await check_chips(tmp_path / "poker.db", members)
    finished = [info for info in found if info.status == "finished"]
    assert len(finished) >= until_finished, (
        [(i.name, i.status, i.pool, len(i.entries)) for i in found], log.read_text()[-3000:])
    for info in finished:
        assert info.pool == 0
        into, out, _ = await paid_in_and_out(tmp_path / "poker.db", info.tournament_id)
        assert into == out  # every chip paid in came back out as a prize or a bounty
    return found


async def ask(run: Field, process: asyncio.subprocess.Process, user: FakeUser,
              subcommand: str, options: dict[str, object]) -> str | None:
    """``/tournament <subcommand>`` in the tournament's channel: its reply, or None once the
    process is dead."""
    if process.returncode is not None:
        return None
    handle = await run.fake.slash(user, run.channel, "tournament", subcommand=subcommand,
                                  options=options)
    waiting = asyncio.ensure_future(handle.response(timeout=15))
    dying = asyncio.ensure_future(process.wait())
    done, _ = await asyncio.wait({waiting, dying}, return_when=asyncio.FIRST_COMPLETED)
    if waiting in done and waiting.exception() is None:
        dying.cancel()
        return waiting.result().content
    waiting.cancel()
    await process.wait()
    return None


async def ensure(run: Field, process: asyncio.subprocess.Process, *steps: tuple[
        FakeUser, str, dict[str, object]]) -> bool:
    """Run each step, whatever it answers (after a kill, some were done already)."""
    for user, sub, options in steps:
        reply = await ask(run, process, user, sub, options)
        if reply is None:
            return False
        assert not reply.startswith("Something went wrong"), reply
    return True


# --- the three fields -------------------------------------------------------------------------


@pytest.fixture
def world() -> World:
    return big_world(10)


REBUY_BOUNDARIES = (60,)


@pytest.mark.parametrize("boundary", REBUY_BOUNDARIES)
async def test_a_rebuy_tournament_with_an_add_on_killed_anywhere_loses_no_chip(
    fake: FakeDiscord, world: World, tmp_path: Path, boundary: int
) -> None:
    field_ = [m for m in world.guild.members if not m.bot][:9]
    host = field_[0]

    async def setup(run: Field, process: asyncio.subprocess.Process) -> bool:
        steps: list[tuple[FakeUser, str, dict[str, object]]] = [
            (host, "create", {"name": "Rebuys", "kind": "freeze_out", "buy_in": 100,
                              "starting_stack": 1000, "structure": REBUY_STRUCTURE,
                              "seats_per_table": 9, "max_players": 9}),
            (host, "format", {"rebuys": 2, "rebuy_levels": 1, "add_on": 1000,
                              "add_on_price": 50}),
        ]
        steps += [(user, "register", {}) for user in field_]
        return await ensure(run, process, *steps, (host, "start", {}))

    found = await run_killed_then_finished(fake, world, tmp_path, boundary, setup, field_,
                                           shoving=False)
    info = next(i for i in found if i.name == "Rebuys")
    assert info.status == "finished"
    _, _, reasons = await paid_in_and_out(tmp_path / "poker.db", info.tournament_id)
    assert {"tournament_buy_in", "tournament_prize", "tournament_rebuy",
            "tournament_add_on"} <= set(reasons), reasons


KNOCKOUT_BOUNDARIES = (45,)


@pytest.mark.parametrize("boundary", KNOCKOUT_BOUNDARIES)
async def test_a_progressive_knockout_over_two_threads_pays_bounties_that_add_up(
    fake: FakeDiscord, world: World, tmp_path: Path, boundary: int
) -> None:
    field_ = [m for m in world.guild.members if not m.bot][:13]
    assert len(field_) == 13
    host = field_[0]

    async def setup(run: Field, process: asyncio.subprocess.Process) -> bool:
        steps: list[tuple[FakeUser, str, dict[str, object]]] = [
            (host, "create", {"name": "Bounty", "kind": "freeze_out", "buy_in": 100,
                              "starting_stack": 1000, "structure": FAST,
                              "seats_per_table": 7, "max_players": 13}),
            (host, "format", {"bounty": 40, "bounty_kind": "progressive"}),
        ]
        steps += [(user, "register", {}) for user in field_]
        return await ensure(run, process, *steps, (host, "start", {}))

    found = await run_killed_then_finished(fake, world, tmp_path, boundary, setup, field_)
    info = next(i for i in found if i.name == "Bounty")
    _, out, reasons = await paid_in_and_out(tmp_path / "poker.db", info.tournament_id)
    assert "tournament_bounty" in reasons
    assert sum(e.prize or 0 for e in info.entries) == 13 * 60  # the pool less the bounties
    assert out - 13 * 60 == 13 * 40  # every head's bounty paid, none twice


SIT_AND_GO_BOUNDARIES = (20,)


@pytest.mark.parametrize("boundary", SIT_AND_GO_BOUNDARIES)
async def test_a_repeating_six_seat_sit_and_go_killed_anywhere_loses_no_chip(
    fake: FakeDiscord, world: World, tmp_path: Path, boundary: int
) -> None:
    field_ = [m for m in world.guild.members if not m.bot][:6]
    host = field_[0]

    async def setup(run: Field, process: asyncio.subprocess.Process) -> bool:
        steps: list[tuple[FakeUser, str, dict[str, object]]] = [
            (host, "create", {"name": "Turbo", "kind": "sit_and_go", "buy_in": 100,
                              "starting_stack": 1000, "structure": FAST,
                              "max_players": 6, "seats_per_table": 6, "repeat": True}),
        ]
        steps += [(user, "register", {}) for user in field_]
        return await ensure(run, process, *steps)

    found = await run_killed_then_finished(fake, world, tmp_path, boundary, setup, field_)
    names = sorted(info.name for info in found)
    assert "Turbo" in names and any(n.startswith("Turbo #") for n in names), names
