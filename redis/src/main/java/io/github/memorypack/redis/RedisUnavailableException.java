package io.github.memorypack.redis;

import io.github.memorypack.core.StoreException;
import java.time.Duration;

/**
 * Redis stayed unavailable for longer than the store's retry budget
 * ({@link RedisSessionStore.Builder#retryAttempts}, {@link RedisSessionStore.Builder#retryDuration}):
 * every attempt failed with a connection error or timeout, {@code TRYAGAIN} (a slot migrating),
 * {@code CLUSTERDOWN} (a failover in progress), {@code LOADING}, {@code BUSY}, or, with
 * {@link RedisSessionStore.Builder#waitForReplicas}, fewer replicas acknowledging a write than asked
 * for. The cause is the last failure.
 *
 * <p><b>Writes.</b> Unlike a plain {@link StoreException}, this does not promise that a write
 * failed: its outcome is unknown. An attempt may have been applied before its reply was lost, or
 * applied on the primary without the asked-for replica acknowledgement (it may then be lost in a
 * failover, or survive). What the store does promise is that a write is never applied twice: every
 * attempt of one call carries the same write token. To retry an append after this exception without
 * risking a duplicate, pass an idempotency key and retry with the same key.
 */
public final class RedisUnavailableException extends StoreException {

    private static final long serialVersionUID = 1L;

    /** How many times the operation was sent. */
    private final int attempts;
    /** Time from the first attempt until the store gave up. */
    private final Duration elapsed;

    RedisUnavailableException(String message, Throwable cause, int attempts, Duration elapsed) {
        super(message, cause);
        this.attempts = attempts;
        this.elapsed = elapsed;
    }

    /**
     * How many times the operation was sent.
     *
     * @return the attempts, 1 when it was not retried
     */
    public int attempts() {
        return attempts;
    }

    /**
     * Time from the first attempt until the store gave up.
     *
     * @return the time spent
     */
    public Duration elapsed() {
        return elapsed;
    }
}
