package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads views for the memories of one builder or provider: the tail of the log, as little of it as
 * the view needs (doubling the read while older turns could still be shown), extending a memory's
 * last view from its {@link ViewCache} when only plain turns were appended since; a new request's
 * wait for another request's running turn ({@link ConcurrentSends#queue()}); and what follows a
 * view shown (the listener told, a chunked window's start stored, retention below it). Thread-safe;
 * one instance per {@link SessionMemory.Shared}.
 */
final class Views {

    private static final Logger LOG = LoggerFactory.getLogger(Views.class);

    private final SessionMemory.Shared shared;

    Views(SessionMemory.Shared shared) {
        this.shared = shared;
    }

    /**
     * The view over the tail of the log for the calling request. When this memory's last view can be
     * extended ({@link ViewRules#extend}) for this caller, only the entries appended since are read.
     * Otherwise reads the last {@code firstRead} entries, and twice as many again and again, while
     * the view could still take older turns (or the caller's own turn starts before them). A view
     * that depends on who asks (it hid a turn) is not kept for the next read.
     */
    View tail(SessionMemory memory, SessionState state, ViewLimit limit, int firstRead, MemoryStrategy strategy) {
        RequestTurns turns = RequestTurns.of(memory);
        SendGate.RunningTurn own = turns.own();
        boolean cacheable = turns.requestId() == null;
        // a token limit read by a new request leaves room for its question: computed anew every time
        boolean extensible = cacheable && !(own == null && limit.countsTokens() && limit.cuts());
        ViewCache cache = shared.cache;
        if (extensible) {
            View previous = cache.get(memory);
            if (previous != null && previous.extendable()) {
                List<Entry> fresh = shared.store.read(memory.sessionId(), previous.lastIndex(), Integer.MAX_VALUE);
                if (!fresh.isEmpty() && previous.computedThrough(fresh.get(0))) {
                    Optional<View> extended =
                            shared.rules.extend(previous, state, fresh.subList(1, fresh.size()), limit, strategy);
                    if (extended.isPresent() && extended.get().fitsCaller(own == null ? null : own.turn)) {
                        cache.put(memory, extended.get());
                        return extended.get();
                    }
                }
            }
        }
        View view = readTail(memory, state, limit, Math.max(firstRead, cache.readHint(memory)), turns.context(),
                strategy);
        // a view cut with room for a question would extend wrongly once the question is in: not kept either
        if (extensible && !view.hiddenAny()) {
            cache.put(memory, view);
        } else {
            cache.remove(memory);
        }
        return view;
    }

    private View readTail(SessionMemory memory, SessionState state, ViewLimit limit, int firstRead,
                          Dialogue.Context context, MemoryStrategy strategy) {
        int count = Math.max(1, firstRead);
        while (true) {
            List<Entry> entries = shared.store.readLast(memory.sessionId(), count);
            boolean fromStart = entries.size() < count;
            View view = shared.rules.render(state, entries, fromStart, limit, context, strategy);
            if (!view.needsOlderEntries() || fromStart || count == Integer.MAX_VALUE) {
                shared.cache.hint(memory, count);
                return view;
            }
            count = count > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : count * 2;
        }
    }

    /** The dialogue of every entry from {@code fromIndex} on, for the calling request's view. */
    Dialogue dialogueFrom(SessionMemory memory, SessionState state, long fromIndex) {
        List<Entry> entries = shared.store.read(memory.sessionId(), fromIndex, Integer.MAX_VALUE);
        return Dialogue.of(state, entries, true, memory.viewContext());
    }

    /**
     * Under {@link ConcurrentSends#queue()}, a view for a caller that runs no turn (a request about to
     * start) that had to leave out another request's running turn waits until that turn has closed,
     * reading the view again (after a pause that grows from 5 to 200 ms, or at once when a turn of this
     * process closes), so the request continues from it. At most {@code maxWait}: then the view without
     * that turn is returned, and the request's user message that follows is refused if it still runs.
     * Under {@code refuse} and {@code branch}, or for a caller that runs a turn, {@code first}.
     */
    View awaitOtherRequests(SessionMemory memory, View first, Supplier<View> again) {
        if (first.hiddenRunning() == 0 || shared.sends.mode() != ConcurrentSends.Mode.QUEUE) {
            return first;
        }
        RequestTurns turns = RequestTurns.of(memory);
        if (turns.own() != null) {
            return first;
        }
        long deadline = System.nanoTime() + shared.sends.maxWait().toNanos();
        long pause = SendGate.FIRST_PAUSE_NANOS;
        View view = first;
        while (view.hiddenRunning() > 0) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                break;
            }
            turns.gate.pause(Math.min(pause, remaining));
            pause = Math.min(pause * 2, SendGate.MAX_PAUSE_NANOS);
            view = again.get();
        }
        turns.scope.waited(turns.gate, deadline);
        return view;
    }

    /** A mutable copy of the view's messages, after {@link #afterView}. */
    List<ChatMessage> show(SessionMemory memory, View view) {
        afterView(memory, view);
        return new ArrayList<>(view.messages());
    }

    /** Tells the listener about the view (and its overflow, if any), and applies retention below what it shows. */
    void afterView(SessionMemory memory, View view) {
        String sessionId = memory.sessionId();
        if (view.limit().isChunked()) {
            keepAnchor(memory, view);
        }
        if (shared.accounting != null) {
            shared.accounting.bind(sessionId, shared.strategy);
        }
        MemoryListener listener = shared.listener;
        if (listener != MemoryListener.logging() && listener != MemoryListener.NONE) {
            listener.onView(new MemoryListener.ViewShown(sessionId, shared.strategy, view.messages().size(),
                    tokens(view)));
        }
        view.overflow(sessionId).ifPresent(listener::onOverflow);
        if (view.firstIndex() >= 0) {
            shared.retainer.retain(memory, view.firstIndex());
        }
    }

    /**
     * Stores where a chunked window now starts, when that moved, so every memory of the session (other
     * instances, after a restart) shows the same prefix. A lost race is fine: the next view retries.
     */
    private void keepAnchor(SessionMemory memory, View view) {
        long cut = view.cutIndex();
        if (cut < 0 || cut == memory.anchor()) {
            return;
        }
        String sessionId = memory.sessionId();
        String key = view.limit().anchorKey();
        SessionState state = shared.store.state(sessionId);
        if (Records.longAttribute(state, key, -1) == cut) {
            memory.anchor(cut);
            return;
        }
        Map<String, String> attributes = new HashMap<>(state.attributes());
        attributes.put(key, Long.toString(cut));
        try {
            if (shared.store.compareAndSetState(sessionId, state.version(), state.withAttributes(attributes))
                    .isPresent()) {
                memory.anchor(cut); // only once stored: after a lost race the next view tries again
            }
        } catch (StoreException e) {
            LOG.warn("could not store where the window of chat memory {} starts; the next view retries", sessionId, e);
        }
        shared.cache.remove(memory);
    }

    /** The view's size in tokens from stored counts (its own when it counted tokens), or -1 without counts. */
    private long tokens(View view) {
        if (view.limit().countsTokens()) {
            return view.size();
        }
        TokenCountEstimator tokenizer = shared.tokenizer;
        if (tokenizer == null) {
            return -1;
        }
        List<ChatMessage> messages = view.messages();
        List<Entry> sources = view.sources();
        int pinned = 0;
        while (pinned < messages.size() && sources.get(pinned) == null) {
            pinned++;
        }
        long tokens = shared.rules.pinnedTokens(messages.subList(0, pinned)); // counted once per system message and summary
        for (int i = pinned; i < messages.size(); i++) {
            Entry source = sources.get(i);
            tokens += source != null && source.hasTokenCount() && source.message() == messages.get(i)
                    ? source.tokenCount() : tokenizer.estimateTokenCountInMessage(messages.get(i));
        }
        return tokens;
    }
}
