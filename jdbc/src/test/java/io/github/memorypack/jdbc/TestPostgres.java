package io.github.memorypack.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The PostgreSQL server the tests share: the one named by {@code POSTGRES_URL} when set
 * ({@code jdbc:postgresql://…} or {@code postgresql://user:password@host:port/db}), otherwise one
 * started once per test JVM from the binaries packaged in {@code io.zonky.test.postgres} (PostgreSQL
 * 17, any free loopback port, stopped when the JVM exits). Every test uses its own table prefix and
 * drops its tables afterwards, so a shared server is safe.
 */
final class TestPostgres {

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static EmbeddedPostgres embedded;
    private static String url;

    private TestPostgres() {
    }

    /** The JDBC URL of the test server (user and password included). */
    static synchronized String jdbcUrl() {
        if (url == null) {
            String env = System.getenv("POSTGRES_URL");
            if (env != null && !env.isBlank()) {
                url = toJdbcUrl(env.strip());
            } else {
                embedded = start(EmbeddedPostgres.builder());
                url = embedded.getJdbcUrl("postgres", "postgres");
            }
        }
        return url;
    }

    /** Starts a server, retrying on another port if the probed free port was taken meanwhile. */
    static EmbeddedPostgres start(EmbeddedPostgres.Builder builder) {
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return builder.setPGStartupWait(Duration.ofSeconds(60)).start();
            } catch (IOException e) {
                last = e;
            }
        }
        throw new UncheckedIOException("PostgreSQL did not start", last);
    }

    /** A HikariCP pool on the test server. */
    static HikariDataSource pool(int size) {
        return pool(jdbcUrl(), size, Duration.ofSeconds(30));
    }

    static HikariDataSource pool(String jdbcUrl, int size, Duration connectionTimeout) {
        return new HikariDataSource(config(jdbcUrl, size, connectionTimeout));
    }

    static HikariConfig config(String jdbcUrl, int size, Duration connectionTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(connectionTimeout.toMillis());
        return config;
    }

    /** A table prefix no other test uses, on this server or a shared one. */
    static String freshPrefix() {
        return "t" + ProcessHandle.current().pid() + "_" + PREFIXES.incrementAndGet() + "_"
                + Integer.toString(ThreadLocalRandom.current().nextInt(1 << 20), 36) + "_";
    }

    /** Drops the tables of a prefix (and so their indices). */
    static void dropTables(DataSource dataSource, String prefix) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + prefix + "entry");
            st.execute("DROP TABLE IF EXISTS " + prefix + "session");
            st.execute("DROP TABLE IF EXISTS " + prefix + "process");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop the tables of " + prefix, e);
        }
    }

    static String toJdbcUrl(String url) {
        if (url.startsWith("jdbc:")) {
            return url;
        }
        URI uri = URI.create(url);
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost())
                .append(uri.getPort() > 0 ? ":" + uri.getPort() : "").append(uri.getPath());
        String separator = "?";
        if (uri.getRawUserInfo() != null) {
            String[] userInfo = uri.getRawUserInfo().split(":", 2);
            jdbc.append("?user=").append(URLDecoder.decode(userInfo[0], StandardCharsets.UTF_8));
            if (userInfo.length == 2) {
                jdbc.append("&password=").append(URLDecoder.decode(userInfo[1], StandardCharsets.UTF_8));
            }
            separator = "&";
        }
        if (uri.getRawQuery() != null) {
            jdbc.append(separator).append(uri.getRawQuery());
        }
        return jdbc.toString();
    }
}
