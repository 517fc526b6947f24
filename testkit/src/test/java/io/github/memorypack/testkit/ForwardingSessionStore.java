package io.github.memorypack.testkit;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import java.util.List;
import java.util.Optional;

/** Forwards every call; the broken stores of {@link SessionStoreContractSelfTest} override one rule each. */
abstract class ForwardingSessionStore implements SessionStore {

    final SessionStore delegate;

    ForwardingSessionStore(SessionStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
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
        return delegate.compareAndSetState(sessionId, expectedVersion, newState);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        delegate.replace(sessionId, entries);
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        delegate.trim(sessionId, beforeIndex);
    }

    @Override
    public List<String> sessions() {
        return delegate.sessions();
    }

    @Override
    public void delete(String sessionId) {
        delegate.delete(sessionId);
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        return delegate.getMessages(memoryId);
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        delegate.updateMessages(memoryId, messages);
    }

    @Override
    public void deleteMessages(Object memoryId) {
        delegate.deleteMessages(memoryId);
    }
}
