package io.github.memorypack.redis;

import redis.clients.jedis.UnifiedJedis;

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
