"""Fixtures for the storage tests: a migrated database file with one registered guild."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from bot.storage import Database, economy, hands, invariant, tables
from bot.storage.hands import HandSeat
from engine.cards import check_deck
from engine.commitment import DeckCommitment

GUILD = 1_000_000_001
HOST = 500
USERS = (101, 102, 103, 104)
CHANNEL = 9_000


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "poker.db"


@pytest.fixture
async def db(db_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(f"sqlite:///{db_path}")
    await economy.ensure_guild(database, GUILD, now=1_000)
    try:
        yield database
    finally:
        await database.close()


def snapshot(path: Path) -> dict[str, object]:
    """Every row of every table plus the schema version, read from the file as committed."""
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        state: dict[str, object] = {
            name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in names
        }
        state["user_version"] = conn.execute("PRAGMA user_version").fetchone()[0]
        state["schema"] = sorted(
            conn.execute("SELECT type, name, sql FROM sqlite_master").fetchall(), key=repr
        )
        return state
    finally:
        conn.close()


async def assert_invariant(db: Database) -> None:
    report = await invariant.check_invariant(db)
    assert report.ok, report


async def make_table(
    db: Database, *, min_buy_in: int = 100, max_buy_in: int = 5_000, channel: int = CHANNEL
) -> int:
    table = await tables.create_table(
        db,
        GUILD,
        channel,
        HOST,
        config={"small_blind": 5, "big_blind": 10},
        min_buy_in=min_buy_in,
        max_buy_in=max_buy_in,
    )
    return table.table_id


def deck_and_commitment(deck: Sequence[int] | None = None) -> dict[str, object]:
    cards = check_deck(range(52) if deck is None else deck)
    return {"deck": cards, "commitment": DeckCommitment.commit(cards)}


async def start_simple_hand(
    db: Database, table_id: int, seats: Sequence[tuple[int, int, int]]
) -> int:
    """Start a hand with (seat_no, user_id, stack) in player order; a JSON config of stacks."""
    players = [HandSeat(i, seat, user, stack) for i, (seat, user, stack) in enumerate(seats)]
    return await hands.start_hand(
        db,
        table_id,
        config={"stacks": [p.stack for p in players]},
        players=players,
        **deck_and_commitment(),  # type: ignore[arg-type]
    )
