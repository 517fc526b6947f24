package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Any text round-trips exactly through Redis — lone surrogates, NUL, CR, characters of every plane,
 * lines that look like record heads — in messages, metadata and state, read by the same store and by
 * a new one (as after a restart).
 */
class RedisTextRoundTripTest {

    private static String prefix;
    private static RedisSessionStore store;

    @BeforeContainer
    static void open() {
        prefix = TestRedis.freshPrefix();
        store = open(prefix);
    }

    @AfterContainer
    static void close() {
        store.close();
    }

    private static RedisSessionStore open(String keyPrefix) {
        return RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(keyPrefix).build();
    }

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> anyChars = Arbitraries.strings().withCharRange(Character.MIN_VALUE, Character.MAX_VALUE)
                .ofMaxLength(30);
        Arbitrary<String> anyCodePoints = Arbitraries.integers().between(0, Character.MAX_CODE_POINT).list()
                .ofMaxSize(15).map(cps -> new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
        Arbitrary<String> tricky = Arbitraries.of("\u0000", "\r", "\r\n", "\n", "\uD800", "\uDFFF", "\uDBFF\uDFFF",
                "\uD83D\uDE00", "{\"index\":0,\"crc\":\"00000000\",\"id\":\"x\"}", "\"", "\\", "\\u0000", "### user",
                "<!-- entry -->").list().ofMaxSize(6).map(parts -> String.join("", parts));
        return Arbitraries.oneOf(anyChars, anyCodePoints, tricky);
    }

    @Property(tries = 150)
    void should_round_trip_any_text_exactly_when_stored_read_and_read_again_after_reopening(
            @ForAll("texts") String text) {
        // given
        String session = "t-" + UUID.randomUUID();
        String nonBlank = text.isBlank() ? text + "x" : text;
        List<ChatMessage> messages = List.of(UserMessage.from(nonBlank), AiMessage.from(nonBlank));
        List<NewEntry> batch = List.of(NewEntry.of(messages.get(0), 1, Map.of("k", text)),
                NewEntry.of(messages.get(1)));
        SessionState state = SessionState.EMPTY.withAttributes(Map.of("a", text));

        // when
        List<Entry> stored = store.append(session, batch);
        store.compareAndSetState(session, 0, state);

        // then
        assertThat(store.read(session, 0, 10)).isEqualTo(stored);
        assertThat(stored.get(0).metadata()).containsEntry("k", text);
        assertThat(store.getMessages(session)).isEqualTo(messages);
        try (RedisSessionStore reopened = open(prefix)) {
            assertThat(reopened.read(session, 0, 10)).isEqualTo(stored);
            assertThat(reopened.readLast(session, 1)).containsExactly(stored.get(1));
            assertThat(reopened.state(session).attributes()).containsEntry("a", text);
            reopened.delete(session);
        }
    }
}
