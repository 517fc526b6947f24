package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/** Redis dying and coming back, and keys expiring: real server, real time. */
@Tag("slow")
class RedisFailureTest {

    private static final int BATCHES = 200;

    @Test
    void should_lose_nothing_acknowledged_and_recover_when_redis_is_killed_and_restarted() throws Exception {
        try (RedisProcess redis = RedisProcess.start("--appendonly", "yes", "--appendfsync", "always");
             RedisSessionStore store = RedisSessionStore.builder().uri(redis.uri())
                     .connectTimeout(Duration.ofMillis(300)).socketTimeout(Duration.ofMillis(500))
                     .retryDuration(Duration.ofMillis(200)).build()) {
            // given: a writer appending 2-entry batches, each under its own idempotency key,
            // retrying a failed batch with the same key until it is acknowledged
            CountDownLatch killNow = new CountDownLatch(60);
            CountDownLatch seenErrors = new CountDownLatch(3);
            List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger acknowledged = new AtomicInteger();
            ExecutorService writer = Executors.newSingleThreadExecutor();
            Future<?> run = writer.submit(() -> {
                for (int i = 0; i < BATCHES; i++) {
                    List<NewEntry> batch = List.of(NewEntry.of(UserMessage.from("q" + i)),
                            NewEntry.of(UserMessage.from("a" + i)));
                    while (true) {
                        try {
                            store.append("s", batch, "turn-" + i);
                            acknowledged.incrementAndGet();
                            killNow.countDown();
                            break;
                        } catch (StoreException e) {
                            errors.add(e);
                            seenErrors.countDown();
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // back off, then retry
                        }
                    }
                }
                return null;
            });

            // when
            assertThat(killNow.await(30, TimeUnit.SECONDS)).isTrue();
            redis.kill();
            int acknowledgedBeforeKill = acknowledged.get();
            assertThat(seenErrors.await(30, TimeUnit.SECONDS)).isTrue();
            redis.restart();
            run.get(60, TimeUnit.SECONDS);
            writer.shutdown();

            // then: clear errors, every batch exactly once and whole, in order; writes work again
            assertThat(errors).isNotEmpty().allSatisfy(e -> assertThat(e).isInstanceOf(RedisUnavailableException.class)
                    .hasMessageContaining("Redis append for session 's' gave up after")
                    .hasCauseInstanceOf(JedisException.class));
            assertThat(errors).anySatisfy(e -> assertThat(e).hasCauseInstanceOf(JedisConnectionException.class));
            assertThat(acknowledgedBeforeKill).isGreaterThanOrEqualTo(60);
            List<Entry> log = store.read("s", 0, Integer.MAX_VALUE);
            assertThat(log).hasSize(2 * BATCHES);
            for (int i = 0; i < BATCHES; i++) {
                assertThat(((UserMessage) log.get(2 * i).message()).singleText()).isEqualTo("q" + i);
                assertThat(((UserMessage) log.get(2 * i + 1).message()).singleText()).isEqualTo("a" + i);
                assertThat(log.get(2 * i).idempotencyKey()).contains("turn-" + i);
            }
            assertThat(store.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("ok", "1"))))
                    .isPresent();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "'appendonly no (save \"\")', 0, --appendonly, no",
            "'appendonly yes, appendfsync everysec', 300, --appendfsync, everysec",
            "'appendonly yes, appendfsync always', 300, --appendfsync, always"})
    void should_keep_acknowledged_appends_across_kill_9_exactly_as_the_persistence_settings_promise(
            String settings, int survivors, String option, String value) {
        // given: appends acknowledged one by one (a standalone server, no replica)
        String appendOnly = value.equals("no") ? "no" : "yes";
        try (RedisProcess redis = RedisProcess.start("--appendonly", appendOnly, option, value)) {
            try (RedisSessionStore store = RedisSessionStore.builder().uri(redis.uri()).build()) {
                for (int i = 0; i < 300; i++) {
                    store.append("s", List.of(NewEntry.of(UserMessage.from("m" + i))));
                }
            }

            // when: the process dies at once (the operating system survives: what Redis wrote to the AOF file
            // before replying is in the page cache)
            redis.kill();
            redis.restart();

            // then
            try (RedisSessionStore store = RedisSessionStore.builder().uri(redis.uri()).build()) {
                int kept = store.read("s", 0, Integer.MAX_VALUE).size();
                System.out.printf("[durability] %s: %d of 300 acknowledged appends survived kill -9%n", settings, kept);
                assertThat(kept).isEqualTo(survivors);
            }
        }
    }

    @Test
    void should_expire_the_whole_session_when_its_ttl_passes_without_writes() {
        // given
        String prefix = TestRedis.freshPrefix();
        try (JedisPooled client = TestRedis.standaloneClient();
             RedisSessionStore store = RedisSessionStore.builder().client(client).keyPrefix(prefix)
                     .ttl(Duration.ofSeconds(1)).build()) {
            store.append("short", List.of(NewEntry.of(UserMessage.from("hello"))), "k");
            store.compareAndSetState("short", 0, SessionState.EMPTY.withAttributes(Map.of("a", "b")));
            assertThat(store.sessions()).containsExactly("short");

            // when: real Redis time passes (the server's clock, not ours)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (client.exists(prefix + "{short}:meta") && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }

            // then
            for (String part : List.of("log", "meta", "keys", "state")) {
                assertThat(client.exists(prefix + "{short}:" + part)).as(part).isFalse();
            }
            assertThat(store.read("short", 0, 10)).isEmpty();
            assertThat(store.state("short")).isEqualTo(SessionState.EMPTY);
            assertThat(store.nextIndex("short")).isZero();
            assertThat(store.sessions()).isEmpty();
        }
    }
}
