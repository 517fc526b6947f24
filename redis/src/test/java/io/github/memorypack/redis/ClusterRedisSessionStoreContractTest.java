package io.github.memorypack.redis;

import java.util.Set;

/**
 * The shared store contract on a single-node Redis Cluster, through a builder-made JedisCluster.
 * The assertions are inherited from the contract.
 */
class ClusterRedisSessionStoreContractTest extends RedisSessionStoreContractTest {

    @Override
    RedisSessionStore.Builder connect(RedisSessionStore.Builder builder) {
        return builder.clusterNodes(Set.of(TestRedis.clusterNode()));
    }
}
