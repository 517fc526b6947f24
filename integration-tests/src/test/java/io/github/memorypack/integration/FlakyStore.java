package io.github.memorypack.integration;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store whose n-th write from now fails before it does anything, as a store does when its
 * server goes away between two calls: shows whether an operation made of several writes can be
 * left half done. Reads always work. The default {@code ChatMemoryStore} methods go through the
 * counted ones.
 */
final class FlakyStore implements SessionStore {

    private final SessionStore delegate;
    private final AtomicInteger writesUntilFailure = new AtomicInteger(-1);
    private volatile boolean stateWritesFail;

    FlakyStore(SessionStore delegate) {
        this.delegate = delegate;
    }

    /** Makes the {@code n}-th write from now (1 = the next one) fail; the others go through. */
    void failWrite(int n) {
        writesUntilFailure.set(n);
    }

    /** Makes every state write from now fail (the state's server went away; appends still work). */
    void failStateWrites() {
        stateWritesFail = true;
    }

    private void write(String operation) {
        if (writesUntilFailure.get() > 0 && writesUntilFailure.decrementAndGet() == 0) {
            throw new StoreException("injected failure of " + operation);
        }
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        write("append");
        return delegate.append(sessionId, entries, idempotencyKey);
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        return delegate.read(sessionId, fromIndex, maxCount);
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        return delegate.readLast(sessionId, count);
    }

    @Override
    public long nextIndex(String sessionId) {
        return delegate.nextIndex(sessionId);
    }

    @Override
    public SessionState state(String sessionId) {
        return delegate.state(sessionId);
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        if (stateWritesFail) {
            throw new StoreException("injected failure of every state write");
        }
        write("compareAndSetState");
        return delegate.compareAndSetState(sessionId, expectedVersion, newState);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        write("replace");
        delegate.replace(sessionId, entries);
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        write("trim");
        delegate.trim(sessionId, beforeIndex);
    }

    @Override
    public List<String> sessions() {
        return delegate.sessions();
    }

    @Override
    public void delete(String sessionId) {
        write("delete");
        delegate.delete(sessionId);
    }
}
