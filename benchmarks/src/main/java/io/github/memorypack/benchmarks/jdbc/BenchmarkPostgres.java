package io.github.memorypack.benchmarks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The PostgreSQL server a benchmark fork talks to: {@code POSTGRES_URL} when set (a JDBC URL; use a
 * server nobody else is using), otherwise PostgreSQL 17 from the binaries packaged in
 * {@code io.zonky.test.postgres}, started on a free loopback port with the server's own defaults
 * for durability ({@code synchronous_commit = on}, {@code fsync = on}: every commit waits for its
 * WAL flush) and stopped when the fork ends. Connections go through a small HikariCP pool whose
 * sockets count their bytes ({@link CountingSocketFactory}).
 */
final class BenchmarkPostgres implements AutoCloseable {

    private final EmbeddedPostgres embedded;
    private final HikariDataSource pool;

    private BenchmarkPostgres(EmbeddedPostgres embedded, String url) {
        this.embedded = embedded;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        config.addDataSourceProperty("socketFactory", CountingSocketFactory.class.getName());
        this.pool = new HikariDataSource(config);
    }

    static BenchmarkPostgres start() {
        String env = System.getenv("POSTGRES_URL");
        if (env != null && !env.isBlank()) {
            return new BenchmarkPostgres(null, env);
        }
        try {
            // zonky turns synchronous_commit off by default: put PostgreSQL's own default back
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().setServerConfig("synchronous_commit", "on").start();
            return new BenchmarkPostgres(embedded, embedded.getJdbcUrl("postgres", "postgres"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    HikariDataSource pool() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
        if (embedded != null) {
            try {
                embedded.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
