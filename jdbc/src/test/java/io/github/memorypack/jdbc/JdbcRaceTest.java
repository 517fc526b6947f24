package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.testkit.SessionStoreContract;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

/** The races of {@link SessionStoreContract} on PostgreSQL and on H2. */
class JdbcRaceTest {

    @Test
    void should_count_exactly_and_keep_each_writer_order_when_threads_append_to_many_sessions_on_postgres()
            throws Exception {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(8)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            assertThat(SessionStoreContract.manySessions(store, 8, 20, 10)).hasSize(20)
                    .allSatisfy(log -> assertThat(log).hasSize(8 * 10));
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    void should_keep_reads_whole_and_ordered_when_deletes_replaces_and_trims_race_appends_on_postgres()
            throws Exception {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(8)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            assertThat(SessionStoreContract.deletesRacingAppends(store, 4, 100))
                    .hasSize(4 * 100);
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    void should_keep_reads_whole_and_ordered_when_deletes_replaces_and_trims_race_appends_on_h2() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:race-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        config.setMaximumPoolSize(8);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).build();
            store.createSchema();
            assertThat(SessionStoreContract.deletesRacingAppends(store, 4, 100))
                    .hasSize(4 * 100);
            assertThat(SessionStoreContract.manySessions(store, 8, 20, 10)).hasSize(20)
                    .allSatisfy(log -> assertThat(log).hasSize(8 * 10));
            assertThat(SessionStoreContract.sameKeysRacing(java.util.List.of(store, JdbcSessionStore.builder(pool).build()), 4, 50))
                    .extracting(e -> e.idempotencyKey().orElseThrow()).hasSize(50).doesNotHaveDuplicates();
        }
    }
}
