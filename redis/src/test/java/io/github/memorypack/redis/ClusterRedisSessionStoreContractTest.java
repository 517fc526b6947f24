package io.github.memorypack.redis;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.SessionStoreContract;
import java.time.Clock;
import java.util.Set;

/** The shared store contract on a single-node Redis Cluster, through a builder-made JedisCluster. */
class ClusterRedisSessionStoreContractTest extends SessionStoreContract {

    private final String prefix = TestRedis.freshPrefix();

    @Override
    protected SessionStore createStore(Clock clock) {
        return RedisSessionStore.builder().clusterNodes(Set.of(TestRedis.clusterNode())).keyPrefix(prefix)
                .clock(clock).build();
    }

    @Override
    protected SessionStore reopen(SessionStore store) {
        ((RedisSessionStore) store).close();
        return createStore(clock());
    }

    @Override
    protected int concurrentWriters() {
        return 8;
    }

    @Override
    protected int appendsPerWriter() {
        return 250;
    }
}
