package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Several application instances (separate pools) and several processes appending to one session. */
class RedisConcurrencyTest {

    private static final int APPENDS = 250;

    @Test
    void should_keep_every_append_in_writer_order_when_two_instances_with_eight_threads_each_append() throws Exception {
        // given: two "application instances", each with its own store and connection pool
        String prefix = TestRedis.freshPrefix();
        List<RedisSessionStore> instances = List.of(
                RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build(),
                RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build());
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int instance = 0; instance < 2; instance++) {
                for (int thread = 0; thread < 8; thread++) {
                    RedisSessionStore store = instances.get(instance);
                    String writer = instance + "." + thread;
                    done.add(threads.submit(() -> {
                        start.await();
                        for (int i = 0; i < APPENDS; i++) {
                            store.append("shared", List.of(NewEntry.of(UserMessage.from(writer + ":" + i))));
                        }
                        return null;
                    }));
                }
            }

            // when
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }

            // then
            assertEveryWriterComplete(instances.get(1).read("shared", 0, Integer.MAX_VALUE), 16);
        } finally {
            threads.shutdownNow();
            instances.get(0).delete("shared");
            instances.forEach(RedisSessionStore::close);
        }
    }

    @Test
    @Tag("slow")
    void should_keep_every_append_in_writer_order_when_four_processes_append() throws Exception {
        // given
        String prefix = TestRedis.freshPrefix();
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<Process> processes = new ArrayList<>();
        try {
            for (int p = 0; p < 4; p++) {
                processes.add(new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                        "-cp", System.getProperty("java.class.path"),
                        AppendWorker.class.getName(), TestRedis.standaloneUri(), prefix, "shared", "p" + p,
                        Integer.toString(APPENDS)).redirectError(ProcessBuilder.Redirect.INHERIT).start());
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
                assertThat(processes.get(p).waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(processes.get(p).exitValue()).isZero();
            }

            // then
            try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                    .keyPrefix(prefix).build()) {
                assertEveryWriterComplete(store.read("shared", 0, Integer.MAX_VALUE), 4);
                store.delete("shared");
            }
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
    }

    /** Exactly writers x APPENDS entries, indices 0..n-1, and each writer's "w:i" texts in order. */
    static void assertEveryWriterComplete(List<Entry> log, int writers) {
        assertThat(log).hasSize(writers * APPENDS);
        assertThat(log).extracting(Entry::index)
                .containsExactlyElementsOf(LongStream.range(0, (long) writers * APPENDS).boxed().toList());
        Map<String, Integer> next = new HashMap<>();
        for (Entry e : log) {
            String[] parts = ((UserMessage) e.message()).singleText().split(":");
            int expected = next.getOrDefault(parts[0], 0);
            assertThat(Integer.parseInt(parts[1])).as("order of writer %s", parts[0]).isEqualTo(expected);
            next.put(parts[0], expected + 1);
        }
        assertThat(next).hasSize(writers).allSatisfy((writer, count) -> assertThat(count).isEqualTo(APPENDS));
    }
}
