"""The kinds of table fill the loop's hooks: each hook of the cash table and of a tournament's
table on its own, with no Discord and nothing stored (a hook only reads the owner's state or
makes a draft of it).

The replay of a tournament hand is told at the blinds of the level it was dealt at, not the
level being played now (``small_blind_at``: the replay once read the table's current blinds).
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.errors import BotError
from bot.runtime import history
from bot.runtime.cash import CashTable, PracticeTable
from bot.runtime.config import TableConfig
from bot.runtime.kinds import Extra
from bot.runtime.recovery import RestoredTable
from bot.runtime.table import LiveTable, TableServices
from bot.runtime.tourney import LiveTournament, TournamentSettings, TournamentTable
from bot.storage.tables import TableInfo
from bot.storage.tournaments import TournamentInfo
from bot.storage.tournaments import TournamentTable as StoredTable
from engine.bots.ids import bot_id
from engine.cards import FULL_DECK
from engine.hand import Action, ActionKind, Hand, HandConfig
from engine.table import PlayerState, Table, TableOptions
from engine.tournament import BlindLevel, Tournament, TournamentConfig
from tests.bot.table_kit import services

pytestmark = pytest.mark.timeout(30)

ALICE, BOB, CAROL = 101, 102, 103
OPTIONS = TableOptions(small_blind=5, big_blind=10, min_buy_in=100, max_buy_in=1000)


def cash_table(served: TableServices, *players: int, practice: bool = False) -> CashTable:
    table = Table(OPTIONS, random.Random(5))
    for player in players:
        table.join(player, 1000)
    info = TableInfo(table_id=1, guild_id=1, channel_id=1, host_id=ALICE, config={},
                     min_buy_in=100, max_buy_in=1000, chip_unit=1, max_seats=10,
                     message_id=None, status="open", hand_count=0, created_at=0, seats=(),
                     practice=practice)
    config = TableConfig(options=OPTIONS, timer=30, dealing=True)
    kind = PracticeTable if practice else CashTable
    return kind(info, config, RestoredTable(table), served)


async def test_a_player_who_left_mid_hand_may_only_fold(tmp_path: Path) -> None:
    served = await services(tmp_path)
    table = cash_table(served, ALICE, BOB, CAROL)
    table.table.start_hand(FULL_DECK)
    hand = table.hand
    assert hand is not None and hand.to_act is not None
    waiting = next(p for p in (ALICE, BOB, CAROL) if p != table.player_of(hand.to_act))
    table.table.leave(waiting)  # in the hand, not his turn: he folds when it comes
    assert table._must_fold(waiting) and not table._must_fold(table.player_of(hand.to_act))
    with pytest.raises(BotError) as call:
        table.check_act(waiting, ActionKind.CALL)
    assert call.value.code == "left_the_table"
    table.check_act(waiting, ActionKind.FOLD)  # a fold is his to make
    with pytest.raises(BotError) as choose:
        table.check_preselect(waiting, None)
    assert choose.value.code == "left_the_table"
    await served.db.close()


async def test_away_is_a_draft_until_stored_and_forgetting_a_player_ends_it(
    tmp_path: Path,
) -> None:
    served = await services(tmp_path)
    table = cash_table(served, ALICE, BOB)
    draft = table._presence(ALICE, away=True)
    assert ALICE in draft.away and draft.table.player(ALICE).state is PlayerState.SITTING_OUT
    assert not table._is_away(ALICE)  # nothing changes before storage agrees
    assert table.table.player(ALICE).state is not PlayerState.SITTING_OUT
    table.away.add(ALICE)
    assert table._away_players() == {ALICE}
    table.forget(ALICE)
    assert not table._is_away(ALICE)
    await served.db.close()


async def test_bots_alone_are_not_dealt_to_and_a_refused_deal_stops_the_dealing(
    tmp_path: Path,
) -> None:
    served = await services(tmp_path)
    table = cash_table(served, bot_id(0, "regular"), bot_id(1, "regular"))
    assert not table._may_deal()
    with_person = cash_table(served, ALICE, bot_id(2, "regular"))
    assert with_person._may_deal()
    with_person._deal_refused()
    assert not with_person.dealing and not with_person._may_deal()
    await served.db.close()


async def test_a_practice_table_is_its_own_kind(tmp_path: Path) -> None:
    served = await services(tmp_path)
    table = cash_table(served, ALICE, BOB, practice=True)
    assert table.kind.name == "practice"
    with pytest.raises(BotError) as ledger:
        table.kind.require(Extra.LEDGER)
    assert ledger.value.code == "practice_no_ledger"
    await served.db.close()


LEVELS = (BlindLevel(10, 20, 0, minutes=10), BlindLevel(20, 40, 0, minutes=10))


def tournament_table(served: TableServices) -> TournamentTable:
    config = TournamentConfig(buy_in=100, starting_stack=1000, levels=LEVELS, seats=6,
                              max_players=6)
    state = Tournament(config, rng=random.Random(9))
    for player in (ALICE, BOB, CAROL):
        state.register(player, now=0)
    state.start(now=0)
    info = TournamentInfo(
        tournament_id=1, guild_id=1, channel_id=1, host_id=ALICE, name="Friday", kind="freeze_out",
        buy_in=100, max_players=6, entrants=3, pool=300, config={}, state=None, status="running",
        starts_at=None, created_at=0, started_at=0, ended_at=None, entries=(),
    )
    live = LiveTournament(info, TournamentSettings(kind="freeze_out", timer=30), state, served)
    row = StoredTable(table_id=1, table_no=min(state.tables), channel_id=1, message_id=None,
                      hand_count=0, status="open", config={})
    return TournamentTable(live, row)


async def test_a_tournament_table_closes_with_its_tournament_and_blinds_off_the_absent(
    tmp_path: Path,
) -> None:
    served = await services(tmp_path)
    table = tournament_table(served)
    table.check_open()
    draft = table._presence(BOB, away=True)
    assert draft.is_absent(BOB) and not table._is_away(BOB)  # a draft until stored
    table.tournament.closed = True
    with pytest.raises(BotError) as closed:
        table.check_open()
    assert closed.value.code == "table_closed"
    await served.db.close()


async def test_a_tournament_hand_replays_at_the_blinds_of_its_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hand dealt at level 1 with a dead small blind (none in the hand's own blinds), its
    replay asked for at level 2: the stakes it names are level 1's."""
    served = await services(tmp_path)
    table = tournament_table(served)
    table.tournament.state.tick(now=11 * 60)  # level 2 now
    assert table.table.options.small_blind == 20  # what the replay once read
    played = Hand(HandConfig(stacks=(1000, 1000, 1000), blinds=(0, 0, 20), antes=(0, 0, 0),
                             big_blind=20, big_blind_index=2), FULL_DECK)
    while not played.is_over:
        legal = played.legal()
        assert legal is not None
        kind = ActionKind.CHECK if not legal.to_call else ActionKind.FOLD
        played.apply(Action(kind, legal.player))
    players = tuple(SimpleNamespace(player=i, seat_no=i + 1, user_id=p)
                    for i, p in enumerate((ALICE, BOB, CAROL)))
    stored: Any = SimpleNamespace(guild_id=1, status="finished", hand_no=4, players=players,
                                  button_seat=1, level=1)

    async def found(db: object, table_id: int, number: int | None) -> Any:
        return stored

    monkeypatch.setattr(history, "stored_hand", found)
    monkeypatch.setattr(history.hands, "rebuild_hand", lambda stored: played)
    replayed = await history.replay_of(table, 1, 4, "en")
    assert replayed.small_blind == 10
    with pytest.raises(BotError) as elsewhere:
        await history.replay_of(table, 2, 4, "en")  # asked from another server
    assert elsewhere.value.code == "no_such_hand"
    await served.db.close()


def test_owners_are_the_loop_with_every_required_hook_filled() -> None:
    for owner in (CashTable, PracticeTable, TournamentTable):
        assert issubclass(owner, LiveTable) and not owner.__abstractmethods__
