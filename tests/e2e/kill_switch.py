"""``python -m tests.e2e.kill_switch``: the bot, exactly as ``python -m bot`` runs it, except
that it kills itself with SIGKILL right after its N-th database commit
(``POKER_TEST_KILL_AFTER_COMMIT=N``), or at the first write of a statement holding a text
(``POKER_TEST_KILL_ON=after:TEXT``: right after the commit of the transaction that ran it;
``before:TEXT``: a statement written on its own, before it runs): a crash at a chosen write
boundary, for the tests."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Sequence
from typing import Any

from bot.__main__ import main
from bot.storage.db import Database, Tx

_commits = 0
_limit = int(os.environ.get("POKER_TEST_KILL_AFTER_COMMIT", "0"))
_when, _, _text = os.environ.get("POKER_TEST_KILL_ON", "").partition(":")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _committed(wrote_text: bool = False) -> None:
    global _commits
    _commits += 1
    if _commits == _limit or (wrote_text and _when == "after"):
        _die()


class _Watched:
    """A transaction that notes whether it ran a statement holding ``POKER_TEST_KILL_ON``'s
    text."""

    def __init__(self, tx: Tx) -> None:
        self.tx = tx
        self.seen = False

    def _note(self, sql: str) -> None:
        self.seen |= bool(_text) and _text in sql

    async def execute(self, sql: str, params: Sequence[object] = ()) -> int:
        self._note(sql)
        return await self.tx.execute(sql, params)

    async def fetchall(self, sql: str, params: Sequence[object] = ()) -> Any:
        self._note(sql)
        return await self.tx.fetchall(sql, params)

    async def fetchone(self, sql: str, params: Sequence[object] = ()) -> Any:
        self._note(sql)
        return await self.tx.fetchone(sql, params)

    async def scalar(self, sql: str, params: Sequence[object] = ()) -> Any:
        self._note(sql)
        return await self.tx.scalar(sql, params)

    async def insert(self, sql: str, params: Sequence[object] = ()) -> int:
        self._note(sql)
        return await self.tx.insert(sql, params)

    async def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        self._note(sql)
        await self.tx.executemany(sql, rows)


_write = Database.write
_write_one = Database.write_one


@contextlib.asynccontextmanager
async def _killing_write(self: Database) -> AsyncIterator[Tx]:
    watched = None
    async with _write(self) as tx:
        watched = _Watched(tx)
        yield watched  # type: ignore[misc]
    _committed(watched.seen)


async def _killing_write_one(self: Database, sql: str, params: Sequence[object] = ()) -> Any:
    holds = bool(_text) and _text in sql
    if holds and _when == "before":
        _die()
    rows = await _write_one(self, sql, params)
    _committed(holds)
    return rows


Database.write = _killing_write  # type: ignore[method-assign]
Database.write_one = _killing_write_one  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main([]))
