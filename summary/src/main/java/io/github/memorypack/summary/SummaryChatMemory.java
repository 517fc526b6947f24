package io.github.memorypack.summary;

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
import io.github.memorypack.core.view.RequestScope;
import io.github.memorypack.core.view.Retention;
import io.github.memorypack.core.view.ViewRules;
import io.github.memorypack.summary.internal.FoldEngine;
import io.github.memorypack.summary.internal.SummarySettings;
import io.github.memorypack.summary.internal.Turns;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

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
 * Either way at most one fold of a session runs at a time in this process, and a fold that finds the
 * summary moved by someone else is dropped.
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
public final class SummaryChatMemory implements ChatMemory {

    /** Folds after every finished turn unless set otherwise. */
    public static final int DEFAULT_FOLD_EVERY_TURNS = 1;
    /** Tokenizer counting messages and summaries when none is set. */
    public static final TokenCountEstimator DEFAULT_TOKENIZER = Tokenizers.o200k();

    private final SessionMemory memory;
    private final ViewRules rules;
    private final FoldEngine engine;

    private SummaryChatMemory(MemorySettings settings, SummarySettings summarySettings, int foldEveryTurns) {
        TokenCountEstimator tokenizer = settings.tokenizer() != null ? settings.tokenizer() : DEFAULT_TOKENIZER;
        this.rules = settings.rules(tokenizer);
        this.memory = new SessionMemory(settings.id(), settings.store(), tokenizer, settings.retention(),
                settings.overflowListener());
        this.engine = new FoldEngine(memory, summarySettings, tokenizer, spans -> {
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
        return "SummaryChatMemory{id=" + memory.sessionId() + '}';
    }

    /** Builds a {@link SummaryChatMemory}; only the {@link #summarizer} is required. */
    public static final class Builder {

        private final MemorySettings settings = new MemorySettings();
        private final SummarySettings summarySettings = new SummarySettings();
        private int foldEveryTurns = DEFAULT_FOLD_EVERY_TURNS;

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

        /** Folds once this many finished turns are unsummarized (default {@value #DEFAULT_FOLD_EVERY_TURNS}). */
        public Builder foldEveryTurns(int turns) {
            this.foldEveryTurns = turns;
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
         * @throws IllegalArgumentException if no summarizer is set, a number is below 1, or the id is invalid
         */
        public SummaryChatMemory build() {
            validate();
            return new SummaryChatMemory(settings, summarySettings, foldEveryTurns);
        }

        /**
         * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory per memory id, all with
         * these settings and the same store.
         *
         * @throws IllegalArgumentException if no summarizer is set or a number is below 1
         */
        public ChatMemoryProvider provider() {
            validate();
            MemorySettings snapshot = settings.copy();
            SummarySettings summarySnapshot = summarySettings.copy();
            int every = foldEveryTurns;
            return memoryId -> {
                MemorySettings forId = snapshot.copy();
                forId.id(memoryId);
                return new SummaryChatMemory(forId, summarySnapshot, every);
            };
        }

        private void validate() {
            summarySettings.validate();
            if (foldEveryTurns < 1) {
                throw new IllegalArgumentException("foldEveryTurns must be >= 1, was " + foldEveryTurns);
            }
        }
    }
}
