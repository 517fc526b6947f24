package io.github.memorypack.redis;

import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.UnifiedJedis;

/**
 * The same behaviour on a Redis Cluster of 3 primaries and 3 replicas (or {@code REDIS_CLUSTER_URL}).
 * The assertions are inherited from {@link RedisSessionStoreBehaviourTest}.
 */
class ClusterRedisSessionStoreTest extends RedisSessionStoreBehaviourTest {

    @Override
    UnifiedJedis newClient() {
        return TestRedis.clusterClient();
    }

    @Override
    void flushScripts() {
        for (ConnectionPool node : ((JedisCluster) client).getClusterNodes().values()) {
            try (Connection connection = node.getResource()) {
                connection.executeCommand(new CommandArguments(Protocol.Command.SCRIPT).add("FLUSH"));
            }
        }
    }
}
