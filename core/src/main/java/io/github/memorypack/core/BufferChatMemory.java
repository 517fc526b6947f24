package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A chat memory that shows the whole conversation of a session, kept as a log in a
 * {@link SessionStore}.
 *
 * <p>The view follows the shared {@link ViewRules}: the system message is pinned first (a changed
 * one replaces it); the conversation is shown from its first user message on; an AI message with
 * tool calls is shown with exactly its results; an interrupted tool call is repaired. Optionally,
 * with {@link Builder#contextTokens}, every view bigger than a context size in tokens is reported
 * to an {@link OverflowListener} (by default it logs a warning) — the buffer still shows
 * everything; pick a window or summary memory to cut.
 *
 * <p>{@link #add} appends one entry (atomic, safe with concurrent requests on the same session;
 * inside a {@link RequestScope} a retried request is stored once). {@link #set} replaces the log in
 * one store call and {@link #clear} deletes the session.
 *
 * <pre>{@code
 * ChatMemory memory = BufferChatMemory.builder().id("user-42").store(store).build();
 * }</pre>
 */
public final class BufferChatMemory extends SessionChatMemory {

    /** How many entries the first read of a session takes; it doubles until the whole log is read. */
    static final int FIRST_READ = 256;

    private final Function<Object, Integer> contextTokens;

    private BufferChatMemory(MemorySettings settings, Function<Object, Integer> contextTokens) {
        super(settings, contextTokens != null);
        this.contextTokens = contextTokens;
        currentLimit();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The whole conversation, pinned system message first. */
    @Override
    public List<ChatMessage> messages() {
        // the whole log once, then only what was appended since (see SessionMemory.tail)
        return show(memory.tail(rules, currentLimit(), Math.max(FIRST_READ, memory.lastReadCount())));
    }

    private ViewLimit currentLimit() {
        return contextTokens == null ? ViewLimit.none()
                : ViewLimit.reportTokensOver(MemorySettings.limit(contextTokens, memory.id(), "contextTokens"));
    }

    @Override
    public String toString() {
        return "BufferChatMemory{id=" + memory.sessionId() + '}';
    }

    /** Builds a {@link BufferChatMemory}; every option has a default. */
    public static final class Builder extends MemoryBuilder<Builder> {

        private Function<Object, Integer> contextTokens;
        private Integer fixedContextTokens;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * Reports every view of more than {@code contextTokens} tokens (system message, messages and
         * reply priming, as the {@link #tokenizer} counts them) to the overflow listener. Off by default.
         */
        public Builder contextTokens(int contextTokens) {
            this.contextTokens = id -> contextTokens;
            this.fixedContextTokens = contextTokens;
            return this;
        }

        /** {@link #contextTokens(int)} decided per memory id, at every read. */
        public Builder contextTokens(Function<Object, Integer> contextTokens) {
            this.contextTokens = Objects.requireNonNull(contextTokens, "contextTokens");
            this.fixedContextTokens = null;
            return this;
        }

        /**
         * @throws IllegalArgumentException if {@code contextTokens} is below 1
         * @throws io.github.memorypack.core.InvalidSessionIdException if the id is not a valid session id
         */
        public BufferChatMemory build() {
            check();
            return new BufferChatMemory(settings, contextTokens);
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         */
        public ChatMemoryProvider provider() {
            check();
            MemorySettings snapshot = settings.copy();
            Function<Object, Integer> providerContextTokens = contextTokens;
            return memoryId -> new BufferChatMemory(snapshot.forId(memoryId), providerContextTokens);
        }

        private void check() {
            settings.validate();
            if (fixedContextTokens != null && fixedContextTokens < 1) {
                throw new IllegalArgumentException("contextTokens must be >= 1, was " + fixedContextTokens);
            }
        }
    }
}
