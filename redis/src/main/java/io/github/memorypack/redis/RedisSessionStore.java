package io.github.memorypack.redis;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.EntryCodec;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * A {@link SessionStore} in Redis, for applications that run on several instances: every instance
 * sees the same sessions, and concurrent turns of one session never overwrite each other. Works with
 * a standalone server and with Redis Cluster (through Jedis' {@link JedisPooled} or
 * {@link JedisCluster}).
 *
 * <h2>Layout</h2>
 * Each session has up to four keys, all with the session id as hash tag so that a cluster keeps
 * them on one slot:
 * <ul>
 *   <li>{@code <prefix>{<id>}:log} — a list with one JSON line per entry (the core entry codec;
 *       messages in LangChain4j's own JSON);</li>
 *   <li>{@code <prefix>{<id>}:state} — a hash with the state {@code version} and its {@code json};</li>
 *   <li>{@code <prefix>{<id>}:meta} — a hash with {@code base}, the index of the first retained
 *       entry (indices stay stable when the log is trimmed); it exists as long as the session does;</li>
 *   <li>{@code <prefix>{<id>}:keys} — a hash from idempotency key to the batch it stored.</li>
 * </ul>
 *
 * <h2>Behaviour</h2>
 * <ul>
 *   <li>Append, state compare-and-set, replace, trim and delete are Lua scripts: atomic and one
 *       round trip each; an append sends only the new entries. Reads of a range or of the last n
 *       entries read only those entries.</li>
 *   <li>With a {@linkplain Builder#ttl TTL}, every write sets the TTL of all the session's keys
 *       inside the same script, so a session expires as a whole, that long after its last write.</li>
 *   <li>{@link #sessions()} uses {@code SCAN} (on every node of a cluster) with the prefix escaped,
 *       so glob characters in the prefix match only themselves.</li>
 *   <li>Any Redis failure (unreachable, timeout, error reply) or unreadable stored data throws
 *       {@link StoreException} with the cause chained; the store works again once Redis is back.
 *       A write that failed before Redis ran it changed nothing. When the connection breaks
 *       <em>after</em> the command was sent, its outcome is unknown to the client: retry an append
 *       with the same idempotency key to make it happen exactly once.</li>
 * </ul>
 *
 * <p>Entry timestamps come from the store's {@link Clock}. Thread-safe. {@link #close()} closes the
 * Jedis client only when the builder created it.
 */
public final class RedisSessionStore implements SessionStore, AutoCloseable {

    /** Key prefix used when none is set. */
    public static final String DEFAULT_KEY_PREFIX = "memory-pack:";
    public static final String DEFAULT_HOST = "localhost";
    public static final int DEFAULT_PORT = 6379;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(2);

    /** Keys asked per SCAN call. */
    static final int SCAN_COUNT = 500;
    /** No log gets near this many entries; larger indices are clamped so Lua's doubles stay exact. */
    private static final long MAX_INDEX = 1L << 50;
    /** What {@link EntryCodec#encodeEntry} writes first for index 0; the append script writes the real index. */
    private static final String INDEX_ZERO_HEAD = "{\"index\":0";

    private final UnifiedJedis jedis;
    private final boolean ownsClient;
    private final RedisKeys keys;
    private final long ttlMillis;
    private final Clock clock;

    private RedisSessionStore(UnifiedJedis jedis, boolean ownsClient, String keyPrefix, Duration ttl, Clock clock) {
        this.jedis = jedis;
        this.ownsClient = ownsClient;
        this.keys = new RedisKeys(keyPrefix);
        this.ttlMillis = ttl == null ? 0 : ttl.toMillis();
        this.clock = clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        SessionIds.validate(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        List<NewEntry> batch = List.copyOf(entries);
        Instant now = clock.instant();
        List<Entry> drafts = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(batch.size() + 2);
        args.add(Long.toString(ttlMillis));
        args.add(idempotencyKey == null ? "" : idempotencyKey);
        for (NewEntry e : batch) {
            Entry draft = new Entry(0, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), idempotencyKey);
            drafts.add(draft);
            args.add(body(draft));
        }
        List<?> reply = (List<?>) call("append", sessionId,
                () -> RedisScripts.APPEND.run(jedis, keys.all(sessionId), args));
        if (((Number) reply.get(0)).longValue() == 0) {
            return decodeAll(sessionId, (List<?>) reply.get(1));
        }
        long first = Long.parseLong(text(reply.get(1)));
        List<Entry> stored = new ArrayList<>(drafts.size());
        for (int i = 0; i < drafts.size(); i++) {
            Entry d = drafts.get(i);
            stored.add(new Entry(first + i, d.id(), d.timestamp(), d.tokenCount(), d.message(), d.metadata(),
                    idempotencyKey));
        }
        return List.copyOf(stored);
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.validate(sessionId);
        if (fromIndex < 0) {
            throw new IllegalArgumentException("fromIndex must be >= 0, was " + fromIndex);
        }
        if (maxCount < 0) {
            throw new IllegalArgumentException("maxCount must be >= 0, was " + maxCount);
        }
        if (maxCount == 0) {
            return List.of();
        }
        List<String> args = List.of(Long.toString(Math.min(fromIndex, MAX_INDEX)), Integer.toString(maxCount));
        Object lines = call("read", sessionId, () -> RedisScripts.READ.run(jedis, keys.all(sessionId), args));
        return decodeAll(sessionId, (List<?>) lines);
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        SessionIds.validate(sessionId);
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        if (count == 0) {
            return List.of(); // LRANGE -0 -1 would be the whole list
        }
        // The lines carry their indices, so one LRANGE from the tail needs no base offset.
        List<String> lines = call("readLast", sessionId,
                () -> jedis.lrange(keys.key(sessionId, RedisKeys.LOG), -(long) count, -1));
        return decodeAll(sessionId, lines);
    }

    @Override
    public long nextIndex(String sessionId) {
        SessionIds.validate(sessionId);
        Object next = call("nextIndex", sessionId,
                () -> RedisScripts.NEXT_INDEX.run(jedis, keys.all(sessionId), List.of()));
        return Long.parseLong(text(next));
    }

    @Override
    public SessionState state(String sessionId) {
        SessionIds.validate(sessionId);
        String json = call("state", sessionId, () -> jedis.hget(keys.key(sessionId, RedisKeys.STATE), "json"));
        if (json == null) {
            return SessionState.EMPTY;
        }
        try {
            return EntryCodec.decodeState(json);
        } catch (IllegalArgumentException e) {
            throw new StoreException("unreadable state of session '" + sessionId + "' in Redis", e);
        }
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionIds.validate(sessionId);
        Objects.requireNonNull(newState, "newState");
        SessionState stored = newState.withVersion(expectedVersion + 1);
        List<String> args = List.of(Long.toString(ttlMillis), Long.toString(expectedVersion),
                Long.toString(stored.version()), EntryCodec.encodeState(stored));
        Object done = call("compareAndSetState", sessionId,
                () -> RedisScripts.COMPARE_AND_SET_STATE.run(jedis, keys.all(sessionId), args));
        return ((Number) done).longValue() == 1 ? Optional.of(stored) : Optional.empty();
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        List<NewEntry> batch = List.copyOf(entries);
        Instant now = clock.instant();
        List<String> args = new ArrayList<>(batch.size() + 1);
        args.add(Long.toString(ttlMillis));
        for (NewEntry e : batch) {
            args.add(body(new Entry(0, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), null)));
        }
        call("replace", sessionId, () -> RedisScripts.REPLACE.run(jedis, keys.all(sessionId), args));
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        SessionIds.validate(sessionId);
        List<String> args = List.of(Long.toString(ttlMillis), Long.toString(Math.min(beforeIndex, MAX_INDEX)));
        call("trim", sessionId, () -> RedisScripts.TRIM.run(jedis, keys.all(sessionId), args));
    }

    @Override
    public List<String> sessions() {
        Set<String> ids = new TreeSet<>(); // a cluster scan visits replicas too: dedupe
        call("sessions", null, () -> {
            ScanIteration scan = jedis.scanIteration(SCAN_COUNT, keys.metaPattern());
            while (!scan.isIterationCompleted()) {
                for (String key : scan.nextBatchList()) {
                    String id = keys.sessionIdOfMetaKey(key);
                    if (id != null) {
                        ids.add(id);
                    }
                }
            }
            return null;
        });
        return List.copyOf(ids);
    }

    @Override
    public void delete(String sessionId) {
        SessionIds.validate(sessionId);
        call("delete", sessionId, () -> RedisScripts.DELETE.run(jedis, keys.all(sessionId), List.of()));
    }

    /** Closes the Jedis client if the builder created it; a client passed to the builder is left open. */
    @Override
    public void close() {
        if (ownsClient) {
            jedis.close();
        }
    }

    /** The key prefix this store writes under. */
    public String keyPrefix() {
        return keys.prefix();
    }

    /** The TTL of a session after its last write, if one is set. */
    public Optional<Duration> ttl() {
        return ttlMillis == 0 ? Optional.empty() : Optional.of(Duration.ofMillis(ttlMillis));
    }

    /** An entry's JSON line without its leading {@code {"index":0}: the script prepends the real index. */
    private static String body(Entry draft) {
        String line = EntryCodec.encodeEntry(draft);
        if (!line.startsWith(INDEX_ZERO_HEAD)) {
            throw new IllegalStateException("entry codec no longer writes the index first: " + line);
        }
        return line.substring(INDEX_ZERO_HEAD.length());
    }

    private static List<Entry> decodeAll(String sessionId, List<?> lines) {
        List<Entry> entries = new ArrayList<>(lines.size());
        for (Object line : lines) {
            try {
                entries.add(EntryCodec.decodeEntry(text(line)));
            } catch (IllegalArgumentException e) {
                throw new StoreException("unreadable entry in session '" + sessionId + "' in Redis", e);
            }
        }
        return List.copyOf(entries);
    }

    private static String text(Object reply) {
        return reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    /** Runs a Redis call; any Jedis failure becomes a {@link StoreException} naming the operation and session. */
    private static <T> T call(String operation, String sessionId, Supplier<T> action) {
        try {
            return action.get();
        } catch (JedisException e) {
            String session = sessionId == null ? "" : " for session '" + sessionId + "'";
            throw new StoreException("Redis " + operation + " failed" + session + ": " + e.getMessage(), e);
        }
    }

    /**
     * Builds a {@link RedisSessionStore}. Connect either to {@link #host}/{@link #port} (default
     * {@value #DEFAULT_HOST}:{@value #DEFAULT_PORT}), to a {@link #uri} ({@code redis://} or
     * {@code rediss://}, with user, password and database from the URI), or to a cluster through
     * {@link #clusterNodes}; the connection options (timeouts, user, password, TLS) apply to what the
     * builder creates. Or hand over an existing {@link #client} ({@link JedisPooled} or
     * {@link JedisCluster}); the store then never closes it, and connection options are refused.
     */
    public static final class Builder {

        private UnifiedJedis client;
        private String host;
        private Integer port;
        private URI uri;
        private Set<HostAndPort> clusterNodes;
        private String user;
        private String password;
        private Duration connectTimeout;
        private Duration socketTimeout;
        private Boolean ssl;
        private SSLSocketFactory sslSocketFactory;
        private SSLParameters sslParameters;
        private HostnameVerifier hostnameVerifier;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration ttl;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** An existing client ({@link JedisPooled} or {@link JedisCluster}); the store will not close it. */
        public Builder client(UnifiedJedis client) {
            this.client = client;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** {@code redis://[user:password@]host[:port][/database]} or {@code rediss://…} for TLS. */
        public Builder uri(URI uri) {
            this.uri = uri;
            return this;
        }

        /** Same as {@link #uri(URI)}. */
        public Builder uri(String uri) {
            this.uri = uri == null ? null : URI.create(uri);
            return this;
        }

        /** Seed nodes of a Redis Cluster; the store then talks to the cluster through a {@link JedisCluster}. */
        public Builder clusterNodes(Collection<HostAndPort> nodes) {
            this.clusterNodes = nodes == null ? null : Set.copyOf(nodes);
            return this;
        }

        /** ACL user name (Redis 6+); without it, {@link #password} authenticates the default user. */
        public Builder user(String user) {
            this.user = user;
            return this;
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** Time to establish a connection; default {@link #DEFAULT_CONNECT_TIMEOUT}. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
            return this;
        }

        /** Time to wait for a reply; default {@link #DEFAULT_SOCKET_TIMEOUT}. */
        public Builder socketTimeout(Duration socketTimeout) {
            this.socketTimeout = socketTimeout;
            return this;
        }

        /** Use TLS (also implied by a {@code rediss://} URI). */
        public Builder ssl(boolean ssl) {
            this.ssl = ssl;
            return this;
        }

        /** TLS socket factory passed through to Jedis (for example one with your trust store). */
        public Builder sslSocketFactory(SSLSocketFactory sslSocketFactory) {
            this.sslSocketFactory = sslSocketFactory;
            return this;
        }

        public Builder sslParameters(SSLParameters sslParameters) {
            this.sslParameters = sslParameters;
            return this;
        }

        public Builder hostnameVerifier(HostnameVerifier hostnameVerifier) {
            this.hostnameVerifier = hostnameVerifier;
            return this;
        }

        /**
         * Text put before every key; default {@value #DEFAULT_KEY_PREFIX}. Any text is allowed: glob
         * characters are escaped when scanning. A prefix containing a {@code {…}} hash tag puts every
         * session on one cluster slot.
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Expire a session this long after its last write (at least one millisecond); none by default. */
        public Builder ttl(Duration ttl) {
            this.ttl = ttl;
            return this;
        }

        /** Source of entry timestamps; default the system UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * @throws IllegalArgumentException for a bad value (prefix, TTL, timeout, port, URI scheme)
         * @throws IllegalStateException    for conflicting options (a client together with
         *                                  connection options; more than one of host/port, URI and
         *                                  cluster nodes)
         * @throws StoreException           if a cluster's topology cannot be read
         */
        public RedisSessionStore build() {
            if (keyPrefix == null) {
                throw new IllegalArgumentException("keyPrefix must not be null (use \"\" for none)");
            }
            if (ttl != null && ttl.toMillis() < 1) {
                throw new IllegalArgumentException("ttl must be at least 1 ms, was " + ttl);
            }
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            if (client != null) {
                if (host != null || port != null || uri != null || clusterNodes != null || user != null
                        || password != null || connectTimeout != null || socketTimeout != null || ssl != null
                        || sslSocketFactory != null || sslParameters != null || hostnameVerifier != null) {
                    throw new IllegalStateException(
                            "client(...) cannot be combined with connection options: configure the client instead");
                }
                return new RedisSessionStore(client, false, keyPrefix, ttl, clock);
            }
            int targets = (host != null || port != null ? 1 : 0) + (uri != null ? 1 : 0)
                    + (clusterNodes != null ? 1 : 0);
            if (targets > 1) {
                throw new IllegalStateException("set only one of host/port, uri and clusterNodes");
            }
            DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                    .connectionTimeoutMillis(millis("connectTimeout", connectTimeout, DEFAULT_CONNECT_TIMEOUT))
                    .socketTimeoutMillis(millis("socketTimeout", socketTimeout, DEFAULT_SOCKET_TIMEOUT))
                    .user(user)
                    .password(password)
                    .sslSocketFactory(sslSocketFactory)
                    .sslParameters(sslParameters)
                    .hostnameVerifier(hostnameVerifier);
            boolean useSsl = Boolean.TRUE.equals(ssl);
            HostAndPort address = new HostAndPort(host == null ? DEFAULT_HOST : host, port == null ? DEFAULT_PORT : port);
            if (uri != null) {
                if (!JedisURIHelper.isValid(uri)
                        || !(JedisURIHelper.isRedisScheme(uri) || JedisURIHelper.isRedisSSLScheme(uri))) {
                    throw new IllegalArgumentException("uri must be redis://host[:port] or rediss://…, was " + uri);
                }
                address = JedisURIHelper.getHostAndPort(uri);
                useSsl |= JedisURIHelper.isRedisSSLScheme(uri);
                config.database(JedisURIHelper.getDBIndex(uri));
                if (JedisURIHelper.getPassword(uri) != null && user == null && password == null) {
                    config.user(JedisURIHelper.getUser(uri)).password(JedisURIHelper.getPassword(uri));
                }
            }
            config.ssl(useSsl);
            if (clusterNodes != null) {
                if (clusterNodes.isEmpty()) {
                    throw new IllegalArgumentException("clusterNodes must not be empty");
                }
                try {
                    return new RedisSessionStore(new JedisCluster(clusterNodes, config.build()), true, keyPrefix, ttl,
                            clock);
                } catch (JedisException e) {
                    throw new StoreException("cannot read the Redis Cluster topology from " + clusterNodes, e);
                }
            }
            if (address.getPort() < 1 || address.getPort() > 65_535) {
                throw new IllegalArgumentException("port must be 1-65535, was " + address.getPort());
            }
            return new RedisSessionStore(new JedisPooled(address, config.build()), true, keyPrefix, ttl, clock);
        }

        private static int millis(String name, Duration value, Duration fallback) {
            Duration d = value == null ? fallback : value;
            if (d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(name + " must be positive and at most Integer.MAX_VALUE ms, was " + d);
            }
            return (int) d.toMillis();
        }
    }
}
