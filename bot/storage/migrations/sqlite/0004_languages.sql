-- Languages. A server chooses the language of its channel messages (the table, results,
-- notices): 'auto' follows the server's own preferred locale, or one of the catalogs.
ALTER TABLE guilds ADD COLUMN language TEXT NOT NULL DEFAULT 'auto'
    CHECK (language IN ('auto', 'en', 'zh-TW', 'zh-CN'));

-- The Discord locale each user's client reported last: direct messages (hole cards, notices)
-- have no interaction to read it from. One row per user, whatever the server; rewritten only
-- when it changes.
CREATE TABLE user_locales (
    user_id     INTEGER PRIMARY KEY,
    locale      TEXT NOT NULL CHECK (length(locale) BETWEEN 1 AND 16),
    updated_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
