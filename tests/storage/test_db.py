"""The database file: URL, WAL mode, migrations applied once, a failed migration undone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.settings import DEFAULT_DATABASE_URL, Settings
from bot.storage import Database, StorageError, parse_database_url
from bot.storage.migrations import Migration, load_migrations
from bot.storage.sqlite import split_statements

from .conftest import file_snapshot


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:///./data/poker.db", "./data/poker.db"),
        ("sqlite:///data/poker.db", "data/poker.db"),
        ("sqlite:////var/lib/poker/poker.db", "/var/lib/poker/poker.db"),
        ("sqlite:///:memory:", ":memory:"),
        ("poker.db", "poker.db"),
    ],
)
def test_database_url(url: str, path: str) -> None:
    assert parse_database_url(url) == path


@pytest.mark.parametrize(
    "url", ["", "postgres://x/y", "sqlite://host/x.db", "sqlite:///x.db?mode=ro", "sqlite:///"]
)
def test_bad_database_url(url: str) -> None:
    with pytest.raises(StorageError) as info:
        parse_database_url(url)
    assert info.value.code == "bad_database_url"


def test_default_url_is_data_poker_db() -> None:
    assert parse_database_url(DEFAULT_DATABASE_URL) == "./data/poker.db"


async def test_the_database_url_setting_opens_that_file(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "env.db"
    settings = Settings.from_env({"DATABASE_URL": f"sqlite:///{target}"}, require_token=False)
    db = await Database.open(settings.database_url)
    await db.close()
    assert target.is_file()


async def test_wal_mode_and_pragmas(db_path: Path) -> None:
    db = await Database.open(f"sqlite:///{db_path}")
    try:
        conn = sqlite3.connect(db_path)
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()
        assert db.synchronous == "NORMAL"
        row = await db.fetchone("PRAGMA foreign_keys")
        assert row is not None and row[0] == 1
    finally:
        await db.close()


async def test_migrations_recorded_and_never_reapplied(db_path: Path) -> None:
    migrations = load_migrations()
    db = await Database.open(f"sqlite:///{db_path}")
    assert await db.schema_version() == migrations[-1].version
    rows = await db.fetchall("SELECT version, name FROM schema_migrations ORDER BY version")
    assert [(r[0], r[1]) for r in rows] == [(m.version, m.name) for m in migrations]
    await db.close()
    before = file_snapshot(db_path)
    # Reopening applies nothing: same rows, same schema, same version.
    db = await Database.open(f"sqlite:///{db_path}")
    await db.close()
    assert file_snapshot(db_path) == before


async def test_new_migration_applied_in_order(db_path: Path) -> None:
    base = list(load_migrations())
    db = await Database.open(f"sqlite:///{db_path}", migrations=base)
    await db.close()
    extra = Migration(base[-1].version + 1, "add_notes",
                      "CREATE TABLE notes (id INTEGER PRIMARY KEY);")
    db = await Database.open(f"sqlite:///{db_path}", migrations=[*base, extra])
    try:
        assert await db.schema_version() == extra.version
        assert await db.fetchone("SELECT name FROM sqlite_master WHERE name = 'notes'")
    finally:
        await db.close()


async def test_failed_migration_leaves_file_as_it_was(db_path: Path) -> None:
    base = list(load_migrations())
    db = await Database.open(f"sqlite:///{db_path}", migrations=base)
    await db.close()
    before = file_snapshot(db_path)
    # The first statement succeeds, the second fails: the first must be undone too.
    broken = Migration(
        base[-1].version + 1,
        "broken",
        "CREATE TABLE half_done (id INTEGER PRIMARY KEY);\n"
        "ALTER TABLE wallets ADD COLUMN balance INTEGER;\n",
    )
    with pytest.raises(StorageError) as info:
        await Database.open(f"sqlite:///{db_path}", migrations=[*base, broken])
    assert info.value.code == "migration_failed"
    assert info.value.params["version"] == broken.version
    assert file_snapshot(db_path) == before


async def test_failed_first_migration_leaves_empty_file(db_path: Path) -> None:
    broken = Migration(1, "broken", "CREATE TABLE a (x INTEGER);\nCREATE TABLE a (y INTEGER);\n")
    with pytest.raises(StorageError):
        await Database.open(f"sqlite:///{db_path}", migrations=[broken])
    state = file_snapshot(db_path)
    assert state["user_version"] == 0
    assert state["schema"] == []


async def test_schema_newer_than_code_is_refused(db_path: Path) -> None:
    db = await Database.open(f"sqlite:///{db_path}")
    await db.close()
    with pytest.raises(StorageError) as info:
        await Database.open(f"sqlite:///{db_path}", migrations=load_migrations()[:0])
    assert info.value.code == "schema_too_new"


async def test_in_memory_database() -> None:
    db = await Database.open("sqlite:///:memory:")
    try:
        assert await db.schema_version() == load_migrations()[-1].version
    finally:
        await db.close()


def test_split_statements_keeps_trigger_bodies() -> None:
    script = (
        "-- a comment; with a semicolon\n"
        "CREATE TABLE t (x INTEGER);\n"
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n"
        "  UPDATE t SET x = 1;\n"
        "  UPDATE t SET x = 2;\n"
        "END;\n"
    )
    statements = split_statements(script)
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;")


def test_migration_files_are_numbered_from_one_up_each_number_once() -> None:
    versions = [m.version for m in load_migrations()]
    assert versions[0] == 1 and versions == sorted(set(versions))
    assert [m.version for m in load_migrations("postgresql")] == versions
