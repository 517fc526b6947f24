package io.github.memorypack.buffer;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.SessionBusyException;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.core.Tokenizers;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;

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
    public static final class Builder {

        private Object id = MemoryOptions.DEFAULT_ID;
        private ChatMemoryStore store;
        private MemoryOptions options = MemoryOptions.defaults();
        private Function<Object, Integer> contextTokens;

        private Builder() {
        }

        /**
         * The memory id: any non-null object (see {@link SessionIds}); default {@code "default"}.
         *
         * @param id the memory id: any non-null object
         * @return this builder
         */
        public Builder id(Object id) {
            this.id = checkedId(id);
            return this;
        }

        /**
         * The store: a {@link SessionStore} is used as it is, any other LangChain4j {@link ChatMemoryStore}
         * runs through {@link SessionStore#of(ChatMemoryStore)}. Default: a new {@link InMemorySessionStore}.
         *
         * @param store the store
         * @return this builder
         */
        public Builder chatMemoryStore(ChatMemoryStore store) {
            this.store = notNull(store, "chatMemoryStore");
            return this;
        }

        /**
         * The options this memory shares with other memories (store, tokenizer, listeners, retention,
         * accounting, cost rules, concurrent sends, summaries, ...): replaces the shared options set on
         * this builder before; the shared setters after it change them. A store set both here and with
         * {@link #chatMemoryStore} fails {@code build()}.
         *
         * @param options the options
         * @return this builder
         * @throws IllegalArgumentException if {@code options} is null
         */
        public Builder options(MemoryOptions options) {
            if (options == null) {
                throw new IllegalArgumentException("options must not be null");
            }
            this.options = options;
            return this;
        }

        private Builder with(UnaryOperator<MemoryOptions.Builder> change) {
            options = change.apply(options.toBuilder()).build();
            return this;
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
         * Counts each message once, when it is added; default {@link Tokenizers#o200k()} where counts are
         * needed.
         *
         * @param tokenizer the token counter
         * @return this builder
         */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            return with(b -> b.tokenizer(tokenizer));
        }

        /**
         * Adds a listener told about views, overflows and folds (see {@link MemoryListener}). Default:
         * {@link MemoryListener#logging()}, used only while no listener is added.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(MemoryListener listener) {
            return with(b -> b.listener(listener));
        }

        /**
         * What may be trimmed from the log for good; default {@link Retention#keepAll()}.
         *
         * @param retention the retention policy
         * @return this builder
         */
        public Builder retention(Retention retention) {
            return with(b -> b.retention(retention));
        }

        /**
         * Records this memory's requests and folds in {@code accounting} (see {@link TokenAccounting}):
         * the memory binds its session for the ledger's listener each time it computes a view.
         *
         * @param accounting the ledger
         * @return this builder
         */
        public Builder tokenAccounting(TokenAccounting accounting) {
            return with(b -> b.tokenAccounting(accounting));
        }

        /**
         * {@link #tokenAccounting} and calibration: every token limit of this memory is applied to our
         * estimate multiplied by the session's {@link TokenAccounting#calibrationFactor} (reported /
         * estimated), so a tokenizer that undercounts what the provider bills does not overrun a budget.
         *
         * @param accounting the ledger
         * @return this builder
         */
        public Builder calibrateWith(TokenAccounting accounting) {
            return with(b -> b.calibrateWith(accounting));
        }

        /**
         * Shows tool results of more than {@code maxTokens} tokens as a short preview in every closed
         * turn (one the model has answered); the log keeps the full result. Off by default.
         *
         * @param maxTokens the largest tool result shown in full, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code maxTokens < 1}
         */
        public Builder toolResultPreviews(int maxTokens) {
            return with(b -> b.toolResultPreviews(maxTokens));
        }

        /**
         * Keeps images only in the newest {@code messages} messages and in open turns; older ones
         * become a short note. Off by default.
         *
         * @param messages how many of the newest messages keep their images (at least 0)
         * @return this builder
         * @throws IllegalArgumentException if {@code messages < 0}
         */
        public Builder keepImagesInNewest(int messages) {
            return with(b -> b.keepImagesInNewest(messages));
        }

        /**
         * What happens when a request starts on a session while another request's turn in it still
         * runs: {@link ConcurrentSends#queue()} (the default: wait up to
         * {@link ConcurrentSends#DEFAULT_MAX_WAIT} for it to close, then continue from it),
         * {@link ConcurrentSends#refuse()} ({@link SessionBusyException} before any model call) or
         * {@link ConcurrentSends#branch()} (run beside it from the last closed turn). Under every
         * setting no request's view holds another request's running turn.
         *
         * @param concurrentSends the setting
         * @return this builder
         * @throws IllegalArgumentException if {@code concurrentSends} is null
         */
        public Builder concurrentSends(ConcurrentSends concurrentSends) {
            return with(b -> b.concurrentSends(concurrentSends));
        }

        /**
         * After this long without a new message, an open turn (a request that never got its answer)
         * is taken as abandoned: it may be cut, and a tool call in it without a result is repaired.
         * Default 10 minutes.
         *
         * @param timeout the age, positive
         * @return this builder
         */
        public Builder openTurnTimeout(Duration timeout) {
            return with(b -> b.openTurnTimeout(timeout));
        }

        /**
         * How many windows (one per session) this builder's memories keep in memory to extend the
         * next one cheaply; 0 keeps none. Default: a cache of {@value MemoryOptions#DEFAULT_VIEW_CACHE_SIZE}
         * shared by every memory that sets none.
         *
         * @param views how many views to cache, at least 0
         * @return this builder
         */
        public Builder viewCacheSize(int views) {
            return with(b -> b.viewCacheSize(views));
        }

        /**
         * The clock for open-turn ages; default the system UTC clock.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            return with(b -> b.clock(clock));
        }

        /**
         * A memory with these settings.
         *
         * @return a memory with these settings
         * @throws IllegalArgumentException if a dynamic {@code contextTokens} gives a value below 1 for this id
         */
        public BufferChatMemory build() {
            BufferStrategy strategy = new BufferStrategy(contextTokens);
            strategy.check(id);
            return new BufferChatMemory(resolved().memory(strategy, id));
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
            ChatMemoryProvider memories = resolved().provider(strategy);
            return memoryId -> {
                strategy.check(memoryId);
                return new BufferChatMemory(memories.get(memoryId));
            };
        }
    
        /** The options with this builder's store, if one was set here. */
        private MemoryOptions resolved() {
            return store == null ? options : options.withChatMemoryStore(store);
        }

        private static Object checkedId(Object id) {
            notNull(id, "id");
            SessionIds.of(id); // any non-null id maps to a session id; checked here so build() cannot fail on it
            return id;
        }

        private static int atLeast(int value, int min, String name) {
            if (value < min) {
                throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
            }
            return value;
        }

        private static <T> T notNull(T value, String name) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must not be null");
            }
            return value;
        }
    }
}
