-- Tournament tables and tournament hands. Number 0007: 0006 belongs to another change;
-- migrations apply whichever numbers a database has not recorded yet, in order.
--
-- A tournament's table is a row of poker_tables with tournament_id and table_no (the engine's
-- table number) set: its channel (the tournament's channel, or a thread under it), its table
-- message, its hand count, open until the table is broken or the tournament ends. It never has
-- seats: tournament chips are the engine's (tournaments.state) and never sit in a ledger
-- account.
ALTER TABLE poker_tables ADD COLUMN tournament_id INTEGER REFERENCES tournaments (tournament_id);
ALTER TABLE poker_tables ADD COLUMN table_no INTEGER
    CHECK ((tournament_id IS NULL) = (table_no IS NULL) AND COALESCE(table_no, 1) BETWEEN 1 AND 1000);
CREATE UNIQUE INDEX poker_tables_tournament_table ON poker_tables (tournament_id, table_no)
    WHERE tournament_id IS NOT NULL;

-- A tournament hand is a row of hands with tournament_id and level (the level it was dealt at)
-- set: stored, replayed, exported and verified like any hand, but it holds no ledger chips
-- (chips stays 0) and moves none. Its players' starting and finishing stacks are tournament
-- chips, and storage checks that the finishing stacks add up to the starting ones.
ALTER TABLE hands ADD COLUMN tournament_id INTEGER REFERENCES tournaments (tournament_id);
ALTER TABLE hands ADD COLUMN level INTEGER
    CHECK ((tournament_id IS NULL) = (level IS NULL) AND COALESCE(level, 1) >= 1
           AND (tournament_id IS NULL OR chips = 0));
CREATE INDEX hands_by_tournament ON hands (tournament_id) WHERE tournament_id IS NOT NULL;

-- The last moment (Unix milliseconds) a running tournament's process was seen alive, written
-- every few seconds: after a crash the clock resumes from there, so the time the bot was down
-- is not charged to the players and the level keeps the time it had left.
ALTER TABLE tournaments ADD COLUMN alive_at INTEGER CHECK (alive_at >= 0);
