package io.github.memorypack.redis;

/**
 * The shared store contract on a standalone server, through a builder-made JedisPooled. The
 * assertions are inherited from the contract.
 */
class StandaloneRedisSessionStoreContractTest extends RedisSessionStoreContractTest {

    @Override
    RedisSessionStore.Builder connect(RedisSessionStore.Builder builder) {
        return builder.uri(TestRedis.standaloneUri());
    }
}
