package io.github.memorypack.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The behaviour tests on an in-memory H2 database (the contract runs on an H2 file database). */
class H2SessionStoreTest extends JdbcSessionStoreBehaviourTest {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:behaviour-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        config.setMaximumPoolSize(12);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }

    @Override
    JdbcSessionStore.Dialect expectedDialect() {
        return JdbcSessionStore.Dialect.H2;
    }
}
