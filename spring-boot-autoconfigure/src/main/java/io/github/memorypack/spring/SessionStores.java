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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import redis.clients.jedis.HostAndPort;

/**
 * Creates the store of {@code memory-pack.store.type}; everything that cannot work fails with a
 * {@link MemoryPackConfigurationException} naming the property. The Redis and JDBC parts are in
 * nested classes that are loaded only when that type is chosen, so their modules stay optional.
 */
final class SessionStores {

    private SessionStores() {
    }

    static SessionStore create(MemoryPackProperties properties, ListableBeanFactory beans, Environment environment) {
        MemoryPackProperties.Store store = properties.getStore();
        return switch (store.getType()) {
            case IN_MEMORY -> InMemorySessionStore.create();
            case FILE -> file(store.getFile().getDirectory());
            case REDIS -> {
                require("io.github.memorypack.redis.RedisSessionStore", "redis", "memory-pack-redis",
                        " The connection comes from spring.data.redis.* (or Spring Boot's Redis connection details,"
                                + " as Docker Compose and Testcontainers define them); Spring Data Redis is not needed.");
                yield Redis.create(store.getRedis(), beans, environment);
            }
            case JDBC -> {
                require("io.github.memorypack.jdbc.JdbcSessionStore", "jdbc", "memory-pack-jdbc",
                        " The store runs on the application's DataSource (spring-boot-starter-jdbc, your database's"
                                + " JDBC driver and spring.datasource.url).");
                yield Jdbc.create(store.getJdbc(), beans);
            }
        };
    }

    private static SessionStore file(Path directory) {
        if (directory == null) { // the properties' validation rejects this first; kept for a hand-made bean
            throw new MemoryPackConfigurationException("memory-pack.store.file.directory", null,
                    "is required with memory-pack.store.type=file",
                    "Set memory-pack.store.file.directory to the folder the sessions are kept in (it is created"
                            + " if missing).");
        }
        try {
            return FileSessionStore.of(directory);
        } catch (RuntimeException e) {
            throw new MemoryPackConfigurationException("memory-pack.store.file.directory", directory.toString(),
                    "cannot be used as the file store's folder (" + e.getMessage() + ")",
                    "Point memory-pack.store.file.directory at a folder the application can create and write.", e);
        }
    }

    private static void require(String className, String type, String artifact, String more) {
        if (!ClassUtils.isPresent(className, SessionStores.class.getClassLoader())) {
            throw new MemoryPackConfigurationException("memory-pack.store.type", type,
                    "needs io.github.memorypack:" + artifact + ", which is not on the class path",
                    "Add the dependency io.github.memorypack:" + artifact + " (the version of the Memory Pack"
                            + " starter) to the application." + more);
        }
    }

    /**
     * A Redis store. The connection comes from the {@link MemoryPackAutoConfiguration.RedisConnection}
     * bean when there is one (each starter defines one on Spring Boot's Redis connection details bean of
     * its generation), otherwise from {@code spring.data.redis.*}.
     */
    static final class Redis {

        private Redis() {
        }

        static SessionStore create(MemoryPackProperties.Redis settings, ListableBeanFactory beans, Environment environment) {
            SpringRedis spring = Binder.get(environment).bind("spring.data.redis", SpringRedis.class)
                    .orElseGet(SpringRedis::new);
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
            MemoryPackAutoConfiguration.RedisConnection details;
            try {
                details = beans.getBeanProvider(MemoryPackAutoConfiguration.RedisConnection.class).getIfUnique();
            } catch (BeansException e) {
                // reading Spring Boot's details fails on an SSL bundle they name and the application lacks
                NoSuchSslBundleException missing = NestedExceptionUtils.getMostSpecificCause(e)
                        instanceof NoSuchSslBundleException n ? n : null;
                if (missing == null) {
                    throw e;
                }
                throw noSuchBundle(missing.getBundleName(), missing);
            }
            String where = details != null ? connect(builder, details) : connect(builder, spring, beans);
            try {
                return builder.build();
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new MemoryPackConfigurationException("memory-pack.store.type", "redis",
                        "cannot create the Redis store from " + where + " (" + e.getMessage() + ")",
                        "Correct the Redis connection settings (spring.data.redis.*).", e);
            } catch (RuntimeException e) {
                throw new MemoryPackConfigurationException("memory-pack.store.type", "redis",
                        "cannot reach Redis as " + where + " give it (" + e.getMessage() + ")",
                        "Check that Redis runs where spring.data.redis.* points (url, host and port, or cluster.nodes).",
                        e);
            }
        }

