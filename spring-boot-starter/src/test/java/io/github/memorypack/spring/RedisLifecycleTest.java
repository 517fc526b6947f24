package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import redis.clients.jedis.Jedis;

/** The health indicator follows a real redis-server (up while it runs, down once it is stopped); closing the context closes the pool. */
class RedisLifecycleTest {

    @Test
    void should_report_down_when_redis_is_stopped() {
        try (TestRedisServer redis = TestRedisServer.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(MemoryPackAutoConfiguration.class))
                    .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.host=127.0.0.1",
                            "spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=500ms",
                            "spring.data.redis.connect-timeout=500ms", "memory-pack.store.redis.retry-duration=1s")
                    .run(context -> {
                        HealthIndicator health = context.getBean("memoryPackHealthIndicator", HealthIndicator.class);
                        // given: up while the server runs
                        assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                        // when
                        redis.close();

                        // then
                        Health down = health.health();
                        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(down.getDetails()).containsKey("error");
                    });
        }
    }

    @Test
    void should_release_its_redis_connections_when_the_context_closes() {
        try (TestRedisServer redis = TestRedisServer.start(); Jedis admin = new Jedis("127.0.0.1", redis.port())) {
            long before = admin.clientList().lines().count();
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(MemoryPackAutoConfiguration.class))
                    .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.host=127.0.0.1",
                            "spring.data.redis.port=" + redis.port())
                    .run(context -> {
                        // given: memories that used the store
                        for (int i = 0; i < 5; i++) {
                            context.getBean(ChatMemoryProvider.class).get("session-" + i).add(UserMessage.from("hi"));
                        }
                        assertThat(admin.clientList().lines().count()).isGreaterThan(before);
                    });
            // then: closing the context closed the store's pool
            assertThat(admin.clientList().lines().count()).isEqualTo(before);
        }
    }

    @Test
    void should_connect_through_the_connection_details_bean_when_the_application_has_one() {
        // given: Spring Boot's RedisConnectionDetails (what Docker Compose or Testcontainers define), and
        // spring.data.redis.* naming a port where nothing listens
        try (TestRedisServer redis = TestRedisServer.start(); Jedis admin = new Jedis("127.0.0.1", redis.port())) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(MemoryPackAutoConfiguration.class))
                    .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.port=1",
                            "memory-pack.store.redis.retry-duration=0s")
                    .withBean(RedisConnectionDetails.class, () -> new RedisConnectionDetails() {
                        @Override
                        public Standalone getStandalone() {
                            return Standalone.of("127.0.0.1", redis.port());
                        }
                    })
                    .run(context -> {
                        // when
                        context.getBean(ChatMemoryProvider.class).get("ada").add(UserMessage.from("hi"));

                        // then: the session is in the server the details name
                        assertThat(admin.keys("memory-pack:{ada}:*")).isNotEmpty();
                    });
        }
    }
}
