package io.github.memorypack.redis;

import io.github.memorypack.core.StoreException;
import java.time.Duration;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * The Jedis client a {@link RedisSessionStore.Builder} creates from its connection options (host and
 * port, a URI, or cluster nodes; timeouts, credentials, TLS, and Jedis' own cluster retry limits),
 * when it was not handed a client of the application's.
 */
final class RedisConnections {

    /** A client the builder created (the store owns and closes it), and the standalone server's name. */
    record Opened(UnifiedJedis client, String standaloneName) {
    }

    private RedisConnections() {
    }

    /**
     * Creates the client {@code b}'s connection options describe.
     *
     * @throws IllegalArgumentException for a bad timeout, port or URI scheme, or empty cluster nodes
     * @throws IllegalStateException    if more than one of host/port, URI and cluster nodes is set
     * @throws StoreException           if a cluster's topology cannot be read
     */
    static Opened open(RedisSessionStore.Builder b) {
        int targets = (b.host != null || b.port != null ? 1 : 0) + (b.uri != null ? 1 : 0)
                + (b.clusterNodes != null ? 1 : 0);
        if (targets > 1) {
            throw new IllegalStateException("set only one of host/port, uri and clusterNodes");
        }
        int socketMillis = millis("socketTimeout", b.socketTimeout, RedisSessionStore.DEFAULT_SOCKET_TIMEOUT);
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(
                        millis("connectTimeout", b.connectTimeout, RedisSessionStore.DEFAULT_CONNECT_TIMEOUT))
                .socketTimeoutMillis(socketMillis)
                .user(b.user)
                .password(b.password)
                .sslSocketFactory(b.sslSocketFactory)
                .sslParameters(b.sslParameters)
                .hostnameVerifier(b.hostnameVerifier);
        boolean useSsl = Boolean.TRUE.equals(b.ssl);
        HostAndPort address = new HostAndPort(b.host == null ? RedisSessionStore.DEFAULT_HOST : b.host,
                b.port == null ? RedisSessionStore.DEFAULT_PORT : b.port);
        if (b.uri != null) {
            if (!JedisURIHelper.isValid(b.uri)
                    || !(JedisURIHelper.isRedisScheme(b.uri) || JedisURIHelper.isRedisSSLScheme(b.uri))) {
                throw new IllegalArgumentException("uri must be redis://host[:port] or rediss://…, was " + b.uri);
            }
            address = JedisURIHelper.getHostAndPort(b.uri);
            useSsl |= JedisURIHelper.isRedisSSLScheme(b.uri);
            config.database(JedisURIHelper.getDBIndex(b.uri));
            if (JedisURIHelper.getPassword(b.uri) != null && b.user == null && b.password == null) {
                config.user(JedisURIHelper.getUser(b.uri)).password(JedisURIHelper.getPassword(b.uri));
            }
        }
        config.ssl(useSsl);
        if (b.clusterNodes != null) {
            if (b.clusterNodes.isEmpty()) {
                throw new IllegalArgumentException("clusterNodes must not be empty");
            }
            int attempts = b.jedisClusterMaxAttempts == null ? JedisCluster.DEFAULT_MAX_ATTEMPTS
                    : b.jedisClusterMaxAttempts;
            Duration jedisRetries = b.jedisClusterMaxTotalRetriesDuration == null
                    ? Duration.ofMillis((long) socketMillis * attempts) : b.jedisClusterMaxTotalRetriesDuration;
            JedisCluster cluster;
            try {
                cluster = new JedisCluster(b.clusterNodes, config.build(), attempts, jedisRetries);
            } catch (JedisException e) {
                throw new StoreException("cannot read the Redis Cluster topology from " + b.clusterNodes, e);
            }
            return new Opened(cluster, null);
        }
        if (address.getPort() < 1 || address.getPort() > 65_535) {
            throw new IllegalArgumentException("port must be 1-65535, was " + address.getPort());
        }
        return new Opened(new JedisPooled(address, config.build()), address.toString());
    }

    private static int millis(String name, Duration value, Duration fallback) {
        Duration d = value == null ? fallback : value;
        if (d.isNegative() || d.isZero() || d.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " must be positive and at most Integer.MAX_VALUE ms, was " + d);
        }
        return (int) d.toMillis();
    }

    /**
     * Checks the builder's options and their combinations before anything connects: bad values are
     * {@link IllegalArgumentException}s, conflicting options {@link IllegalStateException}s (see
     * {@link RedisSessionStore.Builder#build()}).
     */
    static void checkOptions(RedisSessionStore.Builder b) {
        if (b.keyPrefix == null) {
            throw new IllegalArgumentException("keyPrefix must not be null (use \"\" for none)");
        }
        if (b.ttl != null && b.ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, was " + b.ttl);
        }
        if (b.clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        if (b.deduplicationWindow.compareTo(b.retryDuration) <= 0) {
            throw new IllegalStateException("deduplicationWindow (" + b.deduplicationWindow
                    + ") must be longer than retryDuration (" + b.retryDuration + ")");
        }
        if ((b.jedisClusterMaxAttempts != null || b.jedisClusterMaxTotalRetriesDuration != null) && b.clusterNodes == null) {
            throw new IllegalStateException("jedisClusterMaxAttempts and jedisClusterMaxTotalRetriesDuration "
                    + "apply to a cluster client the builder creates: set clusterNodes(...)");
        }
        if (b.client != null) {
            if (b.host != null || b.port != null || b.uri != null || b.clusterNodes != null || b.user != null
                    || b.password != null || b.connectTimeout != null || b.socketTimeout != null || b.ssl != null
                    || b.sslSocketFactory != null || b.sslParameters != null || b.hostnameVerifier != null) {
                throw new IllegalStateException(
                        "client(...) cannot be combined with connection options: configure the client instead");
            }
            if (b.replicas > 0 && !RedisCalls.canWait(b.client)) {
                throw new IllegalStateException("waitForReplicas needs a JedisPooled or JedisCluster client, not a "
                        + b.client.getClass().getName());
            }
        }
    }

    /** {@code value} if it is at least 1, for a builder option counting attempts. */
    static int atLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
        return value;
    }

    /** Returns {@code value} if it is at least {@code min}; else says it must be {@code rule}. */
    static Duration atLeast(String name, Duration value, Duration min, String rule) {
        if (value == null || value.compareTo(min) < 0) {
            throw new IllegalArgumentException(name + " must be " + rule + ", was " + value);
        }
        return value;
    }
}
