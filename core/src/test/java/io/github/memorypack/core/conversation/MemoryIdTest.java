package io.github.memorypack.core.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;

import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryIdTest {

    @Test
    void should_map_to_one_valid_session_id_and_back_when_parts_are_valid() {
        MemoryId id = MemoryId.of("acme", "alice", "support-bot", "2026_11_29");
        assertThat(id.key()).isEqualTo("acme.alice.support-bot.2026_11_29");
        assertThat(SessionIds.isValid(id.key())).isTrue();
        assertThat(MemoryId.parse(id.key())).isEqualTo(id);
    }

    @Test
    void should_reject_parts_that_could_make_two_ids_share_a_key() {
        assertThatThrownBy(() -> MemoryId.of("a.b", "c", "d", "e")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tenant");
        assertThatThrownBy(() -> MemoryId.of("a", "", "d", "e")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemoryId.of("a", "../x", "d", "e")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemoryId.parse("a.b.c")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemoryId.of("a".repeat(60), "b".repeat(60), "c", "d".repeat(10)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_list_only_that_users_sessions_when_listing_sessions_of_a_user() {
        InMemorySessionStore store = InMemorySessionStore.create();
        for (MemoryId id : List.of(MemoryId.of("acme", "alice", "bot", "s1"), MemoryId.of("acme", "alice", "coder", "s2"),
                MemoryId.of("acme", "alicia", "bot", "s1"), MemoryId.of("other", "alice", "bot", "s1"))) {
            store.append(id.key(), List.of(NewEntry.of(UserMessage.from("hi"))));
        }
        store.append("acme.alice.plain", List.of(NewEntry.of(UserMessage.from("hi"))));

        assertThat(MemoryId.sessionsOf(store, "acme", "alice"))
                .containsExactly(MemoryId.of("acme", "alice", "bot", "s1"), MemoryId.of("acme", "alice", "coder", "s2"));
    }
}
