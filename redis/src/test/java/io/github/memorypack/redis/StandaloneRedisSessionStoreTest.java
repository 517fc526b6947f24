package io.github.memorypack.redis;

import redis.clients.jedis.UnifiedJedis;

/**
 * The Redis-specific behaviour on a standalone server. The assertions are inherited from
 * {@link RedisSessionStoreBehaviourTest}.
 */
class StandaloneRedisSessionStoreTest extends RedisSessionStoreBehaviourTest {

    @Override
    UnifiedJedis newClient() {
        return TestRedis.standaloneClient();
    }

    @Override
    void flushScripts() {
        client.scriptFlush();
    }
}
