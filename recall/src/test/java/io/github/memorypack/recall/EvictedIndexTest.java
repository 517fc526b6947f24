package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.nio.file.Path;
import io.github.memorypack.core.Entry;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A persistent index evicted (more sessions than stay open) is committed and reopened, never replaced by an
 * in-memory one, even when its session is queried again while the eviction still waits to close it.
 */
class EvictedIndexTest {

    @TempDir
    Path folder;

    /** An in-memory store whose next read of one session waits until released (a slow store under a long query). */
    private static final class SlowStore extends ForwardingSessionStore {
        final AtomicReference<String> slow = new AtomicReference<>();
        final CountDownLatch reading = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        SlowStore() {
            super(InMemorySessionStore.create());
        }

        @Override
        public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
            String waiting = slow.get();
            if (sessionId.equals(waiting) && slow.compareAndSet(waiting, null)) {
                reading.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return delegate.read(sessionId, fromIndex, maxCount);
        }
    }

    @Test
    void should_reopen_the_persistent_index_of_a_session_queried_again_while_its_eviction_waits_for_a_query()
            throws Exception {
        // given: as many sessions as stay open, persistent indexes, "s0" the least recently used
        SlowStore store = new SlowStore();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).lexicalOnly()
                .indexDirectory(folder).build();
        int sessions = RecallContentRetriever.MAX_OPEN_SESSIONS + 1;
        List<WindowChatMemory> memories = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            WindowChatMemory memory = WindowChatMemory.builder().id("s" + i).chatMemoryStore(store).maxMessages(6).build();
            turn(memory, "My locker number is " + (1000 + i) + ".", "Noted.");
            fillers(memory, 0, 3);
            memories.add(memory);
        }
        for (int i = 0; i < sessions - 1; i++) {
            recall.update("s" + i);
        }
        // a query of "s0" that is slow in the store (it holds s0's index meanwhile) ...
        fillers(memories.get(0), 3, 4);
        store.slow.set("s0");
        Thread slowQuery = new Thread(() -> recall.update("s0"));
        slowQuery.start();
        assertThat(store.reading.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i < sessions - 1; i++) {
            recall.update("s" + i); // "s0" is the least recently used again
        }
        // ... while a 65th session evicts it (its close waits for that query)
        Thread evicting = new Thread(() -> recall.update("s" + (sessions - 1)));
        evicting.start();
        awaitWaitingInOpenIndexes(evicting);

        // when: "s0" is queried again meanwhile
        AtomicReference<String> recalled = new AtomicReference<>();
        Thread again = new Thread(() -> recalled.set(joined(recall.retrieve(query(memories.get(0), "What is my locker number?")))));
        again.start();
        awaitWaitingInOpenIndexes(again);
        store.release.countDown();
        slowQuery.join(10_000);
        evicting.join(10_000);
        again.join(10_000);

        // then: its own turn, from its persistent index (not an in-memory one built from the log)
        assertThat(recalled.get()).contains("locker number is 1000.");
        assertThat(recall.persistent("s0")).isTrue();
        recall.close();
    }

    /** Waits until the thread waits (parked or blocked) inside {@link OpenIndexes}, or has ended. */
    private static void awaitWaitingInOpenIndexes(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Thread.State state = thread.getState();
            if (state == Thread.State.TERMINATED) {
                return;
            }
            if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED) {
                for (StackTraceElement frame : thread.getStackTrace()) {
                    if (frame.getClassName().equals(OpenIndexes.class.getName())) {
                        return;
                    }
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError(thread.getName() + " neither ended nor waited in OpenIndexes");
    }
}
