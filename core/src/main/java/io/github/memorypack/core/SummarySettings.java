package io.github.memorypack.core;

import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The options both summarizing memories share (summarizer, summary cap, inline or background
 * folding, failure listener, token accounting, clock), so each builder only adds its own. Mutable,
 * like the builders that hold it.
 */
public final class SummarySettings {

    /** Summary cap of a memory whose summarizer does not declare one. */
    public static final int DEFAULT_MAX_SUMMARY_TOKENS = 1_000;

    private Summarizer summarizer;
    private Integer maxSummaryTokens;
    private Executor executor;
    private SummaryFailureListener failureListener = SummaryFailureListener.logging();
    private TokenAccounting accounting;
    private Clock clock = Clock.systemUTC();

    public void summarizer(Summarizer summarizer) {
        this.summarizer = Objects.requireNonNull(summarizer, "summarizer");
    }

    public Summarizer summarizer() {
        return summarizer;
    }

    public void maxSummaryTokens(int maxSummaryTokens) {
        this.maxSummaryTokens = maxSummaryTokens;
    }

    /**
     * The cap set, else the summarizer's own ({@link LlmSummarizer}, {@link ExtractiveSummarizer}),
     * else {@value #DEFAULT_MAX_SUMMARY_TOKENS}.
     */
    public int maxSummaryTokens() {
        if (maxSummaryTokens != null) {
            return maxSummaryTokens;
        }
        if (summarizer instanceof LlmSummarizer llm) {
            return llm.maxSummaryTokens();
        }
        if (summarizer instanceof ExtractiveSummarizer extractive) {
            return extractive.maxSummaryTokens();
        }
        return DEFAULT_MAX_SUMMARY_TOKENS;
    }

    public void executor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /** The background executor, or {@code null} for inline folding. */
    public Executor executor() {
        return executor;
    }

    public void failureListener(SummaryFailureListener listener) {
        this.failureListener = Objects.requireNonNull(listener, "failureListener");
    }

    public SummaryFailureListener failureListener() {
        return failureListener;
    }

    public void accounting(TokenAccounting accounting) {
        this.accounting = Objects.requireNonNull(accounting, "tokenAccounting");
    }

    /** The token ledger, or {@code null}. */
    public TokenAccounting accounting() {
        return accounting;
    }

    public void clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public Clock clock() {
        return clock;
    }

    /**
     * Checks the options.
     *
     * @throws IllegalArgumentException if no summarizer is set or the cap is below 1
     */
    public void validate() {
        if (summarizer == null) {
            throw new IllegalArgumentException("summarizer is required");
        }
        if (maxSummaryTokens() < 1) {
            throw new IllegalArgumentException("maxSummaryTokens must be >= 1, was " + maxSummaryTokens());
        }
    }

    public SummarySettings copy() {
        SummarySettings copy = new SummarySettings();
        copy.summarizer = summarizer;
        copy.maxSummaryTokens = maxSummaryTokens;
        copy.executor = executor;
        copy.failureListener = failureListener;
        copy.accounting = accounting;
        copy.clock = clock;
        return copy;
    }
}
