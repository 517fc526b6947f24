package io.github.memorypack.core;

import java.time.Duration;
import java.util.Objects;

/**
 * What a memory does when a request starts on a session while another request's turn in it is
 * still running (a double click, two browser tabs, a retry that overtakes the first attempt, two
 * application instances): a setting every memory shares ({@code concurrentSends(…)} on every
 * builder). Under every setting a request's view holds the closed turns and its own running turn,
 * never another request's running turn, and no request ends with another request's turn.
 *
 * <ul>
 *   <li>{@link #queue()} (the default): the second request waits, at most {@link #maxWait()}, until
 *       the first request's turn has closed, and then continues from it: its first model call
 *       carries the first request's question and answer. If the turn is still running when the
 *       wait is over, the second request's user message is refused with
 *       {@link SessionBusyException}, before any model call.</li>
 *   <li>{@link #refuse()}: the second request's user message is refused at once with
 *       {@link SessionBusyException}, before any model call; nothing of it is stored.</li>
 *   <li>{@link #branch()}: the second request runs beside the first, continuing from the last
 *       closed turn; neither sees the other's running turn, and each one's turn follows the closed
 *       turns in its own requests. Both turns are in the conversation afterwards.</li>
 * </ul>
 *
 * <p>A turn runs from its user message until an AI message without tool calls closes it; it also
 * ends when it is abandoned ({@code openTurnTimeout} without a new message), when the thread that
 * started it starts another turn in the session, or, with {@link RequestScope#aiServiceListeners()}
 * registered, when its request completes or fails. Which turn is whose is known from the
 * {@link RequestScope} of the call (explicit, or carried by the listeners) or else from the thread
 * (a blocking {@code AiServices} call runs on one thread); a message added from a thread that
 * belongs to no request (LangChain4j's streaming callbacks without the listeners) belongs to the
 * one turn that runs in this process, and when several run (under {@code branch}) such an add is
 * refused with {@link IllegalStateException} rather than guessed.
 *
 * <p>Across processes and instances (file store on a shared folder, Redis, JDBC) the setting
 * works the same: running turns are read from the store, and {@code queue} waits by reading the
 * store again with a growing pause (from 5 ms to 200 ms). Two requests that start in two processes
 * in the same instant (between one's read of the log and its append) run side by side, as under
 * {@code branch}.
 *
 * <p>Immutable; equal when mode and wait are equal.
 */
public final class ConcurrentSends {

    /** How long {@link #queue()} waits for the running turn to close. */
    public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(30);

    /** The three settings. */
    enum Mode {
        QUEUE, REFUSE, BRANCH
    }

    private static final ConcurrentSends QUEUE = new ConcurrentSends(Mode.QUEUE, DEFAULT_MAX_WAIT);
    private static final ConcurrentSends REFUSE = new ConcurrentSends(Mode.REFUSE, Duration.ZERO);
    private static final ConcurrentSends BRANCH = new ConcurrentSends(Mode.BRANCH, Duration.ZERO);

    private final Mode mode;
    private final Duration maxWait;

    private ConcurrentSends(Mode mode, Duration maxWait) {
        this.mode = mode;
        this.maxWait = maxWait;
    }

    /**
     * The second request waits up to {@link #DEFAULT_MAX_WAIT} for the running turn to close, then
     * continues from it (the default).
     *
     * @return the setting
     */
    public static ConcurrentSends queue() {
        return QUEUE;
    }

    /**
     * The second request waits up to {@code maxWait} for the running turn to close, then continues
     * from it; after {@code maxWait} its user message is refused with {@link SessionBusyException}.
     *
     * @param maxWait how long to wait, positive
     * @return the setting
     * @throws IllegalArgumentException if {@code maxWait} is null, zero or negative
     */
    public static ConcurrentSends queue(Duration maxWait) {
        return new ConcurrentSends(Mode.QUEUE, Checks.positive(maxWait, "maxWait"));
    }

    /**
     * The second request's user message is refused with {@link SessionBusyException} while another
     * request's turn runs.
     *
     * @return the setting
     */
    public static ConcurrentSends refuse() {
        return REFUSE;
    }

    /**
     * The second request runs beside the first, from the last closed turn; nothing waits, nothing is
     * refused.
     *
     * @return the setting
     */
    public static ConcurrentSends branch() {
        return BRANCH;
    }

    Mode mode() {
        return mode;
    }

    /**
     * How long {@link #queue()} waits; zero for {@link #refuse()} and {@link #branch()}.
     *
     * @return how long {@link #queue()} waits; zero for {@link #refuse()} and {@link #branch()}
     */
    public Duration maxWait() {
        return maxWait;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConcurrentSends other && mode == other.mode && maxWait.equals(other.maxWait);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, maxWait);
    }

    @Override
    public String toString() {
        return mode == Mode.QUEUE ? "ConcurrentSends.queue(" + maxWait + ")"
                : "ConcurrentSends." + mode.name().toLowerCase(java.util.Locale.ROOT) + "()";
    }
}
