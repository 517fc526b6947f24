package io.github.memorypack.redis;

import java.util.Set;

/** The shared store contract on a single-node Redis Cluster, through a builder-made JedisCluster. */
class ClusterRedisSessionStoreContractTest extends RedisSessionStoreContractTest {

    @Override
    RedisSessionStore.Builder connect(RedisSessionStore.Builder builder) {
        return builder.clusterNodes(Set.of(TestRedis.clusterNode()));
    }
}
