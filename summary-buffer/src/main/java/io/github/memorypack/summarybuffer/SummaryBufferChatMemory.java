package io.github.memorypack.summarybuffer;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.MemoryBuilder;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.SummarizationException;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.core.TokenAccounting;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A chat memory that shows the recent turns verbatim, up to a token budget, after a running
 * summary of everything older. The log in the {@link SessionStore} keeps every message; the
 * summary lives in the session state, so a new memory on the same store (an application restart)
 * continues from it.
 *
 * <p><b>Folding.</b> When a turn finishes (an AI message without tool requests is added), the
 * memory adds up the stored token counts of the turns the summary does not cover. Only when that
 * passes {@code maxBufferTokens} are the oldest closed turns folded into the summary — as many as
 * it takes to bring the rest to {@code lowWatermark} or below (default half of
 * {@code maxBufferTokens}). The newest turn, an open turn and anything after an open turn are never
 * folded. So the summarizer runs about once per ({@code maxBufferTokens − lowWatermark}) tokens of
 * new conversation, not on every turn. With {@link Builder#calibrateWith calibration}, token counts
 * are multiplied by the session's {@link TokenAccounting#calibrationFactor} first.
 *
 * <p><b>Budgets.</b> {@code maxBufferTokens} bounds the verbatim turns only — unlike
 * {@code WindowChatMemory.Builder.maxTokens(int)}, which bounds the whole request. A request is at
 * most the system message, the summary ({@code maxSummaryTokens} plus its header) and
 * {@code maxBufferTokens}, or the newest turn when it alone is bigger; set
 * {@link Builder#contextTokens} for a hard ceiling on the whole request that holds even while
 * folds lag or fail (the oldest closed turns are then cut from the view, and the overflow reported).
 *
 * <p><b>Failures change nothing.</b> A summarizer that throws, times out, or returns {@code null},
 * blank text or more than {@code maxSummaryTokens} tokens, leaves summary and log as they were: every
 * message stays in the log, the {@link MemoryListener} is told, and the fold is tried again
 * at a later turn (after k failures in a row, 2^(k-1) − 1 turns are skipped first, at most 31).
 *
 * <p><b>Inline or background.</b> By default the fold runs inside {@link #add}; with an
 * {@link Builder#executor executor} it runs there and {@code add} returns at once, and until the new
 * summary is stored the view is the old summary plus every unfolded turn.
 *
 * <p><b>View:</b> the application's system message first, then the summary as a
 * {@link SummaryMessage} (or where {@link Builder#summaryPlacement} puts it), then every turn the
 * summary does not cover. {@link #set} and {@link #clear} follow LangChain4j's round trips without
 * loss; the summary message is recognised when it comes back and goes back to the state.
 *
 * <pre>{@code
 * ChatMemoryProvider memories = SummaryBufferChatMemory.builder()
 *         .chatMemoryStore(store).summarizer(Summarizer.llm(cheapModel)).maxBufferTokens(2_000).provider();
 * }</pre>
 */
public final class SummaryBufferChatMemory implements ChatMemory {

    private final ChatMemory memory;

    private SummaryBufferChatMemory(ChatMemory memory) {
        this.memory = memory;
    }

    /**
     * A builder; {@link Builder#summarizer} and {@link Builder#maxBufferTokens} are required.
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

    /** Appends the message (one atomic append); a finished turn may start a fold. */
    @Override
    public void add(ChatMessage message) {
        memory.add(message);
    }

    /** Appends the messages in one atomic append; a finished turn may start a fold. */
    @Override
    public void add(ChatMessage... messages) {
        memory.add(messages);
    }

    /** Appends the messages in one atomic append; a finished turn may start a fold. */
    @Override
    public void add(Iterable<ChatMessage> messages) {
        memory.add(messages);
    }

    /** System message, summary, then the turns the summary does not cover. */
    @Override
    public List<ChatMessage> messages() {
        return memory.messages();
    }

    /**
     * Replaces what the view shows with {@code messages}: entries up to the first difference stay as
     * they are, and so does everything the view did not show; the summary message goes back to the
     * state; writes nothing when nothing changed.
     * A system message anywhere in the list becomes the pinned one; a list without one removes the
     * system message, as LangChain4j's memories do.
     *
     * @throws IllegalArgumentException if {@code messages} is null, empty or holds null
     */
    @Override
    public void set(Iterable<ChatMessage> messages) {
        memory.set(messages);
    }

    /** Starts the conversation over (summary included); the earlier log stays unless a {@link Retention} deletes it. */
    @Override
    public void clear() {
        memory.clear();
    }

    /**
     * The summary the view shows, if any.
     *
     * @return the summary the view shows, if any
     */
    public Optional<Summary> summary() {
        return MemoryOptions.summaryOf(memory);
    }

    @Override
    public String toString() {
        return "SummaryBufferChatMemory{id=" + SessionIds.of(memory.id()) + '}';
    }

    /**
     * Builds a {@link SummaryBufferChatMemory}, or a {@link ChatMemoryProvider} of them;
     * {@link #summarizer} and {@link #maxBufferTokens} are required.
     */
    public static final class Builder extends MemoryBuilder<Builder> {

        private Function<Object, Integer> contextTokens;
        private Function<Object, Integer> maxTokens;
        private Function<Object, Integer> lowWatermark;
        private Integer fixedMax;
        private Integer fixedLow;

        private Builder() {
        }

        /**
         * Budget of the verbatim turns, in tokens (the summary and the system message are not
         * counted); passing it starts a fold. Required.
         *
         * @param maxBufferTokens the buffer limit, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code maxBufferTokens < 1}
         */
        public Builder maxBufferTokens(int maxBufferTokens) {
            atLeast(maxBufferTokens, 1, "maxBufferTokens");
            this.maxTokens = id -> maxBufferTokens;
            this.fixedMax = maxBufferTokens;
            return this;
        }

        /**
         * {@link #maxBufferTokens(int)} decided per memory id, at every fold.
         *
         * @param maxBufferTokens gives the buffer limit for a memory id, in tokens (at least 1)
         * @return this builder
         */
        public Builder dynamicMaxBufferTokens(Function<Object, Integer> maxBufferTokens) {
            this.maxTokens = notNull(maxBufferTokens, "maxBufferTokens");
            this.fixedMax = null;
            return this;
        }

        /**
         * A fold goes on until the verbatim turns are at or under this; default {@code maxBufferTokens / 2}.
         *
         * @param lowWatermark the low watermark, in tokens (at least 0)
         * @return this builder
         * @throws IllegalArgumentException if {@code lowWatermark < 0}
         */
        public Builder lowWatermark(int lowWatermark) {
            atLeast(lowWatermark, 0, "lowWatermark");
            this.lowWatermark = id -> lowWatermark;
            this.fixedLow = lowWatermark;
            return this;
        }

        /**
         * {@link #lowWatermark(int)} decided per memory id, at every fold.
         *
         * @param lowWatermark gives the low watermark for a memory id, in tokens (at least 0)
         * @return this builder
         */
        public Builder dynamicLowWatermark(Function<Object, Integer> lowWatermark) {
            this.lowWatermark = notNull(lowWatermark, "lowWatermark");
            this.fixedLow = null;
            return this;
        }

        /**
         * Writes the summaries. Required.
         *
         * @param summarizer the summarizer
         * @return this builder
         */
        public Builder summarizer(Summarizer summarizer) {
            return change(b -> b.summarizer(summarizer));
        }

        /**
         * Longest summary accepted, in tokens; a longer one is rejected as a failure. Default: the
         * summarizer's own cap for {@link Summarizer#llm} and {@link Summarizer#extractive()}, else 1,000.
         *
         * @param maxSummaryTokens the cap on the summary, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code maxSummaryTokens < 1}
         */
        public Builder maxSummaryTokens(int maxSummaryTokens) {
            return change(b -> b.maxSummaryTokens(maxSummaryTokens));
        }

        /**
         * Folds on this executor instead of inside {@code add()}: the turn never waits for the
         * summarizer, and until the new summary is stored the view is the old one plus every unfolded turn.
         *
         * @param executor runs the folds
         * @return this builder
         */
        public Builder executor(Executor executor) {
            return change(b -> b.foldExecutor(executor));
        }

        /**
         * How long one summarizer call may take before the fold fails (reported as
         * {@link SummarizationException.Reason#TIMED_OUT}; nothing changes). Bounds how long an
         * inline fold keeps {@code add()} waiting. Default 60 seconds.
         *
         * @param timeout the longest one summarizer call may take, positive
         * @return this builder
         */
        public Builder summarizerTimeout(Duration timeout) {
            return change(b -> b.summarizerTimeout(timeout));
        }

        /**
         * A hard ceiling on the request, in tokens: when folding lags or keeps failing, the oldest
         * closed turns are cut from the view (the overflow is reported) rather than letting requests
         * grow until the provider rejects them. Off by default.
         *
         * @param contextTokens the ceiling, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code contextTokens < 1}
         */
        public Builder contextTokens(int contextTokens) {
            atLeast(contextTokens, 1, "contextTokens");
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
            this.contextTokens = notNull(contextTokens, "contextTokens");
            return this;
        }

        /**
         * Where the summary goes in a request; default {@link SummaryMessage.Placement#SYSTEM_MESSAGE}.
         *
         * @param placement where the summary goes
         * @return this builder
         */
        public Builder summaryPlacement(SummaryMessage.Placement placement) {
            return change(b -> b.summaryPlacement(placement));
        }

        /**
         * A memory with these settings.
         *
         * @return a memory with these settings
         * @throws IllegalStateException    if no summarizer or no {@code maxBufferTokens} is set, or the
         *                                  watermark is not below {@code maxBufferTokens}
         * @throws IllegalArgumentException if dynamic limits give values out of range for this id
         */
        public SummaryBufferChatMemory build() {
            SummaryBufferStrategy strategy = strategy();
            strategy.check(memoryId());
            return new SummaryBufferChatMemory(resolvedOptions().memory(strategy, memoryId()));
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         *
         * @return the provider
         * @throws IllegalStateException if no summarizer or no {@code maxBufferTokens} is set, the
         *                               watermark is not below {@code maxBufferTokens}, or the store is
         *                               set twice
         */
        public ChatMemoryProvider provider() {
            SummaryBufferStrategy strategy = strategy();
            ChatMemoryProvider memories = resolvedOptions().provider(strategy);
            return memoryId -> {
                strategy.check(memoryId);
                return new SummaryBufferChatMemory(memories.get(memoryId));
            };
        }

        private SummaryBufferStrategy strategy() {
            validate();
            return new SummaryBufferStrategy(maxTokens, lowWatermark, contextTokens);
        }

        private void validate() {
            if (maxTokens == null) {
                throw new IllegalStateException("maxBufferTokens is required");
            }
            if (resolvedOptions().summarizer().isEmpty()) {
                throw new IllegalStateException("summarizer is required");
            }
            if (fixedMax != null && fixedLow != null && fixedLow >= fixedMax) {
                throw new IllegalStateException("lowWatermark (" + fixedLow + ") must be below maxBufferTokens ("
                        + fixedMax + ")");
            }
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
