package io.github.memorypack.redis;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;

/**
 * The same behaviour on a single-node Redis Cluster (all 16384 slots on one node). The assertions
 * are inherited from {@link RedisSessionStoreBehaviourTest}.
 */
class ClusterRedisSessionStoreTest extends RedisSessionStoreBehaviourTest {

    @Override
    UnifiedJedis newClient() {
        return TestRedis.clusterClient();
    }

    @Override
    void flushScripts() {
        try (Jedis node = new Jedis(TestRedis.clusterNode())) {
            node.scriptFlush();
        }
    }
}
