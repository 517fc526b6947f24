package io.github.memorypack.redis;

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
        List<ChatMessage> messages = RareMessages.all();
        List<Entry> stored;
        try (RedisSessionStore store = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix)
                .clock(clock).build()) {
            for (ChatMessage m : messages) {
                store.append("one", List.of(NewEntry.of(m)));
            }
            stored = store.append("batch", messages.stream().map(NewEntry::of).toList(), "key");
            store.compareAndSetState("batch", 0, SessionState.EMPTY.withSystemMessage(
                    dev.langchain4j.data.message.SystemMessage.from(RareMessages.longText())));
        }
        try (RedisSessionStore reopened = RedisSessionStore.builder().uri(TestRedis.standaloneUri())
                .keyPrefix(prefix).build()) {
            assertThat(reopened.getMessages("one")).containsExactlyElementsOf(messages);
            assertThat(reopened.read("batch", 0, 100)).containsExactlyElementsOf(stored);
            assertThat(reopened.readLast("batch", 1).get(0).timestamp()).isEqualTo(clock.instant());
            assertThat(reopened.state("batch").systemMessage().orElseThrow().text()).isEqualTo(RareMessages.longText());
            reopened.delete("one");
            reopened.delete("batch");
        }
    }
}
