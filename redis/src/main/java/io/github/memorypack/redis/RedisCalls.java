package io.github.memorypack.redis;

import io.github.memorypack.core.StoreException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisBusyException;
import redis.clients.jedis.exceptions.JedisClusterException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * How the store talks to Redis: every call is retried, with jittered exponential back-off, while it
 * fails in a way that passes (connection errors and timeouts, {@code TRYAGAIN}, {@code CLUSTERDOWN},
 * {@code LOADING}, {@code BUSY}, replicas behind), within a budget of attempts and time; then
 * {@link RedisUnavailableException}. Any other failure is a {@link StoreException} at once.
 *
 * <p>Why retrying every call is safe: reads change nothing; every writing script carries a write
 * token or a caller idempotency key, so a repeat of a write that was already applied changes
 * nothing and returns the first outcome (see {@link RedisScripts}).
 *
 * <p>With replicas to wait for, a write runs on one connection to the primary of its slot, followed
 * on that same connection by {@code WAIT} ({@code WAIT} counts the writes of its own connection);
 * the store then follows {@code MOVED}/{@code ASK} redirections itself and lets Jedis refresh its
 * view of the cluster after a redirection or a connection failure.
 */
final class RedisCalls {

    private static final long BACKOFF_BASE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long BACKOFF_CAP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Redirections followed within one attempt (a slot moves once; a second hop is an ASK during its move). */
    private static final int MAX_REDIRECTS = 5;

    private final UnifiedJedis jedis;
    private final int maxAttempts;
    private final long maxNanos;
    private final int replicas;
    private final long waitMillis;
    private final LongAdder retries = new LongAdder();

    /**
     * @param replicas   replicas that must acknowledge each write ({@code WAIT}), 0 for none; then
     *                   {@code jedis} must be a {@link JedisPooled} or a {@link JedisCluster}
     * @param waitMillis how long {@code WAIT} waits for them
     */
    RedisCalls(UnifiedJedis jedis, int maxAttempts, Duration maxDuration, int replicas, long waitMillis) {
        this.jedis = jedis;
        this.maxAttempts = maxAttempts;
        this.maxNanos = maxDuration.toNanos();
        this.replicas = replicas;
        this.waitMillis = waitMillis;
    }

    /** True if a {@code WAIT} can follow a write on this client's connections. */
    static boolean canWait(UnifiedJedis client) {
        return client instanceof JedisPooled || client instanceof JedisCluster;
    }

    /** Runs a call that changes nothing. */
    <T> T read(String operation, String sessionId, Function<UnifiedJedis, T> call) {
        return retrying(operation, sessionId, () -> call.apply(jedis));
    }

    /**
     * Runs a writing script. With replicas to wait for, waits after every reply that
     * {@code replicate} accepts (a reply saying nothing was written needs no wait).
     */
    Object write(String operation, String sessionId, LuaScript script, List<byte[]> keys, List<byte[]> args,
                 Predicate<Object> replicate) {
        if (replicas == 0) {
            return retrying(operation, sessionId, () -> script.run(jedis, keys, args));
        }
        return retrying(operation, sessionId, () -> onPrimary(keys.get(0), connection -> {
            Object reply = script.run(connection, keys, args);
            if (replicate.test(reply)) {
                awaitReplicas(connection);
            }
            return reply;
        }));
    }

    /** Calls retried so far (attempts after the first), for tests. */
    long retries() {
        return retries.sum();
    }

