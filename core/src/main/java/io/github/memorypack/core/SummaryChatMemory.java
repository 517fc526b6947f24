package io.github.memorypack.core;

import dev.langchain4j.memory.chat.ChatMemoryProvider;

/**
 * A chat memory that keeps a running summary of the whole conversation plus the turns not yet
 * folded into it. The log in the {@link SessionStore} keeps every message; the summary lives in the
 * session state, so a new memory on the same store (an application restart) continues from it.
 *
 * <p><b>Folding.</b> When a turn finishes (an AI message without tool requests is added) and at
 * least {@code foldEveryTurns} finished turns (default {@value #DEFAULT_FOLD_EVERY_TURNS}) are not
 * yet in the summary, all of them are folded in: the {@link Summarizer} gets the previous summary and
 * those turns' messages (system-message entries excluded) and its answer replaces the summary, stored
 * with compare-and-set. Folds end at turn boundaries; a turn with an unanswered tool call is not
 * folded until the call is answered (or two newer turns exist, when it counts as interrupted).
 *
 * <p><b>Failures change nothing.</b> A summarizer that throws, or returns {@code null}, blank text
 * or more than {@code maxSummaryTokens} tokens, leaves summary and log as they were: every message
 * stays visible, the {@link SummaryFailureListener} is told, and the fold is tried again at a later
 * turn (after k failures in a row, 2^(k-1) − 1 turns are skipped first, at most 31).
 *
 * <p><b>Inline or background.</b> By default the fold runs inside {@link #add}, so results are
 * deterministic. With an {@link Builder#executor executor} it runs there and {@code add} returns at
 * once; until the new summary is stored the view is the old summary plus every unfolded turn.
 * Either way at most one fold of a session runs at a time in this process (a turn that finishes
 * during a fold makes it look again when done), and a fold that finds the summary moved by someone
 * else is dropped.
 *
 * <p><b>View</b> (through the shared {@link ViewRules}): the application's system message first,
 * then the summary as a system message under {@link ViewRules#SUMMARY_HEADER}, then every turn the
 * summary does not cover — whole turns, tool calls with their results, interrupted calls repaired.
 *
 * <pre>{@code
 * ChatMemory memory = SummaryChatMemory.builder()
 *         .id("user-42").store(store).summarizer(LlmSummarizer.of(cheapModel)).build();
 * }</pre>
 */
public final class SummaryChatMemory extends FoldingChatMemory {

    /** Folds after every finished turn unless set otherwise. */
    public static final int DEFAULT_FOLD_EVERY_TURNS = 1;

    private SummaryChatMemory(MemorySettings settings, SummarySettings summarySettings, int foldEveryTurns) {
        super(settings, summarySettings, spans -> {
            int finished = 0;
            long end = -1;
            for (Turns.Span span : spans) {
                if (!span.foldable()) {
                    break;
                }
                finished++;
                end = span.end();
            }
            return finished >= foldEveryTurns ? end : -1;
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String toString() {
        return "SummaryChatMemory{id=" + sessionId() + '}';
    }

    /** Builds a {@link SummaryChatMemory}; only the {@link #summarizer} is required. */
    public static final class Builder extends SummaryMemoryBuilder<Builder> {

        private int foldEveryTurns = DEFAULT_FOLD_EVERY_TURNS;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /** Folds once this many finished turns are unsummarized (default {@value #DEFAULT_FOLD_EVERY_TURNS}). */
        public Builder foldEveryTurns(int turns) {
            this.foldEveryTurns = turns;
            return this;
        }

        /**
         * @throws IllegalArgumentException if no summarizer is set, a number is out of range, or the id is invalid
         */
        public SummaryChatMemory build() {
            validate();
            return new SummaryChatMemory(settings, summarySettings, foldEveryTurns);
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store (the default store is created once, here).
         *
         * @throws IllegalArgumentException if no summarizer is set or a number is out of range
         */
        public ChatMemoryProvider provider() {
            validate();
            MemorySettings snapshot = settings.copy();
            SummarySettings summarySnapshot = summarySettings.copy();
            int every = foldEveryTurns;
            return memoryId -> new SummaryChatMemory(snapshot.forId(memoryId), summarySnapshot, every);
        }

        private void validate() {
            validateShared();
            if (foldEveryTurns < 1) {
                throw new IllegalArgumentException("foldEveryTurns must be >= 1, was " + foldEveryTurns);
            }
        }
    }
}
