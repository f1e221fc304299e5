"""Who is a computer player: ids no Discord account can have, with the level inside.

A Discord id (a snowflake) is the milliseconds since 2015 shifted left by 22 bits; the ids from
:data:`HOUSE_ID` up to ``2**63 - 1`` are reached in the year 2084, so they are free for the
bot's own players. Storage, stats and the presenter tell a bot from a person by its id alone,
and a bot's level is read back from its id after a restart, with nothing else stored.

- :data:`HOUSE_ID` owns the house's wallet: where a bot's chips come from at a table of the
  server's economy, and where they go back.
- Every id above it is a bot: ``BOT_FLOOR + serial * 4 + level``.

>>> who = bot_id(5, "strong")
>>> is_bot(who), bot_level(who), bot_serial(who), is_bot(HOUSE_ID), is_bot(10**18)
(True, 'strong', 5, False, False)
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "BOT_FLOOR",
    "HOUSE_ID",
    "LEVELS",
    "bot_id",
    "bot_level",
    "bot_serial",
    "is_bot",
    "is_house_or_bot",
]

LEVELS: Final = ("beginner", "regular", "strong")
HOUSE_ID: Final = 2**63 - 2**20
BOT_FLOOR: Final = HOUSE_ID + 1
_MAX_SERIAL: Final = (2**63 - 1 - BOT_FLOOR) // 4


def bot_id(serial: int, level: str) -> int:
    if level not in LEVELS or not 0 <= serial <= _MAX_SERIAL:
        raise ValueError(f"no bot {serial} at level {level!r}")
    return BOT_FLOOR + serial * 4 + LEVELS.index(level)


def is_bot(player_id: object) -> bool:
    return type(player_id) is int and player_id >= BOT_FLOOR


def is_house_or_bot(player_id: object) -> bool:
    """The house or one of its bots: never a person (kept out of stats and leaderboards)."""
    return type(player_id) is int and player_id >= HOUSE_ID


def bot_level(player_id: int) -> str:
    return LEVELS[min((player_id - BOT_FLOOR) % 4, len(LEVELS) - 1)]


def bot_serial(player_id: int) -> int:
    return (player_id - BOT_FLOOR) // 4
