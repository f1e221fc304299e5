"""Online backup: a consistent copy while the bot writes, atomic, one self-contained file."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.storage import Database, StorageError, backup, economy, invariant

from .conftest import GUILD, HOST


async def test_backup_while_writing(sqlite_db: Database, db_path: Path, tmp_path: Path) -> None:
    for user in range(10):
        await economy.open_wallet(sqlite_db, GUILD, 100 + user)
    stop = asyncio.Event()

    async def writer() -> int:
        done = 0
        while not stop.is_set():
            await economy.transfer(sqlite_db, GUILD, 100 + done % 10, 100 + (done + 1) % 10, 1)
            done += 1
        return done

    task = asyncio.create_task(writer())
    await asyncio.sleep(0.05)
    dest = tmp_path / "backups" / "copy.db"
    await backup(f"sqlite:///{db_path}", str(dest))
    stop.set()
    assert await task > 0
    # A single file, not in WAL mode, passing an integrity check.
    assert dest.is_file() and not Path(f"{dest}-wal").exists()
    conn = sqlite3.connect(dest)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert not [p for p in dest.parent.iterdir() if p.name.startswith(".")]
    # The copy opens as a database of its own, and its snapshot is consistent.
    copy = await Database.open(f"sqlite:///{dest}")
    try:
        assert (await invariant.check_invariant(copy)).ok
        assert await economy.balance(copy, GUILD, 100, create=False) >= 0
    finally:
        await copy.close()


async def test_backup_replaces_an_old_copy(
    sqlite_db: Database, db_path: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "copy.db"
    dest.write_bytes(b"old junk")
    await economy.grant(sqlite_db, GUILD, 5, 42, actor_id=HOST)
    await backup(str(db_path), str(dest))
    conn = sqlite3.connect(dest)
    assert conn.execute("SELECT balance FROM wallets WHERE user_id = 5").fetchone()[0] == 10_042
    conn.close()


async def test_backup_refusals(sqlite_db: Database, db_path: Path, tmp_path: Path) -> None:
    cases = [
        ((f"sqlite:///{tmp_path / 'missing.db'}", str(tmp_path / "x.db")), "database_missing"),
        ((f"sqlite:///{db_path}", str(db_path)), "bad_backup_path"),
        (("sqlite:///:memory:", str(tmp_path / "x.db")), "bad_database_url"),
        (("mysql://x", str(tmp_path / "x.db")), "bad_database_url"),
    ]
    for (url, dest), code in cases:
        with pytest.raises(StorageError) as info:
            await backup(url, dest)
        assert info.value.code == code
    assert not (tmp_path / "x.db").exists()
