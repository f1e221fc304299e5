-- Practice tables and the house that stakes computer players. Number 0009.
--
-- A practice table (poker_tables.practice = 1) plays for play chips: a stack appears at the
-- buy-in (within the table's buy-in range) and is gone when its player stands up; no wallet
-- pays or receives it and no ledger row records it, so the chip invariant leaves its seats out.
-- Its hands (hands.practice = 1, copied from the table at the deal, so that statistics filter
-- the hands alone) hold chips = 0 like a tournament's and move nothing, and no statistic counts
-- them. A tournament's table is never a practice table.
ALTER TABLE poker_tables ADD COLUMN practice INTEGER NOT NULL DEFAULT 0
    CHECK (practice IN (0, 1) AND (practice = 0 OR tournament_id IS NULL));
ALTER TABLE hands ADD COLUMN practice INTEGER NOT NULL DEFAULT 0
    CHECK (practice IN (0, 1) AND (practice = 0 OR (tournament_id IS NULL AND chips = 0)));

-- At a table of the server's economy a computer player's chips come from the house: an
-- ordinary wallet owned by an id no Discord account can have (engine/bots/ids.py), opened at 0,
-- topped up by minting ('house_float', within the circulation cap) only when it runs short.
--   bots_allowed    a server manager lets computer players sit at the economy's tables
--   house_loss_cap  the most chips the house may lose in a day before its bots stop; chips it
--                   loses are chips minted for the players who beat it, so this bounds how
--                   fast bots can inflate a server's economy
ALTER TABLE guilds ADD COLUMN bots_allowed INTEGER NOT NULL DEFAULT 0
    CHECK (bots_allowed IN (0, 1));
ALTER TABLE guilds ADD COLUMN house_loss_cap INTEGER NOT NULL DEFAULT 50000
    CHECK (house_loss_cap BETWEEN 0 AND 1000000000000);
