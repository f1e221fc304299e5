"""``/readyz`` while the database takes no writes: the reason says so, although reads still
work (the read connections come back by themselves and answer while nothing can be stored),
and readiness returns by itself once the database does."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from bot.client import PokerBot
from bot.runtime.ownership import Ownership, ShardPlan
from bot.storage import Database
from tests.storage.faults import SqliteFaults
from tests.timing import scaled

GUILD = 1 << 22


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    try:
        yield database
    finally:
        await database.close()


def process(database: Database, ownership: Ownership) -> SimpleNamespace:
    """What ``PokerBot.readiness`` reads of its bot: connected, with this runtime."""
    return SimpleNamespace(
        is_closed=lambda: False,
        is_ready=lambda: True,
        shards={},
        budget=SimpleNamespace(link=SimpleNamespace(shards_down=lambda: set())),
        runtime=SimpleNamespace(db=database, ownership=ownership),
    )


async def test_not_ready_while_writes_fail(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    ownership = Ownership(database, ShardPlan(), lease_seconds=30, owner="far:1:x")
    bot = process(database, ownership)
    assert await ownership.serves(GUILD)
    assert await PokerBot.readiness(bot) == []  # type: ignore[arg-type]
    faults = SqliteFaults(monkeypatch)
    faults.fail("disk_full")
    # Nothing failed yet, and a write went through a moment ago: the check writes to learn.
    database.health.last_write = 0.0
    reasons = await PokerBot.readiness(bot)  # type: ignore[arg-type]
    assert reasons == ["database: writes fail for 0 s (disk_full)"]
    await ownership.renew()
    reasons = await PokerBot.readiness(bot)  # type: ignore[arg-type]
    assert reasons == [
        "database: writes fail for 0 s (disk_full)",
        "leases: the last renewal failed",
    ]
    faults.clear()
    await asyncio.wait_for(database.health.wait_available(), scaled(5))
    await ownership.renew()
    assert await PokerBot.readiness(bot) == []  # type: ignore[arg-type]
