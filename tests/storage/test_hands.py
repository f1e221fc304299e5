"""Hands: start, actions, result, void; the chips of a hand and the statistics it feeds.

Most of these tests store small JSON configs (storage does not read a config it is given);
the ones that rebuild a hand use the engine's, and test_hands_engine.py plays real hands.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.storage import Database, StorageError, economy, hands, stats, tables
from bot.storage.hands import HandSeat, PlayerResult
from engine.commitment import DeckCommitment
from engine.hand import Action, ActionKind, HandConfig

from .conftest import (
    GUILD,
    assert_invariant,
    deck_and_commitment,
    make_table,
    snapshot,
    start_simple_hand,
    tamper,
)


async def _table_with(db: Database, stacks: dict[int, int]) -> int:
    table_id = await make_table(db)
    for user, stack in stacks.items():
        await tables.buy_in(db, table_id, user, stack)
    return table_id


def _result(player: int, final: int, contributed: int, won: int, **flags: bool) -> PlayerResult:
    return PlayerResult(
        player,
        final,
        contributed,
        won,
        vpip=flags.get("vpip", False),
        pfr=flags.get("pfr", False),
        showdown=flags.get("showdown", False),
    )


async def test_start_hand_moves_stacks_into_the_hand(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 600})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 600)])
    stored = await hands.load_hand(db, hand_id)
    assert (stored.status, stored.chips, stored.hand_no) == ("running", 1_600, 1)
    assert [(p.player, p.user_id, p.seat_no, p.starting_stack) for p in stored.players] == [
        (0, 101, 1, 1_000),
        (1, 102, 2, 600),
    ]
    table = await tables.get_table(db, table_id)
    assert [(s.stack, s.hand_id) for s in table.seats] == [(0, hand_id), (0, hand_id)]
    entries = await economy.ledger_entries(db, GUILD, user_id=101)
    assert (entries[0].reason, entries[0].source, entries[0].dest) == (
        "hand_start",
        "seat:1:1",
        f"hand:{hand_id}",
    )
    await assert_invariant(db)
    assert [h.hand_id for h in await hands.unfinished_hands(db)] == [hand_id]
    assert [h.hand_id for h in await hands.unfinished_hands(db, table_id)] == [hand_id]


async def test_actions_are_appended_in_order(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 1_000)])
    await hands.append_action(db, hand_id, 0, {"kind": "call", "player": 1})
    await hands.append_actions(
        db, hand_id, 1, [{"kind": "check", "player": 0}, {"kind": "bet", "player": 0}]
    )
    for seq, code in ((1, "action_out_of_order"), (5, "action_out_of_order")):
        with pytest.raises(StorageError) as info:
            await hands.append_action(db, hand_id, seq, {"kind": "fold"})
        assert info.value.code == code
        assert info.value.params["expected"] == 3
    # A batch with a gap stores nothing, not even its valid first action.
    with pytest.raises(StorageError):
        await hands.append_actions(db, hand_id, 4, [{"kind": "a"}, {"kind": "b"}])
    stored = await hands.load_hand(db, hand_id)
    assert stored.actions == (
        {"kind": "call", "player": 1},
        {"kind": "check", "player": 0},
        {"kind": "bet", "player": 0},
    )


async def test_finish_hand_moves_finishing_stacks_and_records_stats(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 600, 103: 400})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 600), (3, 103, 400)])
    await hands.append_action(db, hand_id, 0, {"kind": "raise", "player": 2, "amount": 400})
    results = [
        _result(0, 1_000, 0, 0),
        _result(1, 1_000, 400, 800, vpip=True, showdown=True),
        _result(2, 0, 400, 0, vpip=True, pfr=True, showdown=True),
    ]
    await hands.record_hand_result(db, hand_id, {"winner": 1}, results, now=5_000)
    stored = await hands.load_hand(db, hand_id)
    assert (stored.status, stored.chips, stored.pot, stored.ended_at) == ("finished", 0, 800, 5_000)
    assert stored.result == {"winner": 1}
    assert stored.final_stacks == (1_000, 1_000, 0)
    table = await tables.get_table(db, table_id)
    assert [(s.user_id, s.stack, s.hand_id) for s in table.seats] == [
        (101, 1_000, None),
        (102, 1_000, None),
        (103, 0, None),
    ]
    await assert_invariant(db)
    # Statistics.
    s102 = await stats.player_stats(db, GUILD, 102)
    assert (s102.hands_played, s102.hands_won, s102.net, s102.biggest_pot) == (1, 1, 400, 800)
    assert (s102.vpip_pct, s102.pfr_pct) == (100.0, 0.0)
    s103 = await stats.player_stats(db, GUILD, 103)
    assert (s103.net, s103.vpip_pct, s103.pfr_pct) == (-400, 100.0, 100.0)
    board = await stats.leaderboard(db, GUILD)
    assert [(r.rank, r.user_id, r.value) for r in board] == [
        (1, 102, 400),
        (2, 101, 0),
        (3, 103, -400),
    ]
    by_won = await stats.leaderboard(db, GUILD, by="hands_won")
    assert [(r.rank, r.user_id, r.value) for r in by_won] == [(1, 102, 1), (2, 101, 0), (2, 103, 0)]
    biggest = await stats.leaderboard(db, GUILD, by="biggest_pot", limit=1)
    assert [(r.user_id, r.value) for r in biggest] == [(102, 800)]
    recent = await stats.recent_hands(db, table_id)
    assert [(h.hand_id, h.status, h.pot, h.winners) for h in recent] == [
        (hand_id, "finished", 800, (102,))
    ]
    # A busted player may now rebuy and the others leave with their chips.
    await tables.top_up(db, table_id, 103, 500)
    assert await tables.leave_table(db, table_id, 102) == 1_000
    await assert_invariant(db)


async def test_result_that_creates_chips_is_refused(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 1_000)])
    before = await snapshot(db)
    bad_results: list[tuple[list[PlayerResult], str]] = [
        ([_result(0, 1_500, 0, 500), _result(1, 1_000, 0, 0)], "hand_chips_mismatch"),
        ([_result(0, 2_000, 0, 1_000)], "bad_players"),
        ([_result(0, 1_000, 0, 0), _result(0, 1_000, 0, 0)], "bad_players"),
        ([_result(0, 2_000, 0, 0), _result(5, 0, 0, 0)], "bad_players"),
        ([_result(0, -1, 0, 0), _result(1, 2_001, 0, 0)], "amount_not_positive"),
    ]
    for results, code in bad_results:
        with pytest.raises(StorageError) as info:
            await hands.record_hand_result(db, hand_id, {}, results)
        assert info.value.code == code, results
    assert await snapshot(db) == before
    await assert_invariant(db)


async def test_result_that_destroys_chips_is_refused(db: Database) -> None:
    # The finishing stacks must add up to the chips the hand holds exactly: one chip short is
    # a chip destroyed, refused like one created.
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 1_000)])
    before = await snapshot(db)
    for results in (
        [_result(0, 1_999, 1_000, 1_999), _result(1, 0, 1_000, 0)],
        [_result(0, 1_000, 0, 0), _result(1, 999, 1, 0)],
        [_result(0, 0, 1_000, 0), _result(1, 0, 1_000, 0)],
    ):
        with pytest.raises(StorageError) as info:
            await hands.record_hand_result(db, hand_id, {}, results)
        assert info.value.code == "hand_chips_mismatch", results
        assert info.value.params["expected"] == 2_000
        assert info.value.params["got"] == sum(r.final_stack for r in results)
    assert await snapshot(db) == before
    await assert_invariant(db)
    # The exact sum is still accepted afterwards.
    await hands.record_hand_result(
        db, hand_id, {}, [_result(0, 2_000, 1_000, 2_000), _result(1, 0, 1_000, 0)]
    )
    assert (await hands.load_hand(db, hand_id)).final_stacks == (2_000, 0)
    await assert_invariant(db)


async def test_void_hand_refunds_starting_stacks(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 700})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 700)])
    await hands.append_action(db, hand_id, 0, {"kind": "raise", "player": 1, "amount": 700})
    refunds = await hands.void_hand(db, hand_id, reason="host", actor_id=42)
    assert refunds == {101: 1_000, 102: 700}
    stored = await hands.load_hand(db, hand_id)
    assert (stored.status, stored.void_reason, stored.chips) == ("voided", "host", 0)
    table = await tables.get_table(db, table_id)
    assert [(s.stack, s.hand_id) for s in table.seats] == [(1_000, None), (700, None)]
    for attempt in (
        hands.void_hand(db, hand_id, reason="again"),
        hands.append_action(db, hand_id, 1, {"kind": "fold"}),
        hands.record_hand_result(db, hand_id, {}, [_result(0, 1_000, 0, 0)]),
    ):
        with pytest.raises(StorageError) as info:
            await attempt
        assert info.value.code == "hand_not_running"
    # Voided hands never count in statistics.
    assert (await stats.player_stats(db, GUILD, 101)).hands_played == 0
    await assert_invariant(db)


async def test_hand_numbers_and_one_running_hand_per_table(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    seats = [(1, 101, 1_000), (2, 102, 1_000)]
    first = await start_simple_hand(db, table_id, seats)
    with pytest.raises(StorageError) as info:
        await start_simple_hand(db, table_id, [(1, 101, 0 + 1), (2, 102, 1)])
    assert info.value.code == "hand_in_progress"
    await hands.void_hand(db, first, reason="test")
    second = await start_simple_hand(db, table_id, seats)
    assert (await hands.load_hand(db, second)).hand_no == 2


async def test_start_hand_checks(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    before = await snapshot(db)
    good = [HandSeat(0, 1, 101, 1_000), HandSeat(1, 2, 102, 1_000)]
    commitment = deck_and_commitment()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"players": [HandSeat(0, 1, 101, 999), HandSeat(1, 2, 102, 1_000)]}, "seat_mismatch"),
        ({"players": [HandSeat(0, 1, 102, 1_000), HandSeat(1, 2, 101, 1_000)]}, "seat_mismatch"),
        ({"players": [HandSeat(0, 1, 101, 1_000), HandSeat(1, 3, 103, 1_000)]}, "seat_mismatch"),
        ({"players": good[:1]}, "bad_players"),
        ({"players": [good[0], HandSeat(2, 2, 102, 1_000)]}, "bad_players"),
        ({"players": [good[0], HandSeat(1, 1, 102, 1_000)]}, "bad_players"),
        ({"config": {"stacks": [1_000, 999]}}, "bad_players"),
        ({"commitment": DeckCommitment("00" * 32, "11" * 32)}, "deck_commitment_mismatch"),
        ({"commitment": "not a commitment"}, "deck_commitment_mismatch"),
        ({"deck": [0, 0, 1]}, "bad_deck"),
        ({"deck": [52]}, "bad_deck"),
        ({"deck": "AsKd"}, "bad_deck"),
        ({"config": {"x": float("nan")}}, "bad_json"),
    ]
    for change, code in cases:
        kwargs: dict[str, Any] = {
            "config": {},
            "players": good,
            **commitment,
            **change,
        }
        with pytest.raises(StorageError) as info:
            await hands.start_hand(db, table_id, **kwargs)
        assert info.value.code == code, change
    assert await snapshot(db) == before


async def test_a_deck_that_is_not_a_deck_is_refused(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    players = [HandSeat(0, 1, 101, 1_000), HandSeat(1, 2, 102, 1_000)]
    commitment = deck_and_commitment()
    for deck in (["As", "Kd"], [0, 0, 1], [52], [True, 1], []):
        with pytest.raises(StorageError) as info:
            await hands.start_hand(
                db,
                table_id,
                config={},
                deck=deck,  # type: ignore[arg-type]
                commitment=commitment["commitment"],  # type: ignore[arg-type]
                players=players,
            )
        assert info.value.code == "bad_deck"


async def test_rebuild_refuses_actions_the_engine_refuses(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    players = [HandSeat(0, 1, 101, 1_000), HandSeat(1, 2, 102, 1_000)]
    config = HandConfig.standard((1_000, 1_000), 5, 10)
    hand_id = await hands.start_hand(
        db, table_id, config=config, players=players, **deck_and_commitment()  # type: ignore[arg-type]
    )
    # Heads-up the button (index 1) acts first pre-flop: a call, then the big blind checks.
    await hands.append_action(db, hand_id, 0, Action(ActionKind.CALL, 1))
    await hands.append_action(db, hand_id, 1, Action(ActionKind.CHECK, 0))
    rebuilt = hands.rebuild_hand(await hands.load_hand(db, hand_id))
    assert rebuilt.board and rebuilt.to_act is not None
    await hands.append_action(db, hand_id, 2, Action(ActionKind.CHECK, 1))  # out of turn
    with pytest.raises(StorageError) as info:
        hands.rebuild_hand(await hands.load_hand(db, hand_id))
    assert info.value.code == "hand_corrupt"


async def test_rebuild_refuses_a_tampered_deck(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 1_000)])
    deck = list(range(52))
    deck[0], deck[1] = deck[1], deck[0]
    await tamper(db, "UPDATE hands SET deck = ? WHERE hand_id = ?", (str(deck), hand_id))
    with pytest.raises(StorageError) as info:
        hands.rebuild_hand(await hands.load_hand(db, hand_id))
    assert info.value.code == "hand_corrupt"
    assert info.value.params["detail"] == "deck commitment"


async def test_unknown_hand_and_table(db: Database) -> None:
    for attempt, code in (
        (hands.load_hand(db, 999), "unknown_hand"),
        (hands.append_action(db, 999, 0, {}), "unknown_hand"),
        (hands.void_hand(db, 999, reason="x"), "unknown_hand"),
        (start_simple_hand(db, 999, [(1, 101, 10), (2, 102, 10)]), "unknown_table"),
        (stats.recent_hands(db, 999), "unknown_table"),
    ):
        with pytest.raises(StorageError) as info:
            await attempt
        assert info.value.code == code


async def test_export_refuses_unfinished_hand(db: Database) -> None:
    table_id = await _table_with(db, {101: 1_000, 102: 1_000})
    hand_id = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 1_000)])
    with pytest.raises(StorageError) as info:
        await hands.export_phh(db, hand_id)
    assert info.value.code == "hand_not_finished"
