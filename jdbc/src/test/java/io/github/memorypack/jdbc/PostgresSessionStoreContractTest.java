package io.github.memorypack.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared store contract on a real PostgreSQL (see {@link TestPostgres}), through a HikariCP pool,
 * each test on its own tables. {@link #reopen} builds a new store over the same tables, as after an
 * application restart. The assertions are inherited from the contract, including its 16 threads x
 * 500 appends to one session (exactly 8,000 entries, each writer's order kept).
 */
class PostgresSessionStoreContractTest extends SessionStoreContract {

    private static HikariDataSource pool;
    private final String prefix = TestPostgres.freshPrefix();

    @BeforeAll
    static void openPool() {
        pool = TestPostgres.pool(20);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    protected SessionStore createStore(Clock clock) {
        JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).clock(clock).build();
        store.createSchema();
        return store;
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        return JdbcSessionStore.builder(pool).tablePrefix(prefix).clock(clock()).build();
    }

    @AfterEach
    void dropTables() {
        TestPostgres.dropTables(pool, prefix);
    }
}
