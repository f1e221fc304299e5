-- Leagues: a server's season, the tournaments that count toward it, and the points each player
-- earned in each.
--
-- ``points`` is the rule as text (engine/league.py: 'standard', 'flat', or '25, 18, 15').
-- Points are integers of hundredths, computed once in the transaction that records a
-- tournament's results and never again: a rule or a formula changed later changes no stored
-- point. A title (the league's name) is a server's own for good (closed leagues too), so
-- standings by name are never ambiguous.
CREATE TABLE leagues (
    league_id   INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL REFERENCES guilds (guild_id),
    host_id     INTEGER NOT NULL,
    title       TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 50),
    points      TEXT NOT NULL CHECK (length(points) BETWEEN 1 AND 4000),
    starts_at   INTEGER,
    ends_at     INTEGER CHECK (ends_at IS NULL OR starts_at IS NULL OR ends_at > starts_at),
    closed      INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
    created_at  INTEGER NOT NULL,
    closed_at   INTEGER
) STRICT;
CREATE UNIQUE INDEX leagues_title ON leagues (guild_id, title);

-- A tournament that counts toward a league, with the first level's big blind (the standard
-- rule's b is the buy-in in those big blinds).
CREATE TABLE league_tournaments (
    tournament_id  INTEGER PRIMARY KEY REFERENCES tournaments (tournament_id),
    league_id      INTEGER NOT NULL REFERENCES leagues (league_id),
    big_blind      INTEGER NOT NULL CHECK (big_blind >= 1)
) STRICT;
CREATE INDEX league_tournaments_by_league ON league_tournaments (league_id);

-- A player's points from one tournament: his best entry's place among ``entrants`` entries,
-- shared by ``tied`` entries; ``deal``: the tournament ended by a deal among those left.
CREATE TABLE league_points (
    tournament_id  INTEGER NOT NULL REFERENCES league_tournaments (tournament_id),
    user_id        INTEGER NOT NULL,
    league_id      INTEGER NOT NULL REFERENCES leagues (league_id),
    place          INTEGER NOT NULL CHECK (place >= 1),
    tied           INTEGER NOT NULL CHECK (tied >= 1),
    entrants       INTEGER NOT NULL CHECK (entrants >= place + tied - 1),
    points         INTEGER NOT NULL CHECK (points >= 0),
    finished_at    INTEGER NOT NULL,
    deal           INTEGER NOT NULL DEFAULT 0 CHECK (deal IN (0, 1)),
    PRIMARY KEY (tournament_id, user_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX league_points_by_league ON league_points (league_id, user_id);

-- A tournament's scheduled event on the server's calendar (Discord's id, the status the bot
-- last set: 1 scheduled, 2 active, 3 completed, 4 cancelled, 0 gone: deleted by a moderator)
-- and whether its reminder went out; and the servers whose host was told once that without
-- Manage Events no tournament goes on the calendar.
CREATE TABLE tournament_events (
    tournament_id  INTEGER PRIMARY KEY REFERENCES tournaments (tournament_id),
    event_id       INTEGER NOT NULL,
    status         INTEGER NOT NULL DEFAULT 1 CHECK (status IN (0, 1, 2, 3, 4)),
    reminded       INTEGER NOT NULL DEFAULT 0 CHECK (reminded IN (0, 1))
) STRICT;
CREATE TABLE calendar_refusals (
    guild_id  INTEGER PRIMARY KEY REFERENCES guilds (guild_id),
    told_at   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
