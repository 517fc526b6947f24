package io.github.memorypack.buffer;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.internal.MemorySettings;
import io.github.memorypack.core.internal.SessionMemory;
import io.github.memorypack.core.view.OverflowListener;
import io.github.memorypack.core.view.RequestScope;
import io.github.memorypack.core.view.View;
import io.github.memorypack.core.view.ViewLimit;
import io.github.memorypack.core.view.ViewRules;
import java.util.ArrayList;
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
public final class BufferChatMemory implements ChatMemory {

    /** Tokenizer used for {@code contextTokens} when none is set. */
    public static final TokenCountEstimator DEFAULT_TOKENIZER = Tokenizers.o200k();

    private final SessionMemory memory;
    private final ViewRules rules;
    private final Function<Object, Integer> contextTokens;

    private BufferChatMemory(MemorySettings settings, Function<Object, Integer> contextTokens) {
        this.contextTokens = contextTokens;
        TokenCountEstimator tokenizer = settings.tokenizer() != null ? settings.tokenizer() : DEFAULT_TOKENIZER;
        this.rules = settings.rules(tokenizer);
        boolean counts = settings.tokenizer() != null || contextTokens != null
                || rules.needsTokenCounts(ViewLimit.none());
        this.memory = new SessionMemory(settings.id(), settings.store(), counts ? tokenizer : null,
                settings.retention(), settings.overflowListener());
        currentLimit();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Object id() {
        return memory.id();
    }

    /** Appends the message to the session log (a system message goes to the session state). */
    @Override
    public void add(ChatMessage message) {
        memory.add(message);
    }

    /** The whole conversation, pinned system message first. */
    @Override
    public List<ChatMessage> messages() {
        View view = memory.from(rules, currentLimit(), 0);
        memory.afterView(view);
        return new ArrayList<>(view.messages());
    }

    /** Replaces the whole log with {@code messages} in one store call. */
    @Override
    public void set(Iterable<ChatMessage> messages) {
        memory.set(messages);
    }

    /** Deletes the session: its log, state and idempotency keys. */
    @Override
    public void clear() {
        memory.clear();
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
    public static final class Builder {

        private final MemorySettings settings = new MemorySettings();
        private Function<Object, Integer> contextTokens;
        private Integer fixedContextTokens;

        private Builder() {
        }

        /** The memory id (the session id, validated in {@link #build()}); default {@code "default"}. */
        public Builder id(Object id) {
            settings.id(id);
            return this;
        }

        /** The store holding the log; default a new {@link io.github.memorypack.core.InMemorySessionStore}. */
        public Builder store(SessionStore store) {
            settings.store(store);
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
         * Counts each message once, when it is added; default {@link Tokenizers#o200k()} when
         * {@code contextTokens} is set. Otherwise no count is computed unless a tokenizer is set here.
         */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            settings.tokenizer(tokenizer);
            return this;
        }

        /** Told when a view passes {@code contextTokens}; default {@link OverflowListener#logging()}. */
        public Builder overflowListener(OverflowListener listener) {
            settings.overflowListener(listener);
            return this;
        }

        /**
         * Shows tool results of more than {@code maxTokens} tokens as a short preview in every turn
         * but the newest (see {@link ViewRules#DEFAULT_TOOL_RESULT_PREVIEW_TOKENS}). Off by default.
         */
        public Builder toolResultPreviews(int maxTokens) {
            settings.toolResultPreviews(maxTokens);
            return this;
        }

        /** Keeps images only in the newest {@code messages} messages. Off by default. */
        public Builder keepImagesInNewest(int messages) {
            settings.keepImagesInNewest(messages);
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
            if (fixedContextTokens != null && fixedContextTokens < 1) {
                throw new IllegalArgumentException("contextTokens must be >= 1, was " + fixedContextTokens);
            }
        }
    }
}
