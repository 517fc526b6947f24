package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.file.DurableFiles;
import io.github.memorypack.testkit.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JVM-wide in-process half of the session locks is bounded: an entry per lock file exists only
 * while a call on that session runs, so a store that has served many sessions keeps none at rest.
 * Slow (10,000 session folders created; 10 to 30 s): {@code DurableFilesTest} checks the same rule on
 * one lock in every build.
 */
@Tag("slow")
class MemoryMdLockMapTest {

    private static final int SESSIONS = 10_000;

    @TempDir
    Path tempDir;

    @Test
    void should_keep_no_session_lock_at_rest_when_ten_thousand_sessions_were_written_and_read() throws IOException {
        // on tmpfs where there is one: creating 10,000 session folders forces the disk 40,000 times elsewhere
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "memory-md-locks")
                : tempDir;
        try {
            tenThousandSessions(dir);
        } finally {
            if (!dir.equals(tempDir)) {
                try (Stream<Path> files = Files.walk(dir)) {
                    for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                        Files.delete(file);
                    }
                }
            }
        }
    }

    private void tenThousandSessions(Path dir) {
        // given: two store instances on one folder, whose file layer notes the in-process locks held at each file lock
        AtomicInteger fileLocks = new AtomicInteger();
        AtomicInteger mostHeld = new AtomicInteger();
        FileLayer noting = new ForwardingFileLayer(FileLayer.system()) {
            @Override
            public AutoCloseable lock(Path lockFile) throws IOException {
                fileLocks.incrementAndGet();
                mostHeld.accumulateAndGet(DurableFiles.threadLocksInUse(), Math::max);
                return super.lock(lockFile);
            }
        };
        MutableClock clock = MutableClock.at(Instant.parse("2026-12-02T00:00:00Z"));
        List<MemoryMdSessionStore> stores = List.of(store(dir, noting, clock), store(dir, noting, clock));
        int before = DurableFiles.threadLocksInUse();

        // when: every session is written by one instance and read by the other
        for (int i = 0; i < SESSIONS; i++) {
            String session = "s" + i;
            stores.get(i % 2).append(session, List.of(NewEntry.of(UserMessage.from("hello " + i))));
            assertThat(stores.get((i + 1) % 2).readLast(session, 1)).hasSize(1);
        }

        // then: a lock was held during each write, and none is left
        assertThat(fileLocks).hasValue(SESSIONS);
        assertThat(mostHeld.get()).isEqualTo(before + 1);
        assertThat(DurableFiles.threadLocksInUse()).isEqualTo(before).isZero();
        assertThat(stores.get(0).sessions()).hasSize(SESSIONS);
    }

    private static MemoryMdSessionStore store(Path dir, FileLayer files, MutableClock clock) {
        return MemoryMdSessionStore.builder().directory(dir).clock(clock).fileLayer(files)
                .durability(MemoryMdSessionStore.Durability.OS_BUFFERED).build();
    }
}
