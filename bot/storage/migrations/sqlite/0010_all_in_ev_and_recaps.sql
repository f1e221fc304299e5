-- All-in EV and the recap of a night. Number 0010.
--
-- A hand's all-in EV (engine/allin_ev.py), counted from the hand when it is settled, in the
-- transaction that stores its result:
--   hands.all_in_counted        1: counted (every hand finished since this migration, unless
--                               counting failed); 0: unknown, as every hand stored before it:
--                               shown as unknown, never guessed
--   hands.all_in_ev             the exact figures (AllInEV.to_json(), fractions as text) when
--                               the hand came to the all-in moment; NULL when it did not
--   hand_players.all_in_ev_net  the player's all-in EV net in whole chips when he was still in
--                               the hand at the moment; NULL otherwise (in a counted hand his
--                               all-in EV net is then his actual net: no luck)
-- A practice hand's chips are play chips: none of it is kept for them.
ALTER TABLE hands ADD COLUMN all_in_counted INTEGER NOT NULL DEFAULT 0
    CHECK (all_in_counted IN (0, 1));
ALTER TABLE hands ADD COLUMN all_in_ev TEXT;
ALTER TABLE hand_players ADD COLUMN all_in_ev_net INTEGER;

-- The recap of a night: one row per cash session that ended (a ledger reset, the table
-- closed) and per tournament that finished, written by the transaction that ends it, so that a
-- crash can neither lose the recap nor post it twice (bot/storage/recaps.py).
--   table_id, first_hand, last_hand  a cash table's session: its hands by number
--   tournament_id                    a tournament's (all its tables' hands)
--   channel_id                       where it is posted (a tournament's lobby)
--   hands                            finished hands in it
--   figures                          JSON: each player's figures as the session ended (the
--                                    ledger's, or the places and prizes)
--   state   owed     to post
--           posting  a post began at claimed_at (a crash may have cut it)
--           posted   posted at posted_at
--           off      the host had turned recaps off (shown again on request only)
--           empty    no hand was finished in it: nothing to recap
--           lost     a post cut too long ago to try again without risking a second copy
--   nonce   the post's Discord nonce (its k-th message: nonce + k), the same on every try
CREATE TABLE recaps (
    recap_id       INTEGER PRIMARY KEY,
    guild_id       INTEGER NOT NULL REFERENCES guilds (guild_id),
    channel_id     INTEGER NOT NULL,
    table_id       INTEGER REFERENCES poker_tables (table_id),
    tournament_id  INTEGER REFERENCES tournaments (tournament_id),
    first_hand     INTEGER CHECK (first_hand >= 1),
    last_hand      INTEGER,
    hands          INTEGER NOT NULL CHECK (hands >= 0),
    figures        TEXT NOT NULL,
    state          TEXT NOT NULL
                   CHECK (state IN ('owed', 'posting', 'posted', 'off', 'empty', 'lost')),
    nonce          INTEGER NOT NULL CHECK (nonce >= 0),
    ended_at       INTEGER NOT NULL,
    claimed_at     INTEGER,
    posted_at      INTEGER,
    CHECK ((table_id IS NULL) <> (tournament_id IS NULL)),
    CHECK ((table_id IS NULL) = (first_hand IS NULL AND last_hand IS NULL)),
    CHECK (last_hand >= first_hand - 1)
) STRICT;

CREATE UNIQUE INDEX recaps_one_per_tournament ON recaps (tournament_id)
    WHERE tournament_id IS NOT NULL;
-- What start-up posts, and what /history recap finds in a channel.
CREATE INDEX recaps_to_post ON recaps (guild_id) WHERE state IN ('owed', 'posting');
CREATE INDEX recaps_by_channel ON recaps (channel_id, recap_id);
