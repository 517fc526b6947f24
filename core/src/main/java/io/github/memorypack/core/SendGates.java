package io.github.memorypack.core;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link SendGate}s of one store in this JVM, one per session, so every memory on one session (of
 * any builder or provider) shares one gate. A gate is held weakly: it lives while a turn runs in it or
 * a caller holds it, or while it is among the last-used gates kept in a bounded table (at most 1,024
 * per store), so an idle session beyond those costs nothing here. {@link #of(SessionStore)} finds a store's
 * gates, holding the store weakly and by identity: once the application drops a store and its
 * memories, nothing here keeps them reachable (gates hold no store). Thread-safe.
 */
final class SendGates {

    private static final ReferenceQueue<SessionStore> DROPPED = new ReferenceQueue<>();
    // guarded by the class
    private static final Map<StoreKey, SendGates> STORES = new HashMap<>();
    /** Gates made between two sweeps of the entries whose gate was collected. */
    private static final int SWEEP_EVERY = 256;
    private static final int RECENT = 1_024; // a power of two

    private final boolean inProcessOnly;
    private final ConcurrentMap<String, WeakReference<SendGate>> gates = new ConcurrentHashMap<>();
    private final AtomicInteger made = new AtomicInteger();
    // the gates of the sessions used last, held strongly (one per slot, by the session id's hash): a
    // collection between two calls would otherwise drop a session's idle gate, and the next call would
    // make and publish a new one (several microseconds after a collection, with cold caches). Only
    // gates that are in `gates` are held here, so both always agree; bounded, and a gate holds no store.
    // Slots are read and written without a lock: a stale read is a miss and falls back to `gates`.
    private final SendGate[] recent = new SendGate[RECENT];

    private SendGates(boolean inProcessOnly) {
        this.inProcessOnly = inProcessOnly;
    }

    /** The gates of {@code store}, made when none are held. */
    static SendGates of(SessionStore store) {
        synchronized (SendGates.class) {
            Reference<? extends SessionStore> dropped;
            while ((dropped = DROPPED.poll()) != null) {
                STORES.remove(dropped);
            }
            return STORES.computeIfAbsent(new StoreKey(store, DROPPED), key -> new SendGates(inProcessOnly(store)));
        }
    }

    /** The gate of a session, made when none is held. */
    SendGate gate(String sessionId) {
        int slot = sessionId.hashCode() & (RECENT - 1);
        SendGate recentGate = recent[slot];
        if (recentGate != null && recentGate.sessionId.equals(sessionId)) {
            return recentGate;
        }
        WeakReference<SendGate> held = gates.get(sessionId);
        SendGate gate = held == null ? null : held.get();
        if (gate == null) {
            gate = publish(sessionId);
        }
        recent[slot] = gate;
        return gate;
    }

    /** A new gate for the session, or the one another thread published first. */
    private SendGate publish(String sessionId) {
        SendGate fresh = new SendGate(sessionId);
        WeakReference<SendGate> mine = new WeakReference<>(fresh);
        while (true) {
            WeakReference<SendGate> current = gates.putIfAbsent(sessionId, mine);
            if (current == null) {
                break;
            }
            SendGate other = current.get();
            if (other != null) {
                return other;
            }
            if (gates.replace(sessionId, current, mine)) {
                break;
            }
        }
        if (made.incrementAndGet() % SWEEP_EVERY == 0) {
            gates.values().removeIf(reference -> reference.get() == null);
        }
        return fresh;
    }

    /**
     * True if every process that can reach this store's sessions is this one (the in-memory store, an
     * adapted {@code ChatMemoryStore}, which is atomic only among this process's callers): then the
     * gates alone know what runs, and the log need not be read for it.
     */
    boolean inProcessOnly() {
        return inProcessOnly;
    }

    private static boolean inProcessOnly(SessionStore store) {
        return store instanceof InMemorySessionStore || store instanceof ChatMemoryStoreAdapter;
    }

    /** How many stores hold gates (for tests). */
    static int stores() {
        synchronized (SendGates.class) {
            Reference<? extends SessionStore> dropped;
            while ((dropped = DROPPED.poll()) != null) {
                STORES.remove(dropped);
            }
            return STORES.size();
        }
    }

    /** A store, held weakly and compared by identity. */
    private static final class StoreKey extends WeakReference<SessionStore> {
        private final int hash;

        StoreKey(SessionStore store, ReferenceQueue<SessionStore> queue) {
            super(store, queue);
            this.hash = System.identityHashCode(store);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof StoreKey)) {
                return false;
            }
            Object mine = get();
            return mine != null && mine == ((StoreKey) o).get();
        }
    }
}
