package io.github.memorypack.window;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.MemoryBuilder;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import java.util.List;
import java.util.function.Function;

/**
 * A chat memory that shows the last messages, turns or tokens of a session — and never deletes
 * anything: the window is a view over the session's log in a {@link SessionStore}, and eviction
 * only moves the view. A drop-in for LangChain4j's {@code MessageWindowChatMemory} and
 * {@code TokenWindowChatMemory}: the builder speaks their words ({@code id}, {@code maxMessages},
 * {@code dynamicMaxMessages}, {@code maxTokens(int, TokenCountEstimator)}, {@code chatMemoryStore},
 * {@link #withMaxMessages}).
 *
 * <p>Set exactly one limit: {@code maxMessages}, {@code maxTurns} or {@code maxTokens}, each fixed
 * or per memory id ({@code dynamic…}). The view follows the shared rules:
 * <ul>
 *   <li>the system message is pinned first (and counts toward {@code maxMessages} and {@code maxTokens});</li>
 *   <li>cuts fall only between turns, so the window starts with a user message — or with the
 *       greeting before the first user message, when the window reaches back to it — and can hold
 *       fewer than {@code maxMessages} messages;</li>
 *   <li>an AI message with tool calls is shown with exactly its results; an interrupted tool call is
 *       repaired; a call still running is shown once its results are in;</li>
 *   <li>the newest turn and every open turn (a request still in progress) are always shown, even
 *       over the limit, and then the {@link MemoryListener} is told (by default it logs a warning);</li>
 *   <li>{@code maxTokens} counts a request as the tokenizer does, using the count stored with each
 *       message when it was added: a turn never re-counts history.</li>
 * </ul>
 *
 * <p>{@link #add} appends (one atomic append per call, safe with concurrent requests on the same
 * session). {@link #set} changes only what differs from the current window and keeps everything
 * the window did not show; {@link #clear} starts the conversation over (the earlier log is kept
 * unless a {@link Retention} deletes it). Inside a {@link RequestScope} a retried request shows
 * once.
 *
 * <pre>{@code
 * ChatMemory memory = WindowChatMemory.builder().id("user-42").chatMemoryStore(store).maxMessages(20).build();
 * }</pre>
 */
public final class WindowChatMemory implements ChatMemory {

    /** What {@link Builder#chunkedEviction()} drops to, as a share of the limit. */
    public static final double DEFAULT_LOW_WATERMARK = 0.6;

    private final ChatMemory memory;
    private final MemoryListener.Overflow.Unit unit;

    private WindowChatMemory(ChatMemory memory, MemoryListener.Overflow.Unit unit) {
        this.memory = memory;
        this.unit = unit;
    }

    /**
     * A window of the last {@code maxMessages} messages on a new in-memory store, as LangChain4j's.
     *
     * @param maxMessages the limit, in messages (at least 1)
     * @return a new memory
     */
    public static WindowChatMemory withMaxMessages(int maxMessages) {
        return builder().maxMessages(maxMessages).build();
    }

    /**
     * A window of the last {@code maxTokens} tokens, counted with {@code tokenizer}, on a new
     * in-memory store, as LangChain4j's {@code TokenWindowChatMemory.withMaxTokens}.
     *
     * @param maxTokens the limit, in tokens (at least 1)
     * @param tokenizer the token counter
     * @return a new memory
     */
    public static WindowChatMemory withMaxTokens(int maxTokens, TokenCountEstimator tokenizer) {
        return builder().maxTokens(maxTokens, tokenizer).build();
    }

    /**
     * A builder; exactly one limit must be set.
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

    /** The window: pinned system message, then the newest whole turns within the limit. */
    @Override
    public List<ChatMessage> messages() {
        return memory.messages();
    }

