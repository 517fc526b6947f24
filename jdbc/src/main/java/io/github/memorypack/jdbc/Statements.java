package io.github.memorypack.jdbc;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.jdbc.JdbcSessionStore.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The statements {@link JdbcSessionStore}'s operations are made of, run on a connection the store's
 * {@link Transactions} hands them: reserving indices under the session row's lock, inserting a batch
 * (unless its idempotency key is stored), TTL expiry, and decoding rows with their checksums. The SQL
 * text itself is {@link Sql}'s; the row layout is {@link Rows}'.
 */
final class Statements {

    private final Sql sql;
    private final Dialect dialect;
    private final Duration ttl;

    Statements(Sql sql, Dialect dialect, Duration ttl) {
        this.sql = sql;
        this.dialect = dialect;
        this.ttl = ttl;
    }

    /**
     * Takes the session row's lock (creating the row when the session is new), reserves
     * {@code count} indices and returns the first of them.
     */
    long reserve(Connection c, String sessionId, int count, Instant now) throws SQLException {
        if (dialect == Dialect.POSTGRESQL) {
            try (PreparedStatement ps = c.prepareStatement(sql.reserveUpsert)) {
                ps.setString(1, sessionId);
                ps.setLong(2, count);
                setInstant(ps, 3, expiry(now));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) - count;
                }
            }
        }
        if (update(c, sql.reserveUpdate, (long) count, expiry(now), sessionId) == 0) {
            // a concurrent creator of the row makes this fail as a duplicate key: the transaction is retried
            update(c, sql.reserveInsert, sessionId, (long) count, expiry(now));
            return 0;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.selectNextIndexForWrite)) {
            ps.setString(1, sessionId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1) - count;
            }
        }
    }

    /**
     * Inserts the batch at indices {@code first…}. With {@code unlessKeyStored}, every row is inserted
     * only if no earlier entry of the session has the batch's key.
     *
     * @return true if the rows were inserted, false if the key was already stored (nothing inserted)
     */
    boolean insert(Connection c, String statement, Rows.Batch rows, long first, boolean unlessKeyStored)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < rows.size(); i++) {
                int p = rows.bind(ps, i, first + i);
                if (unlessKeyStored) {
                    ps.setString(p++, rows.sessionId());
                    ps.setString(p++, rows.storedKey());
                    ps.setLong(p, first);
                }
                if (rows.size() > 1) {
                    ps.addBatch();
                }
            }
            int[] counts = rows.size() > 1 ? ps.executeBatch() : new int[] {ps.executeUpdate()};
            int inserted = 0;
            for (int count : counts) {
                inserted += count == 0 ? 0 : 1; // SUCCESS_NO_INFO counts as inserted
            }
            if (inserted != 0 && inserted != counts.length) {
                throw new SQLException("inserted " + inserted + " of " + counts.length + " rows of one batch");
            }
            return inserted != 0;
        }
    }

    /**
     * Where the entry with {@code entryId} is stored, or null: whether an append whose commit was not
     * acknowledged happened. Call it after {@link #reserve} (of 0 indices) took the session row's lock,
     * which waits for that append's transaction to end if it still runs.
     */
    Long indexOfEntry(Connection c, String sessionId, String entryId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.entryIndexById)) {
            ps.setString(1, sessionId);
            ps.setObject(2, java.util.UUID.fromString(entryId));
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : null;
            }
        }
    }

    /**
     * Whether the session row holds {@code version} with exactly {@code json}: whether a compare-and-set
     * whose commit was not acknowledged happened (after {@link #reserve} of 0 indices took the row's lock).
     */
    boolean holdsState(Connection c, String sessionId, long version, String json) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.stateForSettle)) {
            ps.setString(1, sessionId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) == version && json.equals(rs.getString(2));
            }
        }
    }

    List<Entry> readByKey(Connection c, String sessionId, String storedKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.selectByKey)) {
            ps.setString(1, sessionId);
            ps.setString(2, storedKey);
            return entries(ps, sessionId, false);
        }
    }

    /** The ids of the sessions whose TTL has passed ({@link JdbcSessionStore#purgeExpired()}). */
    List<String> expired(Connection c, Instant now) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql.expiredSessions)) {
            setInstant(ps, 1, now);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    /** With a TTL: deletes the session if it has expired. Returns whether it did. */
    boolean purgeIfExpired(Connection c, String sessionId, Instant now) throws SQLException {
        if (ttl == null) {
            return false;
        }
        // the session row first, as every writer locks it first: no lock-order deadlocks
        if (update(c, sql.deleteExpiredSession, sessionId, now) == 0) {
            return false;
        }
        update(c, sql.deleteAllEntries, sessionId);
        return true;
    }

    /** Runs an update with parameters bound by type (String, Long, Instant, or null for "no expiry"). */
    static int update(Connection c, String statement, Object... parameters) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            for (int i = 0; i < parameters.length; i++) {
                Object value = parameters[i];
                if (value instanceof String) {
                    ps.setString(i + 1, (String) value);
                } else if (value instanceof Long) {
                    ps.setLong(i + 1, (Long) value);
                } else {
                    setInstant(ps, i + 1, (Instant) value);
                }
            }
            return ps.executeUpdate();
        }
    }

    int setLive(PreparedStatement ps, int p, String sessionId, Instant now) throws SQLException {
        if (ttl == null) {
            return p;
        }
        ps.setString(p, sessionId);
        setInstant(ps, p + 1, now);
        return p + 2;
    }

    static void setInstant(PreparedStatement ps, int parameter, Instant instant) throws SQLException {
        if (instant == null) {
            ps.setNull(parameter, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            ps.setObject(parameter, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }

    List<Entry> entries(PreparedStatement ps, String sessionId, boolean newestFirst) throws SQLException {
        List<Entry> entries = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                entries.add(Rows.decodeEntry(rs, sessionId, sql.entryTable));
            }
        }
        if (newestFirst) {
            Collections.reverse(entries);
        }
        return Collections.unmodifiableList(entries);
    }

    SessionState decodeState(String sessionId, long version, String json, String checksum) {
        String location = "table " + sql.sessionTable + ", session '" + sessionId + "', state";
        if (json == null || !Rows.stateChecksum(sessionId, version, json).equals(checksum)) {
            throw new CorruptRecordException(location, "checksum mismatch (stored " + checksum + ")", null);
        }
        SessionState state;
        try {
            state = EntryCodec.decodeState(json);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordException(location, "undecodable state: " + e.getMessage(), e);
        }
        if (state.version() != version) {
            throw new CorruptRecordException(location,
                    "state JSON has version " + state.version() + ", the row " + version, null);
        }
        return state;
    }

    Instant expiry(Instant now) {
        return ttl == null ? null : now.plus(ttl);
    }

    /**
     * The compare-and-set of the session's state to {@code version} ({@code json}, {@code checksum}) when
     * it is at {@code expectedVersion} (0: no state yet); false when it is at another version.
     */
    boolean compareAndSet(Connection c, String sessionId, long expectedVersion, long version, String json,
                          String checksum, Instant now) throws SQLException {
        purgeIfExpired(c, sessionId, now);
        if (expectedVersion > 0) {
            return update(c, sql.casUpdate, version, json, checksum, expiry(now), sessionId, expectedVersion) == 1;
        }
        if (dialect == Dialect.POSTGRESQL) {
            return update(c, sql.casFirstUpsert, sessionId, json, checksum, expiry(now)) == 1;
        }
        if (update(c, sql.casFirstUpdate, json, checksum, expiry(now), sessionId) == 1) {
            return true;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.selectNextIndexForWrite)) {
            ps.setString(1, sessionId);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    return false; // the row exists, at another version
                }
            }
        }
        // a concurrent creator of the row makes this fail as a duplicate key: the transaction is retried
        return update(c, sql.casFirstInsert, sessionId, json, checksum, expiry(now)) == 1;
    }

    /**
     * The entries a live session holds under the stored key {@code storedKey} (the first append's), read
     * without writing anything: what an empty append under that key returns.
     */
    List<Entry> storedUnder(Connection c, String sessionId, String storedKey, Instant now) throws SQLException {
        if (ttl != null) {
            try (PreparedStatement ps = c.prepareStatement(sql.nextIndex)) {
                ps.setString(1, sessionId);
                setInstant(ps, 2, now);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return List.of(); // unknown or expired: it holds no key
                    }
                }
            }
        }
        return readByKey(c, sessionId, storedKey);
    }
}
