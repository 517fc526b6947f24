package io.github.memorypack.redis;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * A {@link SessionStore} in Redis, for applications that run on several instances: every instance
 * sees the same sessions, and concurrent turns of one session never overwrite each other. Works with
 * a standalone server and with Redis Cluster (through Jedis' {@link JedisPooled} or
 * {@link JedisCluster}). A session's keys (its log list, state hash, meta hash, idempotency-key
 * hash and two generations of write tokens) all carry the session id as hash tag, so a cluster keeps
 * them on one slot; the module README lists them.
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li>Append, state compare-and-set, replace, trim and delete are Lua scripts: atomic and one
 *       round trip each; an append sends only the new entries. Reads of a range or of the last n
 *       entries read only those entries.</li>
 *   <li><b>Every write is applied at most once</b>, however often it is sent. An append under an
 *       idempotency key is stored once per key (as {@link SessionStore} requires). Every other write
 *       — an append without a key included — carries a random <em>write token</em> that the store
 *       generates per call and keeps across every resend of that call (its own retries, and Jedis'
 *       resends after a socket timeout); the script stores the token with the write, and a resend
 *       that finds it changes nothing and returns the first outcome. Tokens are not entry data: an
 *       entry appended without a key still reports no {@link Entry#idempotencyKey()}. They are kept
 *       at least the {@linkplain Builder#deduplicationWindow deduplication window} and at most three
 *       times as long.</li>
 *   <li><b>Retries</b>: a call that fails in a way that passes — connection errors and timeouts,
 *       {@code TRYAGAIN} while a slot migrates, {@code CLUSTERDOWN} during a failover,
 *       {@code LOADING}, {@code BUSY}, replicas not acknowledging — is sent again after a jittered,
 *       exponentially growing pause, within {@link Builder#retryAttempts} and
 *       {@link Builder#retryDuration}; then {@link RedisUnavailableException}. Every call is safe to
 *       repeat: reads change nothing, writes are idempotent (above).</li>
 *   <li><b>Replicas</b>: with {@link Builder#waitForReplicas}, each write that changed something is
 *       followed by {@code WAIT n timeout} on the same connection, and is acknowledged only once
 *       {@code n} replicas have it.</li>
 *   <li><b>Integrity</b>: every entry record and every state carries the CRC32C
 *       ({@link EntryCodec#checksum}) of its exact bytes, checked on every read together with the
 *       record's index; a record that fails throws {@link CorruptRecordException} and is never read
 *       as different content or as a message of another role. Records written before checksums
 *       existed are still read. Text round-trips exactly (lone surrogates, NUL, every plane).</li>
 *   <li>With a {@linkplain Builder#ttl TTL}, every write sets the TTL of the session's log, meta,
 *       keys and state inside the same script, so a session expires as a whole, that long after its
 *       last write.</li>
 *   <li>{@link #sessions()} uses {@code SCAN} (on every node of a cluster), glob characters of the prefix escaped.</li>
 *   <li>Any other Redis failure (an error reply such as {@code WRONGTYPE} or {@code NOAUTH}) throws
 *       {@link StoreException} at once, with the cause chained; a write that failed so changed
 *       nothing. The store works again once Redis is back.</li>
 *   <li>{@link #processId()} / {@link #processEnded}: a store instance that starts turns keeps a key
 *       {@code <prefix>process:<id>} alive with a TTL, so that another process knows at once (60 s after
 *       the last refresh) that a process which was killed mid-request has ended, and its open turn holds
 *       up nothing.</li>
 *   <li>When built, the store warns (SLF4J, once per server) if a server says it keeps no
 *       append-only file.</li>
 * </ul>
 *
 * <p>Entry timestamps come from the store's {@link Clock}. Thread-safe. {@link #close()} closes the
 * Jedis client only when the builder created it.
 */
public final class RedisSessionStore implements SessionStore, AutoCloseable {

    /** Key prefix used when none is set. */
    public static final String DEFAULT_KEY_PREFIX = "memory-pack:";
    /** Host used when neither a host, a URI, cluster nodes nor a client is set. */
    public static final String DEFAULT_HOST = "localhost";
    /** Port used when no port is set. */
    public static final int DEFAULT_PORT = 6379;
    /** Time to establish a connection when none is set. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** Time to wait for a reply when none is set. */
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(2);
    /** Attempts per call (the first included) when none is set. */
    public static final int DEFAULT_RETRY_ATTEMPTS = 20;
    /** Time within which a call may be retried when none is set. */
    public static final Duration DEFAULT_RETRY_DURATION = Duration.ofSeconds(10);
    /** How long a write token is kept when no deduplication window is set. */
    public static final Duration DEFAULT_DEDUPLICATION_WINDOW = Duration.ofMinutes(5);

    private final UnifiedJedis jedis;
    private final boolean ownsClient;
    private final Duration ttl;
    private final RedisOperations operations;
    private final RedisProcesses processes;

    private RedisSessionStore(UnifiedJedis jedis, boolean ownsClient, Builder b) {
        this.jedis = jedis;
        this.ownsClient = ownsClient;
        this.ttl = b.ttl;
        this.operations = new RedisOperations(jedis, b);
        this.processes = new RedisProcesses(this,
                new RedisCalls(jedis, b.retryAttempts, b.retryDuration, b.replicas,
                        b.replicaTimeout == null ? 0 : b.replicaTimeout.toMillis()),
                new RedisCalls(jedis, 1, Duration.ZERO, 0, 0), b.keyPrefix, b.processTimeToLive);
    }

    /**
     * A builder with every option at its default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        SessionIds.validate(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        return operations.append(sessionId, entries, idempotencyKey);
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadRange(fromIndex, maxCount);
        return operations.read(sessionId, fromIndex, maxCount);
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadCount(count);
        return operations.readLast(sessionId, count);
    }

    @Override
    public long nextIndex(String sessionId) {
        SessionIds.validate(sessionId);
        return operations.nextIndex(sessionId);
    }

    @Override
    public SessionState state(String sessionId) {
        SessionIds.validate(sessionId);
        return operations.state(sessionId);
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionIds.validate(sessionId);
        Objects.requireNonNull(newState, "newState");
        return operations.compareAndSetState(sessionId, expectedVersion, newState);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        operations.replace(sessionId, entries);
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        SessionIds.validate(sessionId);
        operations.trim(sessionId, beforeIndex);
    }

    @Override
    public List<String> sessions() {
        return operations.sessions();
    }

    @Override
    public void delete(String sessionId) {
        SessionIds.validate(sessionId);
        operations.delete(sessionId);
    }

    /**
     * {@inheritDoc} <p>Here: a random id per store instance whose key {@code <prefix>process:<id>} (60 s TTL)
     * a daemon thread refreshes every 15 s while the store is open and reachable. Should it expire all the
     * same (a pause or an outage over 60 s), the id has ended for good: the store takes a new one for later
     * turns and warns. Null after {@link #close()}, and while the key cannot be created.
     */
    @Override
    public String processId() {
        return processes.id();
    }

    /** {@inheritDoc} <p>Here: its key is gone; false for an id no store makes and when Redis cannot be asked. */
    @Override
    public boolean processEnded(String processId) {
        return processes.ended(processId);
    }

    /**
     * The kind of server (standalone or cluster), the key prefix and the TTL; never an address or a
     * credential.
     *
     * @return for example {@code RedisSessionStore{standalone, prefix='my-app:chat:', ttl=PT168H}}
     */
    @Override
    public String toString() {
        return "RedisSessionStore{" + (jedis instanceof JedisCluster ? "cluster" : "standalone") + ", prefix='"
                + operations.keyPrefix() + '\'' + (ttl == null ? "" : ", ttl=" + ttl) + '}';
    }

    /**
     * Stops refreshing this instance's process key ({@link #processId()}), and closes the Jedis client if
     * the builder created it; a client passed to the builder is left open.
     */
    @Override
    public void close() {
        processes.close();
        if (ownsClient) {
            jedis.close();
        }
    }

    /**
     * The key prefix this store writes under.
     *
     * @return the prefix, possibly empty
     */
    public String keyPrefix() {
        return operations.keyPrefix();
    }

    /**
     * The TTL of a session after its last write, if one is set.
     *
     * @return the TTL, or empty for none
     */
    public Optional<Duration> ttl() {
        return Optional.ofNullable(ttl);
    }

    /** Calls retried so far, for tests that check a failure really happened and was ridden out. */
    long retries() {
        return operations.retries();
    }

    /**
     * Builds a {@link RedisSessionStore}. Connect either to {@link #host}/{@link #port} (default
     * {@value #DEFAULT_HOST}:{@value #DEFAULT_PORT}), to a {@link #uri} ({@code redis://} or
     * {@code rediss://}, with user, password and database from the URI), or to a cluster through
     * {@link #clusterNodes}; the connection options (timeouts, user, password, TLS, and for a cluster
     * Jedis' own retry limits) apply to the client the builder creates. Or hand over an existing
     * {@link #client} ({@link JedisPooled} or {@link JedisCluster}); the store then never closes it,
     * and connection options are refused. The store's own options (prefix, TTL, retries, replicas,
     * deduplication window, clock) apply either way.
     */
    public static final class Builder {

        UnifiedJedis client;
        String host;
        Integer port;
        URI uri;
        Set<HostAndPort> clusterNodes;
        String user;
        String password;
        Duration connectTimeout;
        Duration socketTimeout;
        Boolean ssl;
        SSLSocketFactory sslSocketFactory;
        SSLParameters sslParameters;
        HostnameVerifier hostnameVerifier;
        Integer jedisClusterMaxAttempts;
        Duration jedisClusterMaxTotalRetriesDuration;
        String keyPrefix = DEFAULT_KEY_PREFIX;
        Duration ttl;
        Clock clock = Clock.systemUTC();
        int retryAttempts = DEFAULT_RETRY_ATTEMPTS;
        Duration retryDuration = DEFAULT_RETRY_DURATION;
        int replicas;
        Duration replicaTimeout;
        Duration deduplicationWindow = DEFAULT_DEDUPLICATION_WINDOW;
        boolean writeTokens = true;
        Duration processTimeToLive = RedisProcesses.DEFAULT_TIME_TO_LIVE;

        private Builder() {
        }

        /**
         * An existing client ({@link JedisPooled} or {@link JedisCluster}); the store will not close it.
         *
         * @param client the client to use
         * @return this builder
         */
        public Builder client(UnifiedJedis client) {
            this.client = client;
            return this;
        }

        /**
         * Host of a standalone server; default {@value #DEFAULT_HOST}.
         *
         * @param host the host name or address
         * @return this builder
         */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /**
         * Port of a standalone server; default {@value #DEFAULT_PORT}.
         *
         * @param port the TCP port
         * @return this builder
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * {@code redis://[user:password@]host[:port][/database]} or {@code rediss://…} for TLS.
         *
         * @param uri the server URI
         * @return this builder
         */
        public Builder uri(URI uri) {
            this.uri = uri;
            return this;
        }

        /**
         * Same as {@link #uri(URI)}.
         *
         * @param uri the server URI
         * @return this builder
         */
        public Builder uri(String uri) {
            this.uri = uri == null ? null : URI.create(uri);
            return this;
        }

        /**
         * Seed nodes of a Redis Cluster; the store then talks to the cluster through a {@link JedisCluster}.
         *
         * @param nodes one or more nodes of the cluster; the others are discovered
         * @return this builder
         */
        public Builder clusterNodes(Collection<HostAndPort> nodes) {
            this.clusterNodes = nodes == null ? null : Set.copyOf(nodes);
            return this;
        }

        /**
         * ACL user name (Redis 6+); without it, {@link #password} authenticates the default user.
         *
         * @param user the ACL user name
         * @return this builder
         */
        public Builder user(String user) {
            this.user = user;
            return this;
        }

        /**
         * Password of the {@link #user}, or of the default user.
         *
         * @param password the password
         * @return this builder
         */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /**
         * Time to establish a connection; default {@link #DEFAULT_CONNECT_TIMEOUT}.
         *
         * @param connectTimeout the connect timeout
         * @return this builder
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /**
         * Time to wait for a reply; default {@link #DEFAULT_SOCKET_TIMEOUT}. When it passes, the
         * call is retried (a write is then applied at most once, see {@link RedisSessionStore}).
         *
         * @param socketTimeout the reply timeout
         * @return this builder
         */
        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = socketTimeout;
            return this;
        }

        /**
         * Use TLS (also implied by a {@code rediss://} URI).
         *
         * @param ssl whether to use TLS
         * @return this builder
         */
        public Builder ssl(boolean ssl) {
            this.ssl = ssl;
            return this;
        }

        /**
         * TLS socket factory passed through to Jedis (for example one with your trust store).
         *
         * @param sslSocketFactory the socket factory
         * @return this builder
         */
        public Builder sslSocketFactory(SSLSocketFactory sslSocketFactory) {
            this.sslSocketFactory = sslSocketFactory;
            return this;
        }

        /**
         * TLS parameters passed through to Jedis.
         *
         * @param sslParameters the TLS parameters
         * @return this builder
         */
        public Builder sslParameters(SSLParameters sslParameters) {
            this.sslParameters = sslParameters;
            return this;
        }

        /**
         * TLS host name verifier passed through to Jedis.
         *
         * @param hostnameVerifier the verifier
         * @return this builder
         */
        public Builder hostnameVerifier(HostnameVerifier hostnameVerifier) {
            this.hostnameVerifier = hostnameVerifier;
            return this;
        }

        /**
         * Jedis' own attempts per command on a cluster (its {@code maxAttempts}, default
         * {@value JedisCluster#DEFAULT_MAX_ATTEMPTS}): each follows a {@code MOVED}/{@code ASK}
         * redirection or retries a connection failure, and each of the store's attempts may use them
         * all. Only with {@link #clusterNodes}.
         *
         * @param maxAttempts attempts per command, at least 1
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder jedisClusterMaxAttempts(int maxAttempts) {
            this.jedisClusterMaxAttempts = RedisConnections.atLeastOne("jedisClusterMaxAttempts", maxAttempts);
            return this;
        }

        /**
         * Jedis' time limit for its own attempts of one command on a cluster (its
         * {@code maxTotalRetriesDuration}; default: socket timeout × Jedis' attempts). Only with
         * {@link #clusterNodes}.
         *
         * @param duration the time limit
         * @return this builder
         * @throws IllegalArgumentException if not positive
         */
        public Builder jedisClusterMaxTotalRetriesDuration(Duration duration) {
            this.jedisClusterMaxTotalRetriesDuration = RedisConnections.atLeast("jedisClusterMaxTotalRetriesDuration",
                    duration, Duration.ofNanos(1), "positive");
            return this;
        }

        /**
         * Text put before every key; default {@value #DEFAULT_KEY_PREFIX}. Any text is allowed: glob
         * characters are escaped when scanning. A prefix containing a {@code {…}} hash tag puts every
         * session on one cluster slot.
         *
         * @param keyPrefix the prefix, possibly empty
         * @return this builder
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /**
         * Expire a session this long after its last write (at least one millisecond); none by default.
         *
         * @param ttl the time to live, or {@code null} for none
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            this.ttl = ttl;
            return this;
        }

        /**
         * Source of entry timestamps; default the system UTC clock. Retry timing uses real time.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Most attempts per call, the first included ({@code 1} = never retry); default
         * {@value #DEFAULT_RETRY_ATTEMPTS}. Pauses between attempts start at about 10 ms and double
         * up to 1 s, each jittered between half and all of its step.
         *
         * @param attempts attempts per call, at least 1
         * @return this builder
         * @throws IllegalArgumentException if below 1
         */
        public Builder retryAttempts(int attempts) {
            this.retryAttempts = RedisConnections.atLeastOne("retryAttempts", attempts);
            return this;
        }

        /**
         * Time from a call's first attempt after which it is not retried any more; default
         * {@link #DEFAULT_RETRY_DURATION}. A call can take longer than this by at most one attempt
         * (socket timeout, plus Jedis' own cluster attempts). To ride out a cluster failover, set it
         * above the cluster's {@code cluster-node-timeout} plus a few seconds.
         *
         * @param duration the time limit
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder retryDuration(Duration duration) {
            this.retryDuration = RedisConnections.atLeast("retryDuration", duration, Duration.ZERO, "zero or positive");
            return this;
        }

        /**
         * Acknowledge a write (append, state change, replace, trim, delete) only once {@code replicas}
         * replicas have it: the store sends {@code WAIT replicas timeout} after it on the same
         * connection, and retries (within the retry budget; the write itself is not applied twice)
         * while fewer acknowledge. Then an acknowledged write survives the failover of its primary,
         * provided the replica that takes over is one that acknowledged (with one replica per primary,
         * it always is). Costs about one replication round trip per write. {@code 0} (the default)
         * waits for none. Needs a {@link JedisPooled} or {@link JedisCluster} client.
         *
         * @param replicas replicas that must acknowledge, 0 for none
         * @param timeout how long {@code WAIT} waits for them
         * @return this builder
         * @throws IllegalArgumentException if {@code replicas} is negative, or {@code timeout} is not
         *                                  between 1 ms and 1,000,000 ms
         */
        public Builder waitForReplicas(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas must be >= 0, was " + replicas);
            }
            if (timeout == null || timeout.toMillis() < 1 || timeout.toMillis() > 1_000_000) {
                throw new IllegalArgumentException("replica timeout must be between 1 ms and 1,000,000 ms, was "
                        + timeout);
            }
            this.replicas = replicas;
            this.replicaTimeout = timeout;
            return this;
        }

        /**
         * How long a write token is kept, so that a resend of the same call arriving within this time
         * is recognised; default {@link #DEFAULT_DEDUPLICATION_WINDOW}. A token is kept at least this
         * long and at most three times as long; each costs a hash field (about 60 bytes) in its
         * session meanwhile. It must exceed the {@link #retryDuration}.
         *
         * @param window the window, at least one second
         * @return this builder
         * @throws IllegalArgumentException if shorter than one second
         */
        public Builder deduplicationWindow(Duration window) {
            this.deduplicationWindow = RedisConnections.atLeast("deduplicationWindow", window, Duration.ofSeconds(1),
                    "at least 1 s");
            return this;
        }

        /**
         * Off only to measure what write tokens cost (the benchmark); a store without them can store a resend twice.
         *
         * @param on whether write tokens are sent
         * @return this builder
         */
        Builder writeTokens(boolean on) {
            this.writeTokens = on;
            return this;
        }

        /** How long a process key lives without a refresh (every quarter of it); tests shorten it. At least 1 s. */
        Builder processTimeToLive(Duration ttl) {
            this.processTimeToLive = RedisConnections.atLeast("processTimeToLive", ttl, Duration.ofSeconds(1),
                    "at least 1 s");
            return this;
        }

        /**
         * Builds the store; the builder can be used again.
         *
         * @return a new store
         * @throws IllegalArgumentException for a bad value (prefix, TTL, timeout, port, URI scheme)
         * @throws IllegalStateException    for conflicting options (a client together with
         *                                  connection options; more than one of host/port, URI and
         *                                  cluster nodes; Jedis cluster options without cluster nodes;
         *                                  replicas to wait for with a client that cannot; a
         *                                  deduplication window not longer than the retry duration)
         * @throws StoreException           if a cluster's topology cannot be read
         */
        public RedisSessionStore build() {
            RedisConnections.checkOptions(this);
            RedisConnections.Opened opened = client != null
                    ? new RedisConnections.Opened(client, "the Redis server of the given client")
                    : RedisConnections.open(this);
            RedisSessionStore store = new RedisSessionStore(opened.client(), client == null, this);
            PersistenceCheck.warnIfOff(opened.client(), opened.standaloneName());
            return store;
        }
    }
}
