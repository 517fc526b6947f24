package io.github.memorypack.spring;

import java.util.List;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * Spring Boot 4's spelling of what the starter suites (spring-boot-autoconfigure/src/suite/java)
 * need and the two generations name differently. The Spring Boot 3.5 starter has its own, with the
 * same members.
 */
final class BootGeneration {

    /** Which generation the suites run on, for messages. */
    static final String NAME = "Spring Boot 4";

    /** The jars an application without Spring Boot Actuator lacks (by file-name fragment). */
    static final List<String> ACTUATOR_JARS = List.of("spring-boot-actuator", "spring-boot-health");

    /** Spring Boot's {@code DataSource} auto-configuration, by name (for {@code spring.autoconfigure.exclude}). */
    static final String DATA_SOURCE_AUTO_CONFIGURATION = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

    private BootGeneration() {
    }

    /** Spring Boot's metrics auto-configuration with the simple registry, as an application with Actuator has it. */
    static AutoConfigurations metrics() {
        return AutoConfigurations.of(MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class);
    }

    /** Spring Boot's {@code DataSource} auto-configuration. */
    static AutoConfigurations dataSource() {
        return AutoConfigurations.of(DataSourceAutoConfiguration.class);
    }

    /** What the {@code memoryPackHealthIndicator} bean reports now. */
    static StarterHealth health(ApplicationContext context) {
        Health health = context.getBean("memoryPackHealthIndicator", HealthIndicator.class).health();
        return new StarterHealth(health.getStatus().getCode(), Map.copyOf(health.getDetails()));
    }

    /** The status Actuator's health endpoint shows for {@code component}, or {@code null} when it shows none. */
    static String endpointStatus(ApplicationContext context, String component) {
        HealthDescriptor shown = context.getBean(HealthEndpoint.class).healthForPath(component);
        return shown == null ? null : shown.getStatus().getCode();
    }

    /**
     * {@code runner} with Spring Boot's Redis connection details bean of a standalone server at
     * {@code host:port}, over TLS with {@code ssl} unless it is {@code null}.
     */
    static ApplicationContextRunner withRedisConnectionDetails(ApplicationContextRunner runner, String host, int port,
                                                               SslBundle ssl) {
        return runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(host, port);
            }

            @Override
            public SslBundle getSslBundle() {
                return ssl;
            }
        });
    }
}
