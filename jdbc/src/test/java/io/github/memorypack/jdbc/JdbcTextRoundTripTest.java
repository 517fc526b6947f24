package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
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
 * Any text round-trips exactly through PostgreSQL and H2 — lone surrogates, NUL, CR, every plane — in
 * messages, metadata keys and values, idempotency keys and state, read by a new store instance; and a
 * key is never taken for another.
 */
class JdbcTextRoundTripTest {

    private static String prefix;
    private static HikariDataSource postgres;
    private static HikariDataSource h2;

    @BeforeContainer
    static void open() {
        prefix = TestPostgres.freshPrefix();
        postgres = TestPostgres.pool(2);
        JdbcSessionStore.builder(postgres).tablePrefix(prefix).build().createSchema();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:text-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        h2 = new HikariDataSource(config);
        JdbcSessionStore.builder(h2).tablePrefix(prefix).build().createSchema();
    }

    @AfterContainer
    static void close() {
        TestPostgres.dropTables(postgres, prefix);
        postgres.close();
        h2.close();
    }

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> anyChars = Arbitraries.strings().withCharRange(Character.MIN_VALUE, Character.MAX_VALUE)
                .ofMinLength(1).ofMaxLength(30);
        Arbitrary<String> tricky = Arbitraries.of("\u0000", "\r", "\r\n", "\n", "\uD800", "\uDFFF", "\uDBFF\uDFFF",
                "\uD83D\uDE00", "?", "\\", "\\u0000", "\\uD800", "\"", "'", "%", "_", "\u00fc").list().ofMinSize(1)
                .ofMaxSize(6).map(parts -> String.join("", parts));
        return Arbitraries.oneOf(anyChars, tricky);
    }

    @Property(tries = 100)
    void should_round_trip_any_text_exactly_when_read_by_a_new_store(@ForAll("texts") String text,
                                                                      @ForAll("texts") String other) {
        for (HikariDataSource pool : List.of(postgres, h2)) {
            // given
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            String session = "t-" + UUID.randomUUID();
            String nonBlank = text.isBlank() ? text + "x" : text;
            String key = nonBlank.length() > 256 ? nonBlank.substring(0, 256) : nonBlank;
            List<ChatMessage> messages = List.of(UserMessage.from(nonBlank), AiMessage.from(nonBlank));
            List<NewEntry> batch = List.of(NewEntry.of(messages.get(0), 1, Map.of(text, other)),
                    NewEntry.of(messages.get(1)));

            // when
            List<Entry> stored = store.append(session, batch, key);
            store.compareAndSetState(session, 0, SessionState.EMPTY.withAttributes(Map.of(text, other)));
            List<Entry> second = store.append(session, List.of(NewEntry.of(UserMessage.from("again"))),
                    key.equals(other) || other.isBlank() ? key + "!" : other);

            // then
            JdbcSessionStore reopened = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            assertThat(reopened.read(session, 0, 10)).hasSize(3).startsWith(stored.toArray(Entry[]::new))
                    .endsWith(second.get(0));
            assertThat(reopened.read(session, 0, 1).get(0).metadata()).isEqualTo(Map.of(text, other));
            assertThat(reopened.read(session, 0, 1).get(0).idempotencyKey()).contains(key);
            assertThat(reopened.state(session).attributes()).isEqualTo(Map.of(text, other));
            assertThat(reopened.append(session, List.of(NewEntry.of(UserMessage.from("dup"))), key))
                    .isEqualTo(stored);
            reopened.delete(session);
        }
    }
}
