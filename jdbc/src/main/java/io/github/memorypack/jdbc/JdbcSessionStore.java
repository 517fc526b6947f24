package io.github.memorypack.jdbc;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A {@link SessionStore} in a relational database (PostgreSQL 14+ or H2 2.x) on any JDBC
 * {@link DataSource}, with plain JDBC: one row per entry, one row per session, short transactions.
 * Every instance of an application that shares the database sees the same sessions, and concurrent
 * turns of one session never overwrite each other.
 *
 * <h2>Tables</h2>
 * Tables {@code <prefix>session}, {@code <prefix>entry}, {@code <prefix>process} (see {@link #processId()}; prefix
 * {@value #DEFAULT_TABLE_PREFIX} by default), in the connection's default schema or the configured one. Create them with your
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
 *       (it changes nothing); nothing else is. When the connection breaks during the commit of an
 *       append or a compare-and-set, the store asks the database in a new transaction, under the
 *       session row's lock, whether it committed (the append's first entry id, the state's version
 *       and text), and returns that outcome; only when that question fails too is the outcome
 *       unknown: retry an append with the same idempotency key to make it happen exactly once. The store keeps no connection of its own, so it works again as soon
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

    private final Transactions transactions;
    private final Dialect dialect;
    private final String schema;
    private final String tablePrefix;
    private final Clock clock;
    private final Duration ttl;
    private final Sql sql;
    private final Statements statements;

    private final JdbcProcesses processes;

    private JdbcSessionStore(DataSource dataSource, Dialect dialect, String schema, String tablePrefix, Clock clock,
                             Duration ttl, Duration processTimeToLive) {
        this.transactions = new Transactions(dataSource);
        this.dialect = dialect;
        this.schema = schema;
        this.tablePrefix = tablePrefix;
        this.clock = clock;
        this.ttl = ttl;
        this.sql = new Sql(dialect, schema, tablePrefix, ttl != null);
        this.statements = new Statements(sql, dialect, ttl);
        this.processes = new JdbcProcesses(this, transactions, dialect, sql.processTable, processTimeToLive);
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
        transactions.write("createSchema", null, c -> {
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
        List<String> expired = transactions.read("purgeExpired", null, c -> statements.expired(c, now));
        int deleted = 0;
        for (String id : expired) {
            if (transactions.write("purgeExpired", id, c -> statements.purgeIfExpired(c, id, now))) {
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
            return idempotencyKey == null ? List.of() : appendedWith(sessionId, idempotencyKey);
        }
        Instant now = now();
        Rows.Batch rows = new Rows.Batch(sessionId, batch, now, idempotencyKey);
        try {
            return transactions.write("append", sessionId, c -> {
                statements.purgeIfExpired(c, sessionId, now);
                long first = statements.reserve(c, sessionId, batch.size(), now);
                if (idempotencyKey == null) {
                    statements.insert(c, sql.insertEntry, rows, first, false);
                    return rows.entries(first);
                }
                if (statements.insert(c, sql.insertEntryUnlessKeyStored, rows, first, true)) {
                    return rows.entries(first);
                }
                // the key is stored: undo the reservation and return what the first append stored
                c.rollback();
                return statements.readByKey(c, sessionId, rows.storedKey());
            });
        } catch (StoreException e) {
            if (!Transactions.connectionLost(e)) {
                throw e;
            }
            // the connection was lost, perhaps after the database committed: ask it which happened
            Long first = transactions.settle(e, "append", sessionId, c -> {
                statements.reserve(c, sessionId, 0, now); // the row's lock: the lost transaction has ended
                return statements.indexOfEntry(c, sessionId, rows.firstId());
            });
            if (first == null) {
                throw e; // it did not commit: nothing of it is visible
            }
            return rows.entries(first);
        }
    }

    /** What an empty append under {@code idempotencyKey} returns: the entries stored under it ({@link Statements#storedUnder}). */
    private List<Entry> appendedWith(String sessionId, String idempotencyKey) {
        Instant now = now();
        return transactions.read("append", sessionId, c -> statements.storedUnder(c, sessionId, Rows.escapeKey(idempotencyKey), now));
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadRange(fromIndex, maxCount);
        if (maxCount == 0) {
            return List.of();
        }
        Instant now = now();
        return transactions.read("read", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.readFrom)) {
                int p = 1;
                ps.setString(p++, sessionId);
                ps.setLong(p++, fromIndex);
                p = statements.setLive(ps, p, sessionId, now);
                ps.setInt(p, maxCount);
                return statements.entries(ps, sessionId, false);
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
        return transactions.read("readLast", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.readLast)) {
                int p = 1;
                ps.setString(p++, sessionId);
                p = statements.setLive(ps, p, sessionId, now);
                ps.setInt(p, count);
                return statements.entries(ps, sessionId, true);
            }
        });
    }

    @Override
    public long nextIndex(String sessionId) {
        SessionIds.validate(sessionId);
        Instant now = now();
        return transactions.read("nextIndex", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.nextIndex)) {
                ps.setString(1, sessionId);
                if (ttl != null) {
                    Statements.setInstant(ps, 2, now);
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
        return transactions.read("state", sessionId, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.state)) {
                ps.setString(1, sessionId);
                if (ttl != null) {
                    Statements.setInstant(ps, 2, now);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) == 0) {
                        return SessionState.EMPTY;
                    }
                    return statements.decodeState(sessionId, rs.getLong(1), rs.getString(2), rs.getString(3));
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
        boolean done;
        try {
            done = transactions.write("compareAndSetState", sessionId,
                    c -> statements.compareAndSet(c, sessionId, expectedVersion, stored.version(), json, checksum, now));
        } catch (StoreException e) {
            if (!Transactions.connectionLost(e)
                    || !transactions.settle(e, "compareAndSetState", sessionId, c -> {
                        statements.reserve(c, sessionId, 0, now); // the row's lock: the lost transaction has ended
                        return statements.holdsState(c, sessionId, stored.version(), json);
                    })) {
                throw e; // not lost, or it did not commit: the state is as it was
            }
            done = true; // the connection was lost after the database committed it
        }
        return done ? Optional.of(stored) : Optional.empty();
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        List<NewEntry> batch = List.copyOf(entries);
        Instant now = now();
        Rows.Batch rows = new Rows.Batch(sessionId, batch, now, null);
        transactions.write("replace", sessionId, c -> {
            statements.purgeIfExpired(c, sessionId, now);
            long first = statements.reserve(c, sessionId, batch.size(), now);
            Statements.update(c, sql.deleteEntriesBefore, sessionId, first);
            if (!batch.isEmpty()) {
                statements.insert(c, sql.insertEntry, rows, first, false);
            }
            return null;
        });
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        SessionIds.validate(sessionId);
        Instant now = now();
        transactions.write("trim", sessionId, c -> {
            if (ttl != null) {
                statements.purgeIfExpired(c, sessionId, now);
                if (Statements.update(c, sql.touch, statements.expiry(now), sessionId) == 0) {
                    return null; // unknown session: nothing to trim, nothing to create
                }
            }
            Statements.update(c, sql.deleteEntriesBefore, sessionId, beforeIndex);
            return null;
        });
    }

    @Override
    public List<String> sessions() {
        Instant now = now();
        List<String> ids = transactions.read("sessions", null, c -> {
            List<String> found = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.sessions)) {
                if (ttl != null) {
                    Statements.setInstant(ps, 1, now);
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
        transactions.write("delete", sessionId, c -> {
            // the session row first, as every writer locks it first: no lock-order deadlocks
            Statements.update(c, sql.deleteSession, sessionId);
            Statements.update(c, sql.deleteAllEntries, sessionId);
            return null;
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: a random id per store instance, made on the first call, whose row in {@code <prefix>process}
     * a daemon thread keeps fresh (every 15 s, by the database's clock) while the store is reachable. A
     * row older than 60 s means ended for good: the store then takes a new id and logs a warning. Null
     * while the row cannot be inserted (the table missing: {@link #createSchema()} creates it).
     */
    @Override
    public String processId() {
        return processes.id();
    }

    /** {@inheritDoc} <p>Here: its row is gone or older than 60 s (then deleted); false on any database error. */
    @Override
    public boolean processEnded(String processId) {
        return processes.ended(processId);
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

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
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
        private Duration processTimeToLive = Duration.ofSeconds(60);

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

        /** How long a process row stays fresh without a heartbeat (every quarter of it); tests shorten it. */
        Builder processTimeToLive(Duration ttl) {
            if (ttl == null || ttl.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("processTimeToLive must be at least 1 s, was " + ttl);
            }
            this.processTimeToLive = ttl;
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
            Dialect chosen = dialect == null ? Transactions.detect(dataSource) : dialect;
            return new JdbcSessionStore(dataSource, chosen, schema, tablePrefix, clock, ttl, processTimeToLive);
        }
    }
}
