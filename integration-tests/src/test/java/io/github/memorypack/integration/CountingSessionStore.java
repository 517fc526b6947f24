package io.github.memorypack.integration;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A {@link SessionStore} decorator that counts the calls made to it, per {@link Operation}, and the
 * entries it hands out and takes in, so tests can assert how a memory uses its store (for example
 * "a window turn reads only the tail", "one append per message"). Like LangChain4j's
 * {@code HitCountChatMemoryStore}, but for every operation. Only calls made <em>to this
 * decorator</em> are counted: a delegate's own internal calls (say, its {@code getMessages} calling
 * its {@code read}) are not. Thread-safe; behaviour is the delegate's, unchanged.
 */
final class CountingSessionStore implements SessionStore {

    /** The operations that are counted, one per store method. */
    public enum Operation {
        APPEND, READ, READ_LAST, NEXT_INDEX, STATE, COMPARE_AND_SET_STATE, REPLACE, TRIM, SESSIONS, DELETE,
        GET_MESSAGES, UPDATE_MESSAGES, DELETE_MESSAGES
    }

    private final SessionStore delegate;
    private final AtomicLongArray calls = new AtomicLongArray(Operation.values().length);
    private final AtomicLong entriesRead = new AtomicLong();
    private final AtomicLong entriesWritten = new AtomicLong();

    private CountingSessionStore(SessionStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Counts the calls made to {@code delegate} through the returned store. */
    public static CountingSessionStore of(SessionStore delegate) {
        return new CountingSessionStore(delegate);
    }

    /** How often {@code operation} was called since creation or {@link #reset()}. */
    public long count(Operation operation) {
        return calls.get(operation.ordinal());
    }

    /** All counts, every operation included (zeros too). */
    public Map<Operation, Long> counts() {
        Map<Operation, Long> map = new EnumMap<>(Operation.class);
        for (Operation op : Operation.values()) {
            map.put(op, count(op));
        }
        return map;
    }

    /** Calls of every operation together. */
    public long totalCalls() {
        long total = 0;
        for (int i = 0; i < calls.length(); i++) {
            total += calls.get(i);
        }
        return total;
    }

    /** Entries and messages returned by {@code read}, {@code readLast} and {@code getMessages}. */
    public long entriesRead() {
        return entriesRead.get();
    }

    /** Entries and messages handed to {@code append}, {@code replace} and {@code updateMessages}. */
    public long entriesWritten() {
        return entriesWritten.get();
    }

    /** Sets every count back to zero. */
    public void reset() {
        for (int i = 0; i < calls.length(); i++) {
            calls.set(i, 0);
        }
        entriesRead.set(0);
        entriesWritten.set(0);
    }

    /** The decorated store. */
    public SessionStore delegate() {
        return delegate;
    }

    private void hit(Operation operation) {
        calls.incrementAndGet(operation.ordinal());
    }

    private <T extends List<?>> T counted(T result) {
        entriesRead.addAndGet(result.size());
        return result;
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        hit(Operation.APPEND);
        entriesWritten.addAndGet(entries.size());
        return delegate.append(sessionId, entries, idempotencyKey);
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        hit(Operation.READ);
        return counted(delegate.read(sessionId, fromIndex, maxCount));
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        hit(Operation.READ_LAST);
        return counted(delegate.readLast(sessionId, count));
    }

    @Override
    public long nextIndex(String sessionId) {
        hit(Operation.NEXT_INDEX);
        return delegate.nextIndex(sessionId);
    }

    @Override
    public SessionState state(String sessionId) {
        hit(Operation.STATE);
        return delegate.state(sessionId);
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        hit(Operation.COMPARE_AND_SET_STATE);
        return delegate.compareAndSetState(sessionId, expectedVersion, newState);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        hit(Operation.REPLACE);
        entriesWritten.addAndGet(entries.size());
        delegate.replace(sessionId, entries);
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        hit(Operation.TRIM);
        delegate.trim(sessionId, beforeIndex);
    }

    @Override
    public List<String> sessions() {
        hit(Operation.SESSIONS);
        return delegate.sessions();
    }

    @Override
    public void delete(String sessionId) {
        hit(Operation.DELETE);
        delegate.delete(sessionId);
    }

    @Override
    public List<ChatMessage> getMessages(Object memoryId) {
        hit(Operation.GET_MESSAGES);
        return counted(delegate.getMessages(memoryId));
    }

    @Override
    public void updateMessages(Object memoryId, List<ChatMessage> messages) {
        hit(Operation.UPDATE_MESSAGES);
        entriesWritten.addAndGet(messages == null ? 0 : messages.size()); // null is the store's to refuse
        delegate.updateMessages(memoryId, messages);
    }

    @Override
    public void deleteMessages(Object memoryId) {
        hit(Operation.DELETE_MESSAGES);
        delegate.deleteMessages(memoryId);
    }

    @Override
    public String toString() {
        return "CountingSessionStore" + counts() + " over " + delegate;
    }
}
