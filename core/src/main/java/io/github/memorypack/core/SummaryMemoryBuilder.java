package io.github.memorypack.core;

import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * The builder options both summarizing memories share, on top of every memory's
 * ({@link MemoryBuilder}); each strategy's {@code Builder} extends it and adds its own limits.
 *
 * @param <B> the strategy's builder type, returned by every option for chaining
 */
public abstract class SummaryMemoryBuilder<B extends SummaryMemoryBuilder<B>> extends MemoryBuilder<B> {

    /** What the summary options set; strategies read it in {@code build()}. */
    protected final SummarySettings summarySettings = new SummarySettings();

    protected SummaryMemoryBuilder() {
    }

    /** Writes the summaries. Required. */
    public B summarizer(Summarizer summarizer) {
        summarySettings.summarizer(summarizer);
        return self();
    }

    /**
     * Longest summary accepted, in tokens; a longer one is rejected as a failure. Default: the
     * summarizer's own cap for {@link LlmSummarizer} and {@link ExtractiveSummarizer}, else
     * {@value SummarySettings#DEFAULT_MAX_SUMMARY_TOKENS}.
     */
    public B maxSummaryTokens(int maxSummaryTokens) {
        summarySettings.maxSummaryTokens(maxSummaryTokens);
        return self();
    }

    /**
     * Folds on this executor instead of inside {@code add()}: the turn never waits for the
     * summarizer, and until the new summary is stored the view is the old one plus every unfolded turn.
     */
    public B executor(Executor executor) {
        summarySettings.executor(executor);
        return self();
    }

    /** Told about failed folds; default {@link SummaryFailureListener#logging()}. */
    public B failureListener(SummaryFailureListener listener) {
        summarySettings.failureListener(listener);
        return self();
    }

    /** Records summarizer calls and binds requests for {@link TokenAccounting#listener}. */
    public B tokenAccounting(TokenAccounting accounting) {
        summarySettings.accounting(accounting);
        return self();
    }

    /** Timestamps summaries; default the system UTC clock. */
    public B clock(Clock clock) {
        summarySettings.clock(clock);
        return self();
    }

    /**
     * What may be trimmed from the log for good; default {@link Retention#keepAll()}. Entries the
     * view shows are never trimmed; entries the summary covers may be.
     */
    public B retention(Retention retention) {
        settings.retention(retention);
        return self();
    }

    /**
     * Checks every shared option, as a strategy's {@code build()} and {@code provider()} must.
     *
     * @throws IllegalArgumentException if no summarizer is set or a value is out of range
     */
    protected final void validateShared() {
        settings.validate();
        summarySettings.validate();
    }
}
