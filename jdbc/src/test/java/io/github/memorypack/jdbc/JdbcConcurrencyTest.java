package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Exactness across instances on PostgreSQL: several processes, and several store instances with
 * their own pools, appending to one session. (The contract's 16 threads x 500 appends to one
 * session in one process run in {@link PostgresSessionStoreContractTest}.)
 */
class JdbcConcurrencyTest {

    private static HikariDataSource pool;
    private final String prefix = TestPostgres.freshPrefix();

    @BeforeAll
    static void openPool() {
        pool = TestPostgres.pool(4);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @AfterEach
    void dropTables() {
        TestPostgres.dropTables(pool, prefix);
    }

    @Test
    void should_keep_every_append_in_writer_order_when_two_instances_with_eight_threads_each_append() throws Exception {
        // given: two "application instances", each with its own store and connection pool
        JdbcSessionStore.builder(pool).tablePrefix(prefix).build().createSchema();
        try (HikariDataSource poolA = TestPostgres.pool(8); HikariDataSource poolB = TestPostgres.pool(8)) {
            List<JdbcSessionStore> instances = List.of(
                    JdbcSessionStore.builder(poolA).tablePrefix(prefix).build(),
                    JdbcSessionStore.builder(poolB).tablePrefix(prefix).build());

            // when
            appendConcurrently(t -> instances.get(t % 2), "shared", 16, 250);

            // then
            assertEveryWriterComplete(instances.get(1).read("shared", 0, Integer.MAX_VALUE), 16, 250);
        }
    }

    @Test
    @Tag("slow")
    void should_keep_every_append_in_writer_order_when_four_processes_append() throws Exception {
        // given
        JdbcSessionStore.builder(pool).tablePrefix(prefix).build().createSchema();
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<Process> processes = new ArrayList<>();
        try {
            for (int p = 0; p < 4; p++) {
                processes.add(new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-cp", System.getProperty("java.class.path"), AppendWorker.class.getName(),
                        TestPostgres.jdbcUrl(), prefix, "shared", "p" + p, "250")
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
            }
            List<BufferedReader> outputs = new ArrayList<>();
            for (Process process : processes) {
                BufferedReader out = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("ready");
                outputs.add(out);
            }

            // when: release all four together
            for (Process process : processes) {
                Writer in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
                in.write("go\n");
                in.flush();
            }
            for (int p = 0; p < processes.size(); p++) {
                assertThat(outputs.get(p).readLine()).isEqualTo("done");
                assertThat(processes.get(p).waitFor(60, TimeUnit.SECONDS)).isTrue();
                assertThat(processes.get(p).exitValue()).isZero();
            }

            // then: exactly 1,000
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            List<Entry> log = store.read("shared", 0, Integer.MAX_VALUE);
            assertEveryWriterComplete(log, 4, 250);
            assertThat(log).allSatisfy(e -> assertThat(e.idempotencyKey()).isPresent());
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
    }

    /** {@code writers} threads, each appending "w{t}:{i}" {@code appends} times, released together. */
    static void appendConcurrently(JdbcSessionStore store, String sessionId, int writers, int appends)
            throws Exception {
        appendConcurrently(t -> store, sessionId, writers, appends);
    }

    /** The same, writer {@code t} appending through {@code storeOfWriter.apply(t)}. */
    static void appendConcurrently(IntFunction<JdbcSessionStore> storeOfWriter, String sessionId, int writers,
                                   int appends) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < writers; t++) {
                String writer = "w" + t;
                JdbcSessionStore store = storeOfWriter.apply(t);
                done.add(threads.submit(() -> {
                    start.await();
                    for (int i = 0; i < appends; i++) {
                        store.append(sessionId, List.of(NewEntry.of(UserMessage.from(writer + ":" + i))));
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** Exactly writers x appends entries, indices 0..n-1, and each writer's "w:i" texts in order. */
    static void assertEveryWriterComplete(List<Entry> log, int writers, int appends) {
        assertThat(log).hasSize(writers * appends);
        assertThat(log).extracting(Entry::index)
                .containsExactlyElementsOf(LongStream.range(0, (long) writers * appends).boxed().toList());
        Map<String, Integer> next = new HashMap<>();
        for (Entry e : log) {
            String[] parts = ((UserMessage) e.message()).singleText().split(":");
            int expected = next.getOrDefault(parts[0], 0);
            assertThat(Integer.parseInt(parts[1])).as("order of writer %s", parts[0]).isEqualTo(expected);
            next.put(parts[0], expected + 1);
        }
        assertThat(next).hasSize(writers).allSatisfy((writer, count) -> assertThat(count).isEqualTo(appends));
    }
}
