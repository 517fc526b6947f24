package io.github.memorypack.jdbc;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.jdbc.JdbcSessionStore.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which processes use a store's tables ({@link JdbcSessionStore#processId}, {@link JdbcSessionStore#processEnded}),
 * as leases ({@link SessionStore.ProcessLease}: the id, the renewing thread, taking a new id when the lease
 * lapsed): a lease is a row of {@code <prefix>process} (its id, and {@code last_seen} by the database's clock),
 * inserted for a new id and updated only while it is still fresh (a row older than the TTL is never brought
 * back). A process whose row is gone or older than the TTL has ended; whoever finds it so deletes a stale
 * row, so it stays ended, and a store that inserts its row deletes the stale rows of processes that ended
 * unseen.
 *
 * <p>Every time is the database's ({@code CURRENT_TIMESTAMP}), never the store's clock, so the processes'
 * clocks need not agree. Without the table (a schema the application manages, not migrated yet) the store
 * cannot tell: no id, nothing ended, one warning.
 */
final class JdbcProcesses extends SessionStore.ProcessLease {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcSessionStore.class);

    private final Transactions transactions;
    private final String table;
    private final String insert;
    private final String heartbeat;
    private final String deleteIfStale;
    private final String exists;
    private final String deleteStale;

    /**
     * @param owner the store whose collection stops the heartbeat
     * @param table the process table, schema-qualified when the store has a schema
     */
    JdbcProcesses(Object owner, Transactions transactions, Dialect dialect, String table, Duration ttl) {
        super(owner, ttl);
        this.transactions = transactions;
        this.table = table;
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
    }

    @Override
    protected boolean create(String id, boolean quick) {
        transactions.write("process insert", null, c -> update(c, insert, id));
        try {
            transactions.write("process purge", null, c -> {
                try (PreparedStatement ps = c.prepareStatement(deleteStale)) {
                    return ps.executeUpdate(); // the rows of processes that ended unseen
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("could not delete stale process rows: {}", e.toString());
        }
        return true;
    }

    @Override
    protected boolean renew(String id, boolean quick) {
        return transactions.write("process heartbeat", null, c -> update(c, heartbeat, id) > 0);
    }

    @Override
    protected boolean lapsed(String id) {
        return transactions.write("processEnded", null, c -> {
            // a stale row is deleted by whoever finds it so: it can never be refreshed again
            if (update(c, deleteIfStale, id) > 0) {
                return true;
            }
            try (PreparedStatement ps = c.prepareStatement(exists)) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return !rs.next();
                }
            }
        });
    }

    @Override
    protected String where(String id) {
        return "row " + (id == null ? "" : id + " ") + "of " + table;
    }

    @Override
    protected String createHint() {
        return "; create the process table if it is missing (JdbcSessionStore.createSchema(), or the dialect's DDL"
                + " resource)";
    }

    private static int update(Connection c, String sql, String id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, id);
            return ps.executeUpdate();
        }
    }
}
