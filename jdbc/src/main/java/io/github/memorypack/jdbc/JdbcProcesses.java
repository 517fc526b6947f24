package io.github.memorypack.jdbc;

import io.github.memorypack.jdbc.JdbcSessionStore.Dialect;
import java.lang.ref.Cleaner;
import java.security.SecureRandom;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which processes use a store's tables ({@link JdbcSessionStore#processId}, {@link JdbcSessionStore#processEnded}):
 * a store instance that is asked for its id inserts a row into {@code <prefix>process} (its id, and
 * {@code last_seen} by the database's clock), and one daemon thread of that instance updates
 * {@code last_seen} every quarter of the TTL, only while the row is still fresh (a row older than the TTL is
 * never brought back). A process whose row is gone or older than the TTL has ended; whoever finds it so
 * deletes a stale row, so it stays ended. When the heartbeat updates no row (this process paused, or could
 * not reach the database, for longer than the TTL: the other processes may already have judged its turns
 * abandoned) the store takes a new id for the turns started from then on, and warns.
 *
 * <p>The refresher holds no reference to the store: it stops when the store is collected, and the row then
 * goes stale within the TTL. Every time is the database's ({@code CURRENT_TIMESTAMP}), never the store's
 * clock, so the processes' clocks need not agree. Without the table (a schema the application manages,
 * not migrated yet) the store cannot tell: no id, nothing ended, one warning.
 */
final class JdbcProcesses {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcSessionStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Cleaner CLEANER = Cleaner.create();
    /** How many ended ids a store remembers (a turn asks only within the open-turn timeout). */
    private static final int ENDED_KEPT = 1024;

    private final Marks marks;

    /**
     * @param owner the store whose collection stops the refresher
     * @param table the process table, schema-qualified when the store has a schema
     */
    JdbcProcesses(Object owner, Transactions transactions, Dialect dialect, String table, Duration ttl) {
        this.marks = new Marks(transactions, dialect, table, ttl);
        CLEANER.register(owner, marks::close);
    }

    /** This store instance's id, its row inserted on the first call; null when it cannot be inserted. */
    String id() {
        return marks.id();
    }

    /** True if the process that had {@code id} is known to have ended: its row is gone or stale. */
    boolean ended(String id) {
        return marks.ended(id);
    }

    /** 16 hex digits: what a store names its process (anything else in a log is no id of ours). */
    static boolean isId(String id) {
        if (id == null || id.length() != 16) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** What the store, its refresher and its cleaner share; never the store itself. */
    private static final class Marks {
        private final Transactions transactions;
        private final String insert;
        private final String heartbeat;
        private final String deleteIfStale;
        private final String exists;
        private final String deleteStale;
        private final long ttlNanos;
        private final long refreshNanos;
        private final Object lock = new Object();
        private final Map<String, Boolean> ended = Collections.synchronizedMap(
                new LinkedHashMap<String, Boolean>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                        return size() > ENDED_KEPT;
                    }
                });
        /** The id turns are tagged with now; null before the first call, or when none could be made. */
        private volatile String current;
        /** {@link System#nanoTime} when the last insert or heartbeat that found the row fresh began. */
        private volatile long confirmedNanos;
        /** {@link System#nanoTime} of the last attempt made on a caller's thread (insert, or heartbeat when stale). */
        private long attemptedNanos;
        private boolean attempted;
        private boolean warned;
        private boolean closed;
        private ScheduledThreadPoolExecutor refresher;

        Marks(Transactions transactions, Dialect dialect, String table, Duration ttl) {
            this.transactions = transactions;
            long millis = ttl.toMillis(); // a number the builder checked: part of the text, like the identifiers
            String staleBefore = dialect == Dialect.POSTGRESQL
                    ? "CURRENT_TIMESTAMP - INTERVAL '" + millis + " milliseconds'"
                    : "DATEADD(MILLISECOND, -" + millis + ", CURRENT_TIMESTAMP)";
            this.insert = "INSERT INTO " + table + " (process_id, last_seen) VALUES (?, CURRENT_TIMESTAMP)";
            this.heartbeat = "UPDATE " + table + " SET last_seen = CURRENT_TIMESTAMP WHERE process_id = ?"
                    + " AND last_seen >= " + staleBefore;
            this.deleteIfStale = "DELETE FROM " + table + " WHERE process_id = ? AND last_seen < " + staleBefore;
            this.exists = "SELECT 1 FROM " + table + " WHERE process_id = ?";
            this.deleteStale = "DELETE FROM " + table + " WHERE last_seen < " + staleBefore;
            this.ttlNanos = ttl.toNanos();
            this.refreshNanos = ttlNanos / 4;
        }

