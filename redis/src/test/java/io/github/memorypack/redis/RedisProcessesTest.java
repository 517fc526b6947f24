package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * How a Redis store tells whether the process (store instance) that started an open turn has ended:
 * a key {@code <prefix>process:<id>} with a TTL that a daemon thread of the live store keeps alive. A key
 * that is gone means the process ended, and it stays ended: the owner never brings an expired key back, it
 * takes a new id. Short TTLs here, so that expiry takes a second or two.
 */
class RedisProcessesTest {

    private static final Duration TTL = Duration.ofMillis(1_200);

    private final String prefix = TestRedis.freshPrefix();
    private final JedisPooled client = TestRedis.standaloneClient();
    private final List<RedisSessionStore> stores = new ArrayList<>();

    @AfterEach
    void closeAll() {
        stores.forEach(RedisSessionStore::close);
        client.close();
    }

    private RedisSessionStore store() {
        RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix)
                .processTimeToLive(TTL).build();
        stores.add(store);
        return store;
    }

    private String key(String id) {
        return prefix + "process:" + id;
    }

    private static void await(BooleanSupplier condition, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition met in time").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static Set<Thread> refreshers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("memory-pack-process-lease") && t.isAlive()).collect(Collectors.toSet());
    }

    /** The refresher thread that {@code start} starts (it asks a store for its id). */
    private static Thread refresherStartedBy(Runnable start) {
        Set<Thread> before = refreshers();
        start.run();
        Set<Thread> started = new HashSet<>(refreshers());
        started.removeAll(before);
        assertThat(started).hasSize(1);
        return started.iterator().next();
    }

    @Test
    void should_keep_the_process_key_alive_while_the_store_runs() throws InterruptedException {
        // given
        RedisSessionStore store = store();
        RedisSessionStore other = store();

        // when
        String id = store.processId();

        // then: a key with the TTL, kept alive well past it
        assertThat(id).matches("[0-9a-f]{16}");
        assertThat(client.pttl(key(id))).isBetween(1L, TTL.toMillis());
        Thread.sleep(TTL.toMillis() * 3);
        assertThat(client.exists(key(id))).isTrue();
        assertThat(store.processId()).isEqualTo(id);
        assertThat(other.processEnded(id)).isFalse();
        assertThat(store.processEnded(id)).isFalse();
        // another instance has an id of its own
        assertThat(other.processId()).isNotNull().isNotEqualTo(id);
        // and the keys are no sessions
        assertThat(store.sessions()).isEmpty();
    }

    @Test
    void should_report_a_process_whose_key_is_gone_as_ended_and_keep_it_ended() throws InterruptedException {
        // given: a live process, seen by another
        RedisSessionStore owner = store();
        RedisSessionStore other = store();
        String id = owner.processId();
        assertThat(other.processEnded(id)).isFalse();

        // when: its key is gone (as after a pause longer than the TTL)
        client.del(key(id));

        // then: it has ended
        assertThat(other.processEnded(id)).isTrue();
        // and the owner never brings that key back: it takes a new id for the turns it starts from now on
        await(() -> !id.equals(owner.processId()), TTL.multipliedBy(3));
        String next = owner.processId();
        assertThat(next).matches("[0-9a-f]{16}");
        assertThat(client.exists(key(next))).isTrue();
        Thread.sleep(TTL.toMillis());
        assertThat(client.exists(key(id))).isFalse();
        assertThat(other.processEnded(id)).isTrue();
        assertThat(owner.processEnded(id)).isTrue();
        assertThat(other.processEnded(next)).isFalse();
        assertThat(owner.processId()).isEqualTo(next);
        // and once ended it stays ended, even if a key of that name came back (a failover to a stale replica)
        client.set(key(id), "alive");
        assertThat(other.processEnded(id)).isTrue();
    }

    @Test
    void should_stop_keeping_the_key_alive_when_closed() throws InterruptedException {
        // given
        RedisSessionStore store = store();
        RedisSessionStore other = store();
        String[] id = new String[1];
        Thread refresher = refresherStartedBy(() -> id[0] = store.processId());

        // when
        store.close();

        // then: the refresher has stopped, the key expires, and the closed store starts no turn under an id
        refresher.join(5_000);
        assertThat(refresher.isAlive()).isFalse();
        assertThat(store.processId()).isNull();
        await(() -> other.processEnded(id[0]), TTL.multipliedBy(3));
        assertThat(client.exists(key(id[0]))).isFalse();
    }

    @Test
    void should_stop_the_refresher_of_a_store_the_application_dropped() throws InterruptedException {
        // given: a store that was asked for its id, with its refresher thread
        RedisSessionStore other = store();
        assertThat(other.processId()).isNotNull();
        AtomicReference<RedisSessionStore> held = new AtomicReference<>(RedisSessionStore.builder().client(client)
                .keyPrefix(prefix).processTimeToLive(TTL).build());
        String[] id = new String[1];
        Thread refresher = refresherStartedBy(() -> id[0] = held.get().processId());

        // when: the application drops it without close()
        held.set(null);

        // then: once collected, nothing keeps its key alive, and its thread has ended
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!other.processEnded(id[0])) {
            assertThat(System.nanoTime()).as("the dropped store's key expired").isLessThan(deadline);
            System.gc();
            Thread.sleep(50);
        }
        refresher.join(5_000);
        assertThat(refresher.isAlive()).isFalse();
        assertThat(client.exists(key(id[0]))).isFalse();
        assertThat(other.processEnded(other.processId())).isFalse();
    }

    @Test
    void should_not_report_ended_what_it_cannot_tell() {
        // given
        RedisSessionStore store = store();

        // then: ids that no store makes name no ended process, and create no key
        for (String bad : List.of("", "../x", "*", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0",
                "{0123456789abcde}")) {
            assertThat(store.processEnded(bad)).as(bad).isFalse();
        }
        assertThat(client.keys(RedisKeys.escapeGlob(prefix) + "*")).isEmpty();

        // and a server that cannot be reached cannot tell: no id, nothing ended, nothing thrown
        try (RedisSessionStore down = RedisSessionStore.builder().host("127.0.0.1").port(1).retryAttempts(1)
                .connectTimeout(Duration.ofMillis(200)).processTimeToLive(TTL).build()) {
            assertThat(down.processEnded("0123456789abcdef")).isFalse();
            assertThat(down.processId()).isNull();
            assertThat(down.processId()).isNull();
        }
    }

    @Test
    void should_keep_process_keys_out_of_the_sessions_and_out_of_a_session_s_delete() {
        // given: a session, a live process
        RedisSessionStore store = store();
        store.append("s", List.of(NewEntry.of(UserMessage.from("q"))));
        String id = store.processId();

        // when
        store.delete("s");

        // then
        assertThat(store.sessions()).isEmpty();
        assertThat(client.exists(key(id))).isTrue();
    }

    @Test
    void should_mark_the_process_on_a_cluster_with_replicas_acknowledging_the_key() throws InterruptedException {
        // given: a cluster store that waits for a replica after every write, under a prefix with a hash tag
        String tagged = "mp-test:{" + java.util.UUID.randomUUID() + "}:";
        try (JedisCluster cluster = TestRedis.clusterClient();
             RedisSessionStore store = RedisSessionStore.builder().client(cluster).keyPrefix(tagged)
                     .waitForReplicas(1, Duration.ofSeconds(2)).processTimeToLive(TTL).build();
             RedisSessionStore other = RedisSessionStore.builder().client(cluster).keyPrefix(tagged)
                     .processTimeToLive(TTL).build()) {
            store.append("s", List.of(NewEntry.of(UserMessage.from("q"))));

            // when
            String id = store.processId();

            // then: its key is on the prefix's slot, kept alive, no session
            assertThat(id).matches("[0-9a-f]{16}");
            String key = tagged + "process:" + id;
            assertThat(JedisClusterCRC16.getSlot(key)).isEqualTo(JedisClusterCRC16.getSlot(tagged + "{s}:meta"));
            Thread.sleep(TTL.toMillis() * 2);
            assertThat(cluster.exists(key)).isTrue();
            assertThat(other.processEnded(id)).isFalse();
            assertThat(other.sessions()).containsExactly("s");
            cluster.del(key);
            assertThat(other.processEnded(id)).isTrue();
            store.delete("s");
        }
    }

    @Test
    void should_refuse_a_process_ttl_that_is_too_short() {
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(999), Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> RedisSessionStore.builder().processTimeToLive(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
