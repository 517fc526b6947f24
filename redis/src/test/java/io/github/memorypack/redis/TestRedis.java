package io.github.memorypack.redis;

import java.util.UUID;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis servers shared by the tests of one JVM: the standalone one is {@code REDIS_URL} when
 * set, otherwise a {@link RedisProcess}; the cluster is always a single-node {@link RedisProcess}.
 * Tests isolate themselves with a fresh key prefix, never by flushing.
 */
final class TestRedis {

    private static String standaloneUri;
    private static RedisProcess cluster;

    private TestRedis() {
    }

    static synchronized String standaloneUri() {
        if (standaloneUri == null) {
            String env = System.getenv("REDIS_URL");
            if (env != null && !env.isBlank()) {
                standaloneUri = env;
            } else {
                RedisProcess server = RedisProcess.start();
                Runtime.getRuntime().addShutdownHook(new Thread(server::close));
                standaloneUri = server.uri();
            }
        }
        return standaloneUri;
    }

    static synchronized HostAndPort clusterNode() {
        if (cluster == null) {
            cluster = RedisProcess.startCluster();
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        }
        return new HostAndPort("127.0.0.1", cluster.port());
    }

    static JedisPooled standaloneClient() {
        return new JedisPooled(java.net.URI.create(standaloneUri()));
    }

    static JedisCluster clusterClient() {
        return new JedisCluster(clusterNode());
    }

    /** A prefix no other test uses, with characters that would widen a pattern if left unescaped. */
    static String freshPrefix() {
        return "mp-test:" + UUID.randomUUID() + ":";
    }

    static RedisSessionStore store(UnifiedJedis client) {
        return RedisSessionStore.builder().client(client).keyPrefix(freshPrefix()).build();
    }
}
