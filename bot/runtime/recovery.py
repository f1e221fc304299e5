"""Bringing a table back after a restart or a crash, from storage alone.

Storage is the authority on chips: who sits where, each stack, and the running hand (its
configuration, deck and every accepted action). The table's own state (button, blinds owed,
sitting out, leaving) is saved as ``Table.to_json()`` after every change, but a crash can fall
between a storage write and that save. Each such gap is closed here:

- the hand was stored as started but the state was saved before it: the hand is dealt again
  from the saved state and the stored deck (placement is deterministic, and the first hand's
  button is stored), then its actions are replayed;
- the state says a hand is running that storage has finished or voided: that hand is replayed
  and settled, so the button moves on and deferred leaves happen;
- seats changed in storage (a buy-in or a leave) after the state was saved: storage wins.

A running hand that still cannot be rebuilt is voided in storage (every stack back to its
seat) and logged; the table then carries on without it.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any

from bot.storage import Database, StorageError, hands, stats, tables
from bot.storage.hands import StoredHand
from bot.storage.tables import TableInfo
from engine.commitment import DeckCommitment
from engine.errors import EngineError
from engine.hand import Action, HandConfig
from engine.table import PlayerLeft, Table, TableEvent, TableOptions

log = logging.getLogger(__name__)

# Errors that mean "this stored data does not rebuild": anything else is a bug and propagates.
_REBUILD_ERRORS = (EngineError, StorageError, KeyError, TypeError, ValueError, IndexError)


@dataclass(slots=True)
class RestoredTable:
    table: Table
    hand_id: int | None = None
    commitment: DeckCommitment | None = None
    voided_hand: int | None = None  # number of a running hand voided because it did not rebuild
    settled: list[TableEvent] = field(default_factory=list)  # from a hand finished during restore


def _fresh_state(options: TableOptions, rng: random.Random) -> dict[str, Any]:
    return Table(options, rng).to_json()


def _default_seat(seat: int, player_id: int, stack: int, rotation: object) -> dict[str, Any]:
    # A player storage knows but the saved state does not joined just before a crash: like any
    # newcomer he owes a big blind once the game has a rotation.
    return {
        "seat": seat,
        "player_id": player_id,
        "stack": stack,
        "sitting_out": False,
        "leaving": None,
        "owes_sb": False,
        "owes_bb": rotation is not None,
        "pending": 0,
    }


def reconcile_seats(state: dict[str, Any], info: TableInfo) -> dict[str, Any]:
    """``state`` with its seats made to match storage (occupancy and stacks)."""
    saved = {int(s["seat"]): s for s in state.get("seats", [])}
    seats = []
    for seat in info.seats:
        entry = saved.get(seat.seat_no)
        if entry is None or entry.get("player_id") != seat.user_id:
            entry = _default_seat(seat.seat_no, seat.user_id, seat.chips, state.get("rotation"))
        else:
            entry = dict(entry)
        # In a running hand storage holds the starting stack: exactly what the table needs.
        entry["stack"] = seat.chips
        # Top-ups are never deferred by the runtime (refused during a player's own hand).
        entry["pending"] = 0
        seats.append(entry)
    return {**state, "seats": seats}


async def _hand_by_number(db: Database, table_id: int, hand_no: int) -> StoredHand | None:
    for summary in await stats.recent_hands(db, table_id, limit=100):
        if summary.hand_no == hand_no:
            return await hands.load_hand(db, summary.hand_id)
    return None


async def settle_departures(db: Database, table_id: int, events: list[TableEvent]) -> None:
    """Send the chips of players the table unseated (after a hand) back to their wallets."""
    for event in events:
        if isinstance(event, PlayerLeft):
            try:
                await tables.leave_table(db, table_id, int(event.player_id))
            except StorageError as exc:
                if exc.code != "not_seated":  # already done before a crash: nothing to redo
                    raise


async def _finish_stale_hand(
    db: Database, info: TableInfo, state: dict[str, Any], rng: random.Random
) -> tuple[dict[str, Any], list[TableEvent]]:
    """The saved state is inside a hand that storage has already ended: end it here too."""
    number = int(state["hand_number"])
    try:
        stored = await _hand_by_number(db, info.table_id, number)
        if stored is None or stored.status == "running":
            raise StorageError("unknown_hand", hand_no=number)
        hand = hands.rebuild_hand(stored)
        if stored.status == "voided" and not hand.is_over:
            hand.void()
        if not hand.is_over:
            raise StorageError("hand_corrupt", hand_id=stored.hand_id, detail="not over")
        table = Table.from_json(state, rng, hand=hand)
        events = table.finish_hand()
    except _REBUILD_ERRORS:
        log.exception("table %d: could not settle hand #%d after a restart", info.table_id, number)
        return {**state, "in_hand": False}, []
    await settle_departures(db, info.table_id, events)
    return table.to_json(), events


def _rebuild_running(state: dict[str, Any], stored: StoredHand, rng: random.Random) -> Table:
    players = [p.user_id for p in sorted(stored.players, key=lambda p: p.player)]
    if state["in_hand"] and int(state["hand_number"]) == stored.hand_no:
        table = Table.from_json(state, rng, hand=hands.rebuild_hand(stored))
    elif not state["in_hand"] and int(state["hand_number"]) == stored.hand_no - 1:
        # Stored as started, saved just before: deal it again from the stored deck.
        table = Table.from_json(state, rng)
        button = stored.button_seat if table.rotation is None else None
        table.start_hand(stored.deck, button=button)
        hand = table.hand
        assert hand is not None
        if hand.config != HandConfig.from_json(stored.config):
            raise StorageError("hand_corrupt", hand_id=stored.hand_id, detail="config differs")
        for action in stored.actions:
            hand.apply(Action.from_json(action))
    else:
        raise StorageError("hand_corrupt", hand_id=stored.hand_id, detail="hand number")
    if list(table.hand_players) != players:
        raise StorageError("hand_corrupt", hand_id=stored.hand_id, detail="players differ")
    return table


def _table_from(state: dict[str, Any], options: TableOptions, rng: random.Random) -> Table:
    try:
        return Table.from_json(state, rng)
    except _REBUILD_ERRORS:
        log.exception("saved table state does not load; starting the rotation afresh")
        fresh = _fresh_state(options, rng)
        return Table.from_json({**fresh, "seats": state.get("seats", [])}, rng)


async def restore_table(
    db: Database,
    info: TableInfo,
    saved: dict[str, Any] | None,
    options: TableOptions,
    rng: random.Random,
) -> RestoredTable:
    """The engine table of an open table, with its running hand (if any) rebuilt."""
    running = await hands.unfinished_hands(db, info.table_id)
    stored = running[0] if running else None
    state = dict(saved) if saved is not None else _fresh_state(options, rng)
    settled: list[TableEvent] = []
    if state.get("in_hand") and (stored is None or stored.hand_no != int(state["hand_number"])):
        state, settled = await _finish_stale_hand(db, info, state, rng)
        info = await tables.get_table(db, info.table_id)
    state = reconcile_seats(state, info)
    if stored is not None:
        try:
            table = _rebuild_running(state, stored, rng)
            commitment = stored.commitment  # None for a hand committed the old way
            return RestoredTable(table, stored.hand_id, commitment, settled=settled)
        except _REBUILD_ERRORS:
            log.exception(
                "table %d: hand #%d (id %d) does not rebuild; voiding it and refunding every"
                " stack",
                info.table_id,
                stored.hand_no,
                stored.hand_id,
            )
            await hands.void_hand(db, stored.hand_id, reason="could not be rebuilt after a restart")
            info = await tables.get_table(db, info.table_id)
            state = reconcile_seats(state, info)
            voided = stored.hand_no
    else:
        voided = None
    # No hand runs now: the engine's hand count follows storage's, which counts every deal.
    state = {**state, "in_hand": False, "hand_number": info.hand_count}
    return RestoredTable(_table_from(state, options, rng), voided_hand=voided, settled=settled)
