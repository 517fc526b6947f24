package io.github.memorypack.jdbc;

import io.github.memorypack.jdbc.JdbcSessionStore.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The SQL text of one store: built once from the dialect, the (validated, never quoted) schema and
 * table prefix, and whether the store has a TTL. Every value goes through a bind parameter; only
 * the identifiers are part of the text, and they are checked against {@link #IDENTIFIER} first.
 */
final class Sql {

    /** What a schema name or table prefix may be: letters, digits and underscores, not starting with a digit. */
    static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Default table prefix; also the prefix the shipped DDL resources use. */
    static final String DEFAULT_PREFIX = "memory_pack_";

    static final String ENTRY_COLUMNS =
            "entry_index, entry_id, created_at, token_count, idempotency_key, metadata, message, checksum";

    final String sessionTable;
    final String entryTable;
    final String processTable;

    // appends, replace
    final String reserveUpsert;      // PostgreSQL: insert-or-increment next_index, returning it (locks the row)
    final String reserveUpdate;      // H2: increment next_index (locks the row) ...
    final String reserveInsert;      // ... or create the row ...
    final String selectNextIndexForWrite; // ... then read next_index
    final String insertEntry;
    final String insertEntryUnlessKeyStored;
    final String selectByKey;
    final String entryIndexById;     // settling a write whose commit was not acknowledged ...
    final String stateForSettle;     // ... (the connection lost)
    final String deleteAllEntries;
    final String deleteEntriesBefore;

    // reads
    final String readFrom;
    final String readLast;
    final String nextIndex;
    final String state;
    final String sessions;

    // state
    final String casFirstUpsert;     // PostgreSQL: expected version 0
    final String casFirstUpdate;     // H2: expected version 0, row exists ...
    final String casFirstInsert;     // ... row does not exist yet
    final String casUpdate;          // expected version > 0

    // TTL, delete
    final String touch;
    final String deleteExpiredSession;
    final String deleteSession;
    final String expiredSessions;

    Sql(Dialect dialect, String schema, String prefix, boolean ttl) {
        String qualifier = schema == null ? "" : schema + ".";
        this.sessionTable = qualifier + prefix + "session";
        this.entryTable = qualifier + prefix + "entry";
        this.processTable = qualifier + prefix + "process";
        String s = sessionTable;
        String e = entryTable;
        // with a TTL, an expired session reads as unknown until a write or purgeExpired() removes it
        String live = ttl ? " AND (expires_at IS NULL OR expires_at > ?)" : "";
        String entryLive = ttl ? " AND NOT EXISTS (SELECT 1 FROM " + s + " x WHERE x.session_id = ?"
                + " AND x.expires_at <= ?)" : "";
        String text = dialect == Dialect.POSTGRESQL ? "TEXT" : "CHARACTER LARGE OBJECT";

        reserveUpsert = "INSERT INTO " + s + " AS s (session_id, next_index, version, expires_at) VALUES (?, ?, 0, ?)"
                + " ON CONFLICT (session_id) DO UPDATE SET next_index = s.next_index + EXCLUDED.next_index,"
                + " expires_at = EXCLUDED.expires_at RETURNING next_index";
        reserveUpdate = "UPDATE " + s + " SET next_index = next_index + ?, expires_at = ? WHERE session_id = ?";
        reserveInsert = "INSERT INTO " + s + " (session_id, next_index, version, expires_at) VALUES (?, ?, 0, ?)";
        selectNextIndexForWrite = "SELECT next_index FROM " + s + " WHERE session_id = ?";
        insertEntry = "INSERT INTO " + e + " (session_id, " + ENTRY_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
        // one statement checks the key and inserts: every row of a batch tests for an earlier batch
        // with the same key, so either all rows go in or none does (the session row lock serializes)
        insertEntryUnlessKeyStored = "INSERT INTO " + e + " (session_id, " + ENTRY_COLUMNS + ") SELECT"
                + " CAST(? AS VARCHAR(128)), CAST(? AS BIGINT), CAST(? AS UUID), CAST(? AS TIMESTAMP(6) WITH TIME ZONE),"
                + " CAST(? AS INTEGER), CAST(? AS VARCHAR(1600)), CAST(? AS " + text + "), CAST(? AS " + text + "),"
                + " CAST(? AS CHAR(8))" + (dialect == Dialect.H2 ? " FROM (VALUES (0)) AS one(x)" : "")
                + " WHERE NOT EXISTS (SELECT 1 FROM " + e + " k WHERE k.session_id = ? AND k.idempotency_key = ?"
                + " AND k.entry_index < ?)";
        selectByKey = "SELECT " + ENTRY_COLUMNS + " FROM " + e
                + " WHERE session_id = ? AND idempotency_key = ? ORDER BY entry_index";
        entryIndexById = "SELECT entry_index FROM " + e + " WHERE session_id = ? AND entry_id = ?";
        stateForSettle = "SELECT version, state FROM " + s + " WHERE session_id = ?";
        deleteAllEntries = "DELETE FROM " + e + " WHERE session_id = ?";
        deleteEntriesBefore = "DELETE FROM " + e + " WHERE session_id = ? AND entry_index < ?";

        readFrom = "SELECT " + ENTRY_COLUMNS + " FROM " + e + " WHERE session_id = ? AND entry_index >= ?" + entryLive
                + " ORDER BY entry_index LIMIT ?";
        readLast = "SELECT " + ENTRY_COLUMNS + " FROM " + e + " WHERE session_id = ?" + entryLive
                + " ORDER BY entry_index DESC LIMIT ?";
        nextIndex = "SELECT next_index FROM " + s + " WHERE session_id = ?" + live;
        state = "SELECT version, state, state_checksum FROM " + s + " WHERE session_id = ?" + live;
        sessions = "SELECT session_id FROM " + s + (ttl ? " WHERE expires_at IS NULL OR expires_at > ?" : "");

        casFirstUpsert = "INSERT INTO " + s + " AS s (session_id, next_index, version, state, state_checksum, expires_at)"
                + " VALUES (?, 0, 1, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET version = 1,"
                + " state = EXCLUDED.state, state_checksum = EXCLUDED.state_checksum, expires_at = EXCLUDED.expires_at"
                + " WHERE s.version = 0";
        casFirstUpdate = "UPDATE " + s + " SET version = 1, state = ?, state_checksum = ?, expires_at = ?"
                + " WHERE session_id = ? AND version = 0";
        casFirstInsert = "INSERT INTO " + s + " (session_id, next_index, version, state, state_checksum, expires_at)"
                + " VALUES (?, 0, 1, ?, ?, ?)";
        casUpdate = "UPDATE " + s + " SET version = ?, state = ?, state_checksum = ?, expires_at = ?"
                + " WHERE session_id = ? AND version = ?";

        touch = "UPDATE " + s + " SET expires_at = ? WHERE session_id = ?";
        deleteExpiredSession = "DELETE FROM " + s + " WHERE session_id = ? AND expires_at <= ?";
        deleteSession = "DELETE FROM " + s + " WHERE session_id = ?";
        expiredSessions = "SELECT session_id FROM " + s + " WHERE expires_at <= ?";
    }

    /**
     * Returns {@code value} if it may stand unquoted in SQL as (part of) a name.
     *
     * @throws IllegalArgumentException if it is not 1 to {@code maxLength} letters, digits and
     *                                  underscores, not starting with a digit
     */
    static String identifier(String option, String value, int maxLength) {
        if (value == null || value.length() > maxLength || !IDENTIFIER.matcher(value).matches()) {
            throw new IllegalArgumentException(option + " must be 1-" + maxLength
                    + " letters, digits and underscores, not starting with a digit, was "
                    + (value == null ? null : "'" + value + "'"));
        }
        return value;
    }

    /**
     * The dialect's DDL resource as statements, with {@code memory_pack_} table names qualified by the
     * schema and prefixed with the store's prefix, index names prefixed, and a {@code CREATE SCHEMA IF
     * NOT EXISTS} first when there is a schema.
     */
    static List<String> schemaStatements(Dialect dialect, String schema, String prefix) {
        String ddl = resource(dialect.schemaResource());
        StringBuilder noComments = new StringBuilder();
        for (String line : ddl.split("\n")) {
            int comment = line.indexOf("--");
            noComments.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        Matcher names = Pattern.compile("\\b" + DEFAULT_PREFIX + "(\\w+)").matcher(noComments);
        StringBuilder out = new StringBuilder();
        while (names.find()) {
            String rest = names.group(1);
            boolean table = rest.equals("session") || rest.equals("entry") || rest.equals("process");
            String name = (table && schema != null ? schema + "." : "") + prefix + rest;
            names.appendReplacement(out, Matcher.quoteReplacement(name));
        }
        names.appendTail(out);
        List<String> statements = new ArrayList<>();
        if (schema != null) {
            statements.add("CREATE SCHEMA IF NOT EXISTS " + schema);
        }
        for (String statement : out.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }

    static String resource(String path) {
        try (InputStream in = Sql.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
