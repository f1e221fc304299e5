-- The first schema. Amounts are integer chips; times are Unix seconds; JSON is stored as TEXT.
-- Every balance column has a CHECK (>= 0) as a last line of defence behind the conditional
-- UPDATEs: a bug that would drive a balance negative aborts its statement instead.

CREATE TABLE schema_migrations (
    version     INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    applied_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE guilds (
    guild_id          INTEGER PRIMARY KEY,
    starting_balance  INTEGER NOT NULL CHECK (starting_balance BETWEEN 0 AND 1000000000000),
    daily_amount      INTEGER NOT NULL CHECK (daily_amount BETWEEN 0 AND 1000000000000),
    daily_cooldown    INTEGER NOT NULL CHECK (daily_cooldown BETWEEN 0 AND 31622400),
    created_at        INTEGER NOT NULL
) STRICT;

CREATE TABLE wallets (
    guild_id    INTEGER NOT NULL REFERENCES guilds (guild_id),
    user_id     INTEGER NOT NULL,
    balance     INTEGER NOT NULL CHECK (balance BETWEEN 0 AND 1000000000000000),
    last_daily  INTEGER,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (guild_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE poker_tables (
    table_id    INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL REFERENCES guilds (guild_id),
    channel_id  INTEGER NOT NULL,
    host_id     INTEGER NOT NULL,
    -- The runtime's table options (blinds, ante format, clock, ...), opaque to storage. The
    -- buy-in range, chip unit and seat count are columns because storage enforces them.
    config      TEXT NOT NULL,
    min_buy_in  INTEGER NOT NULL CHECK (min_buy_in > 0),
    max_buy_in  INTEGER NOT NULL CHECK (max_buy_in >= min_buy_in),
    chip_unit   INTEGER NOT NULL CHECK (chip_unit > 0),
    max_seats   INTEGER NOT NULL CHECK (max_seats BETWEEN 2 AND 23),
    message_id  INTEGER,
    hand_count  INTEGER NOT NULL DEFAULT 0,
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    created_at  INTEGER NOT NULL,
    closed_at   INTEGER
) STRICT;

-- One live table per channel: the channel is how players find it.
CREATE UNIQUE INDEX poker_tables_open_channel ON poker_tables (channel_id) WHERE status = 'open';
CREATE INDEX poker_tables_by_guild ON poker_tables (guild_id, status);

CREATE TABLE hands (
    hand_id      INTEGER PRIMARY KEY,
    guild_id     INTEGER NOT NULL REFERENCES guilds (guild_id),
    table_id     INTEGER NOT NULL REFERENCES poker_tables (table_id),
    hand_no      INTEGER NOT NULL,
    status       TEXT NOT NULL DEFAULT 'running'
                 CHECK (status IN ('running', 'finished', 'voided')),
    config       TEXT NOT NULL,      -- HandConfig.to_json()
    deck         TEXT NOT NULL,      -- JSON list of card ints in deal order; never shown to players
    deck_salt    TEXT NOT NULL,      -- hex; revealed with the deck after the hand
    deck_digest  TEXT NOT NULL,      -- hex sha256(salt + deck), published when the hand starts
    button_seat  INTEGER,
    -- Chips held by the hand: the sum of the starting stacks while it runs, 0 once it is over.
    chips        INTEGER NOT NULL CHECK (chips >= 0),
    pot          INTEGER,            -- total of every contribution, known at the end
    result       TEXT,               -- JSON given by the runtime at the end
    void_reason  TEXT,
    started_at   INTEGER NOT NULL,
    ended_at     INTEGER,
    UNIQUE (table_id, hand_no),
    CHECK (status = 'running' OR chips = 0)
) STRICT;

CREATE UNIQUE INDEX hands_one_running_per_table ON hands (table_id) WHERE status = 'running';

CREATE TABLE hand_players (
    hand_id         INTEGER NOT NULL REFERENCES hands (hand_id),
    player          INTEGER NOT NULL CHECK (player >= 0),  -- engine index; PHH p1 is 0
    guild_id        INTEGER NOT NULL,
    user_id         INTEGER NOT NULL,
    seat_no         INTEGER NOT NULL,
    starting_stack  INTEGER NOT NULL CHECK (starting_stack > 0),
    -- Filled when the hand finishes (NULL while it runs and in a voided hand).
    final_stack     INTEGER CHECK (final_stack >= 0),
    contributed     INTEGER CHECK (contributed >= 0),
    won             INTEGER CHECK (won >= 0),
    vpip            INTEGER CHECK (vpip IN (0, 1)),
    pfr             INTEGER CHECK (pfr IN (0, 1)),
    showdown        INTEGER CHECK (showdown IN (0, 1)),
    PRIMARY KEY (hand_id, player),
    UNIQUE (hand_id, user_id),
    UNIQUE (hand_id, seat_no)
) STRICT, WITHOUT ROWID;

CREATE TABLE hand_actions (
    hand_id     INTEGER NOT NULL REFERENCES hands (hand_id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    action      TEXT NOT NULL,       -- Action.to_json()
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (hand_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE seats (
    table_id   INTEGER NOT NULL REFERENCES poker_tables (table_id),
    seat_no    INTEGER NOT NULL CHECK (seat_no >= 1),
    user_id    INTEGER NOT NULL,
    -- Chips at the seat and not in a hand. While a hand runs the whole stack of a dealt-in
    -- player sits in the hand's account (hand_id set, stack 0): table stakes.
    stack      INTEGER NOT NULL CHECK (stack >= 0),
    state      TEXT NOT NULL DEFAULT 'active' CHECK (length(state) BETWEEN 1 AND 32),
    hand_id    INTEGER REFERENCES hands (hand_id),
    joined_at  INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat_no),
    UNIQUE (table_id, user_id),
    CHECK (hand_id IS NULL OR stack = 0)
) STRICT, WITHOUT ROWID;

-- Every chip movement, one row. Accounts are text: 'mint' (chips entering the guild's economy),
-- 'burn' (leaving it), 'wallet:<user>', 'seat:<table>:<seat>', 'hand:<hand>'. Per guild, the
-- ledger total is minted minus burned, and each account's balance is what flowed in minus
-- what flowed out.
CREATE TABLE ledger (
    entry_id    INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    amount      INTEGER NOT NULL CHECK (amount > 0),
    source      TEXT NOT NULL,
    dest        TEXT NOT NULL,
    reason      TEXT NOT NULL,
    user_id     INTEGER,             -- whose chips these are
    table_id    INTEGER,
    hand_id     INTEGER,
    counterparty_id INTEGER,         -- the other user of a transfer
    actor_id    INTEGER,             -- the admin or host who caused the move, if not the player
    note        TEXT,
    created_at  INTEGER NOT NULL,
    CHECK (source <> dest),
    CHECK (dest <> 'mint' AND source <> 'burn')
) STRICT;

CREATE INDEX ledger_by_user ON ledger (guild_id, user_id);
CREATE INDEX ledger_by_counterparty ON ledger (guild_id, counterparty_id)
    WHERE counterparty_id IS NOT NULL;

-- Running totals per player, updated in the transaction that finishes a hand, so the
-- leaderboard reads a few rows rather than every hand ever played.
CREATE TABLE player_totals (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    hands_played  INTEGER NOT NULL DEFAULT 0,
    hands_won     INTEGER NOT NULL DEFAULT 0,
    net           INTEGER NOT NULL DEFAULT 0,
    biggest_pot   INTEGER NOT NULL DEFAULT 0,
    vpip_hands    INTEGER NOT NULL DEFAULT 0,
    pfr_hands     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX player_totals_by_net ON player_totals (guild_id, net);
