package io.github.memorypack.summary;

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
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * A chat memory that keeps a running summary of the whole conversation plus the turns not yet
 * folded into it. The log in the {@link SessionStore} keeps every message; the summary lives in the
 * session state, so a new memory on the same store (an application restart) continues from it.
 *
 * <p><b>Folding.</b> When a turn finishes (an AI message without tool requests is added) and at
 * least {@code foldEveryTurns} closed turns (default {@value #DEFAULT_FOLD_EVERY_TURNS}) before the
 * newest one are not yet in the summary, all of them are folded in — the newest turn always stays
 * verbatim, so the model sees the last exchange word for word and LangChain4j's output guardrails
 * can still remove the last answer: the {@link Summarizer} gets the previous summary and
 * those turns' messages and its answer replaces the summary, stored with compare-and-set. A fold
 * never takes an open turn (a request still in progress, even when requests for the session
 * interleave) or anything after it; it never takes a superseded attempt or a replaced message.
 *
 * <p><b>Failures change nothing.</b> A summarizer that throws, times out ({@link Builder#summarizerTimeout}),
 * or returns {@code null}, blank text or more than {@code maxSummaryTokens} tokens, leaves summary
 * and log as they were: every message stays visible, the {@link MemoryListener} is told, and
 * the fold is tried again at a later turn (after k failures in a row, 2^(k-1) − 1 turns are skipped
 * first, at most 31). With {@link Builder#contextTokens} the request never grows past a ceiling
 * meanwhile: the oldest closed turns are cut from the view and the overflow is reported.
 *
 * <p><b>Inline or background.</b> By default the fold runs inside {@link #add}, so results are
 * deterministic. With an {@link Builder#executor executor} it runs there and {@code add} returns at
 * once; until the new summary is stored the view is the old summary plus every unfolded turn.
 *
 * <p><b>View:</b> the application's system message first, then the summary as a
 * {@link SummaryMessage} (or where {@link Builder#summaryPlacement} puts it), then every turn the
 * summary does not cover — whole turns, tool calls with their results, interrupted calls repaired.
 * {@link #set} and {@link #clear} follow LangChain4j's round trips without loss; the summary message
 * is recognised when it comes back and goes back to the state.
 *
 * <pre>{@code
 * ChatMemory memory = SummaryChatMemory.builder()
 *         .id("user-42").chatMemoryStore(store).summarizer(Summarizer.llm(cheapModel)).build();
 * }</pre>
 */
public final class SummaryChatMemory implements ChatMemory {

    /** Folds after every finished turn unless set otherwise. */
    public static final int DEFAULT_FOLD_EVERY_TURNS = 1;

    private final ChatMemory memory;

    private SummaryChatMemory(ChatMemory memory) {
        this.memory = memory;
    }

    /**
     * A builder; only the {@link Builder#summarizer} is required.
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
        return "SummaryChatMemory{id=" + SessionIds.of(memory.id()) + '}';
    }

    /** Builds a {@link SummaryChatMemory}, or a {@link ChatMemoryProvider} of them; only the summarizer is required. */
    public static final class Builder extends MemoryBuilder<Builder> {

        private Function<Object, Integer> contextTokens;
        private int foldEveryTurns = DEFAULT_FOLD_EVERY_TURNS;

        private Builder() {
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
         * Folds once this many closed turns before the newest are unsummarized (default {@value
         * #DEFAULT_FOLD_EVERY_TURNS}).
         *
         * @param turns the number of completed turns between folds (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code turns < 1}
         */
        public Builder foldEveryTurns(int turns) {
            this.foldEveryTurns = atLeast(turns, 1, "foldEveryTurns");
            return this;
        }

        /**
         * A memory with these settings.
         *
         * @return a memory with these settings
         * @throws IllegalStateException if no summarizer is set
         */
        public SummaryChatMemory build() {
            SummaryStrategy strategy = strategy();
            strategy.check(memoryId());
            return new SummaryChatMemory(resolvedOptions().memory(strategy, memoryId()));
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         *
         * @return the provider
         * @throws IllegalStateException if no summarizer is set, or the store is set twice
         */
        public ChatMemoryProvider provider() {
            SummaryStrategy strategy = strategy();
            ChatMemoryProvider memories = resolvedOptions().provider(strategy);
            return memoryId -> {
                strategy.check(memoryId);
                return new SummaryChatMemory(memories.get(memoryId));
            };
        }

        private SummaryStrategy strategy() {
            if (resolvedOptions().summarizer().isEmpty()) {
                throw new IllegalStateException("summarizer is required");
            }
            return new SummaryStrategy(foldEveryTurns, contextTokens);
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
