"""The hand loop on its own (``bot.runtime.table.LiveTable``), driven through a fake owner with no
Discord: deal, act, time out, settle, a storage failure and its retry, a computer player's turn,
and the vote on running it twice.

``FakeTable`` below is everything a new kind of table must write: the required hooks and
nothing else. Its "storage" is a list of the actions it holds, which a test can make refuse.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bot.errors import BotError
from bot.runtime import waiting
from bot.runtime.kinds import CASH
from bot.runtime.messenger import TableMessenger
from bot.runtime.table import LiveTable, TableServices
from bot.storage import StorageError
from bot.storage.errors import StorageUnavailable
from engine.bots.ids import bot_id
from engine.cards import Card
from engine.commitment import DeckCommitment
from engine.hand import Action, ActionKind, Hand, RunItTwice
from engine.table import Table, TableEvent, TableOptions
from tests.bot.table_kit import QUICK, RecordingMessenger, quiet, services, until

pytestmark = pytest.mark.timeout(30)

ALICE, BOB, CAROL = 101, 102, 103


class FakeTable(LiveTable[set[int]]):
    """The smallest owner of the loop; its draft is the set of players away."""

    kind = CASH

    def __init__(self, services: TableServices, table: Table, *, timer: float = 30.0) -> None:
        self._table, self.away, self._banks = table, set[int](), dict[int, float]()
        self.stored: list[Action] = []  # what "storage" holds of the hand being played
        self.results: list[Hand] = []
        self.refuse = 0  # how many stores in a row storage refuses
        super().__init__(services, table_id=1, guild_id=1, channel_id=1, lock=asyncio.Lock(),
                         banks=self._banks, timer=timer)

    table = property(lambda self: self._table)
    names = property(lambda self: {})
    locale = property(lambda self: None)
    banks = property(lambda self: self._banks)
    venue = property(lambda self: self)

    def _make_messenger(self) -> TableMessenger:
        return RecordingMessenger(self.services.client, self.options, self.clock.shown)

    def _is_away(self, player_id: int) -> bool:
        return player_id in self.away

    def _away_players(self) -> frozenset[int]:
        return frozenset(self.away)

    def _presence(self, player_id: int, *, away: bool) -> set[int]:
        return self.away | {player_id} if away else self.away - {player_id}

    async def _store_actions(self, before: int, logged: Sequence[Any],
                             draft: set[int] | None) -> None:
        if self.refuse:
            self.refuse -= 1
            raise StorageError("storage_unavailable")
        self.db.health.require()  # a database away refuses every write at once
        self.stored[before:] = logged
        self.away = draft if draft is not None else self.away

    def _put_hand(self, hand: Hand) -> None:
        self._table = Table.from_json(self._table.to_json(), self.rng, hand=hand)

    def _may_deal(self) -> bool:
        return True

    async def _deal_hand(self, deck: tuple[Card, ...], commitment: DeckCommitment) -> int:
        self._table.start_hand(deck)
        self.dealt_seats(self._table, self._banks)
        self.stored = []
        return len(self.results) + 1

    async def _record(self, hand: Hand) -> Sequence[TableEvent]:
        if self.refuse:
            self.refuse -= 1
            raise StorageError("storage_unavailable")
        self.results.append(hand)
        return self._table.finish_hand()

    async def sit_in(self, user_id: int) -> None:
        self.away.discard(user_id)


def seated(*players: int, options: TableOptions | None = None) -> Table:
    table = Table(options or TableOptions(small_blind=5, big_blind=10), random.Random(3))
    for player in players:
        table.join(player, 1000)
    return table


@asynccontextmanager
async def live(tmp_path: Path, table: Table, **kwargs: Any) -> AsyncIterator[FakeTable]:
    found = FakeTable(await services(tmp_path, kwargs.pop("options", QUICK)), table, **kwargs)
    quiet(found)
    try:
        yield found
    finally:
        await found.shutdown()
        await found.db.close()


def to_act(table: FakeTable) -> tuple[int, tuple[int, int]]:
    """The player due and the (hand, decision) his buttons are drawn for."""
    hand = table.hand
    assert hand is not None and hand.to_act is not None and table.decision is not None
    return table.player_of(hand.to_act), table.decision.marker


async def dealt(table: FakeTable) -> Hand:
    async with table.lock:
        await table.deal_now()
    assert table.hand is not None
    return table.hand


async def test_a_deal_shows_the_table_naming_the_player_to_act_and_starts_his_time(
    tmp_path: Path,
) -> None:
    async with live(tmp_path, seated(ALICE, BOB)) as table:
        await dealt(table)
        _, marker = to_act(table)
        shown = table.messenger.said.shown[-1]  # type: ignore[attr-defined]
        assert shown.prompt is not None and shown.prompt.marker == marker
        assert table.clock.deadline is not None  # the message "went out": his time runs


async def test_an_action_is_stored_before_it_is_told_and_a_second_press_acts_on_nothing(
    tmp_path: Path,
) -> None:
    async with live(tmp_path, seated(ALICE, BOB, CAROL)) as table:
        await dealt(table)
        player, marker = to_act(table)
        taken = await table.act(player, ActionKind.CALL, ref=marker)
        assert taken.kind is ActionKind.CALL and table.stored[-1].kind is ActionKind.CALL
        with pytest.raises(BotError) as again:
            await table.act(player, ActionKind.CALL, ref=marker)  # a double click
        assert again.value.code == "already_acted"
        outsider = 999
        with pytest.raises(BotError) as stranger:
            table.check_act(outsider, ActionKind.FOLD)
        assert stranger.value.code == "not_in_hand"


async def test_a_refused_store_leaves_the_hand_as_storage_holds_it(tmp_path: Path) -> None:
    async with live(tmp_path, seated(ALICE, BOB, CAROL)) as table:
        hand = await dealt(table)
        before = len(hand.actions)
        player, marker = to_act(table)
        table.refuse = 1
        with pytest.raises(StorageError):
            await table.act(player, ActionKind.CALL, ref=marker)
        assert table.hand is not None and len(table.hand.actions) == before
        assert to_act(table)[0] == player  # still his decision: he may try again
        await table.act(player, ActionKind.CALL, ref=marker)
        assert table.stored[-1].kind is ActionKind.CALL


async def test_the_clock_acts_for_a_player_who_lets_his_time_run_out(tmp_path: Path) -> None:
    async with live(tmp_path, seated(ALICE, BOB), timer=0.05) as table:
        await dealt(table)
        player, _ = to_act(table)
        table.banks[player] = 0.0  # no reserve: his time ends with the table's timer
        await until(lambda: bool(table.results))
        timed_out = [a for a in table.results[0].actions if a.kind is ActionKind.TIMEOUT]
        assert [table.player_of(a.player) for a in timed_out if a.player is not None] == [player]
        assert table.timeouts[player] == 1


async def test_a_hand_played_out_is_recorded_its_result_posted_and_the_next_dealt(
    tmp_path: Path,
) -> None:
    async with live(tmp_path, seated(ALICE, BOB)) as table:
        await dealt(table)
        player, marker = to_act(table)
        await table.act(player, ActionKind.FOLD, ref=marker)
        assert len(table.results) == 1 and table.results[0].result is not None
        assert table.messenger.said.posted  # type: ignore[attr-defined]
        await until(lambda: table.table.hand_number == 2)


async def test_a_result_storage_refused_is_settled_when_storage_takes_it(
    tmp_path: Path,
) -> None:
    async with live(tmp_path, seated(ALICE, BOB)) as table:
        await dealt(table)
        player, marker = to_act(table)
        table.refuse = 0
        original = table._record

        async def refused_once(hand: Hand) -> Sequence[TableEvent]:
            table._record = original  # type: ignore[method-assign]
            raise StorageError("storage_unavailable")

        table._record = refused_once  # type: ignore[method-assign]
        await table.act(player, ActionKind.FOLD, ref=marker)  # stored: he is told it is taken
        assert table.results == []
        await until(lambda: len(table.results) == 1, timeout=5)


async def test_a_computer_player_answers_its_turn_alone(tmp_path: Path) -> None:
    bot = bot_id(0, "beginner")
    async with live(tmp_path, seated(ALICE, bot)) as table:
        hand = await dealt(table)
        if table.player_of(hand.to_act or 0) != bot:
            player, marker = to_act(table)
            await table.act(player, ActionKind.CALL, ref=marker)
        assert table.decision is None  # a bot has no clock
        await until(lambda: bool(table.results) or (table.bot_turns.thinking is None
                    and any(table.player_of(a.player) == bot for a in table.stored
                            if a.player is not None)))
        actions = table.results[0].actions if table.results else table.stored
        assert any(a.player is not None and table.player_of(a.player) == bot
                   and a.kind is not ActionKind.TIMEOUT for a in actions)


async def test_the_all_in_players_vote_to_run_it_twice(tmp_path: Path) -> None:
    options = TableOptions(small_blind=5, big_blind=10, run_it_twice=RunItTwice.ASK)
    async with live(tmp_path, seated(ALICE, BOB, options=options)) as table:
        hand = await dealt(table)
        player, marker = to_act(table)
        await table.act(player, ActionKind.ALL_IN, ref=marker)
        other, marker = to_act(table)
        await table.act(other, ActionKind.CALL, ref=marker)
        if not hand.run_choice_pending:
            pytest.skip("the board was complete before the vote")  # pragma: no cover
        assert table.run_vote.waiting
        with pytest.raises(BotError) as outsider:
            table.run_vote.check(999, None)
        assert outsider.value.code == "not_in_hand"
        assert not await table.run_vote.answer(ALICE, True, None)
        with pytest.raises(BotError) as twice:
            await table.run_vote.answer(ALICE, True, None)
        assert twice.value.code == "already_voted"
        assert await table.run_vote.answer(BOB, True, None)
        counts = [a.amount for a in table.stored if a.kind is ActionKind.RUN_COUNT]
        assert counts == [2]


async def test_a_vote_nobody_answers_runs_the_board_once(tmp_path: Path) -> None:
    options = TableOptions(small_blind=5, big_blind=10, run_it_twice=RunItTwice.ASK)
    async with live(tmp_path, seated(ALICE, BOB, options=options)) as table:
        hand = await dealt(table)
        for kind in (ActionKind.ALL_IN, ActionKind.CALL):
            player, marker = to_act(table)
            await table.act(player, kind, ref=marker)
        assert hand.run_choice_pending
        await until(lambda: any(a.kind is ActionKind.RUN_COUNT for a in table.stored))
        assert [a.amount for a in table.stored if a.kind is ActionKind.RUN_COUNT] == [1]


def test_an_owner_that_forgets_a_required_hook_cannot_be_made() -> None:
    """Required hooks are abstract: the owner fails when it is made, not at the first hand."""
    hooks = {name: getattr(FakeTable, name) for name in LiveTable.__abstractmethods__}
    assert "_record" in hooks and "sit_in" in hooks and "table" in hooks
    del hooks["_record"]
    forgetful = type("Forgetful", (LiveTable,), {**hooks, "kind": CASH})
    with pytest.raises(TypeError, match="_record"):
        forgetful()


async def test_a_hand_waits_while_its_storage_is_away_and_goes_on_when_it_is_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nobody is timed out, a press is refused and changes nothing, the players are told once,
    and when the database takes writes again the player to act has his time afresh."""
    monkeypatch.setattr(waiting, "TELL_AFTER", 0.05)
    async with live(tmp_path, seated(ALICE, BOB, CAROL), timer=0.3) as table:
        hand = await dealt(table)
        player, marker = to_act(table)
        health = table.db.health
        health.went_down(StorageUnavailable("connection_lost"))
        assert table.decision is None  # the clock stopped at once
        before = len(hand.actions)
        with pytest.raises(StorageUnavailable):
            await table.act(player, ActionKind.CALL, ref=marker)
        assert table.hand is not None and len(table.hand.actions) == before
        await asyncio.sleep(0.6)  # longer than his time: he is not timed out meanwhile
        assert not any(a.kind is ActionKind.TIMEOUT for a in table.hand.actions)
        posted = table.messenger.said.posted  # type: ignore[attr-defined]
        assert [p for p in posted if "waiting for its storage" in p] != []
        health.came_back()
        await until(lambda: table.decision is not None)
        assert to_act(table) == (player, marker)
        await table.act(player, ActionKind.CALL, ref=marker)
        assert table.stored[-1].kind is ActionKind.CALL
        assert len([p for p in posted if "waiting for its storage" in p]) == 1
