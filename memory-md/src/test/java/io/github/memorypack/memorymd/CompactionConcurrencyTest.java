package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class CompactionConcurrencyTest {

    private static final int WRITERS = 8;
    private static final int APPENDS = 40;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void should_hold_every_message_exactly_once_in_archives_and_live_file_when_compacting_during_appends()
            throws Exception {
        // given
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Future<?>> writers = new ArrayList<>();
        // when
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            writers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < APPENDS; i++) {
                    store.append("s", List.of(NewEntry.of(UserMessage.from("w" + writer + "-" + i))));
                }
                return null;
            }));
        }
        Future<Integer> compactor = pool.submit(() -> {
            start.await();
            int archived = 0;
            for (int round = 0; writing.get() || archived == 0; round++) {
                // before the first append there is no MEMORY.md and so nothing to archive
                archived += store.compact("s", "summary " + round).isPresent() ? 1 : 0;
            }
            return archived;
        });
        start.countDown();
        for (Future<?> f : writers) {
            f.get(50, TimeUnit.SECONDS);
        }
        writing.set(false);
        int compactions = compactor.get(50, TimeUnit.SECONDS);
        pool.shutdown();
        // then
        List<String> all = new ArrayList<>();
        List<Path> archives;
        try (Stream<Path> files = Files.list(dir.resolve("s/archive"))) {
            archives = files.sorted().toList();
        }
        assertThat(archives).hasSize(compactions);
        for (Path archive : archives) {
            all.addAll(texts(MemoryMdFormat.parse(Files.readString(archive))));
        }
        all.addAll(texts(MemoryMdFormat.parse(Files.readString(dir.resolve("s/MEMORY.md")))));
        List<String> expected = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            for (int i = 0; i < APPENDS; i++) {
                expected.add("w" + w + "-" + i);
            }
        }
        assertThat(all).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(MemoryMdSessionStore.of(dir).nextIndex("s")).isEqualTo(WRITERS * APPENDS);
    }

    private static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).toList();
    }
}
