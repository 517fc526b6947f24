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
        /** The summary was longer than the token cap, or the model stopped at its output limit. */
        TOO_LONG,
        /** The summarizer (or its model) threw. */
        FAILED,
        /** The summarizer did not answer within the memory's summarizer timeout. */
        TIMED_OUT
    }

    private final Reason reason;
    private final int attempts;

    public SummarizationException(Reason reason, int attempts, String message, Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.attempts = attempts;
    }

    public SummarizationException(Reason reason, int attempts, String message) {
        this(reason, attempts, message, null);
    }

    public Reason reason() {
        return reason;
    }

    /** How many attempts were made before giving up (1 when the summarizer does not retry). */
    public int attempts() {
        return attempts;
    }
}