        /** From {@code spring.data.redis.*}: url, or cluster nodes, or host/port/database, with the SSL bundle. */
        private static String connect(RedisSessionStore.Builder builder, SpringRedis spring, ListableBeanFactory beans) {
            boolean ssl = spring.getSsl().isEnabled();
            String where;
            if (spring.getUrl() != null && !spring.getUrl().isBlank()) {
                builder.uri(uri("spring.data.redis.url", spring.getUrl()));
                where = "spring.data.redis.url";
            } else if (!spring.getCluster().getNodes().isEmpty()) {
                List<HostAndPort> nodes = new ArrayList<>();
                for (String node : spring.getCluster().getNodes()) {
                    nodes.add(node("spring.data.redis.cluster.nodes", node));
                }
                builder.clusterNodes(nodes).user(spring.getUsername()).password(spring.getPassword()).ssl(ssl);
                where = "spring.data.redis.cluster.nodes";
            } else if (spring.getSentinel().getMaster() != null || !spring.getSentinel().getNodes().isEmpty()) {
                throw unsupported("spring.data.redis.sentinel.master", spring.getSentinel().getMaster(), "Redis Sentinel");
            } else if (!spring.getMasterreplica().getNodes().isEmpty()) {
                throw unsupported("spring.data.redis.masterreplica.nodes",
                        String.join(",", spring.getMasterreplica().getNodes()), "a static master/replica setup");
            } else {
                builder.uri(uri(ssl, spring.getUsername(), spring.getPassword(), spring.getHost(), spring.getPort(),
                        spring.getDatabase()));
                where = "spring.data.redis.host and port";
            }
            String bundle = spring.getSsl().getBundle();
            if (bundle != null && !bundle.isBlank() && ssl) {
                SslBundles bundles = beans.getBeanProvider(SslBundles.class).getIfAvailable();
                if (bundles == null) {
                    throw new MemoryPackConfigurationException("spring.data.redis.ssl.bundle", bundle,
                            "names an SSL bundle, and the application has no SslBundles bean",
                            "Define the bundle under spring.ssl.bundle.* (Spring Boot then provides the SslBundles"
                                    + " bean), or remove spring.data.redis.ssl.bundle.");
                }
                try {
                    builder.sslSocketFactory(bundles.getBundle(bundle).createSslContext().getSocketFactory());
                } catch (NoSuchSslBundleException e) {
                    throw noSuchBundle(bundle, e);
                }
            }
            return where;
        }

        /** From Spring Boot's Redis connection details: a standalone server, or a cluster. */
        private static String connect(RedisSessionStore.Builder builder, MemoryPackAutoConfiguration.RedisConnection details) {
            String where = "Spring Boot's Redis connection details";
            if (details.unsupportedSetup() != null) {
                throw new MemoryPackConfigurationException("memory-pack.store.type", "redis", where + " describe "
                        + details.unsupportedSetup() + ", which the Redis store does not support",
                        "Point the store at a standalone Redis server or a Redis Cluster.");
            }
            SslBundle ssl = details.sslBundle();
            if (details.clusterNodes().isEmpty()) {
                builder.uri(uri(ssl != null, details.username(), details.password(), details.host(), details.port(),
                        details.database()));
            } else {
                builder.clusterNodes(details.clusterNodes().stream().map(n -> node(where, n)).toList())
                        .user(details.username()).password(details.password());
            }
            if (ssl != null) {
                builder.ssl(true).sslSocketFactory(ssl.createSslContext().getSocketFactory());
            }
            return where;
        }

        private static MemoryPackConfigurationException noSuchBundle(String bundle, NoSuchSslBundleException e) {
            return new MemoryPackConfigurationException("spring.data.redis.ssl.bundle", bundle,
                    "names no SSL bundle of spring.ssl.bundle.*",
                    "Define the bundle '" + bundle + "' under spring.ssl.bundle.jks or spring.ssl.bundle.pem, or"
                            + " correct the name.", e);
        }

        static MemoryPackConfigurationException unsupported(String property, String value, String setup) {
            return new MemoryPackConfigurationException(property, value,
                    "configures " + setup + ", which memory-pack.store.type=redis does not support",
                    "Point the store at a standalone Redis server (spring.data.redis.url, or host and port) or at a"
                            + " Redis Cluster (spring.data.redis.cluster.nodes).");
        }

        private static URI uri(String property, String text) {
            try {
                return URI.create(text);
            } catch (IllegalArgumentException e) {
                throw new MemoryPackConfigurationException(property, MemoryPackFailureAnalyzer.masked(text), "is not a URI (" + e.getMessage() + ")",
                        "Write it as redis://[user:password@]host:port[/database], or rediss://… for TLS.", e);
            }
        }

