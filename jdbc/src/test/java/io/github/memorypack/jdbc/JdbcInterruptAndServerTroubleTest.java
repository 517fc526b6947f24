package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.StoreException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a demanding user meets: a cancelled request (an interrupted thread) and connections killed on
 * the server ({@code pg_terminate_backend}): calls fail typed or succeed, the interrupt is kept,
 * nothing acknowledged is lost, and the same store keeps working.
 */
class JdbcInterruptAndServerTroubleTest {

    @TempDir
    Path folder;

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void should_keep_working_and_keep_the_flag_when_a_thread_is_interrupted_on_postgres() {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(TestPostgres.jdbcUrl(), 2, Duration.ofSeconds(5))) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            interruptedCalls(store, () -> JdbcSessionStore.builder(pool).tablePrefix(prefix).build());
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    void should_keep_working_and_keep_the_flag_when_a_thread_is_interrupted_on_an_h2_file_database() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:file:" + folder.resolve("db") + ";LOCK_TIMEOUT=10000");
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).build();
            store.createSchema();
            interruptedCalls(store, () -> JdbcSessionStore.builder(pool).build());
        }
        // and after a restart of the application
        try (HikariDataSource pool = new HikariDataSource(config)) {
            assertThat(texts(JdbcSessionStore.builder(pool).build().read("s", 0, 100)))
                    .startsWith("before").endsWith("after");
        }
    }

    /** Every operation on an interrupted thread, then the store used from another thread and this one. */
    private static void interruptedCalls(JdbcSessionStore store, Supplier<JdbcSessionStore> another) {
        store.append("s", List.of(NewEntry.of(UserMessage.from("before"))));
        List<String> acknowledged = new ArrayList<>(List.of("before"));
        for (int i = 0; i < 5; i++) {
            String text = "interrupted-" + i;
            Thread.currentThread().interrupt();
            try {
                store.append("s", List.of(NewEntry.of(UserMessage.from(text))), "key-" + i);
                acknowledged.add(text);
            } catch (StoreException e) {
                // a typed failure is allowed; it must not be visible (checked below)
            }
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept after append").isTrue();
            try {
                store.read("s", 0, 100);
                store.readLast("s", 3);
                store.state("s");
                store.nextIndex("s");
                store.sessions();
            } catch (StoreException e) {
                // allowed
            }
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept after reads").isTrue();
            Thread.interrupted();
        }
        CompletableFuture.runAsync(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("other thread")))))
                .join();
        store.append("s", List.of(NewEntry.of(UserMessage.from("after"))));
        acknowledged.add("other thread");
        acknowledged.add("after");
        assertThat(texts(store.read("s", 0, 100))).containsExactlyElementsOf(acknowledged);
        assertThat(texts(another.get().read("s", 0, 100))).containsExactlyElementsOf(acknowledged);
    }

    @Test
    void should_lose_nothing_acknowledged_and_recover_when_backends_are_terminated_mid_run() throws Exception {
        // given: 4 writers appending turns under idempotency keys, retrying a failed one with its key
        String prefix = TestPostgres.freshPrefix();
        String url = TestPostgres.jdbcUrl();
        HikariConfig config = TestPostgres.config(url, 4, Duration.ofSeconds(5));
        config.addDataSourceProperty("ApplicationName", prefix); // only this pool's backends are killed
        try (HikariDataSource pool = new HikariDataSource(config);
             HikariDataSource admin = TestPostgres.pool(url, 1, Duration.ofSeconds(5))) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            int writers = 4;
            int turns = 150;
            List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
            ExecutorService executor = Executors.newFixedThreadPool(writers);
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                futures.add(executor.submit(() -> {
                    for (int t = 0; t < turns; t++) {
                        String text = writer + ":" + t;
                        for (int attempt = 0; ; attempt++) {
                            try {
                                store.append("s", List.of(NewEntry.of(UserMessage.from(text))), "turn-" + text);
                                break;
                            } catch (StoreException e) {
                                errors.add(e);
                                if (attempt > 50) {
                                    throw e;
                                }
                            }
                        }
                    }
                    return null;
                }));
            }
            // when: every other backend of the database is terminated, several times during the run
            int kills = 0;
            while (futures.stream().anyMatch(f -> !f.isDone()) && kills < 20) {
                TimeUnit.MILLISECONDS.sleep(30); // real time between kills: what is measured is the server's
                try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
                    st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            + "WHERE pid <> pg_backend_pid() AND datname = current_database() "
                            + "AND application_name = '" + prefix + "'");
                }
                kills++;
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
            executor.shutdown();

            // then: every turn exactly once, each writer's in order, errors typed, and the store works
            List<Entry> all = store.read("s", 0, Integer.MAX_VALUE);
            assertThat(all).hasSize(writers * turns);
            for (int w = 0; w < writers; w++) {
                String p = w + ":";
                assertThat(texts(all).stream().filter(s -> s.startsWith(p)).toList())
                        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, turns)
                                .mapToObj(t -> p + t).toList());
            }
            assertThat(errors).as("the kills reached the writers").isNotEmpty()
                    .allSatisfy(e -> assertThat(e).isInstanceOf(StoreException.class));
            // a write on a pooled connection the last kill ended fails once (typed); retried with its key
            List<Entry> later = null;
            for (int attempt = 0; later == null && attempt < 5; attempt++) {
                try {
                    later = store.append("s", List.of(NewEntry.of(UserMessage.from("later"))), "later");
                } catch (StoreException e) {
                    // the pool drops that connection
                }
            }
            assertThat(later).hasSize(1);
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    void should_read_without_error_when_the_pooled_connections_were_terminated_by_the_server() throws Exception {
        // given: a pool whose every connection the server has just terminated (a restart, a failover, an idle
        // timeout of a proxy), used again within HikariCP's 500 ms in which it does not re-validate them
        String prefix = TestPostgres.freshPrefix();
        HikariConfig config = TestPostgres.config(TestPostgres.jdbcUrl(), 3, Duration.ofSeconds(5));
        config.addDataSourceProperty("ApplicationName", prefix);
        try (HikariDataSource pool = new HikariDataSource(config);
             HikariDataSource admin = TestPostgres.pool(TestPostgres.jdbcUrl(), 1, Duration.ofSeconds(5))) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            store.append("s", List.of(NewEntry.of(UserMessage.from("before"))));
            List<Connection> warm = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                warm.add(pool.getConnection());
            }
            for (Connection c : warm) {
                c.close();
            }
            try (Connection c = admin.getConnection(); Statement st = c.createStatement()) {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '"
                        + prefix + "'");
            }

            // when / then: reads change nothing, so a read on a dead connection is run again on another
            assertThat(texts(store.read("s", 0, 10))).containsExactly("before");
            assertThat(store.readLast("s", 1)).hasSize(1);
            TestPostgres.dropTables(pool, prefix);
        }
    }

    private static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).toList();
    }
}
