package io.github.memorypack.spring;

import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.jdbc.JdbcSessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.autoconfigure.data.redis.RedisProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import redis.clients.jedis.HostAndPort;

/**
 * Creates the store of {@code memory-pack.store.type}. The Redis and JDBC parts are in nested classes
 * that are loaded only when that type is chosen, so their modules stay optional.
 */
final class SessionStores {

    private SessionStores() {
    }

    static SessionStore create(MemoryPackProperties properties, ListableBeanFactory beans, Environment environment) {
        MemoryPackProperties.Store store = properties.getStore();
        return switch (store.getType()) {
            case IN_MEMORY -> InMemorySessionStore.create();
            case FILE -> {
                Path directory = store.getFile().getDirectory();
                if (directory == null) {
                    throw new IllegalStateException(
                            "memory-pack.store.type=file needs memory-pack.store.file.directory");
                }
                yield FileSessionStore.of(directory);
            }
            case REDIS -> {
                require("io.github.memorypack.redis.RedisSessionStore", "redis", "memory-pack-redis");
                yield Redis.create(store.getRedis(), beans, environment);
            }
            case JDBC -> {
                require("io.github.memorypack.jdbc.JdbcSessionStore", "jdbc", "memory-pack-jdbc");
                yield Jdbc.create(store.getJdbc(), beans);
            }
        };
    }

    private static void require(String className, String type, String artifact) {
        if (!ClassUtils.isPresent(className, SessionStores.class.getClassLoader())) {
            throw new IllegalStateException("memory-pack.store.type=" + type + " needs io.github.memorypack:"
                    + artifact + " on the class path");
        }
    }

    /** A Redis store on Spring Boot's Redis connection settings. */
    static final class Redis {

        private Redis() {
        }

        static SessionStore create(MemoryPackProperties.Redis settings, ListableBeanFactory beans, Environment environment) {
            RedisProperties spring = Binder.get(environment).bind("spring.data.redis", RedisProperties.class)
                    .orElseGet(RedisProperties::new);
            RedisSessionStore.Builder builder = RedisSessionStore.builder().keyPrefix(settings.getKeyPrefix());
            if (settings.getTtl() != null) {
                builder.ttl(settings.getTtl());
            }
            if (settings.getRetryDuration() != null) {
                builder.retryDuration(settings.getRetryDuration());
            }
            if (spring.getTimeout() != null) {
                builder.socketTimeout(spring.getTimeout());
            }
            if (spring.getConnectTimeout() != null) {
                builder.connectTimeout(spring.getConnectTimeout());
            }
            RedisConnectionDetails details = beans.getBeanProvider(RedisConnectionDetails.class).getIfUnique();
            if (details != null) {
                connect(builder, details);
            } else {
                connect(builder, spring);
                String bundle = spring.getSsl() == null ? null : spring.getSsl().getBundle();
                if (bundle != null && !bundle.isBlank() && spring.getSsl().isEnabled()) {
                    SslBundles bundles = beans.getBeanProvider(SslBundles.class).getIfAvailable();
                    if (bundles == null) {
                        throw new IllegalStateException("spring.data.redis.ssl.bundle=" + bundle
                                + " needs Spring Boot's SslBundles bean (spring.ssl.bundle.*), and there is none");
                    }
                    builder.sslSocketFactory(bundles.getBundle(bundle).createSslContext().getSocketFactory());
                }
            }
            return builder.build();
        }

        /** From the connection details bean (Spring Data Redis' auto-configuration, or Docker Compose / Testcontainers). */
        private static void connect(RedisSessionStore.Builder builder, RedisConnectionDetails details) {
            if (details.getSentinel() != null) {
                throw sentinelUnsupported();
            }
            SslBundle ssl;
            if (details.getCluster() != null) {
                builder.clusterNodes(details.getCluster().getNodes().stream()
                        .map(n -> new HostAndPort(n.host(), n.port())).toList());
                builder.user(details.getUsername()).password(details.getPassword());
                ssl = details.getCluster().getSslBundle();
            } else {
                RedisConnectionDetails.Standalone standalone = details.getStandalone();
                ssl = standalone.getSslBundle();
                builder.uri(uri(ssl != null, details.getUsername(), details.getPassword(), standalone.getHost(),
                        standalone.getPort(), standalone.getDatabase()));
            }
            if (ssl != null) {
                builder.ssl(true).sslSocketFactory(ssl.createSslContext().getSocketFactory());
            }
        }

        /** From {@code spring.data.redis.*} (url, or cluster nodes, or host/port/database); the SSL bundle is the caller's. */
        private static void connect(RedisSessionStore.Builder builder, RedisProperties spring) {
            boolean ssl = spring.getSsl() != null && spring.getSsl().isEnabled();
            if (spring.getUrl() != null && !spring.getUrl().isBlank()) {
                builder.uri(spring.getUrl());
            } else if (spring.getCluster() != null && spring.getCluster().getNodes() != null
                    && !spring.getCluster().getNodes().isEmpty()) {
                builder.clusterNodes(spring.getCluster().getNodes().stream().map(HostAndPort::from).toList())
                        .user(spring.getUsername()).password(spring.getPassword()).ssl(ssl);
            } else if (spring.getSentinel() != null) {
                throw sentinelUnsupported();
            } else {
                builder.uri(uri(ssl, spring.getUsername(), spring.getPassword(), spring.getHost(), spring.getPort(),
                        spring.getDatabase()));
            }
        }

        private static IllegalStateException sentinelUnsupported() {
            return new IllegalStateException("memory-pack.store.type=redis does not support Redis Sentinel;"
                    + " use a standalone server or a cluster");
        }

        static URI uri(boolean ssl, String user, String password, String host, int port, int database) {
            StringBuilder uri = new StringBuilder(ssl ? "rediss://" : "redis://");
            if (password != null) {
                if (user != null) {
                    uri.append(encode(user));
                }
                uri.append(':').append(encode(password)).append('@');
            }
            uri.append(host).append(':').append(port).append('/').append(database);
            return URI.create(uri.toString());
        }

        private static String encode(String text) {
            return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
        }
    }

    /** A JDBC store on the application's {@link DataSource}. */
    static final class Jdbc {

        private Jdbc() {
        }

        static SessionStore create(MemoryPackProperties.Jdbc settings, ListableBeanFactory beans) {
            DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
            if (dataSource == null) {
                String[] names = beans.getBeanNamesForType(DataSource.class);
                throw new IllegalStateException(names.length == 0
                        ? "memory-pack.store.type=jdbc needs a DataSource bean; add spring-boot-starter-jdbc and"
                                + " spring.datasource.* settings"
                        : "memory-pack.store.type=jdbc needs one DataSource, and there are " + names.length + " "
                                + java.util.Arrays.toString(names) + " with none @Primary: mark the one for chat"
                                + " memory @Primary, or define your own SessionStore bean on it");
            }
            JdbcSessionStore.Builder builder = JdbcSessionStore.builder(dataSource);
            if (settings.getTablePrefix() != null) {
                named("memory-pack.store.jdbc.table-prefix", () -> builder.tablePrefix(settings.getTablePrefix()));
            }
            if (settings.getSchema() != null) {
                named("memory-pack.store.jdbc.schema", () -> builder.schema(settings.getSchema()));
            }
            JdbcSessionStore store = builder.build();
            if (settings.isCreateSchema()) {
                store.createSchema();
            }
            return store;
        }

        /** Runs a builder setter, naming {@code property} when it rejects the value. */
        private static void named(String property, Runnable setter) {
            try {
                setter.run();
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(property + ": " + e.getMessage(), e);
            }
        }
    }
}
