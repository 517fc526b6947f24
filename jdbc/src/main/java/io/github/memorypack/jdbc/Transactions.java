package io.github.memorypack.jdbc;

import io.github.memorypack.core.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * How {@link JdbcSessionStore} uses its connections: one connection per operation from the data source,
 * reads on the connection's own terms, writes as one READ COMMITTED transaction retried when the
 * database says a second try may succeed, and every {@link SQLException} turned into a short
 * {@link StoreException} (see the store's Javadoc, "Behaviour").
 */
final class Transactions {

    /** Attempts of a transaction that failed with a serialization failure, deadlock or creation race. */
    static final int MAX_ATTEMPTS = 10;
    /** Longest database reason a {@link StoreException}'s message quotes, in characters. */
    static final int MAX_REASON_LENGTH = 200;
    private static final int UNKNOWN_ISOLATION = -1;

    private final DataSource dataSource;
    // the isolation level the data source's connections start with, learnt from the first one
    private volatile int defaultIsolation = UNKNOWN_ISOLATION;

    Transactions(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Work done on a connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection c) throws SQLException;
    }

    /** One read statement, on the connection's own terms (autocommit as configured). */
    <T> T read(String operation, String sessionId, Work<T> work) {
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
    static boolean connectionLost(Throwable e) {
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
    <T> T write(String operation, String sessionId, Work<T> work) {
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

    /**
     * After a write whose connection was lost: runs {@code check} in a new transaction (which first takes
     * the session row's lock, so the lost transaction, if it still runs, has ended) and rolls it back.
     * When the check itself fails, {@code failure} is thrown with that failure suppressed (the outcome
     * stays unknown).
     */
    <T> T settle(StoreException failure, String operation, String sessionId, Work<T> check) {
        try {
            return write(operation, sessionId, c -> {
                T found = check.run(c);
                c.rollback();
                return found;
            });
        } catch (StoreException again) {
            failure.addSuppressed(again);
            throw failure;
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

    /** The dialect of the database the data source connects to (one connection). */
    static JdbcSessionStore.Dialect detect(DataSource dataSource) {
        String product;
        try (Connection c = dataSource.getConnection()) {
            product = c.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw new StoreException("cannot detect the SQL dialect: no connection from the DataSource ("
                    + reason(e) + "); set dialect(...) to build without connecting", e);
        }
        JdbcSessionStore.Dialect detected = JdbcSessionStore.Dialect.of(product);
        if (detected == null) {
            throw new IllegalStateException("unsupported database '" + product
                    + "': JdbcSessionStore speaks PostgreSQL and H2 (set dialect(...) to force one)");
        }
        return detected;
    }
}
