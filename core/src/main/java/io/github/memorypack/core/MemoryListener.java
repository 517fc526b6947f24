package io.github.memorypack.core;

import io.github.memorypack.core.SummarizationException.Reason;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Told what a memory does: every view it computes, views over their limit, folds, failed and
 * skipped folds. For logs, metrics (see {@code memory-pack-micrometer}) and tests. Every method has
 * an empty default, so a listener implements only what it needs.
 *
 * <p>Calls come on the thread that did the work — the caller's for views and inline folds, the
 * executor's for background folds. A listener must be fast and must not throw; an exception it
 * throws is caught and logged, never passed to the memory's caller.
 *
 * <p>A memory with no listener set uses {@link #logging()}, so overflows and failed folds are never
 * silent; a memory given listeners calls exactly those ({@code logging().and(mine)} keeps both).
 */
public interface MemoryListener {

    /** A listener that does nothing. */
    MemoryListener NONE = new MemoryListener() {
    };

    /**
     * A view was computed (each {@code messages()} call, and the view {@code set} compares with).
     *
     * @param view what was shown
     */
    default void onView(ViewShown view) {
    }

    /**
     * A view is bigger than its limit: only what can never be cut (see {@link Overflow}) is over it.
     *
     * @param overflow the overflow
     */
    default void onOverflow(Overflow overflow) {
    }

    /**
     * A fold stored a new summary.
     *
     * @param fold what the fold did
     */
    default void onFold(Fold fold) {
    }

    /**
     * A fold changed nothing (see {@link SummaryFailure}); it is tried again on a later turn.
     *
     * @param failure what failed
     */
    default void onSummaryFailure(SummaryFailure failure) {
    }

    /**
     * A turn ended but its fold was skipped: earlier folds failed, and the memory is backing off.
     *
     * @param sessionId the session
     * @param strategy the memory's strategy ({@code summary} or {@code summary-buffer})
     */
    default void onFoldSkipped(String sessionId, String strategy) {
    }

    /**
     * This listener, then {@code other}.
     *
     * @param other the listener to call after this one
     * @return this listener, then {@code other}
     */
    default MemoryListener and(MemoryListener other) {
        Objects.requireNonNull(other, "other");
        MemoryListener first = this;
        return new MemoryListener() {
            @Override
            public void onView(ViewShown view) {
                first.onView(view);
                other.onView(view);
            }

            @Override
            public void onOverflow(Overflow overflow) {
                first.onOverflow(overflow);
                other.onOverflow(overflow);
            }

            @Override
            public void onFold(Fold fold) {
                first.onFold(fold);
                other.onFold(fold);
            }

            @Override
            public void onSummaryFailure(SummaryFailure failure) {
                first.onSummaryFailure(failure);
                other.onSummaryFailure(failure);
            }

            @Override
            public void onFoldSkipped(String sessionId, String strategy) {
                first.onFoldSkipped(sessionId, strategy);
                other.onFoldSkipped(sessionId, strategy);
            }
        };
    }

    /**
     * The default: logs each overflow and each failed fold as a warning (SLF4J logger
     * {@code io.github.memorypack.core.MemoryListener}).
     *
     * @return the logging listener
     */
    static MemoryListener logging() {
        return Logging.INSTANCE;
    }

    /**
     * A listener for overflows only.
     *
     * @param consumer called with each overflow
     * @return a listener for overflows only
     */
    static MemoryListener onOverflow(Consumer<Overflow> consumer) {
        Objects.requireNonNull(consumer, "consumer");
        return new MemoryListener() {
            @Override
            public void onOverflow(Overflow overflow) {
                consumer.accept(overflow);
            }
        };
    }

    /**
     * A listener for failed folds only.
     *
     * @param consumer called with each failure
     * @return a listener for failed folds only
     */
    static MemoryListener onSummaryFailure(Consumer<SummaryFailure> consumer) {
        Objects.requireNonNull(consumer, "consumer");
        return new MemoryListener() {
            @Override
            public void onSummaryFailure(SummaryFailure failure) {
                consumer.accept(failure);
            }
        };
    }

    /**
     * A computed view.
     *
     * @param sessionId the session
     * @param strategy  {@code buffer}, {@code window}, {@code summary}, {@code summary-buffer} or {@code
     *                  memory-md}
     * @param messages  how many messages it shows
     * @param tokens    its size in tokens as the memory's tokenizer counts a request (stored counts), or
     *                  -1 when the memory stores no token counts
     */
    record ViewShown(String sessionId, String strategy, int messages, long tokens) {
    }

    /**
     * A view over its limit. That happens only when what can never be cut — the system message, the
     * summary, the newest turn and open turns (requests still in progress) — is over the limit: the
     * memory keeps it anyway, because a request without them makes no sense, and reports it here.
     *
     * @param sessionId the session
     * @param unit      what the limit counts
     * @param limit     the limit
     * @param size      the view's size, in {@code unit}
     */
    record Overflow(String sessionId, Unit unit, int limit, int size) {

        /** What a limit counts. */
        public enum Unit {
            /** Messages sent, the pinned system message included. */
            MESSAGES,
            /** Turns: a user message and what belongs to it. */
            TURNS,
            /** Tokens of the whole request, as the memory's tokenizer counts them. */
            TOKENS
        }

        /**
         * Creates the event.
         *
         * @param sessionId the session
         * @param unit      what the limit counts
         * @param limit     the limit
         * @param size      the view's size, in {@code unit}
         * @throws NullPointerException if {@code sessionId} or {@code unit} is null
         */
        public Overflow {
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(unit, "unit");
        }
    }

    /**
     * A fold that stored a new summary.
     *
     * @param sessionId      the session
     * @param strategy       {@code summary} or {@code summary-buffer}
     * @param foldedMessages messages folded into the summary
     * @param inputTokens    estimated tokens sent to the summarizer (previous summary and messages)
     * @param outputTokens   estimated tokens of the new summary
     * @param duration       how long the summarizer took
     */
    record Fold(String sessionId, String strategy, int foldedMessages, int inputTokens, int outputTokens,
                Duration duration) {
    }

    /**
     * A fold that changed nothing: the summarizer threw, timed out, returned nothing or more than the
     * summary cap — or the store or the executor failed around it. Every message is still there
     * (verbatim, or in the previous summary); the fold is tried again on a later turn.
     *
     * @param sessionId           the session
     * @param reason              why no summary was stored
     * @param fromIndex           first log index the fold tried to cover; -1 when the fold failed
     *                            before choosing a range (the store failed, or the executor refused it)
     * @param toIndex             exclusive end of the range it tried to cover; -1 likewise
     * @param consecutiveFailures failures in a row for this memory, this one included
     * @param cause               what was thrown, or {@code null} when the summarizer returned an unusable text
     */
    record SummaryFailure(String sessionId, Reason reason, long fromIndex, long toIndex,
                          int consecutiveFailures, Throwable cause) {

        /**
         * Creates the event.
         *
         * @param sessionId           the session
         * @param reason              why no summary was stored
         * @param fromIndex           first log index the fold tried to cover, or -1
         * @param toIndex             exclusive end of the range it tried to cover, or -1
         * @param consecutiveFailures failures in a row for this memory, this one included
         * @param cause               what was thrown, or {@code null}
         * @throws NullPointerException if {@code sessionId} or {@code reason} is null
         */
        public SummaryFailure {
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(reason, "reason");
        }
    }

}

/** Logs overflows and failed folds as warnings. */
enum Logging implements MemoryListener {
    INSTANCE;

    private static final Logger LOG = LoggerFactory.getLogger(MemoryListener.class);

    @Override
    public void onOverflow(Overflow overflow) {
        LOG.warn("chat memory view over its limit (the newest turn and open turns are kept): {}", overflow);
    }

    @Override
    public void onSummaryFailure(SummaryFailure failure) {
        LOG.warn("summary of session {} (entries {}..{}) failed: {}, failures in a row: {}; nothing was changed,"
                        + " it will be retried on a later turn", failure.sessionId(), failure.fromIndex(),
                failure.toIndex(), failure.reason(), failure.consecutiveFailures(), failure.cause());
    }
}
