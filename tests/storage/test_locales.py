"""Languages in storage (migration 0003): the server's channel language, each user's locale."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage import Database, StorageError, economy, locales


@pytest.fixture
async def db(tmp_path: Path) -> Database:
    database = await Database.open(f"sqlite:///{tmp_path / 'poker.db'}")
    yield database  # type: ignore[misc]
    await database.close()


async def test_a_users_locale_is_written_only_when_it_changes(db: Database) -> None:
    assert await locales.user_locale(db, 7) is None
    assert await locales.set_user_locale(db, 7, "zh-TW", now=100) is True
    assert await locales.set_user_locale(db, 7, "zh-TW", now=200) is False
    row = await db.fetchone("SELECT locale, updated_at FROM user_locales WHERE user_id = 7")
    assert row is not None and tuple(row) == ("zh-TW", 100)  # the repeat wrote nothing
    assert await locales.set_user_locale(db, 7, "en-US", now=300) is True
    assert await locales.user_locale(db, 7) == "en-US"
    await locales.set_user_locale(db, 8, "zh-CN")
    assert await locales.user_locales(db, [7, 8, 9]) == {7: "en-US", 8: "zh-CN"}
    assert await locales.user_locales(db, range(1, 1200)) == {7: "en-US", 8: "zh-CN"}


@pytest.mark.parametrize("bad", ["", "x" * 17, None, 5])
async def test_a_bad_locale_is_refused(db: Database, bad: object) -> None:
    with pytest.raises(StorageError, match="bad_setting"):
        await locales.set_user_locale(db, 7, bad)  # type: ignore[arg-type]
    assert await locales.user_locale(db, 7) is None


async def test_a_servers_language_is_a_setting(db: Database) -> None:
    settings = await economy.ensure_guild(db, 1)
    assert settings.language == "auto"
    changed = await economy.update_settings(db, 1, language="zh-TW", max_tables=3)
    assert (changed.language, changed.max_tables) == ("zh-TW", 3)
    with pytest.raises(StorageError, match="bad_setting"):
        await economy.update_settings(db, 1, language="klingon", max_tables=4)
    # A refused save changes nothing, the other settings included.
    kept = await economy.get_settings(db, 1)
    assert (kept.language, kept.max_tables) == ("zh-TW", 3)
