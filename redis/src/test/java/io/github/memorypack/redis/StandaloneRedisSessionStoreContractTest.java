package io.github.memorypack.redis;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.time.Clock;

/** The shared store contract on a standalone server; {@link #reopen} is a new client and store. */
class StandaloneRedisSessionStoreContractTest extends SessionStoreContract {

    private final String prefix = TestRedis.freshPrefix();

    @Override
    protected SessionStore createStore(Clock clock) {
        return RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).clock(clock).build();
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        ((RedisSessionStore) store).close();
        return createStore(clock());
    }

    // The two-instance test (RedisConcurrencyTest) does the full 2 x 8 x 250; keep this one quick.
    @Override
    protected int concurrentWriters() {
        return 8;
    }

    @Override
    protected int appendsPerWriter() {
        return 250;
    }
}
