package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.testkit.MutableClock;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cancelled request interrupts its thread: the store fails or succeeds, keeps the flag, and loses nothing. */
class MemoryMdInterruptTest {

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T14:00:00Z"));

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void should_fail_typed_keep_the_flag_and_keep_working_when_the_thread_is_interrupted_before_a_call() {
        // given
        MemoryMdSessionStore store = MemoryMdSessionStore.builder().directory(dir).clock(clock).build();
        store.append("s", List.of(NewEntry.of(UserMessage.from("before"))));

        // when: a cancelled request's thread calls every kind of operation
        Thread.currentThread().interrupt();
        boolean appended;
        try {
            store.append("s", List.of(NewEntry.of(UserMessage.from("interrupted"))));
            appended = true;
        } catch (StoreException e) {
            appended = false;
        }
        assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept").isTrue();
        Thread.interrupted();

        // then: other threads and later calls work, and the log is exactly what was acknowledged
        List<String> expected = appended ? List.of("before", "interrupted", "after") : List.of("before", "after");
        CompletableFuture.runAsync(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("after"))))).join();
        assertThat(texts(store.read("s", 0, 10))).containsExactlyElementsOf(expected);
        assertThat(texts(MemoryMdSessionStore.builder().directory(dir).build().read("s", 0, 10)))
                .containsExactlyElementsOf(expected);
    }

    @Test
    void should_cut_off_the_failed_append_when_the_thread_is_interrupted_while_it_is_forced() {
        // given: the thread is interrupted while the append's bytes are being forced to disk (a cancelled
        // request during fsync): FileChannel.force throws ClosedByInterruptException after the write
        FileLayer real = FileLayer.system();
        FileLayer interruptedWhileForcing = new ForwardingFileLayer(real) {
            @Override
            public void writeAt(Path file, long position, byte[] data, boolean force) throws IOException {
                real.writeAt(file, position, data, false);
                if (file.getFileName().toString().equals("MEMORY.md") && new String(data).contains("cancelled")) {
                    Thread.currentThread().interrupt();
                    throw new ClosedByInterruptException();
                }
            }
        };
        MemoryMdSessionStore store = MemoryMdSessionStore.builder().directory(dir).clock(clock)
                .fileLayer(interruptedWhileForcing).build();
        store.append("s", List.of(NewEntry.of(UserMessage.from("acknowledged"))));

        // when
        assertThatThrownBy(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("cancelled")))))
                .isInstanceOf(StoreException.class);

        // then: the failed append is not visible, now or after a restart, and the flag is kept
        assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept").isTrue();
        Thread.interrupted();
        assertThat(texts(store.read("s", 0, 10))).containsExactly("acknowledged");
        assertThat(texts(MemoryMdSessionStore.builder().directory(dir).build().read("s", 0, 10)))
                .containsExactly("acknowledged");
        store.append("s", List.of(NewEntry.of(UserMessage.from("next"))));
        assertThat(texts(MemoryMdSessionStore.builder().directory(dir).build().read("s", 0, 10)))
                .containsExactly("acknowledged", "next");
    }

    private static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).toList();
    }
}
