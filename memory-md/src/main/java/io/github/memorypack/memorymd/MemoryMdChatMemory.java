package io.github.memorypack.memorymd;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.internal.SessionMemory;
import io.github.memorypack.core.view.OverflowListener;
import io.github.memorypack.core.view.Retention;
import io.github.memorypack.core.view.ViewRules;
import java.util.ArrayList;
import java.util.List;

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
 * (the newest; a typed preload then starts at a user message). With
 * {@link Builder#timestampsInPrompt} texts are shown as {@code [timestamp] Role: content}.
 * {@link #clear()} deletes the session.
 */
public final class MemoryMdChatMemory implements ChatMemory {

    /** How the messages found in the session at start are shown. */
    public enum Preload {
        /** As typed messages with their original roles. */
        TYPED,
        /** As one labelled, delimited user message (swarms compatible, but never a system message). */
        PREAMBLE
    }

    /** Default {@link Builder#maxPreloadMessages}. */
    public static final int DEFAULT_MAX_PRELOAD_MESSAGES = 200;

    private final SessionMemory memory;
    private final Preload preload;
    private final boolean timestamps;
    private final int maxPreload;
    private final long preloadedUntil;

    private MemoryMdChatMemory(Builder b) {
        this.memory = new SessionMemory(b.id, b.store, b.tokenizer, Retention.keepAll(), OverflowListener.logging());
        this.preload = b.preload;
        this.timestamps = b.timestamps;
        this.maxPreload = b.maxPreload;
        this.preloadedUntil = b.store.nextIndex(memory.sessionId());
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Object id() {
        return memory.id();
    }

    @Override
    public void add(ChatMessage message) {
        memory.add(message);
    }

    @Override
    public List<ChatMessage> messages() {
        SessionState state = memory.state();
        List<ChatMessage> out = new ArrayList<>();
        state.systemMessage().ifPresent(out::add);
        long from = 0;
        if (state.summary().isPresent()) {
            out.add(ViewRules.summaryMessage(state.summary().get()));
            from = state.summary().get().coveredUntil();
        }
        List<Entry> earlier = new ArrayList<>();
        List<Entry> later = new ArrayList<>();
        for (Entry e : memory.store().read(memory.sessionId(), from, Integer.MAX_VALUE)) {
            if (e.message() instanceof SystemMessage) {
                continue; // a record of a system-message change; the current one is pinned above
            }
            (e.index() < preloadedUntil ? earlier : later).add(e);
        }
        if (earlier.size() > maxPreload) {
            earlier = new ArrayList<>(earlier.subList(earlier.size() - maxPreload, earlier.size()));
            if (preload == Preload.TYPED) {
                while (!earlier.isEmpty() && !(earlier.get(0).message() instanceof UserMessage)) {
                    earlier.remove(0);
                }
            }
        }
        if (!earlier.isEmpty()) {
            if (preload == Preload.PREAMBLE) {
                out.add(MemoryMdPrompts.preamble(earlier));
            } else {
                out.addAll(render(earlier));
            }
        }
        out.addAll(render(later));
        return out;
    }

    private List<ChatMessage> render(List<Entry> entries) {
        if (timestamps) {
            return MemoryMdPrompts.withTimestamps(entries);
        }
        List<ChatMessage> out = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            out.add(e.message());
        }
        return out;
    }

    @Override
    public void clear() {
        memory.clear();
    }

    /** Builder for {@link MemoryMdChatMemory}; {@link #id} and {@link #store} are required. */
    public static final class Builder {
        private Object id;
        private SessionStore store;
        private Preload preload = Preload.TYPED;
        private boolean timestamps;
        private int maxPreload = DEFAULT_MAX_PRELOAD_MESSAGES;
        private TokenCountEstimator tokenizer;

        private Builder() {
        }

        /** The memory id (session id). Required. */
        public Builder id(Object id) {
            this.id = id;
            return this;
        }

        /** The store. Required. */
        public Builder store(SessionStore store) {
            this.store = store;
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

        /** Counts each added message's tokens once, stored with it; none by default. */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            this.tokenizer = tokenizer;
            return this;
        }

        /**
         * @throws IllegalArgumentException if id or store is missing, preload is null or the preload
         *                                  limit is negative
         */
        public MemoryMdChatMemory build() {
            if (id == null || store == null || preload == null) {
                throw new IllegalArgumentException("id, store and preload are required");
            }
            if (maxPreload < 0) {
                throw new IllegalArgumentException("maxPreloadMessages must be >= 0, was " + maxPreload);
            }
            return new MemoryMdChatMemory(this);
        }
    }
}
