package io.github.memorypack.benchmarks.jdbc;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import io.github.memorypack.benchmarks.redis.RedisTurnBenchmark;
import io.github.memorypack.core.EntryCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
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
 * The type of the JDBC store's message column on PostgreSQL: {@code text} (what the store uses)
 * against {@code jsonb}, on a table shaped like the store's entry table. {@code appendTurn} inserts
 * one turn (two rows, one transaction); {@code readTail} reads the newest 20 rows of a session as
 * text (what the store does on every view). The size of the table per row (heap + TOAST + indices,
 * after {@code VACUUM}) is printed at the end of each fork as a {@code [size]} line. The messages
 * are LangChain4j's JSON of the Redis benchmark's chat messages, plus every 10th an AI message with
 * a tool call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@State(Scope.Benchmark)
public class MessageColumnBenchmark {

    @Param({"text", "jsonb"})
    public String column;

    private BenchmarkPostgres postgres;
    private Connection connection;
    private PreparedStatement insert;
    private PreparedStatement tail;
    private long index;
    private String table;

    @Setup(Level.Trial)
    public void start() throws SQLException {
        postgres = BenchmarkPostgres.start();
        connection = postgres.pool().getConnection();
        table = "column_bench_" + column;
        try (Statement st = connection.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
            st.execute("CREATE TABLE " + table + " (session_id VARCHAR(128) NOT NULL, entry_index BIGINT NOT NULL,"
                    + " message " + column + " NOT NULL, checksum CHAR(8) NOT NULL,"
                    + " PRIMARY KEY (session_id, entry_index))");
        }
        insert = connection.prepareStatement("INSERT INTO " + table
                + " (session_id, entry_index, message, checksum) VALUES (?, ?, CAST(? AS " + column + "), ?)");
        tail = connection.prepareStatement("SELECT entry_index, message::text, checksum FROM " + table
                + " WHERE session_id = ? ORDER BY entry_index DESC LIMIT 20");
        connection.setAutoCommit(false);
        for (int i = 0; i < 2_000; i++) {
            appendTurn();
        }
    }

    @Benchmark
    public int appendTurn() throws SQLException {
        for (int i = 0; i < 2; i++) {
            long n = index++;
            String json = EntryCodec.encodeMessage(n % 10 == 9
                    ? AiMessage.from(ToolExecutionRequest.builder().id("call_" + n).name("weather")
                    .arguments("{\"city\":\"Paris\",\"day\":" + n + "}").build())
                    : RedisTurnBenchmark.message(n));
            insert.setString(1, "s" + (n / 1_000));
            insert.setLong(2, n);
            insert.setString(3, json);
            insert.setString(4, EntryCodec.checksum(json));
            insert.addBatch();
        }
        int rows = insert.executeBatch().length;
        connection.commit();
        return rows;
    }

    @Benchmark
    public int readTail() throws SQLException {
        tail.setString(1, "s1");
        int length = 0;
        try (ResultSet rs = tail.executeQuery()) {
            while (rs.next()) {
                length += rs.getString(2).length();
            }
        }
        connection.commit();
        return length;
    }

    @TearDown(Level.Trial)
    public void stop() throws SQLException {
        connection.setAutoCommit(true);
        try (Statement st = connection.createStatement()) {
            st.execute("VACUUM ANALYZE " + table);
            try (ResultSet rs = st.executeQuery("SELECT pg_total_relation_size('" + table + "'), COUNT(*) FROM "
                    + table)) {
                rs.next();
                System.out.printf(Locale.ROOT, "%n[size] column=%s rows=%d bytesPerRow=%d%n", column, rs.getLong(2),
                        rs.getLong(1) / rs.getLong(2));
            }
        }
        connection.close();
        postgres.close();
    }
}
