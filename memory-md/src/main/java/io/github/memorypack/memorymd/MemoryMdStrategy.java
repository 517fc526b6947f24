package io.github.memorypack.memorymd;

import dev.langchain4j.data.message.ChatMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.MemoryStrategy;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * MEMORY.md's strategy: the turns that were in the session before a Memory Pack memory first used it
 * (the preloaded ones) are shown typed or as one preamble, at most the newest
 * {@code maxPreload} messages of them; everything since is shown; plain texts optionally with their
 * timestamps.
 */
final class MemoryMdStrategy implements MemoryStrategy {

    /** State attribute: the first log index that is not preloaded. */
    static final String PRELOADED_UNTIL = "memory-pack.memory-md.preloaded-until";

    private final SessionStore store;
    private final MemoryMdChatMemory.Preload preload;
    private final boolean timestamps;
    private final int maxPreload;

    MemoryMdStrategy(SessionStore store, MemoryMdChatMemory.Preload preload, boolean timestamps, int maxPreload) {
        this.store = store;
        this.preload = preload;
        this.timestamps = timestamps;
        this.maxPreload = maxPreload;
    }

    @Override
    public String name() {
        return "memory-md";
    }

    @Override
    public ChatMessage present(Entry entry) {
        return timestamps ? MemoryMdChatMemory.withTimestamp(entry) : entry.message();
    }

    @Override
    public Plan plan(Session session) {
        // where the preloaded messages end is the state's, not this object's: every memory object of the
        // session, whenever it was created, shows the same split (recorded here if nothing recorded it yet)
        long until = preloadedUntil(session.state());
        if (until < 0) {
            until = preloadedUntil(store, session.sessionId());
        }
        List<Turn> turns = session.turns();
        int preloaded = 0;
        List<Entry> earlier = new ArrayList<>();
        while (preloaded < turns.size() && turns.get(preloaded).entries().get(0).index() < until) {
            earlier.addAll(turns.get(preloaded).entries());
            preloaded++;
        }
        if (preload == MemoryMdChatMemory.Preload.PREAMBLE) {
            if (earlier.isEmpty()) {
                return Plan.showAll();
            }
            Plan plan = Plan.showAll().hideOldest(preloaded);
            List<Entry> shown = earlier.subList(Math.max(0, earlier.size() - maxPreload), earlier.size());
            return shown.isEmpty() ? plan : plan.preface(MemoryMdChatMemory.preamble(shown));
        }
        // typed: the newest preloaded turns within maxPreload messages
        int hidden = preloaded;
        int messages = 0;
        while (hidden > 0 && messages + turns.get(hidden - 1).entries().size() <= maxPreload) {
            messages += turns.get(hidden - 1).entries().size();
            hidden--;
        }
        return hidden == 0 ? Plan.showAll() : Plan.showAll().hideOldest(hidden);
    }

    /** Where the state says the preloaded messages end, or -1 if it says nothing yet. */
    private static long preloadedUntil(SessionState state) {
        String value = state.attributes().get(PRELOADED_UNTIL);
        try {
            return value == null ? -1 : Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1; // not ours: recorded again
        }
    }

    /** Where the preloaded messages end: recorded in the state the first time, the same for every memory after. */
    static long preloadedUntil(SessionStore store, String sessionId) {
        while (true) {
            SessionState state = store.state(sessionId);
            long recorded = preloadedUntil(state);
            if (recorded >= 0) {
                return recorded;
            }
            long until = store.nextIndex(sessionId);
            Map<String, String> attributes = new HashMap<>(state.attributes());
            attributes.put(PRELOADED_UNTIL, Long.toString(until));
            if (store.compareAndSetState(sessionId, state.version(), state.withAttributes(attributes)).isPresent()) {
                return until;
            }
        }
    }
}
