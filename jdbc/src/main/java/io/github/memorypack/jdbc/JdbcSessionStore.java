package io.github.memorypack.jdbc;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A {@link SessionStore} in a relational database (PostgreSQL 14+ or H2 2.x) on any JDBC
 * {@link DataSource}, with plain JDBC: one row per entry, one row per session, short transactions.
 * Every instance of an application that shares the database sees the same sessions, and concurrent
 * turns of one session never overwrite each other.
 *
 * <h2>Tables</h2>
 * Two tables, named {@code <prefix>session} and {@code <prefix>entry} (prefix {@value #DEFAULT_TABLE_PREFIX}
 * by default), in the connection's default schema or the configured one. Create them with your
 * migrations from the DDL resource of the {@linkplain Dialect#schemaResource() dialect}, or call
 * {@link #createSchema()}.
 * <ul>
 *   <li>{@code <prefix>entry}: one row per entry — session id, index, entry id, timestamp, token
 *       count, idempotency key, metadata JSON, the message in LangChain4j's JSON (core's
 *       {@link EntryCodec}), and a CRC32C checksum of all of them. Primary key (session, index), so
 *       reads of a range or of the tail are index range scans.</li>
 *   <li>{@code <prefix>session}: one row per session — the next index, the state version, the
 *       state JSON with its checksum, and the expiry time when the store has a {@linkplain Builder#ttl TTL}.</li>
 * </ul>
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li>An append is one short transaction: it takes the session row's lock while it reserves the
 *       indices (PostgreSQL: one {@code INSERT … ON CONFLICT DO UPDATE … RETURNING}), checks the
 *       idempotency key and inserts the rows (one statement, batched). Appends to one session are
 *       serialized by that lock, across threads, processes and instances; appends to different
 *       sessions never wait for each other. Bytes sent are those of the new entries only.</li>
 *   <li>An append whose idempotency key the session still holds stores nothing and returns the
 *       entries stored under it, also when two transactions with the same key race. An empty batch
 *       stores nothing, not even its key.</li>
 *   <li>{@link #compareAndSetState}, {@link #replace}, {@link #trim} and {@link #delete} are single
 *       transactions; appends never conflict with state updates.</li>
 *   <li>Every row read is checked against its checksum; a mismatch or an undecodable row throws
 *       {@link CorruptRecordException} naming the table, the session and the index. Text round-trips
 *       exactly, NUL and lone surrogates included.</li>
 *   <li>Every {@link SQLException} becomes a {@link StoreException} with the cause chained, naming the
 *       operation, the session, the SQL state and the database's reason in one short line (never the SQL
 *       statement or the values bound to it: those stay in the cause). A transaction that failed is rolled back: nothing of it is
 *       visible. Serialization failures, deadlocks and races on creating a session row are retried
 *       (they roll back completely); a read whose connection was lost runs again on another
 *       (it changes nothing); nothing else is. When the connection breaks during the commit,
 *       the outcome is unknown to the client: retry an append with the same idempotency key to make
 *       it happen exactly once. The store keeps no connection of its own, so it works again as soon
 *       as the data source hands out working connections (after a database restart, for example).</li>
 *   <li>Transactions run at READ COMMITTED: if the data source's connections default to another
 *       level, the store sets READ COMMITTED for its own transactions and restores the default.
 *       Give the store a plain data source (a pool), not one that hands out the connection of an
 *       application transaction: the store commits its own transactions.</li>
 * </ul>
 *
 * <p>Entry timestamps come from the store's {@link Clock}, truncated to microseconds (the precision
 * of the timestamp columns). Thread-safe. The store does not own the data source and never closes it.
 */
public final class JdbcSessionStore implements SessionStore {

    /** Table prefix used when none is set. */
    public static final String DEFAULT_TABLE_PREFIX = Sql.DEFAULT_PREFIX;
    /** Longest accepted table prefix, so that every table and index name fits PostgreSQL's 63 bytes. */
    public static final int MAX_TABLE_PREFIX_LENGTH = 40;

    /** Attempts of a transaction that failed with a serialization failure, deadlock or creation race. */
    static final int MAX_ATTEMPTS = 10;
    /** Longest database reason a {@link StoreException}'s message quotes, in characters. */
    static final int MAX_REASON_LENGTH = 200;
    private static final int UNKNOWN_ISOLATION = -1;

    /** The SQL dialects the store speaks. */
    public enum Dialect {
        /** PostgreSQL 14 or newer (uses {@code INSERT … ON CONFLICT}, row locks, {@code text} columns). */
        POSTGRESQL("/io/github/memorypack/jdbc/schema-postgresql.sql"),
        /** H2 2.x, embedded (in-memory or file) or server. */
        H2("/io/github/memorypack/jdbc/schema-h2.sql");

        private final String schemaResource;

        Dialect(String schemaResource) {
            this.schemaResource = schemaResource;
        }

        /**
         * The class-path resource with this dialect's DDL, for the default table prefix and schema:
         * for migrations tools (Flyway, Liquibase). {@link JdbcSessionStore#createSchema()} runs the
         * same statements with the store's prefix and schema.
         *
         * @return the resource path, for example {@code /io/github/memorypack/jdbc/schema-postgresql.sql}
         */
        public String schemaResource() {
            return schemaResource;
        }

        /** The dialect of a database product name as JDBC reports it, or {@code null}. */
        static Dialect of(String productName) {
            String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
            if (name.contains("postgresql")) {
                return POSTGRESQL;
            }
            if (name.equals("h2")) {
                return H2;
            }
            return null;
        }
    }

    private final DataSource dataSource;
    private final Dialect dialect;
    private final String schema;
    private final String tablePrefix;
    private final Clock clock;
    private final Duration ttl;
    private final Sql sql;
    // the isolation level the data source's connections start with, learnt from the first one
    private volatile int defaultIsolation = UNKNOWN_ISOLATION;

    private JdbcSessionStore(DataSource dataSource, Dialect dialect, String schema, String tablePrefix, Clock clock,
                             Duration ttl) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.schema = schema;
        this.tablePrefix = tablePrefix;
        this.clock = clock;
        this.ttl = ttl;
        this.sql = new Sql(dialect, schema, tablePrefix, ttl != null);
    }

    /**
     * A builder for a store on {@code dataSource} (a connection pool such as HikariCP in production).
     *
     * @param dataSource where the store gets its connections; it is never closed by the store
     * @return a new builder
     * @throws IllegalArgumentException if {@code dataSource} is null
     */
    public static Builder builder(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        return new Builder(dataSource);
    }

    /**
     * Creates the schema (when one is configured), the two tables and their indices if they do not
     * exist yet: the statements of the dialect's {@linkplain Dialect#schemaResource() DDL resource}
     * with this store's schema and prefix. Safe to call on every start and from several instances
     * at once (on PostgreSQL they take turns under an advisory lock).
     *
     * @throws StoreException if a statement fails (for example for lack of privileges)
     */
    public void createSchema() {
        List<String> statements = Sql.schemaStatements(dialect, schema, tablePrefix);
        write("createSchema", null, c -> {
            try (Statement st = c.createStatement()) {
                if (dialect == Dialect.POSTGRESQL) {
                    // concurrent CREATE … IF NOT EXISTS can still collide in the catalog: take turns
                    st.execute("SELECT pg_advisory_xact_lock(" + ("memory-pack:" + sql.entryTable).hashCode() + ")");
                }
                for (String statement : statements) {
                    st.execute(statement);
                }
            }
            return null;
        });
    }

    /**
     * Deletes every session whose TTL has passed, with its entries and state. Expired sessions are
     * invisible anyway (they read as unknown, and the next write to one starts it afresh); this
     * reclaims their space. Run it from a scheduled job. Does nothing without a TTL.
     *
     * @return the number of sessions deleted
     * @throws StoreException if a statement fails; sessions deleted before the failure stay deleted
     */
    public int purgeExpired() {
        if (ttl == null) {
            return 0;
        }
        Instant now = now();
        List<String> expired = read("purgeExpired", null, c -> {
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
        });
        int deleted = 0;
        for (String id : expired) {
            if (write("purgeExpired", id, c -> purgeIfExpired(c, id, now))) {
                deleted++;
            }
        }
        return deleted;
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        SessionIds.validate(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        List<NewEntry> batch = List.copyOf(entries);
        if (batch.isEmpty()) {
            return List.of();
        }
        Instant now = now();
        Rows.Batch rows = new Rows.Batch(sessionId, batch, now, idempotencyKey);
        return write("append", sessionId, c -> {
            purgeIfExpired(c, sessionId, now);
            long first = reserve(c, sessionId, batch.size(), now);
            if (idempotencyKey == null) {
                insert(c, sql.insertEntry, rows, first, false);
                return rows.entries(first);
            }
            if (insert(c, sql.insertEntryUnlessKeyStored, rows, first, true)) {
                return rows.entries(first);
            }
            // the key is stored: undo the reservation and return what the first append stored
            c.rollback();
            return readByKey(c, sessionId, rows.storedKey());
        });
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadRange(fromIndex, maxCount);
        if (maxCount == 0) {
            return List.of();
        }
        Instant now = now();
        return read("read", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.readFrom)) {
                int p = 1;
                ps.setString(p++, sessionId);
                ps.setLong(p++, fromIndex);
                p = setLive(ps, p, sessionId, now);
                ps.setInt(p, maxCount);
                return entries(ps, sessionId, false);
            }
        });
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadCount(count);
        if (count == 0) {
            return List.of();
        }
        Instant now = now();
        return read("readLast", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.readLast)) {
                int p = 1;
                ps.setString(p++, sessionId);
                p = setLive(ps, p, sessionId, now);
                ps.setInt(p, count);
                return entries(ps, sessionId, true);
            }
        });
    }

    @Override
    public long nextIndex(String sessionId) {
        SessionIds.validate(sessionId);
        Instant now = now();
        return read("nextIndex", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.nextIndex)) {
                ps.setString(1, sessionId);
                if (ttl != null) {
                    setInstant(ps, 2, now);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0L;
                }
            }
        });
    }

    @Override
    public SessionState state(String sessionId) {
        SessionIds.validate(sessionId);
        Instant now = now();
        return read("state", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.state)) {
                ps.setString(1, sessionId);
                if (ttl != null) {
                    setInstant(ps, 2, now);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) == 0) {
                        return SessionState.EMPTY;
                    }
                    return decodeState(sessionId, rs.getLong(1), rs.getString(2), rs.getString(3));
                }
            }
        });
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionIds.validate(sessionId);
        Objects.requireNonNull(newState, "newState");
        if (expectedVersion < 0) {
            return Optional.empty(); // no session is at a negative version
        }
        SessionState stored = newState.withVersion(expectedVersion + 1);
        String json = EntryCodec.encodeState(stored);
        String checksum = Rows.stateChecksum(sessionId, stored.version(), json);
        Instant now = now();
        boolean done = write("compareAndSetState", sessionId, c -> {
            purgeIfExpired(c, sessionId, now);
            if (expectedVersion > 0) {
                return update(c, sql.casUpdate, stored.version(), json, checksum, expiry(now), sessionId,
                        expectedVersion) == 1;
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
        });
        return done ? Optional.of(stored) : Optional.empty();
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        List<NewEntry> batch = List.copyOf(entries);
        Instant now = now();
        Rows.Batch rows = new Rows.Batch(sessionId, batch, now, null);
        write("replace", sessionId, c -> {
            purgeIfExpired(c, sessionId, now);
            long first = reserve(c, sessionId, batch.size(), now);
            update(c, sql.deleteEntriesBefore, sessionId, first);
            if (!batch.isEmpty()) {
                insert(c, sql.insertEntry, rows, first, false);
            }
            return null;
        });
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        SessionIds.validate(sessionId);
        Instant now = now();
        write("trim", sessionId, c -> {
            if (ttl != null) {
                purgeIfExpired(c, sessionId, now);
                if (update(c, sql.touch, expiry(now), sessionId) == 0) {
                    return null; // unknown session: nothing to trim, nothing to create
                }
            }
            update(c, sql.deleteEntriesBefore, sessionId, beforeIndex);
            return null;
        });
    }

    @Override
    public List<String> sessions() {
        Instant now = now();
        List<String> ids = read("sessions", null, c -> {
            List<String> found = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.sessions)) {
                if (ttl != null) {
                    setInstant(ps, 1, now);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        found.add(rs.getString(1));
                    }
                }
            }
            return found;
        });
        Collections.sort(ids); // Java's order, whatever the database's collation
        return List.copyOf(ids);
    }

    @Override
    public void delete(String sessionId) {
        SessionIds.validate(sessionId);
        write("delete", sessionId, c -> {
            // the session row first, as every writer locks it first: no lock-order deadlocks
            update(c, sql.deleteSession, sessionId);
            update(c, sql.deleteAllEntries, sessionId);
            return null;
        });
    }

    /**
     * The dialect this store speaks (detected from the connection, or the one the builder was given).
     *
     * @return the dialect
     */
    public Dialect dialect() {
        return dialect;
    }

    /**
     * The time after its last write at which a session expires, if one is set.
     *
     * @return the TTL, or empty when sessions never expire
     */
    public Optional<Duration> ttl() {
        return Optional.ofNullable(ttl);
    }

    @Override
    public String toString() {
        return "JdbcSessionStore{" + dialect + ", " + sql.entryTable + ", " + sql.sessionTable
                + (ttl == null ? "" : ", ttl=" + ttl) + '}';
    }

    // ------------------------------------------------------------------ statements

    /**
     * Takes the session row's lock (creating the row when the session is new), reserves
     * {@code count} indices and returns the first of them.
     */
    private long reserve(Connection c, String sessionId, int count, Instant now) throws SQLException {
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
    private boolean insert(Connection c, String statement, Rows.Batch rows, long first, boolean unlessKeyStored)
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

    private List<Entry> readByKey(Connection c, String sessionId, String storedKey) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.selectByKey)) {
            ps.setString(1, sessionId);
            ps.setString(2, storedKey);
            return entries(ps, sessionId, false);
        }
    }

    /** With a TTL: deletes the session if it has expired. Returns whether it did. */
    private boolean purgeIfExpired(Connection c, String sessionId, Instant now) throws SQLException {
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
    private static int update(Connection c, String statement, Object... parameters) throws SQLException {
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

    private int setLive(PreparedStatement ps, int p, String sessionId, Instant now) throws SQLException {
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

    private List<Entry> entries(PreparedStatement ps, String sessionId, boolean newestFirst) throws SQLException {
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

    private SessionState decodeState(String sessionId, long version, String json, String checksum) {
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

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private Instant expiry(Instant now) {
        return ttl == null ? null : now.plus(ttl);
    }

    // ------------------------------------------------------------------ connections and transactions

    /** Work done on a connection. */
    @FunctionalInterface
    private interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** One read statement, on the connection's own terms (autocommit as configured). */
    private <T> T read(String operation, String sessionId, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = connection(operation, sessionId)) {
                T result = work.run(c);
                if (!c.getAutoCommit()) {
                    c.rollback(); // end the read-only transaction the pool's non-autocommit connection started
                }
                return result;
            } catch (SQLException e) {
                // a read changes nothing: a pooled connection the server has closed is given up for another
                if (attempt < MAX_ATTEMPTS && connectionLost(e)) {
                    continue;
                }
                throw failure(operation, sessionId, e);
            }
        }
    }

    /**
     * Whether the connection was lost rather than the statement refused: SQLState class 08
     * (connection exception) or PostgreSQL's 57P01–57P03 (the server terminated it, is shutting down
     * or cannot connect now).
     */
    static boolean connectionLost(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException) {
                String state = ((SQLException) t).getSQLState();
                if (state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
                        || state.equals("57P03"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * One transaction at READ COMMITTED, committed when {@code work} returns, rolled back when it
     * throws; retried from the start when the database says it may succeed on a second try.
     */
    private <T> T write(String operation, String sessionId, Work<T> work) {
        for (int attempt = 1; ; attempt++) {
            try (Connection c = connection(operation, sessionId)) {
                return inTransaction(c, work);
            } catch (SQLException e) {
                if (attempt < MAX_ATTEMPTS && retryable(e)) {
                    continue;
                }
                throw failure(operation, sessionId, e);
            }
        }
    }

    private <T> T inTransaction(Connection c, Work<T> work) throws SQLException {
        int isolation = defaultIsolation;
        if (isolation == UNKNOWN_ISOLATION) {
            isolation = c.getTransactionIsolation();
            defaultIsolation = isolation;
        }
        boolean setIsolation = isolation != Connection.TRANSACTION_READ_COMMITTED;
        boolean autoCommit = c.getAutoCommit();
        if (setIsolation) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        if (autoCommit) {
            c.setAutoCommit(false);
        }
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e;
        } finally {
            try {
                if (autoCommit) {
                    c.setAutoCommit(true);
                }
                if (setIsolation) {
                    c.setTransactionIsolation(isolation);
                }
            } catch (SQLException ignored) {
                // a broken connection: the pool discards it
            }
        }
    }

    private Connection connection(String operation, String sessionId) {
        try {
            Connection c = dataSource.getConnection();
            if (c == null) {
                throw new SQLException("the DataSource returned no connection");
            }
            return c;
        } catch (SQLException e) {
            throw new StoreException("JDBC " + operation + " failed" + forSession(sessionId)
                    + ": no connection from the DataSource (" + reason(e) + ")", e);
        }
    }

    /**
     * Whether a failed transaction may succeed when run again: it was rolled back as a whole by a
     * serialization failure, a deadlock, a lock timeout (H2's default is only one second) or a
     * duplicate key from two transactions creating the same session row at once.
     */
    static boolean retryable(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException) {
                String state = ((SQLException) t).getSQLState();
                if ("40001".equals(state) || "40P01".equals(state) || "23505".equals(state)
                        || "HYT00".equals(state)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static StoreException failure(String operation, String sessionId, SQLException e) {
        SQLException cause = databaseError(e);
        String state = cause.getSQLState() != null ? cause.getSQLState() : e.getSQLState();
        return new StoreException("JDBC " + operation + " failed" + forSession(sessionId) + " (SQLState "
                + state + "): " + reason(e), e);
    }

    /**
     * The database's own error behind {@code e}: a batch failure's next exception (PostgreSQL reports the
     * server's error there, and the batch, its SQL and bound values, in the batch exception), else {@code e}.
     */
    private static SQLException databaseError(SQLException e) {
        SQLException next = e.getNextException();
        return next != null && next != e ? next : e;
    }

    /**
     * What the database said, short enough for a log line and without the statement: drivers put the SQL
     * (H2: {@code "; SQL statement:"} and the text; PostgreSQL's batches: every bound value, message JSON
     * included) and detail lines (PostgreSQL's {@code Detail:} quotes the row) into their messages, which
     * would put hundreds of characters of SQL and the conversation's own text into every error. The whole
     * exception stays the cause.
     */
    static String reason(SQLException e) {
        String message = databaseError(e).getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        int statement = message.indexOf("; SQL statement:");
        if (statement >= 0) {
            message = message.substring(0, statement);
        }
        int aborted = message.indexOf(" was aborted: ");
        if (message.startsWith("Batch entry ") && aborted >= 0) {
            message = message.substring(aborted + " was aborted: ".length());
        }
        message = message.strip();
        int newline = message.indexOf('\n');
        if (newline >= 0) {
            message = message.substring(0, newline).strip();
        }
        if (message.startsWith("ERROR: ")) {
            message = message.substring("ERROR: ".length()).strip();
        }
        if (message.length() > MAX_REASON_LENGTH) {
            int end = MAX_REASON_LENGTH - 1;
            if (Character.isHighSurrogate(message.charAt(end - 1))) {
                end--; // never half a character
            }
            message = message.substring(0, end) + "…";
        }
        return message;
    }

    private static String forSession(String sessionId) {
        return sessionId == null ? "" : " for session '" + sessionId + "'";
    }

    // ------------------------------------------------------------------ builder

    /**
     * Builds a {@link JdbcSessionStore}. Everything but the data source is optional: by default the
     * dialect is detected from the database (which needs one connection at {@link #build()}), the
     * tables are {@value #DEFAULT_TABLE_PREFIX}{@code session} and {@value #DEFAULT_TABLE_PREFIX}{@code entry}
     * in the connection's default schema, there is no TTL, and timestamps come from the system UTC
     * clock. Schema and prefix are used unquoted in SQL (so PostgreSQL folds them to lower case and
     * H2 to upper case, like every unquoted name in your own SQL), which is why they are restricted
     * to letters, digits and underscores.
     */
    public static final class Builder {

        private final DataSource dataSource;
        private Dialect dialect;
        private String schema;
        private String tablePrefix = DEFAULT_TABLE_PREFIX;
        private Clock clock = Clock.systemUTC();
        private Duration ttl;

        private Builder(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        /**
         * The dialect to speak, instead of detecting it from the connection's database product name.
         * With a dialect set, {@link #build()} does not connect.
         *
         * @param dialect the dialect
         * @return this builder
         * @throws IllegalArgumentException if {@code dialect} is null
         */
        public Builder dialect(Dialect dialect) {
            if (dialect == null) {
                throw new IllegalArgumentException("dialect must not be null (leave it unset to detect it)");
            }
            this.dialect = dialect;
            return this;
        }

        /**
         * The schema of the tables; by default none is named and the connection's default schema
         * (PostgreSQL's {@code search_path}) applies.
         *
         * @param schema the schema name
         * @return this builder
         * @throws IllegalArgumentException if it is not 1–63 letters, digits and underscores, not
         *                                  starting with a digit
         */
        public Builder schema(String schema) {
            this.schema = Sql.identifier("schema", schema, 63);
            return this;
        }

        /**
         * Text put before the table names; default {@value #DEFAULT_TABLE_PREFIX}.
         *
         * @param tablePrefix the prefix
         * @return this builder
         * @throws IllegalArgumentException if it is not 1–{@value #MAX_TABLE_PREFIX_LENGTH} letters,
         *                                  digits and underscores, not starting with a digit
         */
        public Builder tablePrefix(String tablePrefix) {
            this.tablePrefix = Sql.identifier("tablePrefix", tablePrefix, MAX_TABLE_PREFIX_LENGTH);
            return this;
        }

        /**
         * Source of entry timestamps and of the time TTLs are measured with; default the system UTC
         * clock.
         *
         * @param clock the clock
         * @return this builder
         * @throws IllegalArgumentException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            this.clock = clock;
            return this;
        }

        /**
         * Expire a session this long after its last write (append, state update, replace, trim), like
         * the Redis store's TTL: from then on it reads as unknown, its next write starts it afresh
         * (indices from 0), and {@link JdbcSessionStore#purgeExpired()} deletes its rows. Reads do not
         * extend it. Measured with the store's {@link #clock}; none by default.
         *
         * @param ttl the time to live after the last write
         * @return this builder
         * @throws IllegalArgumentException if {@code ttl} is null or shorter than one millisecond
         */
        public Builder ttl(Duration ttl) {
            if (ttl == null || ttl.toMillis() < 1) {
                throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
            }
            this.ttl = ttl;
            return this;
        }

        /**
         * Builds the store. It does not create or check the tables: see
         * {@link JdbcSessionStore#createSchema()}.
         *
         * @return the store
         * @throws StoreException        if the dialect is to be detected and no connection can be had
         * @throws IllegalStateException if the detected database is neither PostgreSQL nor H2 (set a
         *                               {@link #dialect} to speak one of them to a compatible database)
         */
        public JdbcSessionStore build() {
            Dialect chosen = dialect == null ? detect() : dialect;
            return new JdbcSessionStore(dataSource, chosen, schema, tablePrefix, clock, ttl);
        }

        private Dialect detect() {
            String product;
            try (Connection c = dataSource.getConnection()) {
                DatabaseMetaData metaData = c.getMetaData();
                product = metaData.getDatabaseProductName();
            } catch (SQLException e) {
                throw new StoreException("cannot detect the SQL dialect: no connection from the DataSource ("
                        + reason(e) + "); set dialect(...) to build without connecting", e);
            }
            Dialect detected = Dialect.of(product);
            if (detected == null) {
                throw new IllegalStateException("unsupported database '" + product
                        + "': JdbcSessionStore speaks PostgreSQL and H2 (set dialect(...) to force one)");
            }
            return detected;
        }
    }
}
