"""``python -m tests.e2e.kill_switch``: the bot, exactly as ``python -m bot`` runs it, except
that it kills itself with SIGKILL right after its N-th database commit
(``POKER_TEST_KILL_AFTER_COMMIT=N``): a crash at a chosen write boundary, for the tests."""

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


def _committed() -> None:
    global _commits
    _commits += 1
    if _commits == _limit:
        os.kill(os.getpid(), signal.SIGKILL)


_write = Database.write
_write_one = Database.write_one


@contextlib.asynccontextmanager
async def _killing_write(self: Database) -> AsyncIterator[Tx]:
    async with _write(self) as tx:
        yield tx
    _committed()


async def _killing_write_one(self: Database, sql: str, params: Sequence[object] = ()) -> Any:
    rows = await _write_one(self, sql, params)
    _committed()
    return rows


Database.write = _killing_write  # type: ignore[method-assign]
Database.write_one = _killing_write_one  # type: ignore[method-assign]

if __name__ == "__main__":
    raise SystemExit(main([]))
