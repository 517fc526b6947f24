package io.github.memorypack.core;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The last view of each memory, so the next one can extend it, bounded: a long-running server that
 * has seen 100,000 sessions keeps at most {@code capacity} views (the least recently used go first,
 * approximately: an entry used since it last came up for eviction gets a second chance),
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
    // guarded by this; insertion order, with a second chance for entries used since they last came up
    // for eviction (CLOCK): a memory's own reads and writes of its entry go through its key, without
    // the lock, so they do not reorder the map
    private final Map<Key, Cached> views;

    ViewCache(int capacity) {
        this.capacity = capacity;
        this.views = new LinkedHashMap<>(Math.min(capacity, 1024) * 4 / 3 + 1, 0.75f, true);
    }

    int capacity() {
        return capacity;
    }

    View get(SessionMemory memory) {
        Cached cached = memory.cacheKey().cached;
        if (cached == null) {
            return null;
        }
        if (!cached.used) {
            cached.used = true;
        }
        return cached.view;
    }

    void put(SessionMemory memory, View view) {
        if (capacity == 0) {
            return;
        }
        Key key = memory.cacheKey();
        Cached cached = key.cached;
        if (cached != null) {
            // every view a memory reads replaces its last in place: no lock, no entry to make or hash again.
            // Racing an eviction or a remove, the write lands in an entry no key reaches any more: a miss
            cached.view = view;
            cached.used = true;
            return;
        }
        insert(key, view, 0);
    }

    private synchronized void insert(Key key, View view, int readHint) {
        Cached cached = key.cached;
        if (cached != null) {
            cached.view = view;
            return;
        }
        // the dropped memories' views go when a new one comes in (the map never outgrows its capacity
        // either way): a memory's every view does not pay for the others' removal after a collection
        expunge();
        cached = new Cached(view, readHint);
        views.put(key, cached);
        key.cached = cached;
        int chances = views.size(); // bounded: calls that use their entries meanwhile cannot keep it going
        while (views.size() > capacity) {
            Map.Entry<Key, Cached> eldest = views.entrySet().iterator().next();
            Cached old = eldest.getValue();
            if (chances-- > 0 && (old.used || old == cached)) {
                old.used = false;
                views.get(eldest.getKey()); // a second chance: to the young end (the map is in access order)
            } else {
                views.remove(eldest.getKey());
                eldest.getKey().cached = null;
            }
        }
    }

    synchronized void remove(SessionMemory memory) {
        Key key = memory.cacheKey();
        key.cached = null; // first: from now on no call of this memory reaches the entry
        views.remove(key);
    }

    /** How many entries the memory's last full read took: a good first read for the next one. */
    int readHint(SessionMemory memory) {
        Cached cached = memory.cacheKey().cached;
        return cached == null ? 0 : cached.readHint;
    }

    synchronized void hint(SessionMemory memory, int readCount) {
        if (capacity == 0) {
            return;
        }
        Key key = memory.cacheKey();
        Cached cached = key.cached;
        if (cached != null) {
            cached.readHint = readCount;
        } else {
            insert(key, null, readCount);
        }
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
            ((Key) gone).cached = null;
        }
    }

    /**
     * A memory, held weakly; equal only to itself (one key per memory). It also points to the memory's
     * entry while the map holds it (set and cleared under the cache's monitor), so the memory's own
     * calls reach its view without a lookup or the lock.
     */
    static final class Key extends WeakReference<SessionMemory> {
        volatile Cached cached;

        Key(SessionMemory memory, ReferenceQueue<SessionMemory> queue) {
            super(memory, queue);
        }
    }

    /** A memory's last view and read size, and whether it was used since it last came up for eviction. */
    static final class Cached {
        volatile View view;
        volatile int readHint;
        // racy on purpose: a lost update only changes which entry is evicted first
        boolean used;

        Cached(View view, int readHint) {
            this.view = view;
            this.readHint = readHint;
        }
    }
}
