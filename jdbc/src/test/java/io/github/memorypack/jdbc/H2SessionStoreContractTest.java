package io.github.memorypack.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.nio.file.Path;
import java.time.Clock;
import java.util.IdentityHashMap;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared store contract on an embedded H2 file database in a fresh folder. {@link #reopen} closes
 * the pool (H2 then closes the database file) and opens a new pool and store on the same file, as
 * after an application restart. The assertions are inherited from the contract.
 */
class H2SessionStoreContractTest extends SessionStoreContract {

    @TempDir
    Path folder;

    private final Map<SessionStore, HikariDataSource> pools = new IdentityHashMap<>();

    @Override
    protected SessionStore createStore(Clock clock) {
        JdbcSessionStore store = open(clock);
        store.createSchema();
        return store;
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        pools.get(store).close();
        return open(clock());
    }

    @Override
    protected void closeStore(SessionStore store) {
        pools.get(store).close();
    }

    private JdbcSessionStore open(Clock clock) {
        HikariConfig config = new HikariConfig();
        // LOCK_TIMEOUT: H2 gives up waiting for a row lock after 1 s by default
        config.setJdbcUrl("jdbc:h2:file:" + folder.resolve("db") + ";LOCK_TIMEOUT=10000");
        config.setMaximumPoolSize(20);
        HikariDataSource pool = new HikariDataSource(config);
        JdbcSessionStore store = JdbcSessionStore.builder(pool).clock(clock).build();
        pools.put(store, pool);
        return store;
    }
}
