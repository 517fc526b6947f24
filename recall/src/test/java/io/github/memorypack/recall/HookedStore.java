package io.github.memorypack.recall;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** A real store with a hook before each read: a slow or failing store at one chosen moment. */
class HookedStore implements SessionStore {

    private final SessionStore store;

    HookedStore(SessionStore store) {
        this.store = store;
    }

    /** Runs before {@link #read}; may wait or throw. */
    void beforeRead(String sessionId, long fromIndex, int maxCount) {
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        return store.append(sessionId, entries, idempotencyKey);
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        beforeRead(sessionId, fromIndex, maxCount);
        return store.read(sessionId, fromIndex, maxCount);
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        return store.readLast(sessionId, count);
    }

    @Override
    public long nextIndex(String sessionId) {
        return store.nextIndex(sessionId);
    }

    @Override
    public SessionState state(String sessionId) {
        return store.state(sessionId);
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        return store.compareAndSetState(sessionId, expectedVersion, newState);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        store.replace(sessionId, entries);
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        store.trim(sessionId, beforeIndex);
    }

    @Override
    public List<String> sessions() {
        return store.sessions();
    }

    @Override
    public void delete(String sessionId) {
        store.delete(sessionId);
    }

    @Override
    public Optional<Path> derivedDataDirectory(String kind) {
        return store.derivedDataDirectory(kind);
    }
}
