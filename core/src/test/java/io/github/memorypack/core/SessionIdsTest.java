package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The memory id → session id mapping is a storage format: these outputs must never change. */
class SessionIdsTest {

    record Chat(String tenant, long chat) {
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "user-42|user-42",
            "a.b_c-D9|a.b_c-D9",
            "alice@example.com|~YWxpY2VAZXhhbXBsZS5jb20",
            "tenant:42/chat-7|~dGVuYW50OjQyL2NoYXQtNw",
            "Zoë|~Wm_Dqw",
            "'user 1'|~dXNlciAx",
            "../etc/passwd|~Li4vZXRjL3Bhc3N3ZA",
            "~YWxpY2U|~fllXeHBZMlU",
            "😀|~8J-YgA",
            ".|~Lg",
            "..|~Li4"})
    void should_map_memory_ids_to_fixed_session_ids_when_given_text(String memoryId, String sessionId) {
        assertThat(SessionIds.of(memoryId)).isEqualTo(sessionId);
        SessionIds.validate(sessionId);
        assertThat(SessionIds.memoryId(InMemorySessionStore.create(), sessionId)).isEqualTo(memoryId);
    }

    @Test
    void should_map_long_empty_and_malformed_texts_to_fixed_hashes() {
        assertThat(SessionIds.of("@".repeat(95))).isEqualTo("~" + "QEBA".repeat(31) + "QEA");
        assertThat(SessionIds.of("@".repeat(96))).isEqualTo("~~_PiUexigaAPTR_7K13BrN4Oz36iFBG8HHJ7buh1y0v8");
        assertThat(SessionIds.of("x".repeat(300))).isEqualTo("~~taX95oAhNfWzuGIfURVMis_ondvcO5z1Fg1ifnz0-IU");
        assertThat(SessionIds.of("")).isEqualTo("~~47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
        assertThat(SessionIds.of("\ud800")).isEqualTo("~~bmU10pvnv6wpcdwIU2INc53UOmLEFAnSHTnMubKeIks");
        assertThat(SessionIds.of("\ud800")).as("lone surrogates are kept apart")
                .isNotEqualTo(SessionIds.of("\udc00")).isNotEqualTo(SessionIds.of("\ufffd".repeat(96)));
        assertThat(SessionIds.of("a".repeat(128))).isEqualTo("a".repeat(128));
        assertThat(SessionIds.of("a".repeat(129))).startsWith("~");
    }

    @Test
    void should_reject_negative_read_arguments_with_one_message_when_a_store_checks_them() {
        assertThatThrownBy(() -> SessionIds.checkReadRange(-1, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("fromIndex must be >= 0, was -1");
        assertThatThrownBy(() -> SessionIds.checkReadRange(0, -2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxCount must be >= 0, was -2");
        assertThatThrownBy(() -> SessionIds.checkReadCount(-3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("count must be >= 0, was -3");
        SessionIds.checkReadRange(0, 0);
        SessionIds.checkReadRange(Long.MAX_VALUE, Integer.MAX_VALUE);
        SessionIds.checkReadCount(0);
    }

    @Test
    void should_map_objects_by_their_text_when_not_strings() {
        assertThat(SessionIds.of(42L)).isEqualTo("42").isEqualTo(SessionIds.of("42"));
        assertThat(SessionIds.of(new Chat("t1", 7))).isEqualTo(SessionIds.of("Chat[tenant=t1, chat=7]"));
    }

    @Test
    void should_reject_null_memory_ids_and_foreign_session_ids_before_any_io() {
        assertThatThrownBy(() -> SessionIds.of(null)).isInstanceOf(IllegalArgumentException.class);
        for (String bad : List.of("", ".", "..", "a/b", "a b", "~", "~~", "~a+b", "~~a=", "~" + "A".repeat(128), "x".repeat(129))) {
            assertThatThrownBy(() -> SessionIds.validate(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void should_give_a_hashed_memory_id_back_when_a_memory_or_langchain4j_store_wrote_it() {
        InMemorySessionStore store = InMemorySessionStore.create();
        String longId = "tenant-with-a-very-long-name/".repeat(10);

        MemoryOptions.builder().chatMemoryStore(store).build().memory(TestStrategies.BUFFER, longId).add(UserMessage.from("hi"));
        store.updateMessages(longId + "2", List.of(UserMessage.from("hello")));

        assertThat(store.sessions()).hasSize(2).allMatch(id -> id.startsWith("~~"));
        assertThat(store.sessions().stream().map(id -> SessionIds.memoryId(store, id)))
                .containsExactlyInAnyOrder(longId, longId + "2");
        assertThat(store.state(SessionIds.of(longId)).attributes()).containsKey(SessionIds.MEMORY_ID_ATTRIBUTE);
    }

    @Property(tries = 300)
    void should_never_map_two_texts_to_one_session_id(@ForAll String a, @ForAll String b) {
        if (!a.equals(b)) {
            assertThat(SessionIds.of(a)).isNotEqualTo(SessionIds.of(b));
        }
        SessionIds.validate(SessionIds.of(a));
        assertThat(Map.of(SessionIds.of(a), 1)).isNotEmpty();
    }
}
