package io.github.memorypack.redis;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.time.Clock;

/**
 * The shared store contract on Redis; subclasses say where Redis is. {@link #reopen} closes the
 * store and its client and builds a new one over the same keys, as after an application restart.
 * The assertions are inherited from the contract.
 */
abstract class RedisSessionStoreContractTest extends SessionStoreContract {

    private final String prefix = TestRedis.freshPrefix();

    /** The builder pointed at the server under test. */
    abstract RedisSessionStore.Builder connect(RedisSessionStore.Builder builder);

    @Override
    protected SessionStore createStore(Clock clock) {
        return connect(RedisSessionStore.builder()).keyPrefix(prefix).clock(clock).build();
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        ((RedisSessionStore) store).close();
        return createStore(clock());
    }

    // RedisConcurrencyTest does the full two instances x 8 threads x 250; keep these quick.
    @Override
    protected int concurrentWriters() {
        return 8;
    }

    @Override
    protected int appendsPerWriter() {
        return 250;
    }
}