    private <T> T retrying(String operation, String sessionId, Supplier<T> call) {
        long start = System.nanoTime();
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (JedisException e) {
                if (!passes(e)) {
                    throw new StoreException("Redis " + operation + " failed" + forSession(sessionId) + ": "
                            + e.getMessage(), e);
                }
                long elapsed = System.nanoTime() - start;
                long pause = backoff(attempt);
                if (attempt >= maxAttempts || elapsed + pause > maxNanos) {
                    throw new RedisUnavailableException("Redis " + operation + forSession(sessionId)
                            + " gave up after " + attempt + (attempt == 1 ? " attempt" : " attempts") + " in "
                            + TimeUnit.NANOSECONDS.toMillis(elapsed) + " ms: " + e.getMessage(), e, attempt,
                            Duration.ofNanos(elapsed));
                }
                retries.increment();
                LockSupport.parkNanos(pause);
                if (Thread.currentThread().isInterrupted()) {
                    throw new StoreException("interrupted while retrying Redis " + operation
                            + forSession(sessionId), e);
                }
            }
        }
    }

    /** Equal jitter: half of the exponential step, plus a random share of the other half. */
    private static long backoff(int attempt) {
        long step = BACKOFF_BASE_NANOS << Math.min(attempt - 1, 20);
        long capped = Math.min(step, BACKOFF_CAP_NANOS);
        return capped / 2 + ThreadLocalRandom.current().nextLong(capped / 2 + 1);
    }

    /** Failures that pass by themselves: Redis did not run the call, or its outcome is unknown. */
    static boolean passes(JedisException e) {
        if (e instanceof JedisConnectionException || e instanceof ReplicasBehind || e instanceof JedisBusyException
                || e instanceof JedisClusterException || e instanceof JedisRedirectionException) {
            return true; // JedisClusterException is the CLUSTERDOWN reply
        }
        String message = e.getMessage() == null ? "" : e.getMessage();
        if (e instanceof JedisClusterOperationException) {
            // not: "No way to dispatch this command to Redis Cluster because keys have different slots."
            return message.startsWith("No more cluster attempts") || message.startsWith("Cluster retry deadline")
                    || message.startsWith("No reachable node");
        }
        return e instanceof JedisDataException && (message.startsWith("TRYAGAIN") || message.startsWith("LOADING")
                || message.startsWith("MASTERDOWN") || message.startsWith("READONLY"));
    }

    private static String forSession(String sessionId) {
        return sessionId == null ? "" : " for session '" + sessionId + "'";
    }

    private <T> T onPrimary(byte[] key, Function<Connection, T> work) {
        JedisRedirectionException redirect = null;
        for (int hop = 0; ; hop++) {
            Connection connection = null;
            try {
                connection = connection(key, redirect);
                if (redirect instanceof JedisAskDataException) {
                    connection.executeCommand(Protocol.Command.ASKING);
                }
                return work.apply(connection);
            } catch (JedisRedirectionException e) {
                if (hop == MAX_REDIRECTS) {
                    throw e;
                }
                redirect = e;
                if (e instanceof JedisMovedDataException) {
                    refreshTopology(key);
                }
            } catch (JedisConnectionException e) {
                refreshTopology(key);
                throw e;
            } finally {
                if (connection != null) {
                    connection.close();
                }
            }
        }
    }

    private Connection connection(byte[] key, JedisRedirectionException redirect) {
        if (jedis instanceof JedisPooled) {
            return ((JedisPooled) jedis).getPool().getResource();
        }
        JedisCluster cluster = (JedisCluster) jedis;
        if (redirect == null) {
            return cluster.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
        }
        String node = redirect.getTargetNode().toString();
        ConnectionPool pool = cluster.getClusterNodes().get(node);
        if (pool == null) {
            refreshTopology(key);
            pool = cluster.getClusterNodes().get(node);
        }
        if (pool == null) {
            throw new JedisConnectionException("redirected to " + node + ", a node the client does not know yet");
        }
        return pool.getResource();
    }

    /**
     * Lets Jedis bring its slot map up to date: a read of the key through the cluster client follows
     * {@code MOVED} and refreshes the map, and after connection failures asks the cluster for it.
     */
    private void refreshTopology(byte[] key) {
        if (jedis instanceof JedisCluster) {
            try {
                jedis.exists(key);
            } catch (JedisException e) {
                // the next attempt reports what is still wrong
            }
        }
    }

    private void awaitReplicas(Connection connection) {
        int socketTimeout = connection.getSoTimeout();
        if (socketTimeout > 0) {
            connection.setSoTimeout(Math.toIntExact(socketTimeout + waitMillis)); // WAIT blocks up to waitMillis
        }
        Object acknowledged;
        try {
            acknowledged = connection.executeCommand(
                    new CommandArguments(Protocol.Command.WAIT).add(replicas).add(waitMillis));
        } finally {
            if (socketTimeout > 0 && !connection.isBroken()) {
                connection.setSoTimeout(socketTimeout);
            }
        }
        long count = ((Number) acknowledged).longValue();
        if (count < replicas) {
            throw new ReplicasBehind("WAIT: " + count + " of " + replicas + " replicas acknowledged the write within "
                    + waitMillis + " ms");
        }
    }

    /** Fewer replicas acknowledged a write than asked for: applied on the primary, maybe not beyond. */
    static final class ReplicasBehind extends JedisException {

        private static final long serialVersionUID = 1L;

        ReplicasBehind(String message) {
            super(message);
        }
    }
}
