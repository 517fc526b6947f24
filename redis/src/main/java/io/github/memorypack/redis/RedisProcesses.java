package io.github.memorypack.redis;

import static io.github.memorypack.redis.RedisRecords.bytes;

import java.lang.ref.Cleaner;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which processes use a store's keys ({@link RedisSessionStore#processId}, {@link RedisSessionStore#processEnded}):
 * a store instance that is asked for its id creates the key {@code <prefix>process:<id>} with a TTL
 * ({@code SET NX PX}), and one daemon thread of that instance refreshes it every quarter of the TTL, only
 * while the key still exists ({@code SET XX PX}: an expired key is never created again). A process whose
 * key is gone has ended, and stays ended: when the refresher finds its own key gone (the process paused, or
 * Redis was out of reach, for longer than the TTL: the other processes may already have judged its turns
 * abandoned) it takes a new id for the turns started from then on, and warns.
 *
 * <p>The key is one plain key per process, so it is on one Cluster slot whatever the prefix; it never has a
 * '{' right after the prefix, so it is never a session's key nor matched by the sessions' {@code SCAN}
 * pattern. The refresher holds no reference to the store: it stops on {@link #close} and when the store is
 * collected; the key then expires within the TTL (it is not deleted: with a client the application passed
 * in, memories on a closed store still write, and their open turns still run).
 */
final class RedisProcesses {

    /** What follows the prefix in a process key. */
    static final String PART = "process:";
    /** How long a process key lives without a refresh, unless a test says otherwise. */
    static final Duration DEFAULT_TIME_TO_LIVE = Duration.ofSeconds(60);

    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Cleaner CLEANER = Cleaner.create();
    /** How many ended ids a store remembers (a turn asks only within the open-turn timeout). */
    private static final int ENDED_KEPT = 1024;
    private static final LuaScript CREATE = new LuaScript(
            "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 else return 0 end");
    private static final LuaScript REFRESH = new LuaScript(
            "if redis.call('SET', KEYS[1], ARGV[1], 'XX', 'PX', ARGV[2]) then return 1 else return 0 end");
    private static final byte[] VALUE = bytes("alive");

    private final Marks marks;
    private final Cleaner.Cleanable cleanable;

    /**
     * @param owner the store whose collection stops the refresher
     * @param calls how the key is created and refreshed (the store's retries and replicas to wait for)
     * @param probe how a key is looked up (one attempt: a failure means "cannot tell")
     */
    RedisProcesses(Object owner, RedisCalls calls, RedisCalls probe, String prefix, Duration ttl) {
        this.marks = new Marks(calls, probe, prefix, ttl);
        this.cleanable = CLEANER.register(owner, marks::close);
    }

    /** This store instance's id, its key created on the first call; null when it cannot be created or after close. */
    String id() {
        return marks.id();
    }

    /** True if the process that had {@code id} is known to have ended: its key is gone. */
    boolean ended(String id) {
        return marks.ended(id);
    }

    /** Stops the refresher; the key expires within the TTL. */
    void close() {
        cleanable.clean();
    }

    /** 16 hex digits: what a store names its process (anything else in a log is no id of ours). */
    static boolean isId(String id) {
        if (id == null || id.length() != 16) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** What the store, its refresher and its cleaner share; never the store itself. */
    private static final class Marks {
        private final RedisCalls calls;
        private final RedisCalls probe;
        private final String prefix;
        private final byte[] ttlMillis;
        private final long ttlNanos;
        private final long refreshNanos;
        private final Object lock = new Object();
        private final Map<String, Boolean> ended = Collections.synchronizedMap(
                new LinkedHashMap<String, Boolean>(16, 0.75f, true) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                        return size() > ENDED_KEPT;
                    }
                });
        /** The id turns are tagged with now; null before the first call, after close, or when none could be made. */
        private volatile String current;
        /** {@link System#nanoTime} when the last create or refresh that found the key was sent. */
        private volatile long confirmedNanos;
        /** {@link System#nanoTime} of the last attempt made on a caller's thread (create, or refresh when stale). */
        private long attemptedNanos;
        private boolean attempted;
        private boolean closed;
        private boolean warned;
        private ScheduledThreadPoolExecutor refresher;

        Marks(RedisCalls calls, RedisCalls probe, String prefix, Duration ttl) {
            this.calls = calls;
            this.probe = probe;
            this.prefix = prefix;
            this.ttlMillis = bytes(Long.toString(ttl.toMillis()));
            this.ttlNanos = ttl.toNanos();
            this.refreshNanos = ttlNanos / 4;
        }

        String id() {
            String id = current;
            if (id != null && System.nanoTime() - confirmedNanos < ttlNanos / 2) {
                return id;
            }
            synchronized (lock) {
                if (closed) {
                    return null;
                }
                long now = System.nanoTime();
                if (attempted && now - attemptedNanos < refreshNanos) {
                    return current; // tried a moment ago (Redis out of reach): what we have, or none
                }
                id = current;
                if (id != null && now - confirmedNanos < ttlNanos / 2) {
                    return id;
                }
                attempted = true;
                attemptedNanos = now;
                if (id != null) {
                    // not confirmed for half the TTL (the refresher paused, or fails): make sure before a turn uses it
                    refresh(id, probe);
                    return current;
                }
                current = create(calls);
                if (current != null && refresher == null) {
                    startRefresher();
                }
                return current;
            }
        }

        boolean ended(String id) {
            if (!isId(id) || id.equals(current)) {
                return false;
            }
            if (ended.containsKey(id)) {
                return true;
            }
            boolean exists;
            try {
                byte[] key = bytes(prefix + PART + id);
                exists = probe.read("processEnded", null, j -> j.exists(key));
            } catch (RuntimeException e) {
                LOG.debug("could not tell whether process {} has ended: {}", id, e.toString());
                return false;
            }
            if (exists) {
                return false;
            }
            ended.put(id, Boolean.TRUE);
            return true;
        }

        void close() {
            synchronized (lock) {
                closed = true;
                current = null;
                if (refresher != null) {
                    refresher.shutdownNow();
                    refresher = null;
                }
            }
        }

        private void startRefresher() {
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "memory-pack-redis-process-refresher");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.scheduleWithFixedDelay(this::tick, refreshNanos, refreshNanos, TimeUnit.NANOSECONDS);
            refresher = executor;
        }

        private void tick() {
            String id = current;
            if (id != null) {
                refresh(id, calls);
            } else {
                synchronized (lock) {
                    if (!closed && current == null) {
                        current = create(calls); // the last rotation could not make a new id
                    }
                }
            }
        }

        /** Refreshes {@code id}'s key if it still exists; if it is gone, takes a new id. */
        private void refresh(String id, RedisCalls via) {
            long sent = System.nanoTime();
            boolean found;
            try {
                found = ((Number) via.write("process refresh", null, REFRESH, List.of(key(id)),
                        List.of(VALUE, ttlMillis), r -> ((Number) r).longValue() == 1)).longValue() == 1;
            } catch (RuntimeException e) {
                LOG.debug("could not refresh process key {}{}{}: {}", prefix, PART, id, e.toString());
                return; // tried again at the next tick; if that is after the TTL, the key is gone and replaced
            }
            synchronized (lock) {
                if (closed || !id.equals(current)) {
                    return;
                }
                if (found) {
                    if (sent - confirmedNanos > 0) {
                        confirmedNanos = sent;
                    }
                    return;
                }
                ended.put(id, Boolean.TRUE);
                current = null;
                current = create(via);
                LOG.warn("Redis process key {}{}{} expired before it was refreshed (this process paused, or Redis was"
                        + " out of reach, for longer than {} ms): other processes may treat the open turns started"
                        + " under it as abandoned; later turns use {}", prefix, PART, id,
                        TimeUnit.NANOSECONDS.toMillis(ttlNanos), current == null ? "no id until one can be made"
                                : "the new id " + current);
            }
        }

        /** Creates the key of a new random id; null when Redis cannot be reached. Called under the lock. */
        private String create(RedisCalls via) {
            for (int attempt = 0; attempt < 3; attempt++) {
                byte[] random = new byte[8];
                RANDOM.nextBytes(random);
                String id = HexFormat.of().formatHex(random);
                long sent = System.nanoTime();
                try {
                    Object made = via.write("process create", null, CREATE, List.of(key(id)),
                            List.of(VALUE, ttlMillis), r -> ((Number) r).longValue() == 1);
                    if (((Number) made).longValue() == 1) {
                        confirmedNanos = sent;
                        return id;
                    }
                    // taken (or our own first attempt's reply was lost): another id
                } catch (RuntimeException e) {
                    if (!warned) {
                        warned = true; // once per store: an outage may last, and every turn would say it again
                        LOG.warn("could not create a Redis process key under {} (tried again later): until then the"
                                + " turns this store starts end by the open-turn timeout only if its process dies: {}",
                                prefix, e.getMessage());
                    } else {
                        LOG.debug("no Redis process key under {}: {}", prefix, e.toString());
                    }
                    return null;
                }
            }
            return null;
        }

        private byte[] key(String id) {
            return bytes(prefix + PART + id);
        }
    }
}
