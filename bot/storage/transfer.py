"""Copying a whole database to another backend (``poker-bot migrate-db``).

Every table is read from one consistent snapshot of the source (a live SQLite database keeps
serving the bot meanwhile) and written into the target in one transaction, with the same ids, so
either all of it arrives or none. The target must be empty: a copy never merges into chips that
are already there. Afterwards both sides must hold the same number of rows in every table and
both must keep the chip invariant.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage import invariant
from bot.storage.db import Database
from bot.storage.errors import StorageError

# In the order foreign keys allow, with the id column new rows must continue after.
TABLES: tuple[tuple[str, str | None], ...] = (
    ("guilds", None),
    ("wallets", None),
    # Before the tables: a tournament's tables and hands refer to it.
    ("tournaments", "tournament_id"),
    ("poker_tables", "table_id"),
    ("hands", "hand_id"),
    ("hand_players", None),
    ("hand_actions", None),
    ("seats", None),
    ("ledger", "entry_id"),
    ("player_totals", None),
    ("user_locales", None),
    ("tournament_entries", None),
    # After the tables and tournaments its rows name; owed recaps are posted by the target.
    ("recaps", "recap_id"),
    ("leagues", "league_id"),
    ("league_tournaments", None),
    ("league_points", None),
    ("tournament_events", None),
    ("calendar_refusals", None),
)
# Not copied: the migrations (the target has its own) and the leases of the processes running
# on the source (they do not run on the target).
NOT_COPIED = frozenset({"schema_migrations", "guild_leases"})


@dataclass(frozen=True, slots=True)
class CopyReport:
    rows: dict[str, int]  # rows copied, by table
    chips: int  # every chip in the copied economies (the ledger's total)


async def row_counts(db: Database) -> dict[str, int]:
    async with db.read() as tx:
        return {
            name: int(await tx.scalar(f"SELECT COUNT(*) FROM {name}"))
            for name, _ in TABLES
        }


async def copy_database(source: Database, target: Database) -> CopyReport:
    """Copy every row of ``source`` into the empty ``target``; what was copied."""
    if (await target.schema_version()) != (await source.schema_version()):
        raise StorageError("schema_differs", source=await source.schema_version(),
                           target=await target.schema_version())
    before = await invariant.check_invariant(source)
    if not before.ok:
        raise StorageError("invariant_broken", side="source")
    taken: dict[str, list[tuple[object, ...]]] = {}
    columns: dict[str, list[str]] = {}
    async with source.read() as tx:
        for name, _ in TABLES:
            rows = await tx.fetchall(f"SELECT * FROM {name}")
            columns[name] = list(rows[0].keys()) if rows else []
            taken[name] = [tuple(row) for row in rows]
    async with target.write() as tx:
        for name, _ in TABLES:
            if await tx.scalar(f"SELECT COUNT(*) FROM {name}"):
                raise StorageError("target_not_empty", table=name)
        for name, id_column in TABLES:
            rows = taken[name]
            if rows:
                names = columns[name]
                marks = ", ".join("?" for _ in names)
                await tx.executemany(
                    f"INSERT INTO {name} ({', '.join(names)}) VALUES ({marks})", rows
                )
            if id_column is not None:
                await target.continue_ids(tx, name, id_column)
    # The source may have changed since (it is live): the target must hold the snapshot.
    copied = {name: len(rows) for name, rows in taken.items()}
    if await row_counts(target) != copied:
        raise StorageError("copy_incomplete", expected=copied)
    after = await invariant.check_invariant(target)
    if not after.ok:
        raise StorageError("invariant_broken", side="target")
    return CopyReport(copied, sum(g.ledger_total for g in after.guilds))
