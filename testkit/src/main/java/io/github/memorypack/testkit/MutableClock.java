package io.github.memorypack.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * A {@link Clock} that stands still until a test moves it, so tests control time instead of
 * sleeping. Thread-safe; always in UTC. {@link ManualExecutor} does the same for background work.
 */
public final class MutableClock extends Clock {

    private volatile Instant now;

    private MutableClock(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
    }

    /**
     * A clock that reads {@code start} until it is moved.
     *
     * @param start the instant the clock reads until moved
     * @return a clock that reads {@code start} until it is moved
     */
    public static MutableClock at(Instant start) {
        return new MutableClock(start);
    }

    /**
     * Moves the clock to {@code instant} (backwards too, to test clock skew).
     *
     * @param instant the new time
     */
    public void set(Instant instant) {
        this.now = Objects.requireNonNull(instant, "instant");
    }

    /**
     * Moves the clock forward by {@code duration}.
     *
     * @param duration how far to move
     */
    public synchronized void advance(Duration duration) {
        this.now = now.plus(duration);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Only UTC is supported; any other zone is refused so time never silently shifts. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone.normalized())) {
            throw new UnsupportedOperationException("MutableClock is UTC only, asked for " + zone);
        }
        return this;
    }

    /**
     * An {@link Executor} that queues tasks until the test runs them ({@link #runAll()}): background
     * work made deterministic, as the clock makes time. Thread-safe.
     */
    public static final class ManualExecutor implements Executor {

        private final Deque<Runnable> queue = new ArrayDeque<>();

        /** An executor with nothing queued. */
        public ManualExecutor() {
        }

        /**
         * Queues {@code command}; nothing runs until {@link #runAll()}.
         *
         * @param command the task
         */
        @Override
        public synchronized void execute(Runnable command) {
            queue.addLast(command);
        }

        /**
         * The tasks queued and not yet run.
         *
         * @return how many tasks wait
         */
        public synchronized int pending() {
            return queue.size();
        }

        /** Runs every queued task on the calling thread, oldest first, including tasks they queue. */
        public void runAll() {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = queue.pollFirst();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        }
    }
}
