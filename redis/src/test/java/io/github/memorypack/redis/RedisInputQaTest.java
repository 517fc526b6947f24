package io.github.memorypack.redis;

import io.github.memorypack.testkit.SampleMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.testkit.MutableClock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/** Bad input touches no key; every message kind (and a 2-million-character one) round-trips exactly. */
class RedisInputQaTest {

    @Test
    void should_reject_bad_arguments_and_create_no_key_when_they_are_invalid() {
        String prefix = TestRedis.freshPrefix();
        try (JedisPooled jedis = TestRedis.standaloneClient();
             RedisSessionStore store = RedisSessionStore.builder().client(jedis).keyPrefix(prefix).build()) {
            List<NewEntry> withNull = Arrays.asList(NewEntry.of(UserMessage.from("a")), null);

            assertThatThrownBy(() -> store.read("s", -1, 1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.read("s", 0, -1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.readLast("s", -1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.append("s", withNull)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> store.append("s", null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("a"))), "k".repeat(257)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.compareAndSetState("s", 0, null)).isInstanceOf(NullPointerException.class);
            assertThatThrownBy(() -> store.replace("s", withNull)).isInstanceOf(NullPointerException.class);

            Set<String> keys = jedis.keys(prefix + "*");
            assertThat(keys).isEmpty();
            assertThat(store.sessions()).isEmpty();
        }
    }

    @Test
    void should_round_trip_every_rare_message_exactly_when_read_by_a_new_store() {
        String prefix = TestRedis.freshPrefix();
        MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T14:00:00.123456789Z"));
        List<ChatMessage> messages = SampleMessages.rare();
        List<Entry> stored;
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix)
                .clock(clock).build()) {
            for (ChatMessage m : messages) {
                store.append("one", List.of(NewEntry.of(m)));
            }
            stored = store.append("batch", messages.stream().map(NewEntry::of).toList(), "key");
            store.compareAndSetState("batch", 0, SessionState.EMPTY.withSystemMessage(
                    dev.langchain4j.data.message.SystemMessage.from(SampleMessages.longText())));
        }
        try (RedisSessionStore reopened = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix(prefix).build()) {
            assertThat(reopened.read("one", 0, 100)).extracting(Entry::message).containsExactlyElementsOf(messages);
            assertThat(reopened.read("batch", 0, 100)).containsExactlyElementsOf(stored);
            assertThat(reopened.readLast("batch", 1).get(0).timestamp()).isEqualTo(clock.instant());
            assertThat(reopened.state("batch").systemMessage().orElseThrow().text()).isEqualTo(SampleMessages.longText());
            reopened.delete("one");
            reopened.delete("batch");
        }
    }

    @Test
    void should_store_nothing_and_return_the_kept_entries_when_a_key_is_retried_after_a_trim_cut_its_batch() {
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix(TestRedis.freshPrefix()).build()) {
            // given: a batch of three under a key, whose first entry a retention trim removed
            store.append("s", List.of(NewEntry.of(UserMessage.from("older"))));
            List<Entry> batch = store.append("s", List.of(NewEntry.of(UserMessage.from("q")),
                    NewEntry.of(UserMessage.from("a1")), NewEntry.of(UserMessage.from("a2"))), "request-1");
            store.trim("s", 2);

            // when: the request is retried with its key
            List<Entry> again = store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1");

            // then: the session still holds entries of that key: nothing stored, those returned
            assertThat(again).containsExactlyElementsOf(batch.subList(1, 3));
            assertThat(store.read("s", 0, 10)).containsExactlyElementsOf(batch.subList(1, 3));
            assertThat(store.nextIndex("s")).isEqualTo(4);
            store.trim("s", 4);
            assertThat(store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1"))
                    .extracting(Entry::index).containsExactly(4L);
        }
    }
}
