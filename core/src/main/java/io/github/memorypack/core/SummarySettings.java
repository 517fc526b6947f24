package io.github.memorypack.core;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The options both summarizing memories share (summarizer, summary cap, inline or background
 * folding, summarizer timeout), checked when they are set.
 * Mutable, like the builders that hold it.
 */
final class SummarySettings {

    /** Summary cap of a memory whose summarizer does not declare one. */
    static final int DEFAULT_MAX_SUMMARY_TOKENS = 1_000;
    /** How long one summarizer call may take unless set otherwise. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private Summarizer summarizer;
    private Integer maxSummaryTokens;
    private Executor executor;
    private Duration timeout = DEFAULT_TIMEOUT;
    private Clock clock = Clock.systemUTC();

    void summarizer(Summarizer summarizer) {
        this.summarizer = MemorySettings.notNull(summarizer, "summarizer");
    }

    Summarizer summarizer() {
        return summarizer;
    }

    void maxSummaryTokens(int maxSummaryTokens) {
        this.maxSummaryTokens = MemorySettings.atLeast(maxSummaryTokens, 1, "maxSummaryTokens");
    }

    /**
     * The cap set, else the summarizer's own (the LLM one, the extractive one), else
     * {@value #DEFAULT_MAX_SUMMARY_TOKENS}.
     */
    int maxSummaryTokens() {
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

    void executor(Executor executor) {
        this.executor = MemorySettings.notNull(executor, "executor");
    }

    /** The background executor, or {@code null} for inline folding. */
    Executor executor() {
        return executor;
    }

    void timeout(Duration timeout) {
        this.timeout = MemorySettings.positive(timeout, "summarizerTimeout");
    }

    Duration timeout() {
        return timeout;
    }

    void clock(Clock clock) {
        this.clock = MemorySettings.notNull(clock, "clock");
    }

    Clock clock() {
        return clock;
    }

    /**
     * Checks what only {@code build()} can check.
     *
     * @throws IllegalStateException if no summarizer is set
     */
    void validate() {
        if (summarizer == null) {
            throw new IllegalStateException("summarizer is required");
        }
    }

    SummarySettings copy() {
        SummarySettings copy = new SummarySettings();
        copy.summarizer = summarizer;
        copy.maxSummaryTokens = maxSummaryTokens;
        copy.executor = executor;
        copy.timeout = timeout;
        copy.clock = clock;
        return copy;
    }
}
