package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A primary stalls (SIGSTOP) for longer than the socket timeout while writers append without an
 * idempotency key: Jedis and the store send each timed-out append again, and when the primary
 * wakes up it runs every copy that queued up. Real cluster, real pause; the cluster-node-timeout
 * (10 s) is longer than the pause, so no failover interferes.
 */
@Tag("slow")
class RedisClusterStallTest {

    private static final Duration PAUSE = Duration.ofMillis(1_800);
    private static final Duration SOCKET_TIMEOUT = Duration.ofMillis(500);

    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start(3, 0, Duration.ofSeconds(10));
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void should_store_each_append_once_when_its_primary_stalls_past_the_socket_timeout() throws Exception {
        // given
        RedisProcess primary = cluster.nodes().get(0);
        try (RedisSessionStore store = store(true)) {
            long scriptsBefore = scriptCalls(primary);

            // when
            AppendLoad load = stallDuringAppends(store, primary);

            // then: the primary ran more append scripts than the writers made calls (resends, by Jedis or
            // the store), yet nothing is stored twice and nothing acknowledged is missing
            long scriptsAfter = scriptCalls(primary);
            long resends = scriptsAfter - scriptsBefore - load.acknowledged() - load.errors().size();
            assertThat(resends).isPositive();
            assertThat(load.errors()).isEmpty();
            load.assertEveryAcknowledgedAppendStoredOnceInOrder(store);
            System.out.printf("[stall] %s pause, %s socket timeout: %d appends acknowledged, %d resends run by the"
                    + " primary, slowest call %d ms, %d store retries, 0 duplicates%n", PAUSE, SOCKET_TIMEOUT,
                    load.acknowledged(), resends, load.slowestCall().toMillis(), store.retries());
        }
    }

    @Test
    void should_store_resent_appends_twice_when_writes_carry_no_token() throws Exception {
        // given: the store as it was before write tokens (the control that shows the test can fail)
        RedisProcess primary = cluster.nodes().get(0);
        try (RedisSessionStore store = store(false)) {
            // when
            AppendLoad load = stallDuringAppends(store, primary);

            // then
            List<String> duplicates = load.duplicates(store);
            System.out.printf("[stall] without write tokens: %d appends acknowledged, %d stored twice or more%n",
                    load.acknowledged(), duplicates.size());
            assertThat(duplicates).isNotEmpty();
        }
    }

    /** Scripts the server has run ({@code EVALSHA} and {@code EVAL}), from {@code INFO commandstats}. */
    private static long scriptCalls(RedisProcess node) {
        long calls = 0;
        try (Jedis jedis = TestCluster.jedis(node)) {
            for (String line : jedis.info("commandstats").split("\r\n")) {
                if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                    calls += Long.parseLong(line.replaceAll("^[^:]*:calls=(\\d+),.*", "$1"));
                }
            }
        }
        return calls;
    }

    private static RedisSessionStore store(boolean writeTokens) {
        return RedisSessionStore.builder().clusterNodes(cluster.seeds()).keyPrefix(TestRedis.freshPrefix())
                .socketTimeout(SOCKET_TIMEOUT).connectTimeout(SOCKET_TIMEOUT).retryDuration(Duration.ofSeconds(30))
                .writeTokens(writeTokens).build();
    }

    /** Four writers on sessions of {@code primary}; the primary stalls once they are under way. */
    private static AppendLoad stallDuringAppends(RedisSessionStore store, RedisProcess primary) throws Exception {
        AppendLoad load = new AppendLoad(store, cluster.sessionsOn(primary, 4), 4).start();
        try {
            load.awaitMore(100, Duration.ofSeconds(30));
            primary.pause();
            try {
                LockSupport.parkNanos(PAUSE.toNanos()); // the experiment's input: how long the server is frozen
            } finally {
                primary.resume();
            }
            load.awaitMore(100, Duration.ofSeconds(60));
        } finally {
            load.close();
        }
        return load;
    }
}
