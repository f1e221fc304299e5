"""Storage on SQLite (the default) or PostgreSQL: chips that are never lost, tables and hands
that survive a crash.

Open once at start-up and pass the ``Database`` to the functions of the modules below::

    db = await Database.open(url)         # sqlite:///./data/poker.db or postgresql://...
    await economy.ensure_guild(db, guild_id)
    seat = await tables.buy_in(db, table_id, user_id, 2_000)
    await invariant.verify_invariant(db)  # at start-up: logs loudly and raises if chips are off

- ``db``: the one API both backends give (``Database``, ``Tx``).
- ``sqlite``, ``postgres``: each backend: connecting, transactions, dialect, migrations.
- ``ledger``: the accounts model and the only statements that move chips.
- ``economy``: guild settings, wallets, daily bonus, grants and removals, transfers, and what
  the house holds, floated and won.
- ``locales``: the language each user's client speaks, for direct messages.
- ``tables``: tables, seats, buy-in, top-up, leave, close.
- ``house``: the house's wallet, which stakes computer players at the economy's tables.
- ``hands``: start, actions, result, void, rebuild (engine replay) and PHH export.
- ``stats``: leaderboard, player statistics, recent hands.
- ``tournaments``: registration, prize pools, the engine's saved state, places and prizes.
- ``leagues``: a server's seasons, the tournaments that count, points and standings.
- ``stats``: leaderboards (all time or a period), player statistics, recent hands.
- ``sessions``: a table's session ledger (buy-ins, top-ups, cash-outs, stacks) and its reset.
- ``recaps``: the recap of each session that ended and tournament that finished, posted once.
- ``scopes``: which hands make one session (a cash table's between two ends, a tournament).
- ``invariant``: the chip invariant check.
- ``leases``: which process runs each server's tables.
- ``backup``: online backup of the live file.

Every refusal is a ``StorageError(code, **params)`` and changes nothing.
"""

from __future__ import annotations

from bot.storage import (
    economy,
    hands,
    house,
    invariant,
    leagues,
    leases,
    ledger,
    locales,
    postgres,
    recaps,
    sessions,
    sqlite,
    stats,
    tables,
    tournaments,
)
from bot.storage.backup import backup
from bot.storage.db import Database, parse_database_url
from bot.storage.errors import StorageError

__all__ = [
    "Database",
    "StorageError",
    "backup",
    "economy",
    "hands",
    "house",
    "invariant",
    "leagues",
    "leases",
    "ledger",
    "locales",
    "parse_database_url",
    "postgres",
    "recaps",
    "sessions",
    "sqlite",
    "stats",
    "tables",
    "tournaments",
]
