"""The ``poker-bot`` command line: no token, backup, invite link."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import discord

from bot.invite import REQUIRED_PERMISSIONS, invite_url, permission_names


def _run(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_a_token_it_explains_and_exits_2(tmp_path: Path) -> None:
    done = _run([], tmp_path)
    assert done.returncode == 2
    assert "DISCORD_TOKEN" in done.stderr
    assert "applications.commands" in done.stderr
    assert str(REQUIRED_PERMISSIONS.value) in done.stderr
    assert "Traceback" not in done.stderr


def test_permissions_are_exactly_what_the_bot_uses() -> None:
    assert not REQUIRED_PERMISSIONS.administrator
    assert permission_names() == sorted(
        [
            "attach_files",
            "embed_links",
            "read_message_history",
            "send_messages",
            "send_messages_in_threads",
            "view_channel",
        ]
    )
    url = invite_url(1234)
    assert "client_id=1234" in url and f"permissions={REQUIRED_PERMISSIONS.value}" in url
    assert "applications.commands" in url
    assert discord.Permissions(REQUIRED_PERMISSIONS.value) == REQUIRED_PERMISSIONS


def test_backup_copies_the_live_database(tmp_path: Path) -> None:
    from bot.storage import Database, economy

    async def fill() -> None:
        db = await Database.open(f"sqlite:///{tmp_path / 'live.db'}")
        try:
            await economy.ensure_guild(db, 1)
            await economy.grant(db, 1, 5, 300, actor_id=9)
        finally:
            await db.close()

    asyncio.run(fill())
    done = _run(["backup", str(tmp_path / "copy.db")], tmp_path,
                DATABASE_URL=f"sqlite:///{tmp_path / 'live.db'}")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        rows = copy.execute("SELECT COUNT(*) FROM ledger").fetchone()
    assert rows is not None and rows[0] > 0


def test_backup_of_a_missing_database_fails_cleanly(tmp_path: Path) -> None:
    done = _run(["backup", str(tmp_path / "copy.db")], tmp_path,
                DATABASE_URL=f"sqlite:///{tmp_path / 'absent.db'}")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
