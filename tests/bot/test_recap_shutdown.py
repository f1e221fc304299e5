"""Owed recaps met by a stopping bot: the database closes under them. They stay owed for the
next start, and nothing is logged as the bot's error; a real bug in posting one still is."""

from __future__ import annotations

import logging
from typing import Any, cast

import pytest

from bot.runtime import recaps as runtime_recaps
from bot.runtime.direct import DmChannels
from bot.runtime.recaps import RecapPoster
from bot.storage import recaps
from bot.storage.db import DatabaseClosed


async def _locale(guild_id: int) -> object:
    return None


async def _post_with(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> list[int]:
    async def owed(db: Any, guild_ids: Any) -> list[int]:
        return [1, 2]

    asked: list[int] = []

    async def get_recap(db: Any, recap_id: int) -> Any:
        asked.append(recap_id)
        raise error

    monkeypatch.setattr(recaps, "to_post", owed)
    monkeypatch.setattr(recaps, "get_recap", get_recap)
    poster = RecapPoster(cast(Any, None), cast(Any, None), DmChannels(),
                         cast(Any, lambda ids: None))
    await poster.post_owed(None, _locale)
    return asked


async def test_a_database_closing_at_a_stop_leaves_the_recaps_owed_quietly(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger=runtime_recaps.__name__):
        asked = await _post_with(monkeypatch, DatabaseClosed("the database is closed"))
    assert asked == [1]  # the rest are left too, not tried against a closed database
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert any("next start" in r.getMessage() for r in caplog.records)


async def test_a_bug_in_posting_a_recap_is_still_the_bots_error(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger=runtime_recaps.__name__):
        asked = await _post_with(monkeypatch, KeyError("owner"))
    assert asked == [1, 2]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 2 and all(r.exc_info for r in errors)
