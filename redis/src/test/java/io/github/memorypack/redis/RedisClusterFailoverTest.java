package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * A primary is SIGKILLed and its replica takes over. Replication is asynchronous, so without
 * {@code WAIT} an acknowledged append the replica had not received yet is lost; with
 * {@code waitForReplicas(1, …)} the store acknowledges only what a replica has. Real cluster of 3
 * primaries and 3 replicas, {@code cluster-node-timeout} 2 s; each test fails over a different one of
 * the original primaries and leaves the cluster with 3 primaries and 3 replicas again.
 */
@Tag("slow")
class RedisClusterFailoverTest {

    private static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);

    private static TestCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start(3, 1, NODE_TIMEOUT);
        cluster.awaitReplicasKnownEverywhere();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Test
    void should_lose_no_acknowledged_append_when_a_primary_is_killed_during_appends_with_wait_for_one_replica()
            throws Exception {
        {
            RedisProcess doomed = cluster.nodes().get(0);
            List<String> sessions = new ArrayList<>(cluster.sessionsOn(doomed, 3));
            sessions.add(cluster.sessionsOn(cluster.nodes().get(2), 1).get(0)); // a writer on a healthy primary
            String prefix = TestRedis.freshPrefix();
            try (RedisSessionStore store = RedisSessionStore.builder().clusterNodes(cluster.seeds()).keyPrefix(prefix)
                    .socketTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500))
                    .waitForReplicas(1, Duration.ofMillis(500)).retryDuration(Duration.ofSeconds(40)).build()) {
                // given
                AppendLoad load = new AppendLoad(store, sessions, sessions.size()).start();
                long killedAt;
                long failedOverAt;
                long restartedAt;
                try {
                    load.awaitMore(200, Duration.ofSeconds(30));

                    // when: the primary dies; its replica takes over; the old primary comes back as a replica
                    doomed.kill();
                    killedAt = System.nanoTime();
                    cluster.awaitFailoverOf(doomed);
                    failedOverAt = System.nanoTime();
                    // until a replica is back, WAIT 1 cannot succeed for the moved slots. (Restarted before the
                    // failover, this primary without persistence would come back empty, as the primary, and wipe
                    // its replica: see the README.)
                    doomed.restart();
                    restartedAt = System.nanoTime();
                    load.awaitMore(200, Duration.ofSeconds(60));
                } finally {
                    load.close();
                }

                // then: no caller saw an error, and every acknowledged append is there exactly once
                System.out.printf("[failover] WAIT 1: primary killed, replica serving after %d ms, old primary"
                                + " restarted after %d ms; %d appends acknowledged, slowest call %d ms, %d store retries,"
                                + " %d errors%n", (failedOverAt - killedAt) / 1_000_000,
                        (restartedAt - killedAt) / 1_000_000, load.acknowledged(), load.slowestCall().toMillis(),
                        store.retries(), load.errors().size());
                assertThat(load.errors()).isEmpty();
                try (RedisSessionStore reader = RedisSessionStore.builder().clusterNodes(cluster.seeds())
                        .keyPrefix(prefix).build()) {
                    load.assertEveryAcknowledgedAppendStoredOnceInOrder(reader);
                }
            }
        }
    }

    @Test
    void should_lose_appends_acknowledged_without_wait_and_refuse_to_acknowledge_them_with_it_when_the_replica_lags()
            throws Exception {
        {
            RedisProcess primary = cluster.nodes().get(1);
            RedisProcess replica = cluster.replicaOf(primary);
            String session = cluster.sessionsOn(primary, 1).get(0);
            String prefix = TestRedis.freshPrefix();
            try (RedisSessionStore plain = RedisSessionStore.builder().clusterNodes(cluster.seeds()).keyPrefix(prefix)
                         .build();
                 RedisSessionStore waiting = RedisSessionStore.builder().clusterNodes(cluster.seeds())
                         .keyPrefix(prefix).waitForReplicas(1, Duration.ofMillis(200))
                         .retryDuration(Duration.ofSeconds(1)).build()) {
                // given: appends the replica has
                List<String> replicated = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    waiting.append(session, List.of(NewEntry.of(UserMessage.from("replicated " + i))));
                    replicated.add("replicated " + i);
                }

                // when: the replica stops receiving (frozen, its replication link cut), appends go on, and the
                // primary dies before the replica could catch up
                replica.pause();
                try (Jedis jedis = TestCluster.jedis(primary)) {
                    jedis.sendCommand(Protocol.Command.CLIENT, "KILL", "TYPE", "replica");
                }
                for (int i = 0; i < 5; i++) {
                    plain.append(session, List.of(NewEntry.of(UserMessage.from("acknowledged without WAIT " + i))));
                }
                long refusing = System.nanoTime();
                assertThatThrownBy(() -> waiting.append(session,
                        List.of(NewEntry.of(UserMessage.from("refused with WAIT")))))
                        .isInstanceOf(RedisUnavailableException.class).hasMessageContaining("0 of 1 replicas");
                long refusedAfter = (System.nanoTime() - refusing) / 1_000_000;
                primary.kill();
                replica.resume();
                cluster.awaitFailoverOf(primary);
                primary.restart(); // back as a replica of the new primary

                // then: the replica, now primary, has what WAIT confirmed; the 5 appends acknowledged without
                // WAIT are gone; the one WAIT could not confirm was never acknowledged
                try (RedisSessionStore reader = RedisSessionStore.builder().clusterNodes(cluster.seeds())
                        .keyPrefix(prefix).build()) {
                    List<String> survived = AppendLoad.texts(reader.read(session, 0, Integer.MAX_VALUE));
                    System.out.printf("[failover] replica lagging: without WAIT 5 of 5 acknowledged appends lost;"
                            + " with WAIT 1 the append was refused after %d ms; %d of %d confirmed appends survived%n",
                            refusedAfter, survived.size(), replicated.size());
                    assertThat(survived).containsExactlyElementsOf(replicated);
                }
            }
        }
    }

    @Test
    void should_lose_only_appends_acknowledged_before_the_crash_and_store_none_twice_when_failing_over_without_wait()
            throws Exception {
        // given
        RedisProcess doomed = cluster.nodes().get(2);
        List<String> sessions = cluster.sessionsOn(doomed, 3);
        String prefix = TestRedis.freshPrefix();
        try (RedisSessionStore store = RedisSessionStore.builder().clusterNodes(cluster.seeds()).keyPrefix(prefix)
                .socketTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500))
                .retryDuration(Duration.ofSeconds(40)).build()) {
            AppendLoad load = new AppendLoad(store, sessions, sessions.size()).start();
            Map<String, List<String>> acknowledgedBeforeCrash = new HashMap<>();
            try {
                load.awaitMore(200, Duration.ofSeconds(30));

                // when
                doomed.kill();
                for (String session : sessions) {
                    acknowledgedBeforeCrash.put(session, load.acknowledgedIn(session));
                }
                cluster.awaitFailoverOf(doomed);
                doomed.restart();
                load.awaitMore(200, Duration.ofSeconds(60));
            } finally {
                load.close();
            }

            // then: what is lost was acknowledged before the crash; nothing is stored twice; no caller error
            try (RedisSessionStore reader = RedisSessionStore.builder().clusterNodes(cluster.seeds())
                    .keyPrefix(prefix).build()) {
                int lost = 0;
                for (String session : sessions) {
                    List<String> missing = new ArrayList<>(load.acknowledgedIn(session));
                    missing.removeAll(AppendLoad.texts(reader.read(session, 0, Integer.MAX_VALUE)));
                    assertThat(acknowledgedBeforeCrash.get(session)).containsAll(missing);
                    lost += missing.size();
                }
                System.out.printf("[failover] without WAIT: %d appends acknowledged, %d of them lost (all acknowledged"
                        + " before the crash), 0 stored twice, %d errors%n", load.acknowledged(), lost,
                        load.errors().size());
                assertThat(load.duplicates(reader)).isEmpty();
                assertThat(load.errors()).isEmpty();
            }
        }
    }
}
