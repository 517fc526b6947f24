package io.github.memorypack.core;

import java.util.List;

/**
 * Applies a builder's {@link Retention} to the logs of its memories: trims a log after a view or a
 * {@code clear()}, never at or after the first index a view of the memory still needs. Remembers,
 * per memory, where its log was last known to start, so a view that trims nothing reads nothing.
 * Thread-safe; one instance per {@link SessionMemory.Shared}.
 */
final class Retainer {

    private final SessionStore store;
    private final Retention retention;

    Retainer(SessionStore store, Retention retention) {
        this.store = store;
        this.retention = retention;
    }

    /**
     * Lets the retention policy trim the log, never at or after {@code neededFrom} (the first index
     * any view of {@code memory} still needs).
     */
    void retain(SessionMemory memory, long neededFrom) {
        if (!retention.trims()) {
            return;
        }
        String sessionId = memory.sessionId();
        long first = memory.firstRetained();
        if (first < 0) {
            List<Entry> oldest = store.read(sessionId, 0, 1);
            if (oldest.isEmpty()) {
                return;
            }
            first = oldest.get(0).index();
        }
        long cut = Math.min(retention.trimBefore(first, store.nextIndex(sessionId)), neededFrom);
        if (cut > first) {
            store.trim(sessionId, cut);
            first = cut;
        }
        memory.firstRetained(first);
    }
}