        private static HostAndPort node(String property, String node) {
            try {
                return HostAndPort.from(node);
            } catch (IllegalArgumentException e) {
                throw new MemoryPackConfigurationException(property, node, "has a node that is not host:port",
                        "List the cluster's nodes as host:port, separated by commas.", e);
            }
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
                throw names.length == 0
                        ? new MemoryPackConfigurationException("memory-pack.store.type", "jdbc",
                                "needs a DataSource bean, and the application has none",
                                "Add org.springframework.boot:spring-boot-starter-jdbc and your database's JDBC driver"
                                        + " (org.postgresql:postgresql, or com.h2database:h2) to the application, and set"
                                        + " spring.datasource.url (with spring.datasource.username and"
                                        + " spring.datasource.password).")
                        : new MemoryPackConfigurationException("memory-pack.store.type", "jdbc",
                                "needs one DataSource, and there are " + names.length + " "
                                        + Arrays.toString(names) + " with none @Primary",
                                "Mark the DataSource for chat memory @Primary, or define your own SessionStore bean on"
                                        + " it (JdbcSessionStore.builder(dataSource)).");
            }
            JdbcSessionStore.Builder builder = JdbcSessionStore.builder(dataSource);
            if (settings.getTablePrefix() != null) {
                named("memory-pack.store.jdbc.table-prefix", settings.getTablePrefix(),
                        () -> builder.tablePrefix(settings.getTablePrefix()));
            }
            if (settings.getSchema() != null) {
                named("memory-pack.store.jdbc.schema", settings.getSchema(), () -> builder.schema(settings.getSchema()));
            }
            JdbcSessionStore store;
            try {
                store = builder.build();
            } catch (IllegalStateException e) {
                throw new MemoryPackConfigurationException("memory-pack.store.type", "jdbc",
                        "cannot run on the application's DataSource: " + e.getMessage(),
                        "Use PostgreSQL or H2 for chat memory (a second DataSource, marked @Primary, or your own"
                                + " SessionStore bean), or another memory-pack.store.type.", e);
            } catch (RuntimeException e) {
                throw new MemoryPackConfigurationException("memory-pack.store.type", "jdbc",
                        "cannot connect through the application's DataSource (" + driverMessage(e) + ")",
                        "Check spring.datasource.url, spring.datasource.username and spring.datasource.password, and"
                                + " that the database is running.", e);
            }
            if (settings.isCreateSchema()) {
                try {
                    store.createSchema();
                } catch (RuntimeException e) {
                    throw new MemoryPackConfigurationException("memory-pack.store.jdbc.create-schema", "true",
                            "could not create the store's tables (" + driverMessage(e) + ")",
                            "Check that spring.datasource.username may create tables, or create them with your"
                                    + " migrations (the DDL is JdbcSessionStore.Dialect.schemaResource()) and set"
                                    + " memory-pack.store.jdbc.create-schema=false.", e);
                }
            }
            return store;
        }

        /** Runs a builder setter, naming {@code property} when it rejects the value. */
        private static void named(String property, String value, Runnable setter) {
            try {
                setter.run();
            } catch (IllegalArgumentException e) {
                throw new MemoryPackConfigurationException(property, value, e.getMessage(),
                        "Use letters, digits and underscores only, starting with a letter or an underscore.", e);
            }
        }
    }

    /** What the JDBC driver said (the first {@code SQLException} among the causes), else the innermost cause's message. */
    static String driverMessage(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException) {
                return t.getMessage();
            }
        }
        return rootMessage(e);
    }

    /** The message of the innermost cause, where a driver says what went wrong. */
    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + root.getMessage();
    }

    /**
     * {@code spring.data.redis.*}, bound here rather than through Spring Boot's own properties class,
     * which each generation keeps elsewhere (and Spring Boot 4 only with Spring Data Redis). The names
     * and defaults are Spring Boot's.
     */
    public static final class SpringRedis {

        private String url;
        private String host = "localhost";
        private int port = 6379;
        private int database;
        private String username;
        private String password;
        private Duration timeout;
        private Duration connectTimeout;
        private final Ssl ssl = new Ssl();
        private final Nodes cluster = new Nodes();
        private final Sentinel sentinel = new Sentinel();
        private final Nodes masterreplica = new Nodes();

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public String getHost() {
            return host;
        }

        public void setHost(String host) {
            this.host = host;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public int getDatabase() {
            return database;
        }

        public void setDatabase(int database) {
            this.database = database;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public Ssl getSsl() {
            return ssl;
        }

        public Nodes getCluster() {
            return cluster;
        }

        public Sentinel getSentinel() {
            return sentinel;
        }

        public Nodes getMasterreplica() {
            return masterreplica;
        }

        /** {@code spring.data.redis.ssl.*}: as in Spring Boot, naming a bundle switches TLS on. */
        public static final class Ssl {

            private Boolean enabled;
            private String bundle;

            public boolean isEnabled() {
                return enabled != null ? enabled : bundle != null;
            }

            public void setEnabled(boolean enabled) {
                this.enabled = enabled;
            }

            public String getBundle() {
                return bundle;
            }

            public void setBundle(String bundle) {
                this.bundle = bundle;
            }
        }

        /** {@code spring.data.redis.cluster.nodes}, {@code spring.data.redis.masterreplica.nodes}. */
        public static final class Nodes {

            private List<String> nodes = new ArrayList<>();

            public List<String> getNodes() {
                return nodes;
            }

            public void setNodes(List<String> nodes) {
                this.nodes = nodes;
            }
        }

        /** {@code spring.data.redis.sentinel.*}: read only to say it is not supported. */
        public static final class Sentinel {

            private String master;
            private List<String> nodes = new ArrayList<>();

            public String getMaster() {
                return master;
            }

            public void setMaster(String master) {
                this.master = master;
            }

            public List<String> getNodes() {
                return nodes;
            }

            public void setNodes(List<String> nodes) {
                this.nodes = nodes;
            }
        }
    }
}
