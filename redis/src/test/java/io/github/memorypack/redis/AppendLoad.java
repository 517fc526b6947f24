package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Writer threads appending one-entry batches without an idempotency key, as a memory does outside
 * a request scope: thread t appends {@code "<t>:<i>"} to session {@code sessions[t % n]}, for
 * i = 0, 1, 2, … until stopped. Records which appends were acknowledged, which failed, and the
 * slowest call; then checks what the store holds.
 */
final class AppendLoad implements AutoCloseable {

    private final SessionStore store;
    private final List<String> sessions;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger acknowledged = new AtomicInteger();
    private final Map<String, List<String>> acknowledgedBySession = new ConcurrentHashMap<>();
    private final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong slowestNanos = new AtomicLong();

    AppendLoad(SessionStore store, List<String> sessions, int writers) {
        this.store = store;
        this.sessions = List.copyOf(sessions);
        for (String session : sessions) {
            acknowledgedBySession.put(session, Collections.synchronizedList(new ArrayList<>()));
        }
        for (int t = 0; t < writers; t++) {
            int writer = t;
            threads.add(new Thread(() -> run(writer), "append-load-" + t));
        }
    }

    AppendLoad start() {
        threads.forEach(Thread::start);
        return this;
    }

    private void run(int writer) {
        String session = sessions.get(writer % sessions.size());
        for (int i = 0; !stop.get(); i++) {
            String text = writer + ":" + i;
            long start = System.nanoTime();
            try {
                store.append(session, List.of(NewEntry.of(UserMessage.from(text))));
                acknowledgedBySession.get(session).add(text);
                acknowledged.incrementAndGet();
            } catch (RuntimeException e) {
                errors.add(e);
            }
            slowestNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
        }
    }

    /** Waits until {@code more} further appends have been acknowledged since the call. */
    void awaitMore(int more, Duration timeout) {
        int target = acknowledged.get() + more;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (acknowledged.get() < target) {
            assertThat(System.nanoTime()).as("%d appends acknowledged within %s (errors: %s)", more, timeout, errors)
                    .isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Stops the writers and waits for their last call to end. */
    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
    }

    int acknowledged() {
        return acknowledged.get();
    }

    List<Throwable> errors() {
        return errors;
    }

    Duration slowestCall() {
        return Duration.ofNanos(slowestNanos.get());
    }

    List<String> sessions() {
        return sessions;
    }

    /** What the writers' texts look like in a session's log. */
    static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).toList();
    }

    /** Texts stored more than once in the sessions. */
    List<String> duplicates(SessionStore reader) {
        List<String> duplicates = new ArrayList<>();
        for (String session : sessions) {
            Set<String> seen = new HashSet<>();
            for (String text : texts(reader.read(session, 0, Integer.MAX_VALUE))) {
                if (!seen.add(text)) {
                    duplicates.add(session + "/" + text);
                }
            }
        }
        return duplicates;
    }

    /**
     * Every acknowledged append is stored, nothing is stored twice, and each writer's appends keep
     * their order (an unacknowledged one may be there or not).
     */
    void assertEveryAcknowledgedAppendStoredOnceInOrder(SessionStore reader) {
        assertThat(duplicates(reader)).as("stored twice").isEmpty();
        for (String session : sessions) {
            List<String> stored = texts(reader.read(session, 0, Integer.MAX_VALUE));
            assertThat(stored).as("acknowledged appends in session %s", session)
                    .containsAll(acknowledgedBySession.get(session));
            Map<String, Integer> last = new HashMap<>();
            for (String text : stored) {
                String[] parts = text.split(":");
                int i = Integer.parseInt(parts[1]);
                assertThat(i).as("order of writer %s in %s", parts[0], session)
                        .isGreaterThan(last.getOrDefault(parts[0], -1));
                last.put(parts[0], i);
            }
        }
    }

    /** Texts acknowledged in {@code session}, in the order they were. */
    List<String> acknowledgedIn(String session) {
        synchronized (acknowledgedBySession.get(session)) {
            return List.copyOf(acknowledgedBySession.get(session));
        }
    }
}
