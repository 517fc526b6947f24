package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import io.github.memorypack.core.SessionStore;
import redis.clients.jedis.Jedis;

/** The health indicator follows a real redis-server (up while it runs, down once it is stopped); closing the context closes the pool. */
class RedisLifecycleTest {

    @Test
    void should_report_down_when_redis_is_stopped() {
        try (TestRedisServer redis = TestRedisServer.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(Starters.memoryPack())
                    .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.host=127.0.0.1",
                            "spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=500ms",
                            "spring.data.redis.connect-timeout=500ms", "memory-pack.store.redis.retry-duration=1s")
                    .run(context -> {
                        // given: up while the server runs
                        assertThat(BootGeneration.health(context).status()).isEqualTo("UP");

                        // when
                        redis.close();

                        // then
                        StarterHealth down = BootGeneration.health(context);
                        assertThat(down.status()).isEqualTo("DOWN");
                        assertThat(down.details()).containsKey("error");
                    });
        }
    }

    @Test
    void should_release_its_redis_connections_when_the_context_closes() {
        try (TestRedisServer redis = TestRedisServer.start(); Jedis admin = new Jedis("127.0.0.1", redis.port())) {
            long before = admin.clientList().lines().count();
            new ApplicationContextRunner()
                    .withConfiguration(Starters.memoryPack())
                    .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.host=127.0.0.1",
                            "spring.data.redis.port=" + redis.port())
                    .run(context -> {
                        // given: memories that used the store
                        for (int i = 0; i < 5; i++) {
                            context.getBean(ChatMemoryProvider.class).get("session-" + i).add(UserMessage.from("hi"));
                        }
                        assertThat(admin.clientList().lines().count()).isGreaterThan(before);
                    });
            // then: closing the context closed the store's pool (the server drops a closed socket on its
            // next event loop turn, so the count is polled for up to 5 s)
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            long clients;
            do {
                clients = admin.clientList().lines().count();
            } while (clients > before && System.nanoTime() < deadline);
            assertThat(clients).isEqualTo(before);
        }
    }

    @Test
    void should_connect_through_the_connection_details_bean_when_the_application_has_one() {
        // given: Spring Boot's RedisConnectionDetails (what Docker Compose or Testcontainers define), and
        // spring.data.redis.* naming a port where nothing listens
        try (TestRedisServer redis = TestRedisServer.start(); Jedis admin = new Jedis("127.0.0.1", redis.port())) {
            BootGeneration.withRedisConnectionDetails(new ApplicationContextRunner()
                    .withConfiguration(Starters.memoryPack())
                    .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.port=1",
                            "memory-pack.store.redis.retry-duration=0s"), "127.0.0.1", redis.port(), null)
                    .run(context -> {
                        // when
                        context.getBean(ChatMemoryProvider.class).get("ada").add(UserMessage.from("hi"));

                        // then: the session is in the server the details name
                        assertThat(admin.keys("memory-pack:{ada}:*")).isNotEmpty();
                    });
        }
    }

    @Test
    void should_use_the_ssl_bundle_that_spring_data_redis_ssl_bundle_names() {
        // given: the application's SSL bundle for Redis (its own trust store, say), named by Spring's property
        AtomicInteger contexts = new AtomicInteger();
        DefaultSslBundleRegistry bundles = new DefaultSslBundleRegistry("redis-tls", counted(contexts));
        new ApplicationContextRunner()
                .withConfiguration(Starters.memoryPack())
                .withBean(SslBundles.class, () -> bundles)
                .withPropertyValues("memory-pack.store.type=redis", "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=1", "spring.data.redis.ssl.bundle=redis-tls")
                .run(context -> {
                    // when
                    context.getBean(SessionStore.class);

                    // then: the store's TLS context came from the bundle
                    assertThat(contexts).hasPositiveValue();
                });
    }

    @Test
    void should_use_the_ssl_bundle_of_the_connection_details_when_they_give_one() {
        // given: Spring Boot's connection details with an SSL bundle (as a TLS service connection has it)
        AtomicInteger contexts = new AtomicInteger();
        BootGeneration.withRedisConnectionDetails(new ApplicationContextRunner()
                        .withConfiguration(Starters.memoryPack())
                        .withPropertyValues("memory-pack.store.type=redis"), "127.0.0.1", 1, counted(contexts))
                .run(context -> {
                    // when
                    context.getBean(SessionStore.class);

                    // then: the store's TLS context came from the details' bundle
                    assertThat(context).hasSingleBean(MemoryPackAutoConfiguration.RedisConnection.class);
                    assertThat(contexts).hasPositiveValue();
                });
    }

    /** The JVM's default SSL bundle, counting the TLS contexts made from it. */
    private static SslBundle counted(AtomicInteger contexts) {
        SslBundle system = SslBundle.systemDefault();
        return SslBundle.of(system.getStores(), system.getKey(), system.getOptions(), system.getProtocol(),
                new SslManagerBundle() {
                    @Override
                    public javax.net.ssl.KeyManagerFactory getKeyManagerFactory() {
                        contexts.incrementAndGet();
                        return system.getManagers().getKeyManagerFactory();
                    }

                    @Override
                    public javax.net.ssl.TrustManagerFactory getTrustManagerFactory() {
                        return system.getManagers().getTrustManagerFactory();
                    }
                });
    }
}
