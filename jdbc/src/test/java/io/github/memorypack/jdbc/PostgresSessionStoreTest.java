package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The behaviour tests on PostgreSQL, plus what only PostgreSQL shows: query plans, isolation levels. */
class PostgresSessionStoreTest extends JdbcSessionStoreBehaviourTest {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        pool = TestPostgres.pool(12);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }

    @Override
    JdbcSessionStore.Dialect expectedDialect() {
        return JdbcSessionStore.Dialect.POSTGRESQL;
    }

    @Test
    void should_read_through_indices_when_reading_a_range_the_tail_or_a_key() throws SQLException {
        // given: many sessions, so a full scan would be visible
        JdbcSessionStore store = store();
        for (int s = 0; s < 50; s++) {
            List<NewEntry> batch = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                batch.add(NewEntry.of(UserMessage.from("m" + i)));
            }
            store.append("s" + s, batch, "k" + s);
        }
        Sql sql = new Sql(JdbcSessionStore.Dialect.POSTGRESQL, null, prefix, false);

        // when: the planner may not choose a sequential scan unless nothing else can answer
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("ANALYZE " + prefix + "entry");
            st.execute("SET enable_seqscan = off");
            try {
                // then
                assertThat(plan(c, sql.readFrom, "s7", 5L, 10)).contains("Index").doesNotContain("Seq Scan");
                assertThat(plan(c, sql.readLast, "s7", 10)).contains("Index").doesNotContain("Seq Scan");
                assertThat(plan(c, sql.selectByKey, "s7", "k7")).contains("Index").doesNotContain("Seq Scan");
                assertThat(plan(c, sql.insertEntryUnlessKeyStored, "s7", 20L, java.util.UUID.randomUUID(),
                        java.time.OffsetDateTime.now(), -1, "k7", null, "{}", "00000000", "s7", "k7", 20L))
                        .contains("Index").doesNotContain("Seq Scan");
            } finally {
                st.execute("RESET enable_seqscan");
            }
        }
    }

    @Test
    void should_keep_every_append_when_the_pool_defaults_to_serializable() throws Exception {
        // given: connections that start at SERIALIZABLE, where PostgreSQL would fail concurrent updates
        HikariConfig config = TestPostgres.config(TestPostgres.jdbcUrl(), 8, Duration.ofSeconds(30));
        config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        try (HikariDataSource serializable = new HikariDataSource(config)) {
            JdbcSessionStore store = JdbcSessionStore.builder(serializable).tablePrefix(prefix).build();
            store.createSchema();

            // when
            JdbcConcurrencyTest.appendConcurrently(store, "s", 8, 50);

            // then
            List<Entry> log = store.read("s", 0, Integer.MAX_VALUE);
            JdbcConcurrencyTest.assertEveryWriterComplete(log, 8, 50);
            try (Connection c = serializable.getConnection()) {
                assertThat(c.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_SERIALIZABLE);
            }
        }
    }

    private static String plan(Connection c, String query, Object... parameters) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + query)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            StringBuilder plan = new StringBuilder();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
            }
            return plan.toString();
        }
    }
}
