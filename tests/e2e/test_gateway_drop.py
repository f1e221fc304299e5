"""A dropped gateway, with the real discord.py client against the fake Discord: one WARNING
with its cause, no ERROR and no traceback, and ``/readyz`` not ready until the session is
resumed."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.client import PokerBot
from tests.e2e.harness import running_bot, settings_for
from tests.e2e.ops_kit import get
from tests.fakediscord import FakeDiscord
from tests.timing import scaled

pytestmark = pytest.mark.timeout(60)


async def test_a_dropped_gateway_is_one_warning_and_not_ready_until_it_is_back(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = replace(settings_for(fake, tmp_path), metrics_port=0, metrics_host="127.0.0.1")
    async with running_bot(fake, tmp_path, settings=settings, extensions=()) as bot:
        assert await get(bot, "/readyz") == (200, "ready\n")
        resume = fake.gateway._resume
        back = asyncio.Event()

        async def held(*args: Any) -> None:
            await back.wait()
            await resume(*args)

        monkeypatch.setattr(fake.gateway, "_resume", held)
        with caplog.at_level(logging.INFO):
            before = len(caplog.records)
            await fake.gateway.drop(4000)
            _, text = await _readyz_until(bot, 503)
            assert "gateway: shard(s) 0 disconnected" in text, text
            back.set()
            await _readyz_until(bot, 200)
        records = caplog.records[before:]
        warnings = [r for r in records if r.levelno == logging.WARNING]
        assert [r.name for r in warnings] == ["bot.runtime.link"], [
            r.getMessage() for r in warnings]
        assert "shard 0 disconnected (closed with code 4000)" in warnings[0].getMessage()
        assert not [r for r in records if r.levelno >= logging.ERROR or r.exc_info]


async def _readyz_until(bot: PokerBot, status: int, timeout: float = 10.0) -> tuple[int, str]:
    deadline = asyncio.get_running_loop().time() + scaled(timeout)
    while True:
        answer = await get(bot, "/readyz")
        if answer[0] == status:
            return answer
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"/readyz never answered {status}: {answer}")
        await asyncio.sleep(0.02)
