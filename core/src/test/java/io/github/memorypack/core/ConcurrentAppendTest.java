package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** LangChain4j #1966 / Spring AI's lost updates: concurrent turns on one session must lose nothing. */
class ConcurrentAppendTest {

    private static final int THREADS = 16;
    private static final int APPENDS = 500;

    @TempDir
    Path folder;

    static Stream<Arguments> stores() {
        return Stream.of(
                Arguments.of("in-memory", (Function<Path, SessionStore>) folder -> InMemorySessionStore.create()),
                Arguments.of("file", (Function<Path, SessionStore>) FileSessionStore::of));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    @Timeout(120)
    void should_keep_all_entries_and_each_thread_order_when_16_threads_append_500_times(
            String name, Function<Path, SessionStore> factory) throws Exception {
        SessionStore store = factory.apply(folder);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Void>> writers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Callable<Void> writer = () -> {
                start.await();
                for (int i = 0; i < APPENDS; i++) {
                    store.append("shared", List.of(NewEntry.of(UserMessage.from(thread + ":" + i))));
                }
                return null;
            };
            writers.add(pool.submit(writer));
        }

        start.countDown();
        try {
            for (Future<Void> writer : writers) {
                writer.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        List<Entry> all = store.read("shared", 0, Integer.MAX_VALUE);
        assertThat(all).hasSize(THREADS * APPENDS);
        assertThat(all).extracting(Entry::index)
                .containsExactlyElementsOf(LongStream.range(0, THREADS * APPENDS).boxed().collect(Collectors.toList()));
        assertThat(new HashSet<>(all.stream().map(Entry::id).collect(Collectors.toList()))).hasSize(all.size());
        int[] next = new int[THREADS];
        for (Entry entry : all) {
            String[] parts = ((UserMessage) entry.message()).singleText().split(":");
            int thread = Integer.parseInt(parts[0]);
            assertThat(Integer.parseInt(parts[1])).as("order of thread %d", thread).isEqualTo(next[thread]);
            next[thread]++;
        }
        assertThat(next).containsOnly(APPENDS);
        if (store instanceof FileSessionStore) {
            assertThat(FileSessionStore.of(folder).read("shared", 0, Integer.MAX_VALUE)).isEqualTo(all);
        }
    }
}
