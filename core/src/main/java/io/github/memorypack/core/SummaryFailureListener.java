package io.github.memorypack.core;

import java.lang.System.Logger.Level;

/**
 * Told when a fold fails (see {@link SummaryFailure}). Called on the thread that ran the fold —
 * the caller's in inline mode, the executor's in background mode. Must not throw.
 */
@FunctionalInterface
public interface SummaryFailureListener {

    void onFailure(SummaryFailure failure);

    /** Logs each failure as a warning through {@link System.Logger} (the default). */
    static SummaryFailureListener logging() {
        System.Logger logger = System.getLogger(SummaryFailureListener.class.getName());
        return failure -> logger.log(Level.WARNING, () -> "summary of session " + failure.sessionId()
                + " (entries " + failure.fromIndex() + ".." + failure.toIndex() + ") failed: " + failure.reason()
                + ", failures in a row: " + failure.consecutiveFailures()
                + "; nothing was changed, it will be retried on a later turn", failure.cause());
    }

    /** Ignores failures. */
    static SummaryFailureListener ignoring() {
        return failure -> {
        };
    }
}
