package io.github.memorypack.summarybuffer;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.internal.MemorySettings;
import io.github.memorypack.core.internal.SessionMemory;
import io.github.memorypack.core.view.Retention;
import io.github.memorypack.core.view.ViewRules;
import io.github.memorypack.summary.ExtractiveSummarizer;
import io.github.memorypack.summary.LlmSummarizer;
import io.github.memorypack.summary.Summarizer;
import io.github.memorypack.summary.SummaryFailureListener;
import io.github.memorypack.summary.TokenAccounting;
import io.github.memorypack.summary.internal.FoldEngine;
import io.github.memorypack.summary.internal.SummarySettings;
import io.github.memorypack.summary.internal.Turns;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * passes {@code maxTokens} are the oldest whole turns folded into the summary — as many as it takes
 * to bring the rest to {@code lowWatermark} or below (default half of {@code maxTokens}). The newest
 * turn is never folded. So the summarizer runs about once per ({@code maxTokens − lowWatermark})
 * tokens of new conversation, not on every turn. Both limits may be set per session (a function of
 * the memory id, applied at every fold). With {@link Builder#calibrateWith calibration}, token counts
 * are multiplied by the session's {@link TokenAccounting#calibrationFactor} first.
 *
 * <p>{@code maxTokens} bounds the verbatim turns only: the view is at most the system message, the
 * summary ({@code maxSummaryTokens} plus its header), and {@code maxTokens} — or, when the newest
 * turn alone is bigger, that turn.
 *
 * <p><b>Failures change nothing.</b> A summarizer that throws, or returns {@code null}, blank text
 * or more than {@code maxSummaryTokens} tokens, leaves summary and log as they were: every message
 * stays visible (the view is then over budget, never wrong), the {@link SummaryFailureListener} is
 * told, and the fold is tried again at a later turn (after k failures in a row, 2^(k-1) − 1 turns
 * are skipped first, at most 31).
 *
 * <p><b>Inline or background.</b> By default the fold runs inside {@link #add}; with an
 * {@link Builder#executor executor} it runs there and {@code add} returns at once, and until the new
 * summary is stored the view is the old summary plus every unfolded turn. At most one fold of a
 * session runs at a time in this process; a fold that finds the summary moved by someone else is
 * dropped.
 *
 * <p><b>View</b> (through the shared {@link ViewRules}): the application's system message first,
 * then the summary as a system message under {@link ViewRules#SUMMARY_HEADER}, then every turn the
 * summary does not cover — whole turns, tool calls with their results, interrupted calls repaired.
 *
 * <pre>{@code
 * ChatMemoryProvider memories = SummaryBufferChatMemory.builder()
 *         .store(store).summarizer(LlmSummarizer.of(cheapModel)).maxTokens(2_000).provider();
 * }</pre>
 */
public final class SummaryBufferChatMemory implements ChatMemory {

    /** Tokenizer counting messages and summaries when none is set. */
    public static final TokenCountEstimator DEFAULT_TOKENIZER = Tokenizers.o200k();

    private final SessionMemory memory;
    private final ViewRules rules;
    private final FoldEngine engine;

    private SummaryBufferChatMemory(MemorySettings settings, SummarySettings summarySettings,
                                    Function<Object, Integer> maxTokens, Function<Object, Integer> lowWatermark,
                                    TokenAccounting calibration) {
        TokenCountEstimator tokenizer = settings.tokenizer() != null ? settings.tokenizer() : DEFAULT_TOKENIZER;
        this.rules = settings.rules(tokenizer);
        this.memory = new SessionMemory(settings.id(), settings.store(), tokenizer, settings.retention(),
                settings.overflowListener());
        Object id = settings.id();
        limits(id, maxTokens, lowWatermark); // per-session limits are checked once up front, like LangChain4j's
        this.engine = new FoldEngine(memory, summarySettings, tokenizer, spans -> {
            int[] limits = limits(id, maxTokens, lowWatermark);
            double factor = calibration == null ? 1.0 : calibration.calibrationFactor(id);
            long remaining = 0;
            for (Turns.Span span : spans) {
                remaining += span.tokens();
            }
            if (remaining * factor <= limits[0]) {
                return -1;
            }
            long end = -1;
            for (int i = 0; i < spans.size() - 1 && remaining * factor > limits[1]; i++) {
                Turns.Span span = spans.get(i);
                if (!span.foldable()) {
                    break;
                }
                remaining -= span.tokens();
                end = span.end();
            }
            return end;
        });
    }

    private static int[] limits(Object id, Function<Object, Integer> maxTokens, Function<Object, Integer> lowWatermark) {
        int max = MemorySettings.limit(maxTokens, id, "maxTokens");
        Integer low = lowWatermark == null ? Integer.valueOf(max / 2) : lowWatermark.apply(id);
        if (low == null || low < 0 || low >= max) {
            throw new IllegalArgumentException("lowWatermark must be >= 0 and < maxTokens (" + max + "), was " + low
                    + " for memory id " + id);
        }
        return new int[] {max, low};
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Object id() {
        return memory.id();
    }

    /** Appends the message; a finished turn may trigger a fold (see the class rules). */
    @Override
    public void add(ChatMessage message) {
        memory.add(message);
        if (message instanceof AiMessage ai && !ai.hasToolExecutionRequests()) {
            engine.turnFinished();
        }
    }

    /** System message, summary, then the turns the summary does not cover. */
    @Override
    public List<ChatMessage> messages() {
        return new ArrayList<>(engine.view(rules).messages());
    }

    /** Replaces the whole log with {@code messages} in one store call and drops the summary. */
    @Override
    public void set(Iterable<ChatMessage> messages) {
        memory.set(messages);
    }

    /** Deletes the session: log, summary and state. */
    @Override
    public void clear() {
        memory.clear();
    }

    /** The stored summary, if any. */
    public Optional<Summary> summary() {
        return engine.summary();
    }

    @Override
    public String toString() {
        return "SummaryBufferChatMemory{id=" + memory.sessionId() + '}';
    }

    /** Builds a {@link SummaryBufferChatMemory}; {@link #summarizer} and {@link #maxTokens} are required. */
    public static final class Builder {

        private final MemorySettings settings = new MemorySettings();
        private final SummarySettings summarySettings = new SummarySettings();
        private Function<Object, Integer> maxTokens;
        private Function<Object, Integer> lowWatermark;
        private TokenAccounting calibration;

        private Builder() {
        }

        /** The memory id (the session id, validated in {@link #build()}); default {@code "default"}. */
        public Builder id(Object id) {
            settings.id(id);
            return this;
        }

        /** The store holding log and summary; default a new {@link io.github.memorypack.core.InMemorySessionStore}. */
        public Builder store(SessionStore store) {
            settings.store(store);
            return this;
        }

        /** Writes the summaries. Required. */
        public Builder summarizer(Summarizer summarizer) {
            summarySettings.summarizer(summarizer);
            return this;
        }

        /** Budget of the verbatim turns, in tokens; passing it starts a fold. Required. */
        public Builder maxTokens(int maxTokens) {
            return maxTokens(id -> maxTokens);
        }

        /** {@link #maxTokens(int)} decided per memory id, at every fold. */
        public Builder maxTokens(Function<Object, Integer> maxTokens) {
            this.maxTokens = Objects.requireNonNull(maxTokens, "maxTokens");
            return this;
        }

        /** A fold goes on until the verbatim turns are at or under this; default {@code maxTokens / 2}. */
        public Builder lowWatermark(int lowWatermark) {
            return lowWatermark(id -> lowWatermark);
        }

        /** {@link #lowWatermark(int)} decided per memory id, at every fold. */
        public Builder lowWatermark(Function<Object, Integer> lowWatermark) {
            this.lowWatermark = Objects.requireNonNull(lowWatermark, "lowWatermark");
            return this;
        }

        /**
         * Longest summary accepted, in tokens; longer ones are rejected as failures. Default: the
         * summarizer's own cap for {@link LlmSummarizer} and {@link ExtractiveSummarizer}, else 1,000.
         */
        public Builder maxSummaryTokens(int maxSummaryTokens) {
            summarySettings.maxSummaryTokens(maxSummaryTokens);
            return this;
        }

        /** Counts each message once, when added, and each summary; default {@link Tokenizers#o200k()}. */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            settings.tokenizer(tokenizer);
            return this;
        }

        /** Folds on this executor instead of inside {@code add()}: the turn never waits for the summarizer. */
        public Builder executor(Executor executor) {
            summarySettings.executor(executor);
            return this;
        }

        /** Told about failed folds; default {@link SummaryFailureListener#logging()}. */
        public Builder failureListener(SummaryFailureListener listener) {
            summarySettings.failureListener(listener);
            return this;
        }

        /** Records summarizer calls and binds requests for {@link TokenAccounting#listener}. */
        public Builder tokenAccounting(TokenAccounting accounting) {
            summarySettings.accounting(accounting);
            return this;
        }

        /**
         * Multiplies token counts by {@code accounting}'s per-session calibration factor (reported /
         * estimated) before comparing them with the limits. Also sets it as the {@link #tokenAccounting}.
         */
        public Builder calibrateWith(TokenAccounting accounting) {
            summarySettings.accounting(accounting);
            this.calibration = accounting;
            return this;
        }

        /** Timestamps summaries; default the system UTC clock. */
        public Builder clock(Clock clock) {
            summarySettings.clock(clock);
            return this;
        }

        /** What may be trimmed from the log for good; default {@link Retention#keepAll()}. Never what the view shows. */
        public Builder retention(Retention retention) {
            settings.retention(retention);
            return this;
        }

        /**
         * @throws IllegalArgumentException if no summarizer or no {@code maxTokens} is set,
         *                                  {@code maxTokens} is below 1, the watermark is not in
         *                                  [0, maxTokens), or the id is invalid
         */
        public SummaryBufferChatMemory build() {
            validate();
            return new SummaryBufferChatMemory(settings, summarySettings, maxTokens, lowWatermark, calibration);
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store.
         *
         * @throws IllegalArgumentException if no summarizer or no {@code maxTokens} is set
         */
        public ChatMemoryProvider provider() {
            validate();
            MemorySettings snapshot = settings.copy();
            SummarySettings summarySnapshot = summarySettings.copy();
            Function<Object, Integer> max = maxTokens;
            Function<Object, Integer> low = lowWatermark;
            TokenAccounting calibrate = calibration;
            return memoryId -> {
                MemorySettings forId = snapshot.copy();
                forId.id(memoryId);
                return new SummaryBufferChatMemory(forId, summarySnapshot, max, low, calibrate);
            };
        }

        private void validate() {
            if (maxTokens == null) {
                throw new IllegalArgumentException("maxTokens is required");
            }
            summarySettings.validate();
        }
    }
}
