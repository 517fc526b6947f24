package io.github.memorypack.buffer;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.MemoryBuilder;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import java.util.List;
import java.util.function.Function;

/**
 * A chat memory that shows the whole conversation of a session, kept as a log in a
 * {@link SessionStore}.
 *
 * <p>The view follows the shared rules: the system message is pinned first (a changed one replaces
 * it); the conversation is shown from its first message on, a greeting before the first user
 * message included; an AI message with tool calls is shown with exactly its results; an
 * interrupted tool call is repaired. Optionally, with {@link Builder#contextTokens}, every view
 * bigger than a context size in tokens is reported to an {@link MemoryListener} (by default it
 * logs a warning) — the buffer still shows everything; pick a window or summary memory to cut.
 *
 * <p>{@link #add} appends (one atomic append per call, safe with concurrent requests on the same
 * session); {@link #set} changes only what differs from the current view; {@link #clear} starts the
 * conversation over (the earlier log is kept unless a {@link Retention} deletes it).
 *
 * <pre>{@code
 * ChatMemory memory = BufferChatMemory.builder().id("user-42").chatMemoryStore(store).build();
 * }</pre>
 */
public final class BufferChatMemory implements ChatMemory {

    private final ChatMemory memory;

    private BufferChatMemory(ChatMemory memory) {
        this.memory = memory;
    }

    /**
     * A builder; every option has a default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The memory id. */
    @Override
    public Object id() {
        return memory.id();
    }

    /** Appends the message (one atomic append). A system message equal to the current one changes nothing. */
    @Override
    public void add(ChatMessage message) {
        memory.add(message);
    }

    /** Appends the messages in one atomic append. */
    @Override
    public void add(ChatMessage... messages) {
        memory.add(messages);
    }

    /** Appends the messages in one atomic append. */
    @Override
    public void add(Iterable<ChatMessage> messages) {
        memory.add(messages);
    }

    /** The whole conversation, pinned system message first. */
    @Override
    public List<ChatMessage> messages() {
        return memory.messages();
    }

    /**
     * Replaces the conversation with {@code messages}: entries up to the first difference stay as
     * they are; writes nothing when nothing changed.
     * A system message anywhere in the list becomes the pinned one; a list without one removes the
     * system message, as LangChain4j's memories do.
     *
     * @throws IllegalArgumentException if {@code messages} is null, empty or holds null
     */
    @Override
    public void set(Iterable<ChatMessage> messages) {
        memory.set(messages);
    }

    /** Starts the conversation over; the earlier log stays in the store unless a {@link Retention} deletes it. */
    @Override
    public void clear() {
        memory.clear();
    }

    @Override
    public String toString() {
        return "BufferChatMemory{id=" + SessionIds.of(memory.id()) + '}';
    }

    /** Builds a {@link BufferChatMemory}, or a {@link ChatMemoryProvider} of them; every option has a default. */
    public static final class Builder extends MemoryBuilder<Builder> {

        private Function<Object, Integer> contextTokens;

        private Builder() {
        }

        /**
         * Reports every view of more than {@code contextTokens} tokens (system message, messages and
         * reply priming, as the {@link #tokenizer} counts them) to the overflow listener. Off by default.
         *
         * @param contextTokens the ceiling, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code contextTokens < 1}
         */
        public Builder contextTokens(int contextTokens) {
            if (contextTokens < 1) {
                throw new IllegalArgumentException("contextTokens must be >= 1, was " + contextTokens);
            }
            this.contextTokens = id -> contextTokens;
            return this;
        }

        /**
         * {@link #contextTokens(int)} decided per memory id.
         *
         * @param contextTokens gives the ceiling for a memory id, in tokens (at least 1)
         * @return this builder
         */
        public Builder dynamicContextTokens(Function<Object, Integer> contextTokens) {
            if (contextTokens == null) {
                throw new IllegalArgumentException("contextTokens must not be null");
            }
            this.contextTokens = contextTokens;
            return this;
        }

        /**
         * A memory with these settings.
         *
         * @return a memory with these settings
         * @throws IllegalArgumentException if a dynamic {@code contextTokens} gives a value below 1 for this id
         */
        public BufferChatMemory build() {
            BufferStrategy strategy = new BufferStrategy(contextTokens);
            strategy.check(memoryId());
            return new BufferChatMemory(resolvedOptions().memory(strategy, memoryId()));
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         *
         * @return the provider
         * @throws IllegalStateException if the store is set twice
         */
        public ChatMemoryProvider provider() {
            BufferStrategy strategy = new BufferStrategy(contextTokens);
            ChatMemoryProvider memories = resolvedOptions().provider(strategy);
            return memoryId -> {
                strategy.check(memoryId);
                return new BufferChatMemory(memories.get(memoryId));
            };
        }
    
    }
}
