-- Which bot process runs a server's tables. Several processes (each with some of the bot's
-- shards) may share one database; a process holds a lease per server it runs, renews it while
-- alive, and a lease that ran out may be taken by another process given that server's shard.
CREATE TABLE guild_leases (
    guild_id    BIGINT PRIMARY KEY,
    owner       TEXT NOT NULL CHECK (length(owner) BETWEEN 1 AND 200),
    expires_at  BIGINT NOT NULL
);
