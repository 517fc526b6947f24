package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Concurrency as an application meets it, on a real store: many threads on many sessions (counts
 * exact, each writer's order kept), and deletes, replaces and trims racing appends and reads (every
 * read shows increasing indices, each writer's entries in order, no entry twice).
 */
final class StoreRaces {

    private StoreRaces() {
    }

    /** {@code threads} writers, each appending {@code perSession} turns to each of {@code sessions} sessions. */
    static void manySessions(SessionStore store, int threads, int sessions, int perSession) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int writer = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perSession; i++) {
                        for (int s = 0; s < sessions; s++) {
                            store.append("race-" + s, List.of(NewEntry.of(UserMessage.from(writer + ":" + i))));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int s = 0; s < sessions; s++) {
            List<Entry> log = store.read("race-" + s, 0, Integer.MAX_VALUE);
            assertThat(log).as("session %d", s).hasSize(threads * perSession);
            checkOrder(log);
            assertThat(log).extracting(Entry::index).as("session %d", s)
                    .containsExactlyElementsOf(java.util.stream.LongStream.range(0, log.size()).boxed().toList());
        }
    }

    /**
     * Writers append keyed turns to one session while another thread deletes, replaces and trims it and
     * a reader checks every read; then every writer retries all its keys: only turns that are gone are
     * stored again, and the log ends with each writer's turns in order.
     */
    static void deletesRacingAppends(SessionStore store, int writers, int turns) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
        AtomicBoolean running = new AtomicBoolean(true);
        List<Throwable> readerErrors = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < turns; i++) {
                        String text = writer + ":" + i;
                        List<Entry> stored = store.append("s", List.of(NewEntry.of(UserMessage.from(text))), text);
                        assertThat(stored).extracting(e -> ((UserMessage) e.message()).singleText()).containsExactly(text);
                    }
                    return null;
                }));
            }
            Future<?> disturber = pool.submit(() -> {
                for (int n = 0; running.get(); n++) {
                    switch (n % 3) {
                        case 0 -> store.delete("s");
                        case 1 -> store.replace("s", new ArrayList<>(store.readLast("s", 5)).stream()
                                .map(e -> NewEntry.of(e.message())).toList());
                        default -> store.trim("s", store.nextIndex("s") - 3);
                    }
                }
                return null;
            });
            Future<?> reader = pool.submit(() -> {
                while (running.get()) {
                    try {
                        checkRead(store.read("s", 0, Integer.MAX_VALUE));
                        checkRead(store.readLast("s", 7));
                    } catch (Throwable e) {
                        readerErrors.add(e);
                        return null;
                    }
                }
                return null;
            });
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
            running.set(false);
            disturber.get(60, TimeUnit.SECONDS);
            reader.get(60, TimeUnit.SECONDS);
        } finally {
            running.set(false);
            pool.shutdownNow();
        }
        assertThat(readerErrors).isEmpty();

        // retried keys: a key whose turn is still there stores nothing; the others are stored again
        store.delete("s");
        for (int w = 0; w < writers; w++) {
            for (int i = 0; i < turns; i++) {
                String text = w + ":" + i;
                store.append("s", List.of(NewEntry.of(UserMessage.from(text))), text);
                store.append("s", List.of(NewEntry.of(UserMessage.from("dup " + text))), text);
            }
        }
        List<Entry> log = store.read("s", 0, Integer.MAX_VALUE);
        assertThat(log).hasSize(writers * turns);
        checkOrder(log);
    }

    /**
     * Each of {@code stores} (separate instances over the same data, as separate application
     * instances) runs {@code threads} threads that append the same {@code keys} keys to one session,
     * each key with that thread's own text: every key is stored once, and every caller of a key gets
     * the entries stored the first time.
     */
    static void sameKeysRacing(List<? extends SessionStore> stores, int threads, int keys) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(stores.size() * threads);
        Map<String, List<Entry>> firstSeen = new java.util.concurrent.ConcurrentHashMap<>();
        List<Throwable> mismatches = Collections.synchronizedList(new ArrayList<>());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int s = 0; s < stores.size(); s++) {
                SessionStore store = stores.get(s);
                for (int t = 0; t < threads; t++) {
                    String writer = s + "-" + t;
                    futures.add(pool.submit(() -> {
                        for (int k = 0; k < keys; k++) {
                            String key = "key-" + k;
                            List<Entry> got = store.append("same-keys", List.of(
                                    NewEntry.of(UserMessage.from(writer + ":" + k))), key);
                            List<Entry> first = firstSeen.putIfAbsent(key, got);
                            if (first != null && !first.equals(got)) {
                                mismatches.add(new AssertionError(key + ": " + got + " != " + first));
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : futures) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(mismatches).isEmpty();
        List<Entry> log = stores.get(0).read("same-keys", 0, Integer.MAX_VALUE);
        assertThat(log).hasSize(keys);
        assertThat(log).extracting(e -> e.idempotencyKey().orElseThrow()).doesNotHaveDuplicates();
    }

    /** Indices increase, no entry is there twice, each writer's entries in order. */
    private static void checkRead(List<Entry> read) {
        assertThat(read).extracting(Entry::index).isSorted().doesNotHaveDuplicates();
        assertThat(read).extracting(Entry::id).doesNotHaveDuplicates();
        List<Entry> appended = read.stream().filter(e -> e.idempotencyKey().isPresent()).toList();
        assertThat(appended).extracting(e -> e.idempotencyKey().get()).doesNotHaveDuplicates();
        checkOrder(read);
    }

    private static void checkOrder(List<Entry> log) {
        Map<String, Integer> last = new HashMap<>();
        for (Entry e : log) {
            String[] parts = ((UserMessage) e.message()).singleText().split(":");
            int i = Integer.parseInt(parts[1]);
            Integer before = last.put(parts[0], i);
            assertThat(before == null || before < i).as("writer %s: %s after %s", parts[0], i, before).isTrue();
        }
    }
}
