package io.github.memorypack.memorymd;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.MemoryBuilder;
import io.github.memorypack.core.MemorySettings;
import io.github.memorypack.core.SessionChatMemory;
import io.github.memorypack.core.ViewLimit;
import io.github.memorypack.core.ViewRules;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The swarms {@code Conversation} as a LangChain4j {@link ChatMemory} over a session of a
 * {@link SessionStore} (normally a {@link MemoryMdSessionStore}): every added message is written
 * through; the application's system message goes to the session state, not to MEMORY.md, and an
 * unchanged one is not written again; {@link #messages()} shows the system message, the summary
 * left by {@link MemoryMdSessionStore#compact compaction} and every message after it.
 *
 * <p>Messages already in the session when the memory is built are the <em>preloaded</em> ones:
 * {@link Preload#TYPED} (default) shows them as typed messages with their original roles,
 * {@link Preload#PREAMBLE} as one delimited user message labelled as earlier conversation
 * ({@link MemoryMdPrompts#preamble}). At most {@link Builder#maxPreloadMessages} of them are shown
 * (the newest). With {@link Builder#timestampsInPrompt} texts are shown as
 * {@code [timestamp] Role: content}. Typed messages follow the shared {@link ViewRules}: the view
 * starts at a user message, an AI message with tool calls is shown with exactly its results, an
 * interrupted tool call is repaired. {@link #clear()} deletes the session.
 */
public final class MemoryMdChatMemory extends SessionChatMemory {

    /** How the messages found in the session at start are shown. */
    public enum Preload {
        /** As typed messages with their original roles. */
        TYPED,
        /** As one labelled, delimited user message (swarms compatible, but never a system message). */
        PREAMBLE
    }

    /** Default {@link Builder#maxPreloadMessages}. */
    public static final int DEFAULT_MAX_PRELOAD_MESSAGES = 200;

    private final Preload preload;
    private final boolean timestamps;
    private final int maxPreload;
    private final long preloadedUntil;

    private MemoryMdChatMemory(MemorySettings settings, Builder b) {
        super(settings, false);
        this.preload = b.preload;
        this.timestamps = b.timestamps;
        this.maxPreload = b.maxPreload;
        this.preloadedUntil = memory.store().nextIndex(memory.sessionId());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** System message, summary, the (bounded) preloaded messages, then every message added since. */
    @Override
    public List<ChatMessage> messages() {
        SessionState state = memory.state();
        long from = state.summary().map(s -> s.coveredUntil()).orElse(0L);
        List<Entry> earlier = new ArrayList<>();
        List<Entry> later = new ArrayList<>();
        for (Entry e : memory.store().read(memory.sessionId(), from, Integer.MAX_VALUE)) {
            if (!(e.message() instanceof SystemMessage)) { // records of system-message changes: the current one is pinned
                (e.index() < preloadedUntil ? earlier : later).add(e);
            }
        }
        if (earlier.size() > maxPreload) {
            earlier = earlier.subList(earlier.size() - maxPreload, earlier.size());
        }
        List<Entry> typed = new ArrayList<>(later.size() + earlier.size());
        if (preload == Preload.TYPED) {
            typed.addAll(earlier);
        }
        typed.addAll(later);
        List<ChatMessage> out = show(rules.render(state, typed, ViewLimit.none()));
        int pinned = 0;
        while (pinned < out.size() && out.get(pinned) instanceof SystemMessage) {
            pinned++;
        }
        if (timestamps) {
            Map<ChatMessage, Entry> entries = new IdentityHashMap<>();
            typed.forEach(e -> entries.put(e.message(), e));
            for (int i = pinned; i < out.size(); i++) {
                Entry e = entries.get(out.get(i));
                if (e != null) {
                    out.set(i, MemoryMdPrompts.withTimestamps(List.of(e)).get(0));
                }
            }
        }
        if (preload == Preload.PREAMBLE && !earlier.isEmpty()) {
            out.add(pinned, MemoryMdPrompts.preamble(earlier));
        }
        return out;
    }

    /** Builder for {@link MemoryMdChatMemory}; set at least {@link #id} and {@link #store}. */
    public static final class Builder extends MemoryBuilder<Builder> {
        private Preload preload = Preload.TYPED;
        private boolean timestamps;
        private int maxPreload = DEFAULT_MAX_PRELOAD_MESSAGES;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** {@link Preload#TYPED} by default. */
        public Builder preload(Preload preload) {
            this.preload = preload;
            return this;
        }

        /** Show texts as {@code [timestamp] Role: content}; off by default. */
        public Builder timestampsInPrompt(boolean timestamps) {
            this.timestamps = timestamps;
            return this;
        }

        /** Most preloaded messages shown; {@value #DEFAULT_MAX_PRELOAD_MESSAGES} by default. */
        public Builder maxPreloadMessages(int maxPreload) {
            this.maxPreload = maxPreload;
            return this;
        }

        /**
         * @throws IllegalArgumentException if preload is null or a limit is out of range
         */
        public MemoryMdChatMemory build() {
            settings.validate();
            if (preload == null) {
                throw new IllegalArgumentException("preload must not be null");
            }
            if (maxPreload < 0) {
                throw new IllegalArgumentException("maxPreloadMessages must be >= 0, was " + maxPreload);
            }
            return new MemoryMdChatMemory(settings, this);
        }
    }
}
