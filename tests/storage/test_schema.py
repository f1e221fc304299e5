"""The two backends' migrations make the same schema: the same tables, the same columns (name,
kind, nullability), the same keys, unique rules, foreign keys, checks and indexes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from bot.storage import Database
from bot.storage.db import backend_of
from bot.storage.migrations import Migration, load_migrations
from tests.pgserver import PostgresServer


@dataclass
class Table:
    columns: dict[str, tuple[str, bool]] = field(default_factory=dict)  # name -> (kind, null ok)
    primary_key: tuple[str, ...] = ()
    unique: set[tuple[tuple[str, ...], bool]] = field(default_factory=set)  # columns, partial
    foreign_keys: set[tuple[str, str, str]] = field(default_factory=set)  # column, table, column
    checks: int = 0
    indexes: set[str] = field(default_factory=set)


def kind(declared: str) -> str:
    declared = declared.lower()
    if "int" in declared:
        return "integer"
    if "char" in declared or "text" in declared:
        return "text"
    return declared


async def sqlite_schema(path: Path) -> dict[str, Table]:
    db = await Database.open(f"sqlite:///{path}")
    try:
        schema: dict[str, Table] = {}
        for name in await db.table_names():
            table = schema[name] = Table()
            sql = str((await db.fetchone(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
            ))[0])
            table.checks = len(re.findall(r"\bCHECK\s*\(", sql, re.IGNORECASE))
            pk: list[tuple[int, str]] = []
            for _, column, declared, notnull, _, key in await db.fetchall(
                f'PRAGMA table_info("{name}")'
            ):
                table.columns[column] = (kind(declared), not (notnull or key))
                if key:
                    pk.append((key, column))
            table.primary_key = tuple(column for _, column in sorted(pk))
            for _, index, unique, origin, partial in await db.fetchall(
                f'PRAGMA index_list("{name}")'
            ):
                columns = tuple(
                    row[2] for row in await db.fetchall(f'PRAGMA index_info("{index}")')
                )
                if origin == "c":
                    table.indexes.add(index)
                if unique and origin != "pk":
                    table.unique.add((columns, bool(partial)))
            for row in await db.fetchall(f'PRAGMA foreign_key_list("{name}")'):
                table.foreign_keys.add((row[3], row[2], row[4]))
        return schema
    finally:
        await db.close()


async def postgres_schema(url: str) -> dict[str, Table]:
    db = await Database.open(url)
    await db.close()
    conn = await asyncpg.connect(url)
    try:
        schema: dict[str, Table] = {}
        for row in await conn.fetch(
            "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns"
            " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
        ):
            table = schema.setdefault(row["table_name"], Table())
            table.columns[row["column_name"]] = (
                kind(row["data_type"]), row["is_nullable"] == "YES"
            )
        for row in await conn.fetch(
            "SELECT c.conrelid::regclass::text AS name, c.contype::text AS contype, c.conindid,"
            " array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, o)"
            " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.o)"
            " AS cols,"
            " c.confrelid::regclass::text AS target,"
            " array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, o)"
            " JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.o)"
            " AS target_cols"
            " FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace"
            " WHERE s.nspname = current_schema()"
        ):
            table = schema[row["name"]]
            columns = tuple(row["cols"])
            if row["contype"] == "p":
                table.primary_key = columns
            elif row["contype"] == "u":
                table.unique.add((columns, False))
            elif row["contype"] == "f":
                table.foreign_keys.add((columns[0], row["target"], row["target_cols"][0]))
            elif row["contype"] == "c":
                table.checks += 1
        for row in await conn.fetch(
            "SELECT t.relname AS name, i.relname AS index, x.indisunique AS unique,"
            " x.indpred IS NOT NULL AS partial,"
            " array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(n, o)"
            " JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n ORDER BY k.o)"
            " AS cols"
            " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid"
            " JOIN pg_class t ON t.oid = x.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace"
            " WHERE s.nspname = current_schema()"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)"
        ):
            table = schema[row["name"]]
            table.indexes.add(row["index"])
            if row["unique"]:
                table.unique.add((tuple(row["cols"]), bool(row["partial"])))
        return schema
    finally:
        await conn.close()


async def test_both_backends_migrate_to_the_same_schema(
    tmp_path: Path, postgres_url: str
) -> None:
    lite = await sqlite_schema(tmp_path / "schema.db")
    pg = await postgres_schema(postgres_url)
    assert sorted(lite) == sorted(pg)
    assert len(lite) >= 10
    for name in lite:
        assert lite[name] == pg[name], name


def test_both_backends_have_the_same_migrations() -> None:
    lite, pg = load_migrations("sqlite"), load_migrations("postgresql")
    assert [(m.version, m.name) for m in lite] == [(m.version, m.name) for m in pg]


async def test_a_schema_difference_is_seen(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    """The comparison itself: one column more on one side is a difference."""
    url = await postgres_server.create_database()
    try:
        await (await Database.open(url)).close()
        conn = await asyncpg.connect(url)
        await conn.execute("ALTER TABLE seats ADD COLUMN extra BIGINT")
        await conn.close()
        lite = await sqlite_schema(tmp_path / "schema.db")
        pg = await postgres_schema(url)
        assert lite["seats"] != pg["seats"]
        assert lite["wallets"] == pg["wallets"]
    finally:
        await postgres_server.drop_database(url)


async def test_a_smaller_number_landing_after_a_larger_one_is_applied(db_url: str) -> None:
    """Changes made side by side number their migrations ahead of time (tournaments took 0005
    before 0004 was merged): whatever a database has not recorded is applied, in order."""
    shipped = list(load_migrations(backend_of(db_url)))
    last = shipped[-1].version
    later = Migration(last + 2, "later", "CREATE TABLE later_change (x BIGINT);")
    db = await Database.open(db_url, migrations=[*shipped, later])
    await db.close()
    landed = Migration(last + 1, "landed_late", "CREATE TABLE landed_late (x BIGINT);")
    db = await Database.open(db_url, migrations=[*shipped, landed, later])
    try:
        assert "landed_late" in await db.table_names()
        assert await db.schema_version() == later.version
        rows = await db.fetchall("SELECT version FROM schema_migrations ORDER BY version")
        assert [r[0] for r in rows] == [m.version for m in (*shipped, landed, later)]
    finally:
        await db.close()
    # Opening again applies nothing more.
    db = await Database.open(db_url, migrations=[*shipped, landed, later])
    try:
        assert len(await db.fetchall("SELECT version FROM schema_migrations")) == len(shipped) + 2
    finally:
        await db.close()

