package io.github.memorypack.core;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.util.Objects;
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
 * session runs at a time in this process (a turn that finishes during a fold makes it look again
 * when done); a fold that finds the summary moved by someone else is dropped.
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
public final class SummaryBufferChatMemory extends FoldingChatMemory {

    private SummaryBufferChatMemory(MemorySettings settings, SummarySettings summarySettings,
                                    Function<Object, Integer> maxTokens, Function<Object, Integer> lowWatermark,
                                    TokenAccounting calibration) {
        super(settings, summarySettings, policy(settings.id(), maxTokens, lowWatermark, calibration));
        limits(settings.id(), maxTokens, lowWatermark); // per-session limits are checked once up front, like LangChain4j's
    }

    /** Fold when the unsummarized turns pass maxTokens; fold the oldest until at or under the watermark. */
    private static FoldEngine.Policy policy(Object id, Function<Object, Integer> maxTokens,
                                            Function<Object, Integer> lowWatermark, TokenAccounting calibration) {
        return spans -> {
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
            // never the newest turn; stop at the first turn that cannot fold yet (folds are prefixes)
            for (int i = 0; i < spans.size() - 1 && remaining * factor > limits[1]; i++) {
                Turns.Span span = spans.get(i);
                if (!span.foldable()) {
                    break;
                }
                remaining -= span.tokens();
                end = span.end();
            }
            return end;
        };
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
    public String toString() {
        return "SummaryBufferChatMemory{id=" + sessionId() + '}';
    }

    /** Builds a {@link SummaryBufferChatMemory}; {@link #summarizer} and {@link #maxTokens} are required. */
    public static final class Builder extends SummaryMemoryBuilder<Builder> {

        private Function<Object, Integer> maxTokens;
        private Function<Object, Integer> lowWatermark;
        private TokenAccounting calibration;

        private Builder() {
        }

        @Override
        protected Builder self() {
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
         * Multiplies token counts by {@code accounting}'s per-session calibration factor (reported /
         * estimated) before comparing them with the limits. Also sets it as the {@link #tokenAccounting}.
         */
        public Builder calibrateWith(TokenAccounting accounting) {
            tokenAccounting(accounting);
            this.calibration = accounting;
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
         * these settings and the same store (the default store is created once, here).
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
            return memoryId -> new SummaryBufferChatMemory(snapshot.forId(memoryId), summarySnapshot, max, low, calibrate);
        }

        private void validate() {
            if (maxTokens == null) {
                throw new IllegalArgumentException("maxTokens is required");
            }
            validateShared();
        }
    }
}
