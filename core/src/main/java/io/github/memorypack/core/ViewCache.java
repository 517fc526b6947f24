package io.github.memorypack.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last view of each memory, so the next one can extend it, bounded: a long-running server that
 * has seen 100,000 sessions keeps at most {@code capacity} views (least recently used first out),
 * whatever number of memory objects {@code AiServices} holds. A memory whose view was dropped just
 * reads its tail again. Shared by the memories of one builder or provider; thread-safe.
 */
final class ViewCache {

    /** Views kept per builder or provider unless set otherwise. */
    static final int DEFAULT_CAPACITY = 1_000;

    private final int capacity;
    private final Map<SessionMemory, Cached> views;

    ViewCache(int capacity) {
        this.capacity = capacity;
        this.views = new LinkedHashMap<>(Math.min(capacity, 1024) * 4 / 3 + 1, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<SessionMemory, Cached> eldest) {
                return size() > ViewCache.this.capacity;
            }
        };
    }

    int capacity() {
        return capacity;
    }

    synchronized View get(SessionMemory memory) {
        Cached cached = views.get(memory);
        return cached == null ? null : cached.view;
    }

    synchronized void put(SessionMemory memory, View view) {
        if (capacity == 0) {
            return;
        }
        Cached cached = views.get(memory);
        views.put(memory, new Cached(view, cached == null ? 0 : cached.readHint));
    }

    synchronized void remove(SessionMemory memory) {
        views.remove(memory);
    }

    /** How many entries the memory's last full read took: a good first read for the next one. */
    synchronized int readHint(SessionMemory memory) {
        Cached cached = views.get(memory);
        return cached == null ? 0 : cached.readHint;
    }

    synchronized void hint(SessionMemory memory, int readCount) {
        if (capacity == 0) {
            return;
        }
        Cached cached = views.get(memory);
        views.put(memory, new Cached(cached == null ? null : cached.view, readCount));
    }

    /** How many views are held (for tests and the heap benchmark). */
    synchronized int size() {
        return views.size();
    }

    private static final class Cached {
        final View view;
        final int readHint;

        Cached(View view, int readHint) {
            this.view = view;
            this.readHint = readHint;
        }
    }
}
