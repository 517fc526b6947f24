package io.github.memorypack.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis servers shared by the tests of one JVM: the standalone one is {@code REDIS_URL} when
 * set, otherwise a {@link RedisProcess}; the cluster is {@code REDIS_CLUSTER_URL} when set
 * ({@code redis://host:port[,host:port…]}, seed nodes of a cluster nobody else writes to with our
 * prefixes), otherwise a {@link TestCluster} of 3 primaries and 3 replicas. Tests isolate
 * themselves with a fresh key prefix, never by flushing.
 */
final class TestRedis {

    private static String standaloneUri;
    private static Set<HostAndPort> clusterSeeds;

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

    static synchronized Set<HostAndPort> clusterSeeds() {
        if (clusterSeeds == null) {
            String env = System.getenv("REDIS_CLUSTER_URL");
            if (env != null && !env.isBlank()) {
                Set<HostAndPort> seeds = new HashSet<>();
                for (String node : env.replaceFirst("^redis://", "").split(",")) {
                    seeds.add(HostAndPort.from(node.trim()));
                }
                clusterSeeds = Set.copyOf(seeds);
            } else {
                TestCluster cluster = TestCluster.start(3, 1, Duration.ofSeconds(15));
                Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
                clusterSeeds = cluster.seeds();
            }
        }
        return clusterSeeds;
    }

    static JedisPooled standaloneClient() {
        return new JedisPooled(java.net.URI.create(standaloneUri()));
    }

    static JedisCluster clusterClient() {
        return new JedisCluster(clusterSeeds());
    }

    /** A prefix no other test uses, with characters that would widen a pattern if left unescaped. */
    static String freshPrefix() {
        return "mp-test:" + UUID.randomUUID() + ":";
    }

    static RedisSessionStore store(UnifiedJedis client) {
        return RedisSessionStore.builder().client(client).keyPrefix(freshPrefix()).build();
    }
}
