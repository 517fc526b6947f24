package io.github.memorypack.integration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The one PostgreSQL server of this test JVM: {@code POSTGRES_URL} when set (a {@code jdbc:postgresql:}
 * URL with user and password), otherwise one started on first use from the binaries packaged in
 * {@code io.zonky.test.postgres} (any free loopback port, stopped when the JVM exits), as the jdbc
 * module's tests do. One small pool for every store; each store gets its own table prefix and drops
 * its tables when it is closed.
 */
final class TestPostgres {

    private static final AtomicInteger PREFIXES = new AtomicInteger();
    private static EmbeddedPostgres embedded;
    private static HikariDataSource pool;

    private TestPostgres() {
    }

    /** The pool on the test server. */
    static synchronized DataSource pool() {
        if (pool == null) {
            String url = System.getenv("POSTGRES_URL");
            if (url == null || url.isBlank()) {
                embedded = start();
                url = embedded.getJdbcUrl("postgres", "postgres");
            }
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url.strip());
            config.setMaximumPoolSize(6);
            config.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
            pool = new HikariDataSource(config);
        }
        return pool;
    }

    /** A table prefix no other store of this JVM (or another test JVM on a shared server) uses. */
    static String freshPrefix() {
        return "it" + ProcessHandle.current().pid() + "_" + PREFIXES.incrementAndGet() + "_";
    }

    /** Drops the tables of a prefix. */
    static void dropTables(String prefix) {
        try (Connection c = pool().getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + prefix + "entry");
            st.execute("DROP TABLE IF EXISTS " + prefix + "session");
            st.execute("DROP TABLE IF EXISTS " + prefix + "process");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop the tables of " + prefix, e);
        }
    }

    private static EmbeddedPostgres start() {
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
            } catch (IOException e) {
                last = e; // the probed free port was taken meanwhile: try another
            }
        }
        throw new UncheckedIOException("PostgreSQL did not start (or set POSTGRES_URL)", last);
    }
}
