-- Tournament tables and tournament hands, in PostgreSQL (the same as sqlite/0007; tests/storage/
-- test_schema.py compares them). Number 0007: 0006 belongs to another change.
--
-- A tournament's table is a row of poker_tables with tournament_id and table_no (the engine's
-- table number) set; it never has seats: tournament chips are the engine's. A tournament hand
-- is a row of hands with tournament_id and level set; it holds no ledger chips and moves none.
ALTER TABLE poker_tables ADD COLUMN tournament_id BIGINT REFERENCES tournaments (tournament_id);
ALTER TABLE poker_tables ADD COLUMN table_no BIGINT;
ALTER TABLE poker_tables ADD CONSTRAINT poker_tables_table_no_check
    CHECK ((tournament_id IS NULL) = (table_no IS NULL) AND COALESCE(table_no, 1) BETWEEN 1 AND 1000);
CREATE UNIQUE INDEX poker_tables_tournament_table ON poker_tables (tournament_id, table_no)
    WHERE tournament_id IS NOT NULL;

ALTER TABLE hands ADD COLUMN tournament_id BIGINT REFERENCES tournaments (tournament_id);
ALTER TABLE hands ADD COLUMN level BIGINT;
ALTER TABLE hands ADD CONSTRAINT hands_level_check
    CHECK ((tournament_id IS NULL) = (level IS NULL) AND COALESCE(level, 1) >= 1
           AND (tournament_id IS NULL OR chips = 0));
CREATE INDEX hands_by_tournament ON hands (tournament_id) WHERE tournament_id IS NOT NULL;

-- The last moment (Unix milliseconds) a running tournament's process was seen alive.
ALTER TABLE tournaments ADD COLUMN alive_at BIGINT CHECK (alive_at >= 0);
