package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Idempotency keys are any non-blank text of up to 256 characters: two different keys are two
 * different appends, on every store, lone surrogates and escapes included; metadata keys round-trip.
 */
class JdbcIdempotencyKeyTextTest {

    /** Keys that differ only where a lossy encoding (lone surrogates to '?', escapes) would merge them. */
    static final List<String> AWKWARD_KEYS = List.of("k", "k?", "k\uD800", "k\uDBFF", "k\uDC00", "k\uD800\uD800",
            "k\u0000", "k\\u0000", "k\\", "k\\\\", "k\n", "k\r\n", "k\uD83D\uDE00", "k\u00fc", "k\"", "k:1", "k{x}");

    @Test
    void should_store_every_key_once_and_apart_when_keys_differ_only_in_awkward_characters_on_postgres() {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(2)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            checkKeys(store, () -> JdbcSessionStore.builder(pool).tablePrefix(prefix).build());
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    void should_store_every_key_once_and_apart_when_keys_differ_only_in_awkward_characters_on_h2() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:keys-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).build();
            store.createSchema();
            checkKeys(store, () -> JdbcSessionStore.builder(pool).build());
        }
    }

    private static void checkKeys(SessionStore store, Supplier<SessionStore> reopen) {
        {
            // when: one append per key, then each repeated with other content
            for (String key : AWKWARD_KEYS) {
                store.append("s", List.of(NewEntry.of(UserMessage.from("first " + AWKWARD_KEYS.indexOf(key)), 1,
                        awkwardMetadata())), key);
            }
            for (String key : AWKWARD_KEYS) {
                List<Entry> again = store.append("s", List.of(NewEntry.of(UserMessage.from("again"))), key);
                assertThat(again).extracting(e -> ((UserMessage) e.message()).singleText())
                        .as("key #%d", AWKWARD_KEYS.indexOf(key)).containsExactly("first " + AWKWARD_KEYS.indexOf(key));
            }

            // then: one entry per key, each with its own key and metadata, also after reopening
            {
                SessionStore reopened = reopen.get();
                List<Entry> all = reopened.read("s", 0, 100);
                assertThat(all).extracting(Entry::idempotencyKey)
                        .containsExactlyElementsOf(AWKWARD_KEYS.stream().map(Optional::of).toList());
                assertThat(all).allSatisfy(e -> assertThat(e.metadata()).isEqualTo(awkwardMetadata()));
                assertThat(reopened.append("s", List.of(NewEntry.of(UserMessage.from("again"))), "k\uDBFF"))
                        .extracting(Entry::index).containsExactly(3L);
            }
        }
    }

    /** Metadata whose keys and values hold the same awkward text. */
    static Map<String, String> awkwardMetadata() {
        Map<String, String> metadata = new HashMap<>();
        for (int i = 0; i < AWKWARD_KEYS.size(); i++) {
            metadata.put(AWKWARD_KEYS.get(i), AWKWARD_KEYS.get((i + 1) % AWKWARD_KEYS.size()));
        }
        return metadata;
    }
}
