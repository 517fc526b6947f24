package io.github.memorypack.core;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last view of each memory, so the next one can extend it, bounded: a long-running server that
 * has seen 100,000 sessions keeps at most {@code capacity} views (least recently used first out),
 * whatever number of memory objects {@code AiServices} holds. A memory whose view was dropped just
 * reads its tail again. Memories are held weakly (a view holds no store): a cache shared by every
 * memory of the JVM keeps neither the memories nor their stores reachable once the application
 * drops them; the views of dropped memories leave the cache when a new memory's view comes in. Shared
 * by the memories of one builder or provider, or of the JVM; thread-safe.
 */
final class ViewCache {

    /** Views kept per builder or provider unless set otherwise. */
    static final int DEFAULT_CAPACITY = 1_000;

    private final int capacity;
    private final ReferenceQueue<SessionMemory> dropped = new ReferenceQueue<>();
    private final Map<Key, Cached> views;

    ViewCache(int capacity) {
        this.capacity = capacity;
        this.views = new LinkedHashMap<>(Math.min(capacity, 1024) * 4 / 3 + 1, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Cached> eldest) {
                return size() > ViewCache.this.capacity;
            }
        };
    }

    int capacity() {
        return capacity;
    }

    synchronized View get(SessionMemory memory) {
        Cached cached = views.get(memory.cacheKey());
        return cached == null ? null : cached.view;
    }

    synchronized void put(SessionMemory memory, View view) {
        if (capacity == 0) {
            return;
        }
        Key key = memory.cacheKey();
        Cached cached = views.get(key); // most recently used now (the map is in access order)
        if (cached != null) {
            cached.view = view; // every view a memory reads replaces its last: no entry to make or hash again
        } else {
            // the dropped memories' views go when a new one comes in (the map never outgrows its capacity
            // either way): a memory's every view does not pay for the others' removal after a collection
            expunge();
            views.put(key, new Cached(view, 0));
        }
    }

    synchronized void remove(SessionMemory memory) {
        views.remove(memory.cacheKey());
    }

    /** How many entries the memory's last full read took: a good first read for the next one. */
    synchronized int readHint(SessionMemory memory) {
        Cached cached = views.get(memory.cacheKey());
        return cached == null ? 0 : cached.readHint;
    }

    synchronized void hint(SessionMemory memory, int readCount) {
        if (capacity == 0) {
            return;
        }
        expunge();
        Key key = memory.cacheKey();
        Cached cached = views.get(key);
        views.put(key, new Cached(cached == null ? null : cached.view, readCount));
    }

    /** How many views are held (for tests and the heap benchmark). */
    synchronized int size() {
        expunge();
        return views.size();
    }

    /** A key for {@code memory}: made once per memory, so lookups allocate nothing. */
    Key keyFor(SessionMemory memory) {
        return new Key(memory, dropped);
    }

    private void expunge() {
        Reference<? extends SessionMemory> gone;
        while ((gone = dropped.poll()) != null) {
            views.remove(gone);
        }
    }

    /** A memory, held weakly; equal only to itself (one key per memory). */
    static final class Key extends WeakReference<SessionMemory> {
        Key(SessionMemory memory, ReferenceQueue<SessionMemory> queue) {
            super(memory, queue);
        }
    }

    /** A memory's last view and read size; changed only under the cache's monitor. */
    private static final class Cached {
        View view;
        final int readHint;

        Cached(View view, int readHint) {
            this.view = view;
            this.readHint = readHint;
        }
    }
}
