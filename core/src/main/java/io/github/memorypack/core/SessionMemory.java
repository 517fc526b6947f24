package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The plumbing every memory strategy shares: one session of one store, appends with token counts
 * computed once, idempotency keys from {@link RequestScope}, the system message kept in the state,
 * tail reads that grow only when a view needs more, overflow reports and retention. Thread-safe;
 * one instance per memory.
 */
public final class SessionMemory {

    private final Object id;
    private final String sessionId;
    private final SessionStore store;
    private final TokenCountEstimator tokenizer;
    private final Retention retention;
    private final OverflowListener listener;
    private volatile long firstRetained = -1;
    private volatile int lastReadCount;
    // the last tail view: the next one is usually this one plus a few appended messages
    private volatile View lastTail;

    /**
     * @param id        the LangChain4j memory id; validated with {@link SessionIds#of}
     * @param tokenizer counts each appended message once; {@code null} stores {@link Entry#UNKNOWN_TOKENS}
     * @throws io.github.memorypack.core.InvalidSessionIdException if the id is not valid
     */
    public SessionMemory(Object id, SessionStore store, TokenCountEstimator tokenizer, Retention retention,
                         OverflowListener listener) {
        this.sessionId = SessionIds.of(id);
        this.id = id;
        this.store = Objects.requireNonNull(store, "store");
        this.tokenizer = tokenizer;
        this.retention = Objects.requireNonNull(retention, "retention");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    public Object id() {
        return id;
    }

    public String sessionId() {
        return sessionId;
    }

    public SessionStore store() {
        return store;
    }

    /** The session's current state. */
    public SessionState state() {
        return store.state(sessionId);
    }

    /**
     * Appends one message. A {@link SystemMessage} equal to the state's is a no-op; a different one
     * becomes the state's system message (compare-and-set, retried on conflict) and is appended to
     * the log as a record of the change. Inside a {@link RequestScope} the append carries the
     * scope's next key for this session, so a retried request stores its turn once.
     */
    public void add(ChatMessage message) {
        Objects.requireNonNull(message, "message");
        String key = RequestScope.nextKey(sessionId);
        if (message instanceof SystemMessage && !replaceSystemMessage((SystemMessage) message)) {
            return;
        }
        store.append(sessionId, List.of(newEntry(message)), key);
    }

    /** True if the state now holds {@code message} and did not before. */
    private boolean replaceSystemMessage(SystemMessage message) {
        while (true) {
            SessionState state = store.state(sessionId);
            if (message.equals(state.systemMessage().orElse(null))) {
                return false;
            }
            if (store.compareAndSetState(sessionId, state.version(), state.withSystemMessage(message)).isPresent()) {
                return true;
            }
        }
    }

    /**
     * Replaces the log with {@code messages} in one store call and clears the summary; the last
     * system message among them (or none) becomes the state's system message.
     *
     * @throws IllegalArgumentException if {@code messages} is empty
     */
    public void set(Iterable<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        List<NewEntry> entries = new ArrayList<>();
        SystemMessage system = null;
        for (ChatMessage message : messages) {
            Objects.requireNonNull(message, "messages must not contain null");
            if (message instanceof SystemMessage) {
                system = (SystemMessage) message;
            }
            entries.add(newEntry(message));
        }
        if (entries.isEmpty()) {
            throw new IllegalArgumentException("messages must not be empty");
        }
        store.replace(sessionId, entries);
        firstRetained = -1;
        lastTail = null;
        while (true) {
            SessionState state = store.state(sessionId);
            SessionState next = state.withSystemMessage(system).withSummary(null);
            if (store.compareAndSetState(sessionId, state.version(), next).isPresent()) {
                return;
            }
        }
    }

    /** Deletes the session: log, state and idempotency keys. */
    public void clear() {
        store.delete(sessionId);
        firstRetained = -1;
        lastTail = null;
    }

    /**
     * The view over the tail of the log. When the last tail view of this memory can be extended
     * ({@link ViewRules#extend}), only the entries appended since are read, from the last entry that
     * view saw (which must still be there, with the same id: otherwise the log was replaced or
     * deleted meanwhile). Otherwise reads the last {@code firstRead} entries and reads twice as many,
     * again and again, only while the view could still take older turns.
     */
    public View tail(ViewRules rules, ViewLimit limit, int firstRead) {
        SessionState state = store.state(sessionId);
        View previous = lastTail;
        if (previous != null && previous.extendable()) {
            List<Entry> fresh = store.read(sessionId, previous.lastIndex(), Integer.MAX_VALUE);
            if (!fresh.isEmpty() && previous.computedThrough(fresh.get(0))) {
                Optional<View> extended = rules.extend(previous, state, fresh.subList(1, fresh.size()), limit);
                if (extended.isPresent()) {
                    lastTail = extended.get();
                    return extended.get();
                }
            }
        }
        View view = readTail(rules, state, limit, firstRead);
        lastTail = view;
        return view;
    }

    private View readTail(ViewRules rules, SessionState state, ViewLimit limit, int firstRead) {
        int count = Math.max(1, firstRead);
        while (true) {
            List<Entry> entries = store.readLast(sessionId, count);
            View view = rules.render(state, entries, limit);
            if (!view.needsOlderEntries() || entries.size() < count || count == Integer.MAX_VALUE) {
                lastReadCount = count;
                return view;
            }
            count = count > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : count * 2;
        }
    }

    /** The view over every entry from {@code fromIndex} on. */
    public View from(ViewRules rules, ViewLimit limit, long fromIndex) {
        SessionState state = store.state(sessionId);
        return rules.render(state, store.read(sessionId, fromIndex, Integer.MAX_VALUE), limit);
    }

    /** How many entries the last {@link #tail} read; a good first read for the next one. */
    public int lastReadCount() {
        return lastReadCount;
    }

    /** Reports the view's overflow, if any, and applies retention below what the view shows. */
    public void afterView(View view) {
        view.overflow(sessionId).ifPresent(listener::onOverflow);
        if (view.firstIndex() >= 0) {
            retain(view.firstIndex());
        }
    }

    /**
     * Lets the retention policy trim the log, never at or after {@code neededFrom} (the first index
     * any view of this memory still needs).
     */
    public void retain(long neededFrom) {
        if (!retention.trims()) {
            return;
        }
        long first = firstRetained;
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
        firstRetained = first;
    }

    private NewEntry newEntry(ChatMessage message) {
        return NewEntry.of(message, tokenizer == null ? Entry.UNKNOWN_TOKENS : tokenizer.estimateTokenCountInMessage(message));
    }
}