    /**
     * Replaces what the window shows with {@code messages}: entries up to the first difference stay
     * as they are, and so does everything the window did not show; writes nothing when nothing
     * changed.
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
        return "WindowChatMemory{id=" + SessionIds.of(memory.id()) + ", " + unit + '}';
    }

    /**
     * Builds a {@link WindowChatMemory}, or a {@link ChatMemoryProvider} of them. Exactly one of
     * {@code maxMessages}, {@code maxTurns} and {@code maxTokens} (fixed or dynamic) must be set.
     * Every setter checks its value at once.
     */
    public static final class Builder extends MemoryBuilder<Builder> {

        private MemoryListener.Overflow.Unit unit;
        private Function<Object, Integer> limit;
        private int limitsSet;
        private double lowWatermark = 1.0;

        private Builder() {
        }

        /**
         * Shows at most {@code maxMessages} messages, the pinned system message included.
         *
         * @param maxMessages the limit, in messages (at least 1)
         * @return this builder
         */
        public Builder maxMessages(int maxMessages) {
            return fixed(MemoryListener.Overflow.Unit.MESSAGES, maxMessages);
        }

        /**
         * {@link #maxMessages(int)} decided per memory id, checked when a memory is built and at every read.
         *
         * @param maxMessages gives the limit for a memory id (at least 1)
         * @return this builder
         */
        public Builder dynamicMaxMessages(Function<Object, Integer> maxMessages) {
            return dynamic(MemoryListener.Overflow.Unit.MESSAGES, maxMessages);
        }

        /**
         * Shows at most {@code maxTurns} turns (a user message and what belongs to it).
         *
         * @param maxTurns the limit, in turns (at least 1)
         * @return this builder
         */
        public Builder maxTurns(int maxTurns) {
            return fixed(MemoryListener.Overflow.Unit.TURNS, maxTurns);
        }

        /**
         * {@link #maxTurns(int)} decided per memory id.
         *
         * @param maxTurns gives the limit for a memory id (at least 1)
         * @return this builder
         */
        public Builder dynamicMaxTurns(Function<Object, Integer> maxTurns) {
            return dynamic(MemoryListener.Overflow.Unit.TURNS, maxTurns);
        }

        /**
         * Shows at most {@code maxTokens} tokens, counting the whole request (system message,
         * messages and reply priming) with the {@link #tokenizer} (default: {@link Tokenizers#o200k()}).
         *
         * @param maxTokens the limit, in tokens (at least 1)
         * @return this builder
         */
        public Builder maxTokens(int maxTokens) {
            return fixed(MemoryListener.Overflow.Unit.TOKENS, maxTokens);
        }

        /**
         * {@link #maxTokens(int)} counted with {@code tokenizer}, as LangChain4j's {@code
         * TokenWindowChatMemory}.
         *
         * @param maxTokens the limit, in tokens (at least 1)
         * @param tokenizer the token counter
         * @return this builder
         */
        public Builder maxTokens(int maxTokens, TokenCountEstimator tokenizer) {
            tokenizer(tokenizer);
            return fixed(MemoryListener.Overflow.Unit.TOKENS, maxTokens);
        }

        /**
         * {@link #maxTokens(int)} decided per memory id.
         *
         * @param maxTokens gives the limit for a memory id, in tokens (at least 1)
         * @return this builder
         */
        public Builder dynamicMaxTokens(Function<Object, Integer> maxTokens) {
            return dynamic(MemoryListener.Overflow.Unit.TOKENS, maxTokens);
        }

        /**
         * {@link #dynamicMaxTokens(Function)} counted with {@code tokenizer}.
         *
         * @param maxTokens gives the limit for a memory id, in tokens (at least 1)
         * @param tokenizer the token counter
         * @return this builder
         */
        public Builder dynamicMaxTokens(Function<Object, Integer> maxTokens, TokenCountEstimator tokenizer) {
            tokenizer(tokenizer);
            return dynamic(MemoryListener.Overflow.Unit.TOKENS, maxTokens);
        }

