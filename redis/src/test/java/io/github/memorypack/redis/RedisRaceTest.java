package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.testkit.SessionStoreContract;
import org.junit.jupiter.api.Test;

/** The races of {@link SessionStoreContract} on the standalone Redis. */
class RedisRaceTest {

    @Test
    void should_count_exactly_and_keep_each_writer_order_when_threads_append_to_many_sessions() throws Exception {
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix(TestRedis.freshPrefix()).build()) {
            assertThat(SessionStoreContract.manySessions(store, 8, 20, 10)).hasSize(20)
                    .allSatisfy(log -> assertThat(log).hasSize(8 * 10));
        }
    }

    @Test
    void should_keep_reads_whole_and_ordered_when_deletes_replaces_and_trims_race_appends() throws Exception {
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix(TestRedis.freshPrefix()).build()) {
            assertThat(SessionStoreContract.deletesRacingAppends(store, 4, 150))
                    .hasSize(4 * 150);
        }
    }

    @Test
    void should_store_each_key_once_when_threads_of_several_store_instances_race_with_the_same_keys()
            throws Exception {
        String prefix = TestRedis.freshPrefix();
        try (RedisSessionStore a = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build();
             RedisSessionStore b = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build()) {
            assertThat(SessionStoreContract.sameKeysRacing(java.util.List.of(a, b), 4, 100))
                    .extracting(e -> e.idempotencyKey().orElseThrow()).hasSize(100).doesNotHaveDuplicates();
        }
    }
}
