-- Practice tables and the house that stakes computer players, in PostgreSQL (the same as
-- sqlite/0009_practice_tables_and_the_house.sql; tests/storage/test_schema.py compares them).
-- Number 0009.
--
-- A practice table (poker_tables.practice = 1) plays for play chips: no wallet pays or receives
-- its stacks and no ledger row records them, so the chip invariant leaves its seats out. Its
-- hands (hands.practice = 1, copied from the table at the deal) hold chips = 0 and move
-- nothing, and no statistic counts them. A tournament's table is never a practice table.
ALTER TABLE poker_tables ADD COLUMN practice BIGINT NOT NULL DEFAULT 0;
ALTER TABLE poker_tables ADD CONSTRAINT poker_tables_practice_check
    CHECK (practice IN (0, 1) AND (practice = 0 OR tournament_id IS NULL));
ALTER TABLE hands ADD COLUMN practice BIGINT NOT NULL DEFAULT 0;
ALTER TABLE hands ADD CONSTRAINT hands_practice_check
    CHECK (practice IN (0, 1) AND (practice = 0 OR (tournament_id IS NULL AND chips = 0)));

-- At a table of the server's economy a computer player's chips come from the house's wallet
-- (opened at 0, topped up by minting only when it runs short).
--   bots_allowed    a server manager lets computer players sit at the economy's tables
--   house_loss_cap  the most chips the house may lose in a day before its bots stop
ALTER TABLE guilds ADD COLUMN bots_allowed BIGINT NOT NULL DEFAULT 0
    CHECK (bots_allowed IN (0, 1));
ALTER TABLE guilds ADD COLUMN house_loss_cap BIGINT NOT NULL DEFAULT 50000
    CHECK (house_loss_cap BETWEEN 0 AND 1000000000000);
