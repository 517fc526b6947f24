package io.github.memorypack.redis;

/**
 * The shared store contract on a Redis Cluster of 3 primaries and 3 replicas (or
 * {@code REDIS_CLUSTER_URL}), through a builder-made JedisCluster.
 * The assertions are inherited from the contract.
 */
class ClusterRedisSessionStoreContractTest extends RedisSessionStoreContractTest {

    @Override
    RedisSessionStore.Builder connect(RedisSessionStore.Builder builder) {
        return builder.clusterNodes(TestRedis.clusterSeeds());
    }
}
