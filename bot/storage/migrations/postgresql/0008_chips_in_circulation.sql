-- Chips in circulation, in PostgreSQL (the same as sqlite/0008_chips_in_circulation.sql;
-- tests/storage/test_schema.py compares them). Number 0008.
--
-- guilds.circulation is what the server's ledger minted minus what it burned: every chip that
-- exists in the server, wherever it is (wallets, seats, running hands, prize pools). Chips enter
-- only through a conditional update of this column that refuses to pass the cap (10**15, the
-- wallet balance column's own maximum), so even a wallet holding every chip of its server stays
-- within its column, and a credit that gives chips back to their owner (a cash-out, a refund, a
-- prize, a table closing) never needs a limit of its own. Filled here from the ledger; a server
-- already above the cap keeps its chips, and can mint again once removals bring it below.
ALTER TABLE guilds ADD COLUMN circulation BIGINT NOT NULL DEFAULT 0 CHECK (circulation >= 0);
UPDATE guilds SET circulation = COALESCE((
    SELECT SUM(CASE WHEN source = 'mint' THEN amount WHEN dest = 'burn' THEN -amount ELSE 0 END)
    FROM ledger WHERE ledger.guild_id = guilds.guild_id
), 0);