        String id() {
            String id = current;
            if (id != null && System.nanoTime() - confirmedNanos < ttlNanos / 2) {
                return id;
            }
            synchronized (lock) {
                if (closed) {
                    return null;
                }
                long now = System.nanoTime();
                if (attempted && now - attemptedNanos < refreshNanos) {
                    return current; // tried a moment ago (the database out of reach): what we have, or none
                }
                id = current;
                if (id != null && now - confirmedNanos < ttlNanos / 2) {
                    return id;
                }
                attempted = true;
                attemptedNanos = now;
                if (id != null) {
                    // not confirmed for half the TTL (the refresher paused, or fails): make sure before a turn uses it
                    refresh(id);
                    return current;
                }
                current = create();
                if (current != null && refresher == null) {
                    startRefresher();
                }
                return current;
            }
        }

        boolean ended(String id) {
            if (!isId(id) || id.equals(current)) {
                return false;
            }
            if (ended.containsKey(id)) {
                return true;
            }
            boolean gone;
            try {
                gone = transactions.write("processEnded", null, c -> {
                    // a stale row is deleted by whoever finds it so: it can never be refreshed again
                    try (PreparedStatement ps = c.prepareStatement(deleteIfStale)) {
                        ps.setString(1, id);
                        if (ps.executeUpdate() > 0) {
                            return true;
                        }
                    }
                    try (PreparedStatement ps = c.prepareStatement(exists)) {
                        ps.setString(1, id);
                        try (ResultSet rs = ps.executeQuery()) {
                            return !rs.next();
                        }
                    }
                });
            } catch (RuntimeException e) {
                LOG.debug("could not tell whether process {} has ended: {}", id, e.toString());
                return false;
            }
            if (gone) {
                ended.put(id, Boolean.TRUE);
            }
            return gone;
        }

        void close() {
            synchronized (lock) {
                closed = true;
                current = null;
                if (refresher != null) {
                    refresher.shutdownNow();
                    refresher = null;
                }
            }
        }

        private void startRefresher() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "memory-pack-jdbc-process-refresher");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.scheduleWithFixedDelay(this::tick, refreshNanos, refreshNanos, TimeUnit.NANOSECONDS);
            refresher = executor;
        }

        private void tick() {
            String id = current;
            if (id != null) {
                refresh(id);
            } else {
                synchronized (lock) {
                    if (!closed && current == null) {
                        current = create(); // the last rotation could not make a new id
                    }
                }
            }
        }

        /** Updates {@code id}'s row if it is still fresh; if it is gone or stale, takes a new id. */
        private void refresh(String id) {
            long sent = System.nanoTime();
            boolean found;
            try {
                found = transactions.write("process heartbeat", null, c -> {
                    try (PreparedStatement ps = c.prepareStatement(heartbeat)) {
                        ps.setString(1, id);
                        return ps.executeUpdate() > 0;
                    }
                });
            } catch (RuntimeException e) {
                LOG.debug("could not refresh process row {}: {}", id, e.toString());
                return; // tried again at the next tick; if that is after the TTL, the row is stale and replaced
            }
            synchronized (lock) {
                if (closed || !id.equals(current)) {
                    return;
                }
                if (found) {
                    if (sent - confirmedNanos > 0) {
                        confirmedNanos = sent;
                    }
                    return;
                }
                ended.put(id, Boolean.TRUE);
                current = null;
                current = create();
                LOG.warn("process row {} went stale before its heartbeat (this process paused, or could not reach the"
                        + " database, for longer than {} ms): other processes may treat the open turns started under"
                        + " it as abandoned; later turns use {}", id, TimeUnit.NANOSECONDS.toMillis(ttlNanos),
                        current == null ? "no id until one can be made" : "the new id " + current);
            }
        }

        /** Inserts the row of a new random id (and deletes stale rows); null when it cannot. Called under the lock. */
        private String create() {
            byte[] random = new byte[8];
            RANDOM.nextBytes(random);
            String id = HexFormat.of().formatHex(random);
            long sent = System.nanoTime();
            try {
                transactions.write("process insert", null, c -> {
                    try (PreparedStatement ps = c.prepareStatement(insert)) {
                        ps.setString(1, id);
                        ps.executeUpdate();
                    }
                    return null;
                });
            } catch (RuntimeException e) {
                if (!warned) {
                    warned = true;
                    LOG.warn("no process row for this store ({}): turns it starts end by the open-turn timeout only;"
                            + " create the process table if it is missing (JdbcSessionStore.createSchema(), or the"
                            + " dialect's DDL resource)", e.getMessage());
                } else {
                    LOG.debug("no process row for this store: {}", e.toString());
                }
                return null;
            }
            confirmedNanos = sent;
            try {
                transactions.write("process purge", null, c -> {
                    try (PreparedStatement ps = c.prepareStatement(deleteStale)) {
                        return ps.executeUpdate(); // the rows of processes that ended unseen
                    }
                });
            } catch (RuntimeException e) {
                LOG.debug("could not delete stale process rows: {}", e.toString());
            }
            return id;
        }
    }
}
