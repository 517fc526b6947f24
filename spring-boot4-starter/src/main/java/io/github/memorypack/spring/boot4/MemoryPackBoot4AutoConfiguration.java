package io.github.memorypack.spring.boot4;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import io.github.memorypack.spring.MemoryPackAutoConfiguration;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

/**
 * What {@link MemoryPackAutoConfiguration} needs from Spring Boot 4 in particular: the health
 * indicator on Spring Boot 4's health API ({@code org.springframework.boot.health.contributor}), and
 * the Redis store's connection from Spring Boot's {@link DataRedisConnectionDetails} bean.
 */
@AutoConfiguration(after = MemoryPackAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
class MemoryPackBoot4AutoConfiguration {

    /** Created by Spring. */
    MemoryPackBoot4AutoConfiguration() {
    }

    /** The health indicator {@code memoryPack} ({@code management.health.memorypack.enabled}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class})
    @ConditionalOnEnabledHealthIndicator("memorypack")
    @ConditionalOnBean(SessionStore.class)
    static class HealthConfiguration {

        /** Created by Spring. */
        HealthConfiguration() {
        }

        /**
         * The indicator, under the name that makes its component {@code memoryPack}.
         *
         * @param store the store bean
         * @return the indicator
         */
        @Bean
        @ConditionalOnMissingBean(name = "memoryPackHealthIndicator")
        HealthIndicator memoryPackHealthIndicator(SessionStore store) {
            return new MemoryPackHealthIndicator(store);
        }
    }

    /** Spring Boot's Redis connection details (Spring Data Redis' auto-configuration, Docker Compose, Testcontainers). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RedisSessionStore.class, DataRedisConnectionDetails.class})
    @ConditionalOnBean(DataRedisConnectionDetails.class)
    static class RedisConfiguration {

        /** Created by Spring. */
        RedisConfiguration() {
        }

        /**
         * Where the auto-configured Redis store connects: what the details bean says. Lazy: read when the
         * store is created, which reports what the details cannot give (an SSL bundle they name and the
         * application lacks).
         *
         * @param details Spring Boot's Redis connection details bean
         * @return the connection the details describe
         */
        @Bean
        @Lazy
        @ConditionalOnMissingBean
        MemoryPackAutoConfiguration.RedisConnection memoryPackRedisConnection(DataRedisConnectionDetails details) {
            DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
            DataRedisConnectionDetails.Cluster cluster = details.getCluster();
            return new MemoryPackAutoConfiguration.RedisConnection(details.getUsername(), details.getPassword(),
                    standalone == null ? null : standalone.getHost(), standalone == null ? 0 : standalone.getPort(),
                    standalone == null ? 0 : standalone.getDatabase(), cluster == null ? List.of()
                    : cluster.getNodes().stream().map(n -> n.host() + ":" + n.port()).toList(), details.getSslBundle(),
                    details.getSentinel() != null ? "Redis Sentinel"
                            : details.getMasterReplica() != null ? "a static master/replica setup" : null);
        }
    }
}
