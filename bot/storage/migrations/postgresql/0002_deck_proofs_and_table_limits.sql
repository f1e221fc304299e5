-- Deck commitments that open position by position (a Merkle root over salted cards, see
-- engine/commitment.py): verifying a hand then reveals only the cards that were seen. Hands
-- stored before keep their whole-deck SHA-256 digest ('sha256'); new hands say 'merkle1', and
-- deck_salt / deck_digest hold the commitment's secret seed and its public root.
ALTER TABLE hands ADD COLUMN deck_scheme TEXT NOT NULL DEFAULT 'sha256'
    CHECK (deck_scheme IN ('sha256', 'merkle1'));

-- Per-server limits: how many tables may be open at once (in all, and per host), and after how
-- many seconds a table nobody sits at closes itself (0: never).
ALTER TABLE guilds ADD COLUMN max_tables BIGINT NOT NULL DEFAULT 10
    CHECK (max_tables BETWEEN 1 AND 500);
ALTER TABLE guilds ADD COLUMN max_tables_per_host BIGINT NOT NULL DEFAULT 2
    CHECK (max_tables_per_host BETWEEN 1 AND 500);
ALTER TABLE guilds ADD COLUMN idle_close BIGINT NOT NULL DEFAULT 1800
    CHECK (idle_close BETWEEN 0 AND 604800);
