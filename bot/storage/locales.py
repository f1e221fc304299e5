"""The language each user's Discord client speaks, as last seen in one of his interactions.

Direct messages (hole cards, notices) answer no interaction, so they are written in the locale
stored here. A user's locale rarely changes: the bot writes only when it differs from the one
stored (the runtime also keeps what it wrote, so the common case costs no query at all).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.storage.db import Database, unix_now
from bot.storage.errors import StorageError, check_id

MAX_LOCALE = 16


def _check_locale(locale: object) -> str:
    if not isinstance(locale, str) or not 1 <= len(locale) <= MAX_LOCALE:
        raise StorageError("bad_setting", name="locale", value=repr(locale)[:50])
    return locale


async def set_user_locale(
    db: Database, user_id: int, locale: str, *, now: int | None = None
) -> bool:
    """Remember ``locale`` for the user; True if it changed what was stored."""
    check_id(user_id, "user_id")
    locale = _check_locale(locale)
    async with db.write() as tx:
        row = await tx.fetchone(
            "INSERT INTO user_locales (user_id, locale, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET locale = excluded.locale,"
            " updated_at = excluded.updated_at WHERE user_locales.locale != excluded.locale"
            " RETURNING user_id",
            (user_id, locale, unix_now() if now is None else now),
        )
        return row is not None


async def user_locale(db: Database, user_id: int) -> str | None:
    """The locale last seen from the user, or None if he never used the bot."""
    check_id(user_id, "user_id")
    row = await db.fetchone("SELECT locale FROM user_locales WHERE user_id = ?", (user_id,))
    return None if row is None else str(row[0])


async def user_locales(db: Database, user_ids: Iterable[int]) -> dict[int, str]:
    """The stored locale of each of ``user_ids`` that has one."""
    ids = sorted({check_id(user_id, "user_id") for user_id in user_ids})
    found: dict[int, str] = {}
    for start in range(0, len(ids), 500):  # below SQLite's limit on bound parameters
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        rows = await db.fetchall(
            f"SELECT user_id, locale FROM user_locales WHERE user_id IN ({marks})", tuple(chunk)
        )
        found.update((int(row[0]), str(row[1])) for row in rows)
    return found
