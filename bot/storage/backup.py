"""``poker-bot backup PATH``: a consistent copy of the live database, taken while the bot runs.

SQLite's online backup API copies the pages of one read snapshot; in WAL mode the bot keeps
writing meanwhile. The copy is written next to the destination, checked, switched out of WAL
mode so it is one self-contained file, and only then renamed over the destination, so a
failed or interrupted backup never leaves a half-written file under the requested name.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from bot.storage.db import MEMORY, parse_database_url
from bot.storage.errors import StorageError


def _backup_file(source_path: str, dest: str) -> None:
    source_file = Path(source_path)
    if not source_file.is_file():
        raise StorageError("database_missing", path=source_path)
    dest_file = Path(dest)
    if dest_file.exists() and dest_file.resolve() == source_file.resolve():
        raise StorageError("bad_backup_path", path=dest)
    dest_file.parent.mkdir(parents=True, exist_ok=True)
    partial = dest_file.with_name(f".{dest_file.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    try:
        source = sqlite3.connect(source_file)
        try:
            target = sqlite3.connect(partial)
            try:
                # One step (pages=-1) reads one snapshot: no restart when the bot writes.
                source.backup(target, pages=-1)
                target.execute("PRAGMA journal_mode = DELETE")
                check = target.execute("PRAGMA quick_check").fetchone()
                if check is None or check[0] != "ok":
                    raise StorageError("backup_failed", detail=str(check))
            finally:
                target.close()
        finally:
            source.close()
        with open(partial, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(partial, dest_file)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    # Make the rename itself durable.
    dir_fd = os.open(dest_file.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


async def backup(database_url: str, dest: str) -> None:
    """Copy the database at ``database_url`` to the file ``dest`` (replaced if it exists)."""
    source_path = parse_database_url(database_url)
    if source_path == MEMORY:
        raise StorageError("bad_database_url", url=database_url)
    if not isinstance(dest, str | os.PathLike) or not str(dest):
        raise StorageError("bad_backup_path", path=repr(dest))
    await asyncio.to_thread(_backup_file, source_path, os.fspath(dest))
