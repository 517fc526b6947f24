package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends to a session's log for the memories of one builder or provider: each {@code add} call is
 * one atomic store append of entries carrying their token counts (counted once, here), their turn,
 * request and attempt tags ({@link RequestTurns}) and the request's next idempotency key; a change of
 * the system message or a summary coming back goes to the state together with its log record (or is
 * undone). It also writes the end record of a turn whose request ended without an answer.
 * Thread-safe; one instance per {@link SessionMemory.Shared}.
 */
final class Appender {

    private static final Logger LOG = LoggerFactory.getLogger(Appender.class);

    private final SessionStore store;
    private final TokenCountEstimator tokenizer;
    private final ViewCache cache;
    private final Clock clock;

    Appender(SessionStore store, TokenCountEstimator tokenizer, ViewCache cache, Clock clock) {
        this.store = store;
        this.tokenizer = tokenizer;
        this.cache = cache;
        this.clock = clock;
    }

    /**
     * Appends messages as one atomic store append. A system message equal to the current one is a
     * no-op; a different one is appended as a record and becomes the state's system message (the
     * append keyed by the change, so requests that make the same change at once store it once). A
     * summary message (from this memory's own view) goes back to the state, never to the log. Each
     * entry carries its turn, request and attempt ({@link RequestTurns}); a user message that starts a
     * request is admitted first ({@link ConcurrentSends}); the append carries the request's next
     * idempotency key.
     *
     * @return the messages appended that are not system messages (what may end a turn)
     * @throws SessionBusyException if another request's turn runs and the setting refuses this one
     * @throws StoreException if the store failed; a change of the system message that could not reach
     *         the state is undone in the log first
     */
    List<ChatMessage> add(SessionMemory memory, List<ChatMessage> messages) {
        String sessionId = memory.sessionId();
        RequestTurns turns = RequestTurns.of(memory);
        ChatMessage only = messages.size() == 1 ? messages.get(0) : null;
        if (only != null && !(only instanceof SystemMessage) && !(only instanceof SummaryBlock)) {
            // what AiServices adds every time: one conversation message, so the state is read only for a hashed id
            SessionState state = SessionIds.isHashed(sessionId) ? store.state(sessionId) : null;
            append(sessionId, turns, List.of(turns.entry(only, count(only))), turns.key());
            rememberMemoryId(memory, state);
            return messages;
        }
        SessionState state = store.state(sessionId);
        SystemMessage system = null;
        boolean systemChanged = false;
        String summaryText = null;
        int summaryAt = -1;
        List<NewEntry> batch = new ArrayList<>(messages.size());
        List<ChatMessage> conversation = new ArrayList<>(messages.size());
        SystemMessage current = state.systemMessage().orElse(null);
        for (ChatMessage message : messages) {
            if (message instanceof SummaryMessage || message instanceof SummaryBlock) {
                summaryText = message instanceof SummaryMessage ? ((SummaryMessage) message).summaryText()
                        : ((SummaryBlock) message).summaryText();
                summaryAt = batch.size();
                if (message instanceof SummaryMessage && ((SummaryMessage) message).applicationSystemMessage().isPresent()) {
                    message = ((SummaryMessage) message).applicationSystemMessage().get();
                } else {
                    continue;
                }
            }
            if (message instanceof SystemMessage) {
                SystemMessage candidate = (SystemMessage) message;
                if (candidate.equals(system == null ? current : system)) {
                    continue;
                }
                system = candidate;
                systemChanged = true;
                batch.add(turns.entry(candidate, count(candidate)));
                continue;
            }
            batch.add(turns.entry(message, count(message)));
            conversation.add(message);
        }
        if (batch.isEmpty() && summaryText == null) {
            return conversation;
        }
        // the same change of the system message, made by requests at once, is one keyed append
        String key = batch.size() == 1 && systemChanged ? systemKey(state, system) : turns.key();
        List<Entry> stored = batch.isEmpty() ? List.of() : append(sessionId, turns, batch, key);
        rememberMemoryId(memory, state);
        if (systemChanged || summaryText != null) {
            long systemIndex = -1;
            for (Entry entry : stored) {
                if (entry.message() instanceof SystemMessage) {
                    systemIndex = entry.index();
                }
            }
            long coveredUntil = summaryAt < 0 ? -1
                    : summaryAt < stored.size() ? stored.get(summaryAt).index() : store.nextIndex(sessionId);
            updateStateOrUndo(memory, stored, key, systemChanged ? system : null, false, systemIndex, summaryText,
                    coveredUntil, "add");
        }
        return conversation;
    }

    /** Appends {@code batch} for {@code turns}; the turns it starts or closes follow the outcome. */
    List<Entry> append(String sessionId, RequestTurns turns, List<NewEntry> batch, String key) {
        List<Entry> stored;
        try {
            stored = store.append(sessionId, batch, key);
        } catch (RuntimeException e) {
            turns.failed();
            throw e;
        }
        turns.stored();
        return stored;
    }

