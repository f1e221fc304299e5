"""The bot as a real process (``python -m bot``) pointed at the fake Discord, for the tests that
kill it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from bot.i18n import t
from tests.fakediscord import FakeChannel, FakeDiscord, FakeUser

REPO = Path(__file__).resolve().parents[2]


@contextlib.asynccontextmanager
async def bot_process(
    fake: FakeDiscord,
    data_dir: Path,
    log: Path,
    kill_after: int = 0,
    *,
    database_url: str | None = None,
    environ: dict[str, str] | None = None,
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The bot (SIGKILLed on exit if still running). ``kill_after``: it kills itself right
    after that many database commits (``tests.e2e.kill_switch``; so does an ``environ`` with
    ``POKER_TEST_KILL_ON``). ``environ`` adds settings."""
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake.token,
        "DISCORD_API_BASE": fake.api_base,
        "DISCORD_GATEWAY_URL": fake.gateway_url,
        "DATABASE_URL": database_url or f"sqlite:///{data_dir / 'poker.db'}",
        "LOG_LEVEL": "INFO",
        "POKER_NEXT_HAND_DELAY": "0.2",
        "POKER_TEST_KILL_AFTER_COMMIT": str(kill_after),
        "PYTHONPATH": str(REPO),
        **(environ or {}),
    }
    killing = kill_after or "POKER_TEST_KILL_ON" in (environ or {})
    module = "tests.e2e.kill_switch" if killing else "bot"
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", module, cwd=data_dir, env=env, stdout=out, stderr=out
        )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()




async def act_as_whoever_may(
    fake: FakeDiscord, channel: FakeChannel, users: list[FakeUser], command: str
) -> FakeUser | None:
    """Send ``command`` (check, call, allin...) for each player until one is accepted (the
    others are refused: not their turn, not in the hand); None when nobody can (no hand, the
    next hand where nobody may check yet, or no table any more). A process's live_table is out of
    reach: whose turn it is is found by asking."""
    for user in users:
        handle = await fake.slash(user, channel, command)
        reply = await handle.response(timeout=10)
        if reply.content in (t("error.no_hand"), t("error.no_table"), t("error.table_closed")):
            return None
        if reply.content in (t("error.not_your_turn"), t("error.not_in_hand")) or (
            reply.content.startswith("You can't check")
        ):
            continue
        assert reply.content.startswith("You "), reply.content
        return user
    return None
