-- Tournaments (RULES.md 7): registration, the buy-ins held in a prize pool, the engine's state,
-- and each entrant's place and prize. Number 0005: 0004 belongs to another change; migrations
-- apply whichever numbers a database has not seen yet, in order.
--
-- A tournament's buy-ins sit in its own ledger account, 'tournament:<id>', whose balance is
-- ``pool``: chips move there from wallets at registration and back out as refunds (unregister,
-- cancel) or prizes (finish), so the pool is empty once the tournament is over. Tournament
-- chips at the tables are the engine's, never wallet chips: storage holds them only inside
-- ``state``.
CREATE TABLE tournaments (
    tournament_id  INTEGER PRIMARY KEY,
    guild_id       INTEGER NOT NULL REFERENCES guilds (guild_id),
    channel_id     INTEGER NOT NULL,
    host_id        INTEGER NOT NULL,
    name           TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    kind           TEXT NOT NULL CHECK (kind IN ('freeze_out', 'time_limited')),
    buy_in         INTEGER NOT NULL CHECK (buy_in BETWEEN 0 AND 1000000000000),
    max_players    INTEGER NOT NULL CHECK (max_players BETWEEN 2 AND 1000),
    entrants       INTEGER NOT NULL DEFAULT 0 CHECK (entrants BETWEEN 0 AND max_players),
    pool           INTEGER NOT NULL DEFAULT 0 CHECK (pool >= 0),
    config         TEXT NOT NULL,    -- the runtime's settings: TournamentConfig.to_json() and more
    state          TEXT,             -- Tournament.to_json(): clock, levels, tables, standings
    status         TEXT NOT NULL DEFAULT 'registering'
                   CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
    starts_at      INTEGER,
    created_at     INTEGER NOT NULL,
    started_at     INTEGER,
    ended_at       INTEGER,
    CHECK (status IN ('registering', 'running') OR pool = 0)
) STRICT;

-- One tournament at a time per channel, and names a server can tell apart while they run.
CREATE UNIQUE INDEX tournaments_open_channel ON tournaments (channel_id)
    WHERE status IN ('registering', 'running');
CREATE UNIQUE INDEX tournaments_open_name ON tournaments (guild_id, name)
    WHERE status IN ('registering', 'running');
CREATE INDEX tournaments_by_guild ON tournaments (guild_id, status);

-- An entrant. ``paid`` is the buy-in taken from his wallet (what a refund gives back); place,
-- tied and prize are filled when the tournament finishes.
CREATE TABLE tournament_entries (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    user_id        INTEGER NOT NULL,
    paid           INTEGER NOT NULL CHECK (paid >= 0),
    late           INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1)),
    registered_at  INTEGER NOT NULL,
    place          INTEGER CHECK (place >= 1),
    tied           INTEGER CHECK (tied >= 1),
    prize          INTEGER CHECK (prize >= 0),
    PRIMARY KEY (tournament_id, user_id)
) STRICT, WITHOUT ROWID;
