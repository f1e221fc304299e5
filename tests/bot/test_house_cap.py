"""The house's daily loss cap at a table of the server's economy, on a wall clock the test holds.

A member who farms the house bots with one exploit is stopped by the cap: once the bots of the
server have lost ``house_loss_cap`` chips in the last 24 hours, they stand up before the next
deal and no host can seat them again. The losses here are hands the bots lost at another table
of the same server, recorded at times the test chooses; the cap is read against the clock the
runtime is given (``RuntimeOptions.wall``), so "23 hours ago" and "25 hours ago" are exact.

The cases are the edges a wrong cap gets wrong: a loss one chip short of the cap (the bots stay
and the hand is dealt), one exactly at it (they stand up), a loss 23 hours old (still counted)
and one 25 hours old (no longer counted). ``tests/mutants.py`` plants a doubled cap and a
one-second window and checks that this file catches both.

Every game the bots play is run (``engine.bots.GAMES``): the cap is the house's, not a game's,
and a game the bots learn joins these tests by itself.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from pathlib import Path

import pytest

from bot.errors import BotError
from bot.runtime.cash import CashTable
from bot.runtime.config import TableConfig
from bot.runtime.messenger import TableMessenger
from bot.runtime.recovery import RestoredTable
from bot.runtime.table import TableServices
from bot.storage import Database, economy, hands, tables
from bot.storage.hands import HandSeat, PlayerResult
from engine.bots import GAMES as BOT_GAMES
from engine.bots.ids import bot_id
from engine.cards import check_deck
from engine.commitment import DeckCommitment
from engine.games import game_by_code
from engine.limits import MAX_TABLE_SEATS
from engine.table import Table, TableOptions
from tests.bot.table_kit import QUICK, RecordingDirect, RecordingMessenger, quiet, services

pytestmark = pytest.mark.timeout(60)

GUILD = 1_000_000_001
HOST = ALICE = 101
CAP = 1_000
NOW = 1_800_000_000  # the wall clock's reading during each test (Unix seconds)
HOUR = 3_600
# A bot of the other table, whose losses the test records (the live table's bots are 0 and 1).
LOSER = bot_id(90, "strong")
STAKE = 20 * CAP  # what he brings to each hand he loses


class Wall:
    """A wall clock that stands still at ``now`` until the test moves it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class QuietCashTable(CashTable):
    """A cash table whose table messages are recorded instead of sent to Discord."""

    recorded: RecordingDirect

    def _make_messenger(self) -> TableMessenger:
        return RecordingMessenger(self.services.client, self.options, self.clock.shown)

    async def shut(self) -> None:
        """Close the table and let its last writes land before the database closes."""
        await self.close(None)
        async with asyncio.timeout(5):
            while self.recorded.tasks:
                await asyncio.sleep(0.01)
        await self.services.db.close()


async def economy_table(served: TableServices, game: str) -> QuietCashTable:
    """A live table of the server's economy in ``game``, Alice seated, bots allowed under
    the cap."""
    db = served.db
    await economy.ensure_guild(db, GUILD, now=NOW - 3 * 24 * HOUR)
    await economy.update_settings(db, GUILD, bots_allowed=True, house_loss_cap=CAP)
    dealt = game_by_code(game)
    # As many seats as a table opens with, or as one deck deals to (five-card PLO: 9).
    options = TableOptions(
        small_blind=5, big_blind=10, min_buy_in=100, max_buy_in=1_000, game=dealt,
        seats=min(MAX_TABLE_SEATS, dealt.max_players),
    )
    table = Table(options, random.Random(3))
    config = TableConfig(options=options, timer=30, state=table.to_json())
    info = await tables.create_table(
        db,
        GUILD,
        1,
        HOST,
        config=config.to_json(),
        min_buy_in=100,
        max_buy_in=1_000,
        max_seats=options.seats,
        chip_unit=options.chip_unit,
    )
    live = QuietCashTable(info, config, RestoredTable(table), served)
    live.recorded = quiet(live)
    await live.join(ALICE, "Alice", 1_000, None)
    return live


async def bots_lose(db: Database, amount: int, *, at: int) -> None:
    """The house's bot loses ``amount`` to Alice in one hand at another table of the server,
    the hand ending at ``at`` (Unix seconds)."""
    other = await tables.create_table(
        db,
        GUILD,
        2_000 + at % 1_000_000,
        HOST,
        config={"small_blind": 5, "big_blind": 10},
        min_buy_in=100,
        max_buy_in=STAKE,
    )
    table_id = other.table_id
    await tables.buy_in(db, table_id, ALICE, 100)
    await tables.buy_in(db, table_id, LOSER, STAKE)
    deck = check_deck(range(52))
    hand_id = await hands.start_hand(
        db,
        table_id,
        config={"stacks": [100, STAKE]},
        players=[HandSeat(0, 1, ALICE, 100), HandSeat(1, 2, LOSER, STAKE)],
        deck=deck,
        commitment=DeckCommitment.commit(deck),
    )
    results = [
        PlayerResult(0, 100 + amount, 0, amount, vpip=True, pfr=False),
        PlayerResult(1, STAKE - amount, 0, 0, vpip=True, pfr=False),
    ]
    await hands.record_hand_result(db, hand_id, {}, results, now=at)
    await tables.leave_table(db, table_id, LOSER)
    await tables.leave_table(db, table_id, ALICE)


