package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.redis.RedisSessionStore;
import org.junit.jupiter.api.AfterAll;
import org.springframework.util.ClassUtils;
import redis.clients.jedis.Jedis;
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

    @Override
    void thenAlso(String ana) {
        // with Spring Data Redis on the class path (the Boot 4 starter's tests have it), through Spring Boot's
        // connection details bean; without it (the Boot 3.5 starter's), through spring.data.redis.* itself
        boolean springDataRedis = ClassUtils.isPresent("org.springframework.data.redis.core.RedisOperations", null);
        assertThat(context.getBeanProvider(MemoryPackAutoConfiguration.RedisConnection.class).getIfAvailable())
                .as("the connection details on %s", BootGeneration.NAME).matches(c -> (c != null) == springDataRedis);
        // the session is in the Redis that spring.data.redis.* names, under the configured key prefix
        try (Jedis jedis = new Jedis("127.0.0.1", REDIS.port())) {
            assertThat(jedis.keys("*" + ana + "*")).isNotEmpty()
                    .allMatch(key -> key.startsWith("starter-test:{" + ana + "}:"));
            assertThat(jedis.llen("starter-test:{" + ana + "}:log")).isEqualTo(6);
        }
    }
}
