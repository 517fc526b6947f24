-- Memory Pack JDBC session store: schema for H2 2.x.
-- Run it with your migrations (Flyway, Liquibase) or let JdbcSessionStore.createSchema() run it.
-- With another table prefix or schema, replace "memory_pack_" in the table and index names
-- (and qualify the table names with your schema): JdbcSessionStore does exactly that.

CREATE TABLE IF NOT EXISTS memory_pack_session (
    session_id     VARCHAR(128) NOT NULL PRIMARY KEY,
    next_index     BIGINT       NOT NULL,            -- index the next appended entry gets
    version        BIGINT       NOT NULL,            -- state version (0 = no state yet)
    state          CHARACTER LARGE OBJECT,           -- core EntryCodec state JSON
    state_checksum CHAR(8),                          -- CRC32C of session_id, version and state
    expires_at     TIMESTAMP(6) WITH TIME ZONE       -- null unless the store has a TTL
);

CREATE TABLE IF NOT EXISTS memory_pack_entry (
    session_id      VARCHAR(128) NOT NULL,
    entry_index     BIGINT       NOT NULL,
    entry_id        UUID         NOT NULL,
    created_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    token_count     INTEGER      NOT NULL,           -- -1 when unknown
    idempotency_key VARCHAR(1600),                   -- the append's key (escaped), or null
    metadata        CHARACTER LARGE OBJECT,          -- JSON object of strings, or null when empty
    message         CHARACTER LARGE OBJECT NOT NULL, -- LangChain4j's message JSON (core EntryCodec)
    checksum        CHAR(8)      NOT NULL,           -- CRC32C of every other column
    PRIMARY KEY (session_id, entry_index)
);

CREATE INDEX IF NOT EXISTS memory_pack_entry_key_idx ON memory_pack_entry (session_id, idempotency_key);

CREATE INDEX IF NOT EXISTS memory_pack_session_expiry_idx ON memory_pack_session (expires_at);

-- One row per running store instance: a process whose row is gone or older than 60 s has ended, so a
-- turn it left open holds up no other request (SessionStore.processId() / processEnded()). IF NOT
-- EXISTS: running this file again over tables made before this one existed adds just this table.
CREATE TABLE IF NOT EXISTS memory_pack_process (
    process_id CHAR(16)     NOT NULL PRIMARY KEY,    -- a store instance's processId(): 16 hex digits
    last_seen  TIMESTAMP(6) WITH TIME ZONE NOT NULL  -- the database's CURRENT_TIMESTAMP at its last heartbeat
);
