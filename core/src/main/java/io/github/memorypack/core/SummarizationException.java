package io.github.memorypack.core;

import java.util.Objects;

/**
 * No usable summary was produced. The {@link #reason()} says why; the model's error, when there was
 * one, is the chained cause. Whatever text the model returned is never used as a summary.
 */
public final class SummarizationException extends MemoryPackException {

    private static final long serialVersionUID = 1L;

    /** Why a summarization produced nothing usable. */
    public enum Reason {
        /** The summarizer returned {@code null} or blank text. */
        EMPTY,
        /** The summary was longer than the token cap, or the model stopped at its output limit (cut off). */
        TOO_LONG,
        /** The model's content filter stopped the answer (finish reason {@code CONTENT_FILTER}). */
        FILTERED,
        /**
         * The answer is not a summary: it calls tools, ended for another reason than a normal stop, or
         * fails the summarizer's own check (it reads as a refusal or an error, or echoes the request).
         */
        NOT_A_SUMMARY,
        /** The summarizer (or its model) threw. */
        FAILED,
        /** The summarizer did not answer within the memory's summarizer timeout. */
        TIMED_OUT
    }

    /** Why no usable summary was produced. */
    private final Reason reason;
    /** How many attempts were made. */
    private final int attempts;

    /**
     * An exception with its cause.
     *
     * @param reason   why no usable summary was produced
     * @param attempts how many attempts were made (1 when the summarizer does not retry)
     * @param message  what went wrong
     * @param cause    what the summarizer or its model threw, or {@code null}
     * @throws NullPointerException if {@code reason} is null
     */
    public SummarizationException(Reason reason, int attempts, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.attempts = attempts;
    }

    /**
     * An exception without a cause (the summarizer returned an unusable text).
     *
     * @param reason   why no usable summary was produced
     * @param attempts how many attempts were made (1 when the summarizer does not retry)
     * @param message  what went wrong
     * @throws NullPointerException if {@code reason} is null
     */
    public SummarizationException(Reason reason, int attempts, String message) {
        this(reason, attempts, message, null);
    }

    /**
     * Why no usable summary was produced.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * How many attempts were made before giving up (1 when the summarizer does not retry).
     *
     * @return how many attempts were made before giving up (1 when the summarizer does not retry)
     */
    public int attempts() {
        return attempts;
    }
}
