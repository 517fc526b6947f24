package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Slots move between primaries ({@code CLUSTER SETSLOT … IMPORTING/MIGRATING}, {@code MIGRATE} key by
 * key, {@code SETSLOT … NODE}) while writers append (with and without {@code WAIT}) and readers read
 * and compare-and-set, on a cluster of 3 primaries with a replica each. While a
 * session's slot migrates, every script naming its keys gets {@code TRYAGAIN} (some of its keys are
 * on each side); the store retries those within its budget. Real cluster, real migration.
 */
@Tag("slow")
class RedisClusterReshardTest {

    private static final int ROUNDS = 3;
    private static final Duration KEY_PAUSE = Duration.ofMillis(25);

    @Test
    void should_answer_every_call_and_keep_every_append_once_when_slots_migrate_during_appends_and_reads()
            throws Exception {
        try (TestCluster cluster = TestCluster.start(3, 1, Duration.ofSeconds(5))) {
            // given: writers through Jedis' cluster routing, and writers through the store's own routing (with
            // WAIT, a write and its WAIT go to the slot's primary on one connection, following MOVED and ASK)
            String prefix = TestRedis.freshPrefix();
            RedisProcess home = cluster.nodes().get(0);
            List<String> sessions = cluster.sessionsOn(home, 4);
            try (RedisSessionStore store = RedisSessionStore.builder().clusterNodes(cluster.seeds()).keyPrefix(prefix)
                         .retryDuration(Duration.ofSeconds(30)).build();
                 RedisSessionStore waiting = RedisSessionStore.builder().clusterNodes(cluster.seeds()).keyPrefix(prefix)
                         .retryDuration(Duration.ofSeconds(30)).waitForReplicas(1, Duration.ofSeconds(1)).build();
                 RedisSessionStore noRetries = RedisSessionStore.builder().clusterNodes(cluster.seeds())
                         .keyPrefix(prefix).retryAttempts(1).build()) {
                AppendLoad load = new AppendLoad(store, sessions.subList(0, 2), 2).start();
                AppendLoad loadWaiting = new AppendLoad(waiting, sessions.subList(2, 4), 2).start();
                Readers readers = new Readers(store, noRetries, sessions).start();
                int migrations = 0;
                try {
                    load.awaitMore(100, Duration.ofSeconds(30));

                    // when: each session's slot moves to the next primary, round after round
                    for (int round = 0; round < ROUNDS; round++) {
                        for (String session : sessions) {
                            int slot = JedisClusterCRC16.getSlot(session);
                            RedisProcess from = cluster.primaryOfSlot(slot);
                            RedisProcess to = cluster.nodes().get((cluster.nodes().indexOf(from) + 1) % 3);
                            // a pause after each key keeps the slot half-moved long enough for every kind of call
                            // to run into it, as a big slot does
                            cluster.migrate(slot, to, () -> LockSupport.parkNanos(KEY_PAUSE.toNanos()));
                            migrations++;
                        }
                        load.awaitMore(50, Duration.ofSeconds(30));
                    }
                } finally {
                    load.close();
                    loadWaiting.close();
                    readers.close();
                }

                // then: nobody saw an error, though calls without retries did (the migrations really
                // got in the way), and the log and the state are exact
                System.out.printf("[reshard] %d slot migrations: %d + %d (with WAIT) appends, %d reads, %d"
                                + " compare-and-sets answered, %d + %d store retries; %d failures of calls without"
                                + " retries%n", migrations, load.acknowledged(), loadWaiting.acknowledged(),
                        readers.reads.get(), readers.increments.get(), store.retries(), waiting.retries(),
                        readers.unretriedFailures.get());
                assertThat(load.errors()).isEmpty();
                assertThat(loadWaiting.errors()).isEmpty();
                assertThat(readers.errors).isEmpty();
                assertThat(readers.unretriedFailures.get()).isPositive();
                assertThat(store.retries()).isPositive();
                load.assertEveryAcknowledgedAppendStoredOnceInOrder(store);
                loadWaiting.assertEveryAcknowledgedAppendStoredOnceInOrder(store);
                assertThat(waiting.retries()).isPositive();
                int counted = 0;
                for (String session : sessions) {
                    counted += Integer.parseInt(store.state(session).attributes().getOrDefault("counter", "0"));
                }
                assertThat(counted).isEqualTo(readers.increments.get());
            }
        }
    }

    /**
     * One thread reading every session (range, tail, next index, state) and incrementing a counter
     * in its state by compare-and-set, through the retrying store; another making the same reads
     * through a store that never retries, counting its failures.
     */
    private static final class Readers implements AutoCloseable {

        final AtomicInteger reads = new AtomicInteger();
        final AtomicInteger increments = new AtomicInteger();
        final AtomicInteger unretriedFailures = new AtomicInteger();
        final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        private final AtomicBoolean stop = new AtomicBoolean();
        private final List<Thread> threads;

        Readers(RedisSessionStore store, RedisSessionStore noRetries, List<String> sessions) {
            threads = List.of(new Thread(() -> {
                while (!stop.get()) {
                    for (String session : sessions) {
                        try {
                            readAll(store, session);
                            reads.incrementAndGet();
                            SessionState state = store.state(session);
                            int counter = Integer.parseInt(state.attributes().getOrDefault("counter", "0"));
                            if (store.compareAndSetState(session, state.version(),
                                    state.withAttributes(Map.of("counter", Integer.toString(counter + 1)))).isPresent()) {
                                increments.incrementAndGet();
                            }
                        } catch (RuntimeException e) {
                            errors.add(e);
                        }
                    }
                }
            }, "reader"), new Thread(() -> {
                while (!stop.get()) {
                    for (String session : sessions) {
                        try {
                            readAll(noRetries, session);
                        } catch (StoreException e) {
                            unretriedFailures.incrementAndGet();
                        }
                    }
                }
            }, "reader-without-retries"));
        }

        private static void readAll(RedisSessionStore store, String session) {
            store.read(session, 0, 10);
            store.readLast(session, 5);
            store.nextIndex(session);
        }

        Readers start() {
            threads.forEach(Thread::start);
            return this;
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            for (Thread thread : threads) {
                thread.join(60_000);
            }
        }
    }
}
