-- Number 0006: 0004 and 0005 belong to other changes; migrations apply whichever numbers a
-- database has not recorded yet, in order.
--
-- Per-hand statistics beyond VPIP and PFR, filled when a hand finishes (NULL while it runs, in
-- a voided hand, and in every hand stored before this migration: statistics treat NULL as
-- "unknown" and leave those hands out of their denominators rather than counting them as 0).
--   saw_flop          still in the hand when the flop was dealt
--   went_to_showdown  still in the hand at the showdown (showed or mucked)
--   won_at_showdown   went to the showdown and took chips from a pot
--   three_bet_chance  it was his turn before the flop facing exactly one raise
--   three_bet         he re-raised at such a turn
ALTER TABLE hand_players ADD COLUMN saw_flop BIGINT CHECK (saw_flop IN (0, 1));
ALTER TABLE hand_players ADD COLUMN went_to_showdown BIGINT
    CHECK (went_to_showdown IN (0, 1));
ALTER TABLE hand_players ADD COLUMN won_at_showdown BIGINT CHECK (won_at_showdown IN (0, 1));
ALTER TABLE hand_players ADD COLUMN three_bet_chance BIGINT
    CHECK (three_bet_chance IN (0, 1));
ALTER TABLE hand_players ADD COLUMN three_bet BIGINT CHECK (three_bet IN (0, 1));

-- A player's statistics, and the leaderboard of a period, read his hands (not player_totals,
-- which has no dates): by player, and by server and end time.
CREATE INDEX hand_players_by_user ON hand_players (guild_id, user_id);
CREATE INDEX hands_by_guild_end ON hands (guild_id, ended_at);

-- A table's session ledger (`/poker ledger`) starts when the table opened or when its host last
-- reset it: ledger entries with a larger id and hands with a larger number belong to it. 0: the
-- table has never been reset. session_started_at and session_reset_by say when and by whom.
ALTER TABLE poker_tables ADD COLUMN session_entry BIGINT NOT NULL DEFAULT 0
    CHECK (session_entry >= 0);
ALTER TABLE poker_tables ADD COLUMN session_hand BIGINT NOT NULL DEFAULT 0
    CHECK (session_hand >= 0);
ALTER TABLE poker_tables ADD COLUMN session_started_at BIGINT;
ALTER TABLE poker_tables ADD COLUMN session_reset_by BIGINT;

-- The session ledger reads one table's chip movements.
CREATE INDEX ledger_by_table ON ledger (table_id, entry_id) WHERE table_id IS NOT NULL;