        /**
         * Evicts in chunks, for prompt caches: the window keeps its start and grows by appending until
         * it would pass the limit, then drops to {@value #DEFAULT_LOW_WATERMARK} of it (whole turns)
         * and grows again. Consecutive requests then share their prefix, which OpenAI and Anthropic
         * bill at a fraction of the price; a sliding window (the default, as LangChain4j's) changes
         * everything after the system message on every request. Where the window starts is kept in
         * the session state, so every instance and a restarted one keep the same prefix.
         *
         * @return this builder
         */
        public Builder chunkedEviction() {
            return chunkedEviction(DEFAULT_LOW_WATERMARK);
        }

        /**
         * {@link #chunkedEviction()} dropping to {@code lowWatermark} of the limit.
         *
         * @param lowWatermark the share of the limit the window drops to, at least 0 and below 1
         * @return this builder
         * @throws IllegalArgumentException unless {@code 0 <= lowWatermark < 1}
         */
        public Builder chunkedEviction(double lowWatermark) {
            if (!(lowWatermark >= 0 && lowWatermark < 1)) {
                throw new IllegalArgumentException("lowWatermark must be >= 0 and < 1, was " + lowWatermark);
            }
            this.lowWatermark = lowWatermark;
            return this;
        }

        /**
         * Accepted for LangChain4j compatibility with {@code true}, what this window always does: the
         * system message is pinned first and never evicted. {@code false} (LangChain4j's default,
         * which appends a changed system message at the end of the window and lets it be evicted) is
         * refused: a window that quietly did otherwise would hide a difference.
         *
         * @param alwaysKeepSystemMessageFirst must be true
         * @return this builder
         * @throws IllegalArgumentException if {@code alwaysKeepSystemMessageFirst} is false
         */
        public Builder alwaysKeepSystemMessageFirst(boolean alwaysKeepSystemMessageFirst) {
            if (!alwaysKeepSystemMessageFirst) {
                throw new IllegalArgumentException("alwaysKeepSystemMessageFirst(false) is not supported: WindowChatMemory"
                        + " always keeps the system message first and never evicts it (a changed one replaces it"
                        + " there); remove the call or pass true");
            }
            return this;
        }

        /**
         * A memory with these settings.
         *
         * @return a memory with these settings
         * @throws IllegalStateException    if not exactly one limit was set
         * @throws IllegalArgumentException if a dynamic limit gives a value below 1 for this id
         */
        public WindowChatMemory build() {
            WindowStrategy strategy = strategy();
            strategy.check(memoryId());
            return new WindowChatMemory(resolvedOptions().memory(strategy, memoryId()), unit);
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         *
         * @return the provider
         * @throws IllegalStateException if not exactly one limit was set, or the store is set twice
         */
        public ChatMemoryProvider provider() {
            WindowStrategy strategy = strategy();
            ChatMemoryProvider memories = resolvedOptions().provider(strategy);
            MemoryListener.Overflow.Unit providerUnit = unit;
            return memoryId -> {
                strategy.check(memoryId);
                return new WindowChatMemory(memories.get(memoryId), providerUnit);
            };
        }

        private WindowStrategy strategy() {
            checkOneLimit();
            return new WindowStrategy(unit, limit, lowWatermark);
        }

        private void checkOneLimit() {
            if (limitsSet != 1) {
                throw new IllegalStateException("set exactly one of maxMessages, maxTurns and maxTokens ("
                        + (limitsSet == 0 ? "none" : limitsSet + " different ones") + " set)");
            }
        }

        private Builder fixed(MemoryListener.Overflow.Unit unit, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(WindowStrategy.name(unit) + " must be >= 1, was " + value);
            }
            return dynamic(unit, new WindowStrategy.Fixed(value));
        }

        private Builder dynamic(MemoryListener.Overflow.Unit unit, Function<Object, Integer> limit) {
            if (limit == null) {
                throw new IllegalArgumentException(WindowStrategy.name(unit) + " must not be null");
            }
            if (this.unit != unit) {
                limitsSet++;
            }
            this.unit = unit;
            this.limit = limit;
            return this;
        }
    
    }
}
