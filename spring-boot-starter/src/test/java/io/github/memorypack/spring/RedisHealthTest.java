package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health indicator follows a real redis-server: up while it runs, down once it is stopped. */
class RedisHealthTest {

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
}
