"""Leases: which bot process runs each server's tables, when several share one database.

A process holds a lease per server (guild) whose tables it runs, renews its leases while it is
alive, and gives them back when it stops. A lease that ran out (its process died or hung) may be
taken by any process given that server's shard; a live one may not, so two processes never run
the same table. Every statement is one atomic conditional write: two processes racing for a
lease cannot both win it.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.storage.db import Database, unix_now
from bot.storage.errors import StorageError, check_id

MAX_OWNER = 200


def _check_owner(owner: object) -> str:
    if not isinstance(owner, str) or not 1 <= len(owner) <= MAX_OWNER:
        raise StorageError("bad_setting", name="owner", value=repr(owner)[:50])
    return owner


async def acquire(
    db: Database, guild_id: int, owner: str, ttl: int, *, now: int | None = None
) -> str | None:
    """Take (or keep) the lease of a server for ``ttl`` seconds; None when granted, else the
    owner holding it."""
    check_id(guild_id, "guild_id")
    _check_owner(owner)
    now = unix_now() if now is None else now
    holder: str | None = None
    # The holder is read after the refused write, so it may have changed in between: to this
    # very owner (another of its tasks took the lease over), then the write is tried again.
    for _ in range(2):
        rows = await db.write_one(
            "INSERT INTO guild_leases (guild_id, owner, expires_at) VALUES (?, ?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET owner = excluded.owner,"
            " expires_at = excluded.expires_at"
            " WHERE guild_leases.owner = excluded.owner OR guild_leases.expires_at <= ?"
            " RETURNING guild_id",
            (guild_id, owner, now + ttl, now),
        )
        if rows:
            return None
        row = await db.fetchone("SELECT owner FROM guild_leases WHERE guild_id = ?", (guild_id,))
        holder = str(row[0]) if row is not None else "?"
        if holder != owner:
            return holder
    return holder


async def take_over(
    db: Database, guild_id: int, owner: str, previous: str, ttl: int, *, now: int | None = None
) -> bool:
    """Take a live lease from ``previous`` (a process known to be dead); False if the lease
    changed hands meanwhile."""
    check_id(guild_id, "guild_id")
    _check_owner(owner)
    now = unix_now() if now is None else now
    rows = await db.write_one(
        "UPDATE guild_leases SET owner = ?, expires_at = ? WHERE guild_id = ? AND owner = ?"
        " RETURNING guild_id",
        (owner, now + ttl, guild_id, previous),
    )
    return bool(rows)


async def renew(db: Database, owner: str, ttl: int, *, now: int | None = None) -> set[int]:
    """Extend every lease ``owner`` still holds; the servers they are for (a lease that ran
    out and was taken by another process is not among them)."""
    _check_owner(owner)
    now = unix_now() if now is None else now
    rows = await db.write_one(
        "UPDATE guild_leases SET expires_at = ? WHERE owner = ? RETURNING guild_id",
        (now + ttl, owner),
    )
    return {int(row[0]) for row in rows}


async def release(db: Database, owner: str, guilds: Iterable[int] | None = None) -> None:
    """Give leases back (all of ``owner``'s, or those of ``guilds``)."""
    _check_owner(owner)
    if guilds is None:
        await db.write_one("DELETE FROM guild_leases WHERE owner = ?", (owner,))
        return
    for guild_id in guilds:
        await db.write_one(
            "DELETE FROM guild_leases WHERE guild_id = ? AND owner = ?",
            (check_id(guild_id, "guild_id"), owner),
        )


async def holders(db: Database) -> dict[int, tuple[str, int]]:
    """Every lease: server -> (owner, expires at)."""
    rows = await db.fetchall("SELECT guild_id, owner, expires_at FROM guild_leases")
    return {int(r[0]): (str(r[1]), int(r[2])) for r in rows}
