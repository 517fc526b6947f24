package io.github.memorypack.spring;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.micrometer.MemoryPackMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.UnaryOperator;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Auto-configures Memory Pack from {@link MemoryPackProperties} ({@code memory-pack.*}), the same way
 * on Spring Boot 3.5 and 4.x:
 * <ul>
 *   <li>a {@link SessionStore} bean — in-memory, file, Redis (on Spring Boot's Redis connection details,
 *       else {@code spring.data.redis.*}) or JDBC (on the application's {@code DataSource}) — unless
 *       the application defines one;</li>
 *   <li>a {@link ChatMemoryProvider} bean of the configured strategy on that store, unless the
 *       application defines one: inject it into {@code AiServices.builder(…).chatMemoryProvider(…)}.
 *       Every {@link MemoryListener} bean is attached to its memories;</li>
 *   <li>with a Micrometer {@code MeterRegistry} bean and {@code memory-pack-micrometer} on the class
 *       path: a {@link MemoryPackMetrics} bean (a listener, so the memories report to it) and the
 *       provider's store timed by it ({@code memory-pack.metrics.enabled=false} turns this off).</li>
 * </ul>
 * A {@code memory-pack.*} value that cannot work fails the start with Spring Boot's "APPLICATION
 * FAILED TO START" report naming the property, its value and the fix.
 *
 * <p>What differs between the two Spring Boot generations — the health indicator and the reading of
 * Spring Boot's Redis connection details — comes from the starter of the application's generation
 * ({@code memory-pack-spring-boot-starter} for 3.5, {@code memory-pack-spring-boot4-starter} for 4.x),
 * which brings this auto-configuration along.
 *
 * <p>Used by Spring only. The store, the provider and the memories it creates are thread-safe.
 */
@AutoConfiguration(afterName = {
        // Spring Boot 3.5
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        // Spring Boot 4
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@EnableConfigurationProperties(MemoryPackProperties.class)
public class MemoryPackAutoConfiguration {

    /** Created by Spring. */
    public MemoryPackAutoConfiguration() {
    }

    /**
     * Keeps the {@code memory-pack.*} properties out of {@code spring.main.lazy-initialization}, so a
     * bad value still fails the start rather than the first chat (binding them is cheap; the store and
     * the provider stay lazy).
     *
     * @return the filter Spring Boot's lazy initialization consults
     */
    @Bean
    static LazyInitializationExcludeFilter memoryPackPropertiesEagerly() {
        return LazyInitializationExcludeFilter.forBeanTypes(MemoryPackProperties.class);
    }

    /**
     * The store of {@code memory-pack.store.type}.
     *
     * @param properties  the {@code memory-pack.*} properties
     * @param beans       where the {@code DataSource}, the SSL bundles and the Redis connection are found
     * @param environment where {@code spring.data.redis.*} is read when nothing else gives the Redis connection
     * @return the store; Spring closes it on shutdown when it can be closed
     */
    @Bean
    @ConditionalOnMissingBean(SessionStore.class)
    SessionStore memoryPackSessionStore(MemoryPackProperties properties, ListableBeanFactory beans,
                                        Environment environment) {
        return SessionStores.create(properties, beans, environment);
    }

    /**
     * A provider of memories of {@code memory-pack.strategy} on the store.
     *
     * @param properties the {@code memory-pack.*} properties
     * @param store      the store bean
     * @param listeners  every {@link MemoryListener} bean (the metrics among them)
     * @param decorators wrappers applied to the store the memories use (the metrics' timing)
     * @param beans      where the summarizer's {@code ChatModel} is found
     * @return the provider
     */
    @Bean
    @ConditionalOnMissingBean(ChatMemoryProvider.class)
    ChatMemoryProvider memoryPackChatMemoryProvider(MemoryPackProperties properties, SessionStore store,
                                                    ObjectProvider<MemoryListener> listeners,
                                                    ObjectProvider<StoreDecorator> decorators,
                                                    ListableBeanFactory beans) {
        SessionStore used = store;
        for (StoreDecorator decorator : decorators.orderedStream().toList()) {
            used = decorator.apply(used);
        }
        List<MemoryListener> all = listeners.orderedStream().toList();
        return MemoryProviders.create(properties, used, all, beans);
    }

    /** Wraps the store the auto-configured memories use. */
    interface StoreDecorator extends UnaryOperator<SessionStore> {
    }

    /**
     * Where the auto-configured Redis store connects, as Spring Boot's Redis connection details bean
     * gives it. The starter of each Spring Boot generation defines a bean of this type from its
     * generation's details bean ({@code RedisConnectionDetails} in 3.5, {@code DataRedisConnectionDetails}
     * in 4.x: Spring Data Redis' auto-configuration, Docker Compose and Testcontainers define one); when
     * there is one, the store connects where it says instead of where {@code spring.data.redis.*} says.
     * Applications do not need it.
     *
     * @param username         the ACL user name, or {@code null} for the default user
     * @param password         the password, or {@code null} for none
     * @param host             the standalone server's host (ignored for a cluster)
     * @param port             the standalone server's port (ignored for a cluster)
     * @param database         the standalone server's database index (ignored for a cluster)
     * @param clusterNodes     {@code host:port} of each seed node of a Redis Cluster, or empty for a
     *                         standalone server
     * @param sslBundle        the SSL bundle to connect with, or {@code null} for plain TCP
     * @param unsupportedSetup what the details describe when the store cannot connect to it ("Redis
     *                         Sentinel"), else {@code null}
     */
    public record RedisConnection(String username, String password, String host, int port, int database,
                                  List<String> clusterNodes, SslBundle sslBundle, String unsupportedSetup) {

        /**
         * Copies the node list.
         *
         * @param username         the ACL user name, or {@code null} for the default user
         * @param password         the password, or {@code null} for none
         * @param host             the standalone server's host (ignored for a cluster)
         * @param port             the standalone server's port (ignored for a cluster)
         * @param database         the standalone server's database index (ignored for a cluster)
         * @param clusterNodes     {@code host:port} of each seed node, or empty for a standalone server
         * @param sslBundle        the SSL bundle to connect with, or {@code null} for plain TCP
         * @param unsupportedSetup what the details describe when the store cannot connect to it, else {@code null}
         * @throws NullPointerException if {@code clusterNodes} is {@code null}
         */
        public RedisConnection {
            clusterNodes = List.copyOf(clusterNodes);
        }
    }

    /**
     * A MeterRegistry but no {@code memory-pack-micrometer}: no {@code memorypack.*} meters, which would
     * otherwise go unnoticed until someone looks for them (by name only: Micrometer may be absent).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnMissingClass("io.github.memorypack.micrometer.MemoryPackMetrics")
    @ConditionalOnBean(type = "io.micrometer.core.instrument.MeterRegistry")
    @ConditionalOnProperty(prefix = "memory-pack.metrics", name = "enabled", matchIfMissing = true)
    static class NoMetricsNotice {

        NoMetricsNotice() {
            org.apache.commons.logging.LogFactory.getLog(MemoryPackAutoConfiguration.class).info("No memorypack.*"
                    + " meters: the application has a MeterRegistry, but memory-pack-micrometer is not on the class"
                    + " path; add io.github.memorypack:memory-pack-micrometer for them, or set"
                    + " memory-pack.metrics.enabled=false to silence this.");
        }
    }

    /** The Micrometer binding. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, MemoryPackMetrics.class})
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnProperty(prefix = "memory-pack.metrics", name = "enabled", matchIfMissing = true)
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        MemoryPackMetrics memoryPackMetrics(MeterRegistry registry) {
            return MemoryPackMetrics.of(registry);
        }

        @Bean
        StoreDecorator memoryPackStoreTiming(MemoryPackMetrics metrics) {
            return metrics::instrument;
        }
    }
}