    /**
     * The idempotency key of a change to {@code system}: the same for every request that changes the
     * system message of the same state to the same text (the log position the change replaces, and a
     * digest of the new message).
     */
    private static String systemKey(SessionState state, SystemMessage system) {
        long replaces = Math.max(Records.longAttribute(state, Records.SYSTEM_INDEX, -1),
                Records.longAttribute(state, Records.CLEARED_AT, -1));
        return "memory-pack.system#" + replaces + "#" + Records.digest(system.text());
    }

    /** Under a hashed session id, keeps the memory id in the state if {@code before} (read before the append) lacks it. */
    private void rememberMemoryId(SessionMemory memory, SessionState before) {
        if (SessionIds.isHashed(memory.sessionId())
                && !before.attributes().containsKey(SessionIds.MEMORY_ID_ATTRIBUTE)) {
            SessionIds.remember(store, memory.sessionId(), memory.id());
        }
    }

    /** The token count an entry of {@code message} is stored with ({@link Entry#UNKNOWN_TOKENS} when nothing counts). */
    int count(ChatMessage message) {
        return tokenizer == null ? Entry.UNKNOWN_TOKENS : tokenizer.estimateTokenCountInMessage(message);
    }

    /**
     * {@link #updateState} after an append that holds the change: log and state change together or not
     * at all. When the state cannot be written, the entries just appended are superseded again (one
     * set record: views show what they showed before), and the failure is thrown; when that undo fails
     * too, its failure is added as suppressed and views follow the log until the next update.
     */
    void updateStateOrUndo(SessionMemory memory, List<Entry> appended, String key, SystemMessage system,
            boolean removeSystem, long systemIndex, String summaryText, long coveredUntil, String call) {
        String sessionId = memory.sessionId();
        try {
            updateState(sessionId, system, removeSystem, systemIndex, summaryText, coveredUntil);
        } catch (StoreException e) {
            List<Long> indices = new ArrayList<>(appended.size());
            for (Entry entry : appended) {
                indices.add(entry.index());
            }
            throw undo(memory, indices, key, e, call + "() on chat memory " + sessionId + " could not store the"
                    + " session state; the messages it appended were superseded again, so views and state are as"
                    + " before", call + "() on chat memory " + sessionId + " could not store the session state, nor"
                    + " undo its append: views show the change, the state does not until its next update");
        }
    }

    /**
     * Undoes an append whose state write failed ({@code cause}): supersedes its entries at {@code indices}
     * again with one set record (keyed after {@code key}, so a retry undoes once), so views show what they
     * showed before. Returns the failure to throw: {@code undone} when that worked, else {@code notUndone}
     * with the undo's failure added as suppressed.
     */
    StoreException undo(SessionMemory memory, List<Long> indices, String key, StoreException cause, String undone,
                        String notUndone) {
        StoreException failure = new StoreException(undone, cause);
        if (!indices.isEmpty()) {
            try {
                store.append(memory.sessionId(), List.of(NewEntry.of(Records.set(indices), 0)),
                        key == null ? null : key + "#undo");
            } catch (RuntimeException undo) {
                failure = new StoreException(notUndone, cause);
                failure.addSuppressed(undo);
            }
        }
        cache.remove(memory);
        return failure;
    }

    /**
     * Stores a new system message (recorded at {@code systemIndex}; none if {@code removeSystem}) and/or summary, retrying on
     * conflicts. A crash before this leaves the log record, which views take over the state anyway.
     */
    private void updateState(String sessionId, SystemMessage system, boolean removeSystem, long systemIndex,
            String summaryText, long coveredUntil) {
        while (true) {
            SessionState state = store.state(sessionId);
            SessionState next = state;
            Map<String, String> attributes = new HashMap<>(state.attributes());
            if (system != null || removeSystem) {
                next = next.withSystemMessage(system);
                attributes.put(Records.SYSTEM_INDEX, Long.toString(systemIndex));
            }
            Summary old = state.summary().orElse(null);
            if (summaryText != null && !summaryText.isBlank() && (old == null || !old.text().equals(summaryText))) {
                // a summary coming back (after clear(), or edited through set()): it covers what it covered,
                // or, when the state has none any more, everything before the messages that follow it
                long covers = old != null ? old.coveredUntil() : Math.max(0, coveredUntil);
                next = next.withSummary(new Summary(summaryText, covers, Entry.UNKNOWN_TOKENS, clock.instant()));
            }
            next = next.withAttributes(attributes);
            if (next.equals(state) || store.compareAndSetState(sessionId, state.version(), next).isPresent()) {
                return;
            }
        }
    }

    /** Ends {@code turn} (its request completed or failed without closing it): an end record, then the gate. */
    void endTurn(SessionMemory memory, SendGate.RunningTurn turn) {
        try {
            store.append(memory.sessionId(), List.of(NewEntry.of(Records.end(turn.turn), 0)), turn.turn + "#end");
        } catch (RuntimeException e) {
            LOG.warn("could not record in chat memory {} that the request of {} ended; it ends after openTurnTimeout",
                    memory.sessionId(), turn, e);
        } finally {
            turn.gate.finish(turn);
            cache.remove(memory);
        }
    }
}