async def deal(live: QuietCashTable) -> None:
    """Alice asks for the next hand: the cap is checked before it is dealt."""
    try:
        await live.start_dealing(ALICE)
    except BotError as refused:
        # Alone with nobody once the bots stood up: the table waits for players.
        assert refused.code == "waiting_for_players"


async def bots_after(
    tmp_path: Path, game: str, losses: list[tuple[int, int]]
) -> tuple[dict[int, int], int, list[str], bool]:
    """Seat two bots, record ``losses`` as (chips, seconds before now), deal: the bots still
    seated, the hands dealt, what the table posted, and whether a host may seat a bot now."""
    wall = Wall(NOW)
    served = await services(tmp_path, replace(QUICK, wall=wall))
    live = await economy_table(served, game)
    try:
        assert len(await live.add_bots(2, "beginner", None)) == 2
        for chips, ago in losses:
            await bots_lose(served.db, chips, at=NOW - ago)
        await deal(live)
        seated = live.bots()
        dealt = live.table.hand_number
        posted = list(live.messenger.said.posted)  # type: ignore[attr-defined]
        try:
            await live.add_bots(1, "beginner", None)
            may_seat = True
        except BotError as refused:
            assert refused.code in {"house_cap_reached", "bots_no_room"}, refused.code
            may_seat = refused.code != "house_cap_reached"
        return seated, dealt, posted, may_seat
    finally:
        await live.shut()


GAMES = sorted(BOT_GAMES)


@pytest.mark.parametrize("game", GAMES)
async def test_one_chip_short_of_the_cap_the_bots_stay_and_the_hand_is_dealt(
    tmp_path: Path, game: str
) -> None:
    seated, dealt, posted, may_seat = await bots_after(
        tmp_path, game, [(CAP - 301, 2 * HOUR), (300, HOUR)]
    )
    assert len(seated) == 2 and dealt == 1
    assert not any("daily limit" in line for line in posted)
    assert may_seat


@pytest.mark.parametrize("game", GAMES)
async def test_exactly_at_the_cap_the_bots_stand_up_before_the_deal(
    tmp_path: Path, game: str
) -> None:
    seated, dealt, posted, may_seat = await bots_after(
        tmp_path, game, [(CAP - 300, 2 * HOUR), (300, HOUR)]
    )
    assert seated == {} and dealt == 0
    assert any("daily limit" in line for line in posted), posted
    assert not may_seat


@pytest.mark.parametrize("game", GAMES)
async def test_a_loss_23_hours_old_still_counts(tmp_path: Path, game: str) -> None:
    seated, dealt, _, may_seat = await bots_after(tmp_path, game, [(CAP, 23 * HOUR)])
    assert seated == {} and dealt == 0 and not may_seat


@pytest.mark.parametrize("game", GAMES)
async def test_a_loss_25_hours_old_no_longer_counts(tmp_path: Path, game: str) -> None:
    seated, dealt, _, may_seat = await bots_after(
        tmp_path, game, [(10 * CAP, 25 * HOUR), (CAP - 1, 23 * HOUR)]
    )
    assert len(seated) == 2 and dealt == 1 and may_seat


async def test_the_cap_refuses_new_bots_once_reached_and_the_clock_frees_them(
    tmp_path: Path,
) -> None:
    """At the cap no host seats a bot; a day after the losses the house may play again."""
    wall = Wall(NOW)
    served = await services(tmp_path, replace(QUICK, wall=wall))
    live = await economy_table(served, GAMES[0])
    try:
        await bots_lose(served.db, CAP, at=NOW - HOUR)
        with pytest.raises(BotError) as refused:
            await live.add_bots(1, "beginner", None)
        assert refused.value.code == "house_cap_reached" and live.bots() == {}
        wall.now = NOW + 23 * HOUR - 1  # the loss is a second short of 24 hours old
        with pytest.raises(BotError):
            await live.add_bots(1, "beginner", None)
        wall.now = NOW + 23 * HOUR + 1  # now more than 24 hours old
        assert len(await live.add_bots(1, "beginner", None)) == 1
    finally:
        await live.shut()
