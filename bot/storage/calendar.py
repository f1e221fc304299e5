"""A tournament's scheduled event on the server's calendar, as far as the bot knows it.

Discord holds the event; storage holds its id, the status the bot last set, and whether the
reminder went out, so that a restart neither posts a second event nor reminds anybody twice.
``GONE`` marks an event a moderator deleted: the bot leaves it alone from then on.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.db import Database
from bot.storage.errors import check_id, check_setting

SCHEDULED, ACTIVE, COMPLETED, CANCELED = 1, 2, 3, 4
GONE = 0
FINAL = frozenset({COMPLETED, CANCELED, GONE})


@dataclass(frozen=True, slots=True)
class StoredEvent:
    tournament_id: int
    event_id: int
    status: int
    reminded: bool


async def event_of(db: Database, tournament_id: int) -> StoredEvent | None:
    check_id(tournament_id, "tournament_id")
    row = await db.fetchone(
        "SELECT tournament_id, event_id, status, reminded FROM tournament_events"
        " WHERE tournament_id = ?",
        (tournament_id,),
    )
    return None if row is None else StoredEvent(int(row[0]), int(row[1]), int(row[2]),
                                                bool(row[3]))


async def remember_event(db: Database, tournament_id: int, event_id: int) -> None:
    check_id(tournament_id, "tournament_id")
    check_id(event_id, "event_id")
    await db.write_one(
        "INSERT INTO tournament_events (tournament_id, event_id) VALUES (?, ?)"
        " ON CONFLICT (tournament_id) DO NOTHING",
        (tournament_id, event_id),
    )


async def set_status(db: Database, tournament_id: int, status: int) -> None:
    check_id(tournament_id, "tournament_id")
    check_setting(status, "status", GONE, CANCELED)
    await db.write_one(
        "UPDATE tournament_events SET status = ? WHERE tournament_id = ?", (status, tournament_id))


async def claim_reminder(db: Database, tournament_id: int) -> bool:
    """True for the one caller that sends the reminder (at most once, even across a crash:
    claimed before it is sent)."""
    check_id(tournament_id, "tournament_id")
    rows = await db.write_one(
        "UPDATE tournament_events SET reminded = 1 WHERE tournament_id = ? AND reminded = 0"
        " RETURNING tournament_id",
        (tournament_id,),
    )
    return bool(rows)


async def claim_refusal_notice(db: Database, guild_id: int, now: int) -> bool:
    """True the first time a server's missing Manage Events is to be told, False after."""
    check_id(guild_id, "guild_id")
    rows = await db.write_one(
        "INSERT INTO calendar_refusals (guild_id, told_at) VALUES (?, ?)"
        " ON CONFLICT (guild_id) DO NOTHING RETURNING guild_id",
        (guild_id, now),
    )
    return bool(rows)
