package io.github.memorypack.spring;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Redis store from {@code spring.data.redis.*} (a real redis-server), window of 10 turns. */
@SpringBootTest(classes = TestApplication.class, properties = {
        "memory-pack.strategy=window",
        "memory-pack.window.max-turns=10",
        "memory-pack.store.type=redis",
        "memory-pack.store.redis.key-prefix=starter-test:"})
class RedisStoreStarterTest extends StarterConversationTest {

    RedisStoreStarterTest() {
        super("redis", "window", RedisSessionStore.class);
    }

    private static final TestRedisServer REDIS = TestRedisServer.start();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        properties.add("spring.data.redis.host", () -> "127.0.0.1");
        properties.add("spring.data.redis.port", REDIS::port);
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

}
