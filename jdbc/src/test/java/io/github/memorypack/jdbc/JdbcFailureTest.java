package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The database going away and coming back, and a pool with no connection to spare: real server, real pool. */
class JdbcFailureTest {

    private static final int BATCHES = 200;

    @TempDir
    Path folder;

    @Test
    void should_fail_typed_and_write_nothing_when_the_pool_is_exhausted() throws Exception {
        // given: a pool of one connection that gives up waiting after 250 ms, and that connection taken
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(TestPostgres.jdbcUrl(), 1, Duration.ofMillis(250))) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            store.append("s", List.of(NewEntry.of(UserMessage.from("before"))));
            try (Connection taken = pool.getConnection()) {
                // when / then
                assertThatThrownBy(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("q")),
                        NewEntry.of(UserMessage.from("a"))), "turn-2"))
                        .isInstanceOf(StoreException.class)
                        .hasMessageContaining("JDBC append failed for session 's': no connection from the DataSource")
                        .hasCauseInstanceOf(SQLTransientConnectionException.class);
                assertThatThrownBy(() -> store.read("s", 0, 10)).isInstanceOf(StoreException.class);
                assertThat(taken.isValid(1)).isTrue();
            }

            // then: nothing of the refused append, and the store works once a connection is free
            assertThat(store.read("s", 0, 10)).extracting(e -> ((UserMessage) e.message()).singleText())
                    .containsExactly("before");
            assertThat(store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "turn-2"))
                    .extracting(Entry::index).containsExactly(1L);
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    @Tag("slow")
    void should_lose_nothing_acknowledged_and_recover_when_postgres_is_killed_and_restarted() throws Exception {
        // given: a server of its own whose commits are durable (zonky's default turns synchronous_commit off)
        Path data = Files.createDirectories(folder.resolve("data"));
        EmbeddedPostgres.Builder server = EmbeddedPostgres.builder().setDataDirectory(data)
                .setCleanDataDirectory(false).setServerConfig("synchronous_commit", "on");
        EmbeddedPostgres postgres = TestPostgres.start(server);
        int port = postgres.getPort();
        String url = postgres.getJdbcUrl("postgres", "postgres");
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (HikariDataSource pool = TestPostgres.pool(url, 4, Duration.ofSeconds(1))) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).build();
            store.createSchema();
            // a writer appending 2-entry turns, each under its own idempotency key, retrying a failed
            // turn with the same key until it is acknowledged
            CountDownLatch killNow = new CountDownLatch(60);
            CountDownLatch seenErrors = new CountDownLatch(3);
            List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger acknowledged = new AtomicInteger();
            Future<?> run = writer.submit(() -> {
                for (int i = 0; i < BATCHES; i++) {
                    List<NewEntry> turn = List.of(NewEntry.of(UserMessage.from("q" + i)),
                            NewEntry.of(UserMessage.from("a" + i)));
                    while (true) {
                        try {
                            store.append("s", turn, "turn-" + i);
                            acknowledged.incrementAndGet();
                            killNow.countDown();
                            break;
                        } catch (StoreException e) {
                            errors.add(e);
                            seenErrors.countDown();
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // back off, then retry
                        }
                    }
                }
                return null;
            });

            // when: SIGKILL on the postmaster mid-run, then a restart on the same data and port
            assertThat(killNow.await(60, TimeUnit.SECONDS)).isTrue();
            killPostmaster(data);
            int acknowledgedBeforeKill = acknowledged.get();
            assertThat(seenErrors.await(60, TimeUnit.SECONDS)).isTrue();
            postgres.close(); // releases zonky's lock on the folder; its pg_ctl stop finds nothing to stop
            postgres = TestPostgres.start(server.setPort(port));
            run.get(120, TimeUnit.SECONDS);

            // then: typed errors; every turn exactly once, whole and in order; the same store works on
            assertThat(errors).isNotEmpty().allSatisfy(e -> assertThat(e).isInstanceOf(StoreException.class)
                    .hasMessageContaining("JDBC append failed for session 's'")
                    .hasCauseInstanceOf(SQLException.class));
            assertThat(acknowledgedBeforeKill).isGreaterThanOrEqualTo(60);
            List<Entry> log = store.read("s", 0, Integer.MAX_VALUE);
            assertThat(log).hasSize(2 * BATCHES);
            for (int i = 0; i < BATCHES; i++) {
                assertThat(((UserMessage) log.get(2 * i).message()).singleText()).isEqualTo("q" + i);
                assertThat(((UserMessage) log.get(2 * i + 1).message()).singleText()).isEqualTo("a" + i);
                assertThat(log.get(2 * i).index()).isEqualTo(2L * i);
                assertThat(log.get(2 * i).idempotencyKey()).contains("turn-" + i);
            }
            assertThat(store.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("ok", "1"))))
                    .isPresent();
        } finally {
            writer.shutdownNow();
            postgres.close();
        }
    }

    /** SIGKILL to the postmaster (its pid is the first line of postmaster.pid); waits until its backends are gone too. */
    private static void killPostmaster(Path data) throws Exception {
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
        List<ProcessHandle> children = postmaster.descendants().toList();
        assertThat(postmaster.destroyForcibly()).isTrue();
        // backends notice their postmaster died and exit; a restart must wait for them to free shared memory
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (ProcessHandle p : children) {
            p.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        postmaster.onExit().get(10, TimeUnit.SECONDS);
    }
}
