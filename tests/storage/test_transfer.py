"""``poker-bot migrate-db``: a whole database copied between backends, both ways, the same to
the last row; never into a database that holds anything."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.storage import (
    Database,
    StorageError,
    calendar,
    economy,
    hands,
    invariant,
    leagues,
    tables,
    tournaments,
)
from bot.storage.hands import PlayerResult
from bot.storage.tournaments import LeagueEntry, Placing
from bot.storage.transfer import NOT_COPIED, TABLES, copy_database

from .conftest import GUILD, HOST, make_table, snapshot, start_simple_hand

REPO = Path(__file__).resolve().parents[2]


async def busy_economy(db: Database) -> None:
    """Wallets, a transfer, grants, a table with a finished, a voided and a running hand."""
    await economy.ensure_guild(db, GUILD, now=1_000)
    await economy.ensure_guild(db, 7, now=1_000)
    await economy.transfer(db, GUILD, 101, 102, 500)
    await economy.grant(db, GUILD, 103, 70, actor_id=HOST)
    await economy.remove(db, GUILD, 103, 10, actor_id=HOST)
    await economy.transfer(db, 7, 101, 102, 1)
    table_id = await make_table(db)
    await tables.buy_in(db, table_id, 101, 1_000)
    await tables.buy_in(db, table_id, 102, 2_000)
    finished = await start_simple_hand(db, table_id, [(1, 101, 1_000), (2, 102, 2_000)])
    await hands.append_action(db, finished, 0, {"kind": "call", "player": 1})
    await hands.record_hand_result(
        db,
        finished,
        {"net": [100, -100]},
        [
            PlayerResult(0, 1_100, 100, 200, vpip=True, pfr=False, showdown=True),
            PlayerResult(1, 1_900, 100, 0, vpip=True, pfr=True, showdown=True),
        ],
    )
    voided = await start_simple_hand(db, table_id, [(1, 101, 1_100), (2, 102, 1_900)])
    await hands.void_hand(db, voided, reason="floor", actor_id=HOST)
    await start_simple_hand(db, table_id, [(1, 101, 1_100), (2, 102, 1_900)])
    closed = await make_table(db, channel=9_001)
    await tables.buy_in(db, closed, 104, 300)
    await tables.close_table(db, closed, actor_id=HOST)
    # A tournament holding buy-ins, and one paid out; both in a league, the first on the
    # server's calendar.
    league = await leagues.create_league(db, GUILD, HOST, name="Season", points="3, 1")
    await calendar.claim_refusal_notice(db, 7, 1_000)
    for name, channel in (("Open", 9_003), ("Done", 9_004)):
        tid = (await tournaments.create_tournament(
            db, GUILD, channel, HOST, name=name, kind="time_limited", buy_in=40,
            max_players=4, config={"levels": []}, enforce_limits=False,  # data, not limits
            league=LeagueEntry(league.league_id, 10),
        )).tournament_id
        if name == "Open":
            await calendar.remember_event(db, tid, 555)
        await tournaments.register(db, tid, 101, state={"clock": [1, None, 0.0, 2]})
        await tournaments.register(db, tid, 102)
        if name == "Done":
            await tournaments.start_tournament(db, tid, state={})
            await tournaments.finish_tournament(
                db, tid, [Placing(101, 1, 1, 80), Placing(102, 2, 1, 0)], state={}
            )


def rows_of(state: dict[str, object]) -> dict[str, object]:
    """A snapshot without the migrations' own bookkeeping (when each was applied differs)."""
    return {name: rows for name, rows in state.items() if name in dict(TABLES)}


async def test_a_copy_to_postgresql_and_back_is_the_same_to_the_last_row(
    tmp_path: Path, postgres_url: str
) -> None:
    original = await Database.open(f"sqlite:///{tmp_path / 'live.db'}")
    await busy_economy(original)
    pg = await Database.open(postgres_url)
    back = await Database.open(f"sqlite:///{tmp_path / 'back.db'}")
    try:
        there = await copy_database(original, pg)
        assert there.rows["ledger"] > 10 and there.rows["hands"] == 3
        assert there.rows["league_points"] == 2 and there.rows["tournament_events"] == 1
        expected = rows_of(await snapshot(original))
        assert rows_of(await snapshot(pg)) == expected
        again = await copy_database(pg, back)
        assert again == there
        assert rows_of(await snapshot(back)) == expected
        for db in (pg, back):
            assert (await invariant.check_invariant(db)).ok
            # New rows continue after the copied ids (identity columns were moved on).
            last = await db.fetchone("SELECT MAX(entry_id) FROM ledger")
            await economy.grant(db, GUILD, 105, 5, actor_id=HOST)
            newest = await db.fetchone("SELECT MAX(entry_id) FROM ledger")
            assert last is not None and newest is not None and newest[0] > last[0]
            table = await make_table(db, channel=9_002)
            assert table > 2
    finally:
        for db in (original, pg, back):
            await db.close()


async def test_a_copy_never_goes_into_a_database_that_holds_rows(
    tmp_path: Path, postgres_url: str
) -> None:
    source = await Database.open(f"sqlite:///{tmp_path / 'live.db'}")
    target = await Database.open(postgres_url)
    try:
        await busy_economy(source)
        await economy.ensure_guild(target, 99)
        before = await snapshot(target)
        with pytest.raises(StorageError) as refused:
            await copy_database(source, target)
        assert refused.value.code == "target_not_empty"
        assert await snapshot(target) == before
    finally:
        await source.close()
        await target.close()


async def test_the_command_copies_and_then_refuses_a_second_time(
    tmp_path: Path, postgres_url: str
) -> None:
    source_url = f"sqlite:///{tmp_path / 'live.db'}"
    db = await Database.open(source_url)
    await busy_economy(db)
    await db.close()
    env = {**os.environ, "PYTHONPATH": str(REPO), "DATABASE_URL": source_url}
    command = [sys.executable, "-m", "bot", "migrate-db", "--to", postgres_url]
    first = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=120)
    assert first.returncode == 0, first.stderr
    assert "the invariant holds on both sides" in first.stdout and "ledger" in first.stdout
    second = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                            timeout=120)
    assert second.returncode == 1 and "target_not_empty" in second.stderr


async def test_every_table_of_the_schema_is_copied_or_named_as_not(sqlite_db: Database) -> None:
    # A migration that adds a table must say whether migrate-db carries it.
    names = set(await sqlite_db.table_names())
    assert names == {name for name, _ in TABLES} | NOT_COPIED
