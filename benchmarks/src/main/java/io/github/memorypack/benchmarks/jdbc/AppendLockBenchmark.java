package io.github.memorypack.benchmarks.jdbc;

import io.github.memorypack.benchmarks.redis.RedisTurnBenchmark;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.jdbc.JdbcSessionStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * How an append takes the per-session lock on PostgreSQL, on the store's own tables: {@code row-lock}
 * is what {@link JdbcSessionStore} does — one {@code INSERT … ON CONFLICT DO UPDATE SET next_index =
 * next_index + n RETURNING next_index} that creates or locks the session row and reserves the
 * indices — then the insert and the commit; {@code advisory-lock} takes
 * {@code pg_advisory_xact_lock(hashtext(session))}, reads {@code next_index}, inserts, and writes
 * {@code next_index} back (the session row is still needed: indices continue after a trim or
 * replace empties the log). One single-row append per operation, all threads on one session; run
 * with {@code -t 4} for contention.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@State(Scope.Benchmark)
public class AppendLockBenchmark {

    static final String SESSION = "lock-bench";

    @Param({"row-lock", "advisory-lock"})
    public String lock;

    BenchmarkPostgres postgres;
    String prefix;
    final AtomicLong turns = new AtomicLong();

    @Setup(Level.Trial)
    public void start() {
        postgres = BenchmarkPostgres.start();
        prefix = "lock" + System.nanoTime() + "_";
        JdbcSessionStore.builder(postgres.pool()).tablePrefix(prefix).build().createSchema();
    }

    @TearDown(Level.Trial)
    public void stop() {
        postgres.close();
    }

    /** One connection and its statements per benchmark thread. */
    @State(Scope.Thread)
    public static class Session {
        Connection c;
        PreparedStatement reserve;
        PreparedStatement advisory;
        PreparedStatement read;
        PreparedStatement write;
        PreparedStatement insert;

        @Setup(Level.Trial)
        public void open(AppendLockBenchmark b) throws SQLException {
            c = b.postgres.pool().getConnection();
            c.setAutoCommit(false);
            String s = b.prefix + "session";
            reserve = c.prepareStatement("INSERT INTO " + s + " AS s (session_id, next_index, version) VALUES (?, 1, 0)"
                    + " ON CONFLICT (session_id) DO UPDATE SET next_index = s.next_index + 1 RETURNING next_index");
            advisory = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtext(?))");
            read = c.prepareStatement("SELECT next_index FROM " + s + " WHERE session_id = ?");
            write = c.prepareStatement("INSERT INTO " + s + " (session_id, next_index, version) VALUES (?, ?, 0)"
                    + " ON CONFLICT (session_id) DO UPDATE SET next_index = EXCLUDED.next_index");
            insert = c.prepareStatement("INSERT INTO " + b.prefix + "entry (session_id, entry_index, entry_id,"
                    + " created_at, token_count, message, checksum) VALUES (?, ?, ?, ?, -1, ?, ?)");
        }

        @TearDown(Level.Trial)
        public void close() throws SQLException {
            c.close();
        }
    }

    @Benchmark
    public long append(Session s) throws SQLException {
        long index;
        if (lock.equals("row-lock")) {
            s.reserve.setString(1, SESSION);
            try (ResultSet rs = s.reserve.executeQuery()) {
                rs.next();
                index = rs.getLong(1) - 1;
            }
        } else {
            s.advisory.setString(1, SESSION);
            s.advisory.executeQuery().close();
            s.read.setString(1, SESSION);
            try (ResultSet rs = s.read.executeQuery()) {
                index = rs.next() ? rs.getLong(1) : 0;
            }
            s.write.setString(1, SESSION);
            s.write.setLong(2, index + 1);
            s.write.executeUpdate();
        }
        String json = EntryCodec.encodeMessage(RedisTurnBenchmark.message(turns.incrementAndGet()));
        s.insert.setString(1, SESSION);
        s.insert.setLong(2, index);
        s.insert.setObject(3, UUID.randomUUID());
        s.insert.setTimestamp(4, new Timestamp(System.currentTimeMillis()));
        s.insert.setString(5, json);
        s.insert.setString(6, EntryCodec.checksum(json));
        s.insert.executeUpdate();
        s.c.commit();
        return index;
    }
}
