"""Fixtures for the storage tests: a migrated database with one registered guild, on each
backend (an SQLite file, and a fresh database on the test PostgreSQL server)."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from bot.storage import Database, economy, hands, invariant, tables
from bot.storage.hands import HandSeat
from engine.cards import check_deck
from engine.commitment import DeckCommitment
from tests.pgserver import PostgresServer

GUILD = 1_000_000_001
HOST = 500
USERS = (101, 102, 103, 104)
CHANNEL = 9_000


BACKENDS = ("sqlite", "postgresql")


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The SQLite file (for the tests about SQLite itself)."""
    return tmp_path / "data" / "poker.db"


@pytest.fixture(params=BACKENDS)
async def db_url(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[str]:
    """A database URL on each backend: the storage tests run against both."""
    if request.param == "sqlite":
        yield f"sqlite:///{db_path}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = await server.create_database()
    try:
        yield url
    finally:
        await server.drop_database(url)


@pytest.fixture
async def db(db_url: str) -> AsyncIterator[Database]:
    database = await Database.open(db_url)
    await economy.ensure_guild(database, GUILD, now=1_000)
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
async def sqlite_db(db_path: Path) -> AsyncIterator[Database]:
    """The database as an SQLite file (for the tests about SQLite itself)."""
    database = await Database.open(f"sqlite:///{db_path}")
    await economy.ensure_guild(database, GUILD, now=1_000)
    try:
        yield database
    finally:
        await database.close()


def file_snapshot(path: Path) -> dict[str, object]:
    """Every row of every table of an SQLite file, its schema and its version, as committed."""
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


async def snapshot(db: Database) -> dict[str, object]:
    """Every row of every table plus the schema version, as committed."""
    state: dict[str, object] = {}
    for name in await db.table_names():
        rows = await db.fetchall(f'SELECT * FROM "{name}"')
        state[name] = sorted((tuple(row) for row in rows), key=repr)
    state["schema_version"] = await db.schema_version()
    return state


async def tamper(db: Database, sql: str, params: Sequence[object] = ()) -> None:
    """Change the database behind storage's back (what a bug or a hand-edit would do)."""
    async with db.write() as tx:
        await tx.execute(sql, params)


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
