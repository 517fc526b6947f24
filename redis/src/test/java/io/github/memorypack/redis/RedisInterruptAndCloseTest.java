package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A cancelled request (an interrupted thread), and a store used after {@code close()}. */
class RedisInterruptAndCloseTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void should_keep_working_and_keep_the_flag_when_a_thread_is_interrupted() {
        // given: a store with its own pool of two connections, both in use by other threads at times
        String prefix = TestRedis.freshPrefix();
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix)
                .build()) {
            store.append("s", List.of(NewEntry.of(UserMessage.from("before"))));
            List<String> acknowledged = new ArrayList<>(List.of("before"));

            // when: every operation on an interrupted thread
            for (int i = 0; i < 5; i++) {
                String text = "interrupted-" + i;
                Thread.currentThread().interrupt();
                try {
                    store.append("s", List.of(NewEntry.of(UserMessage.from(text))));
                    acknowledged.add(text);
                } catch (StoreException e) {
                    // allowed; must not be visible
                }
                try {
                    store.read("s", 0, 100);
                    store.readLast("s", 2);
                    store.state("s");
                    store.nextIndex("s");
                    store.sessions();
                } catch (StoreException e) {
                    // allowed
                }
                assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept").isTrue();
                Thread.interrupted();
            }

            // then: the pool still serves other threads and this one, and the log is what was acknowledged
            CompletableFuture.runAsync(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("other")))))
                    .join();
            store.append("s", List.of(NewEntry.of(UserMessage.from("after"))));
            acknowledged.add("other");
            acknowledged.add("after");
            assertThat(texts(store.read("s", 0, 100))).containsExactlyElementsOf(acknowledged);
        }
    }

    @Test
    void should_fail_at_once_with_a_typed_error_when_used_after_close() {
        // given
        RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix(TestRedis.freshPrefix()).retryDuration(Duration.ofSeconds(10)).build();
        store.append("s", List.of(NewEntry.of(UserMessage.from("x"))));
        store.close();

        // when / then: a typed error at once, not a Redis outage retried for 10 s
        long start = System.nanoTime();
        assertThatThrownBy(() -> store.read("s", 0, 10)).isInstanceOf(StoreException.class)
                .isNotInstanceOf(RedisUnavailableException.class);
        assertThatThrownBy(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("y")))))
                .isInstanceOf(StoreException.class).isNotInstanceOf(RedisUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        store.close(); // idempotent
    }

    @Test
    void should_name_the_kind_prefix_and_ttl_when_printed() {
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix("app:chat:").ttl(Duration.ofDays(7)).build()) {
            assertThat(store).hasToString("RedisSessionStore{standalone, prefix='app:chat:', ttl=PT168H}");
        }
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).build()) {
            assertThat(store).hasToString("RedisSessionStore{standalone, prefix='memory-pack:'}");
        }
    }

    private static List<String> texts(List<Entry> entries) {
        return entries.stream().map(e -> ((UserMessage) e.message()).singleText()).toList();
    }
}
