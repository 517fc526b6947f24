package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.testkit.MutableClock;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the JDBC store promises beyond the shared contract, on a real database (subclasses say
 * which): checksums against rows edited with plain SQL, exact text, idempotency keys under a race,
 * TTL, failed transactions, identifiers that cannot inject SQL.
 */
abstract class JdbcSessionStoreBehaviourTest {

    static final Instant START = Instant.parse("2026-03-04T05:06:07.123456Z");

    final MutableClock clock = MutableClock.at(START);
    final String prefix = TestPostgres.freshPrefix();
    private final List<String> prefixes = new ArrayList<>(List.of(prefix));

    /** The database under test (a pool). */
    abstract DataSource dataSource();

    abstract JdbcSessionStore.Dialect expectedDialect();

    JdbcSessionStore store() {
        return store(prefix);
    }

    JdbcSessionStore store(String tablePrefix) {
        if (!prefixes.contains(tablePrefix)) {
            prefixes.add(tablePrefix);
        }
        JdbcSessionStore store = JdbcSessionStore.builder(dataSource()).tablePrefix(tablePrefix).clock(clock).build();
        store.createSchema();
        return store;
    }

    @AfterEach
    void dropTables() {
        for (String p : prefixes) {
            TestPostgres.dropTables(dataSource(), p);
        }
    }

    void sql(String statement) {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(statement, e);
        }
    }

    static List<NewEntry> entries(String... texts) {
        List<NewEntry> list = new ArrayList<>();
        for (String text : texts) {
            list.add(NewEntry.of(UserMessage.from(text)));
        }
        return list;
    }

    // ---------------------------------------------------------------- dialect

    @Test
    void should_detect_the_dialect_when_none_is_given() {
        assertThat(JdbcSessionStore.builder(dataSource()).build().dialect()).isEqualTo(expectedDialect());
    }

    // ---------------------------------------------------------------- integrity

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "message = REPLACE(message, 'secret', 'public')",
            "token_count = 999",
            "entry_index = 7",
            "session_id = 'other'",
            "idempotency_key = 'forged'",
            "metadata = NULL",
            "created_at = created_at + INTERVAL '1' SECOND",
            "entry_id = '00000000-0000-4000-8000-000000000000'"})
    void should_throw_corrupt_record_naming_table_session_and_index_when_a_row_is_edited_with_sql(String edit) {
        // given
        JdbcSessionStore store = store();
        store.append("s", List.of(NewEntry.of(UserMessage.from("hello"), 3),
                NewEntry.of(AiMessage.from("the secret is 42"), 5, Map.of("source", "model"))), "turn-1");
        String session = edit.startsWith("session_id") ? "other" : "s";

        // when
        sql("UPDATE " + prefix + "entry SET " + edit + " WHERE entry_index = 1");

        // then
        assertThatThrownBy(() -> store.read(session, 0, 10))
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("checksum mismatch")
                .satisfies(e -> assertThat(((CorruptRecordException) e).location()).containsIgnoringCase(prefix + "entry")
                        .contains("session '" + session + "'").contains("index " + (edit.startsWith("entry_index") ? 7 : 1)));
        assertThatThrownBy(() -> store.readLast(session, 1)).isInstanceOf(CorruptRecordException.class);
        if (session.equals("s")) {
            assertThat(store.read("s", 0, 1)).hasSize(1); // the untouched row still reads
        }
    }

    @Test
    void should_throw_corrupt_record_when_the_state_row_is_edited_with_sql() {
        JdbcSessionStore store = store();
        store.compareAndSetState("s", 0, SessionState.EMPTY.withSystemMessage(SystemMessage.from("Be kind.")));

        sql("UPDATE " + prefix + "session SET state = REPLACE(state, 'kind', 'rude')");

        assertThatThrownBy(() -> store.state("s"))
                .isInstanceOf(CorruptRecordException.class)
                .satisfies(e -> assertThat(((CorruptRecordException) e).location()).contains("session 's'")
                        .contains("state"));
    }

    @Test
    void should_round_trip_text_exactly_when_it_holds_nul_lone_surrogates_and_line_breaks() {
        // given
        String nasty = "nul\u0000 high\uD800 low\uDC00 pair\uD83D\uDE00 cr\r lf\n tab\t bom\uFEFF max\uFFFF \\u0000 \"q\"";
        String key = "key\u0000\\u0041\uDBFF" + "\\";
        Map<String, String> metadata = Map.of("k\u0000\uDC01", nasty);
        JdbcSessionStore store = store();

        // when
        List<Entry> stored = store.append("s", List.of(NewEntry.of(UserMessage.from(nasty), 1, metadata),
                NewEntry.of(AiMessage.from(nasty))), key);

        // then
        List<Entry> read = store().read("s", 0, 10);
        assertThat(read).isEqualTo(stored);
        assertThat(((UserMessage) read.get(0).message()).singleText()).isEqualTo(nasty);
        assertThat(((AiMessage) read.get(1).message()).text()).isEqualTo(nasty);
        assertThat(read.get(0).metadata()).isEqualTo(metadata);
        assertThat(read.get(0).idempotencyKey()).contains(key);
        assertThat(store.append("s", entries("again"), key)).isEqualTo(stored);
        assertThat(store.append("s", entries("other key"), "key\u0000\\u0041\uDBFF")).extracting(Entry::index)
                .containsExactly(2L);
    }

    // ---------------------------------------------------------------- idempotency keys

    @Test
    void should_store_one_batch_when_several_instances_race_with_the_same_key() throws Exception {
        // given: eight store instances (as eight application instances) and one key
        int racers = 8;
        List<JdbcSessionStore> instances = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            instances.add(store());
        }
        instances.get(0).append("s", entries("before"));
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<List<Entry>>> results = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                JdbcSessionStore store = instances.get(i);
                String text = "attempt " + i;
                Callable<List<Entry>> append = () -> {
                    go.await();
                    return store.append("s", entries(text + " q", text + " a"), "request-42");
                };
                results.add(pool.submit(append));
            }

            // when
            go.countDown();
            List<List<Entry>> answers = new ArrayList<>();
            for (Future<List<Entry>> f : results) {
                answers.add(f.get(30, TimeUnit.SECONDS));
            }

            // then: one batch stored, every racer told about that one
            assertThat(answers).allSatisfy(a -> assertThat(a).isEqualTo(answers.get(0)));
            assertThat(answers.get(0)).extracting(Entry::index).containsExactly(1L, 2L);
            assertThat(instances.get(0).read("s", 0, 10)).hasSize(3);
            assertThat(instances.get(0).nextIndex("s")).isEqualTo(3);
        } finally {
            pool.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- failures

    @Test
    void should_leave_nothing_visible_and_reuse_no_index_when_an_append_fails_half_way() {
        // given: the database refuses the second row of a batch
        JdbcSessionStore store = store();
        store.append("s", entries("a"));
        sql("ALTER TABLE " + prefix + "entry ADD CONSTRAINT " + prefix + "no_poison CHECK (message NOT LIKE '%poison%')");

        // when
        assertThatThrownBy(() -> store.append("s", entries("fine", "poison"), "k"))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("JDBC append failed for session 's'")
                .hasCauseInstanceOf(SQLException.class);

        // then
        assertThat(store.read("s", 0, 10)).extracting(e -> ((UserMessage) e.message()).singleText()).containsExactly("a");
        assertThat(store.nextIndex("s")).isEqualTo(1);
        assertThat(store.append("s", entries("b"), "k")).extracting(Entry::index).containsExactly(1L);
    }

    @Test
    void should_keep_the_old_log_when_a_replace_fails() {
        JdbcSessionStore store = store();
        store.append("s", entries("a", "b"));
        sql("ALTER TABLE " + prefix + "entry ADD CONSTRAINT " + prefix + "no_poison CHECK (message NOT LIKE '%poison%')");

        assertThatThrownBy(() -> store.replace("s", entries("x", "poison"))).isInstanceOf(StoreException.class);

        assertThat(store.read("s", 0, 10)).extracting(Entry::index).containsExactly(0L, 1L);
        assertThat(store.nextIndex("s")).isEqualTo(2);
    }

    @Test
    void should_say_operation_session_sql_state_and_reason_but_not_the_statement_when_the_tables_are_missing() {
        // given: a store whose tables were never created (no createSchema(), no migration)
        JdbcSessionStore store = JdbcSessionStore.builder(dataSource()).tablePrefix(prefix).clock(clock).build();

        // when
        Throwable append = catchThrowable(() -> store.append("ana", entries("hello")));
        Throwable read = catchThrowable(() -> store.read("ana", 0, 10));

        // then: a short message that names what failed and why; the statement stays in the cause
        assertShortFailure(append, "JDBC append failed for session 'ana' (SQLState ");
        assertShortFailure(read, "JDBC read failed for session 'ana' (SQLState ");
        assertThat(append.getMessage()).containsIgnoringCase(prefix + "session");
    }

    @Test
    void should_say_the_database_reason_not_the_batch_statement_when_a_row_of_an_append_is_refused() {
        // given: the database refuses the second row of a batch (PostgreSQL reports a whole batch, its SQL
        // and every bound value included, in one BatchUpdateException)
        JdbcSessionStore store = store();
        sql("ALTER TABLE " + prefix + "entry ADD CONSTRAINT " + prefix + "no_poison CHECK (message NOT LIKE '%poison%')");

        // when
        Throwable failure = catchThrowable(() -> store.append("s", entries("fine", "poison " + "x".repeat(2_000))));

        // then
        assertShortFailure(failure, "JDBC append failed for session 's' (SQLState 23");
        assertThat(failure.getMessage()).containsIgnoringCase(prefix + "no_poison").doesNotContain("xxxxxxxx");
    }

    /**
     * A {@link StoreException} whose message starts with {@code start}, keeps the SQL state of the database's
     * own error, fits in a log line and holds no SQL statement, with the database's exception as its cause.
     */
    private static void assertShortFailure(Throwable failure, String start) {
        assertThat(failure).isInstanceOf(StoreException.class).hasCauseInstanceOf(SQLException.class);
        String message = failure.getMessage();
        assertThat(message).startsWith(start).hasSizeLessThanOrEqualTo(Transactions.MAX_REASON_LENGTH + 120)
                .doesNotContain("\n").doesNotContainIgnoringCase("select ").doesNotContainIgnoringCase("insert into")
                .doesNotContainIgnoringCase("update ").doesNotContainIgnoringCase("SQL statement");
        List<String> states = new ArrayList<>();
        for (Throwable t = failure.getCause(); t != null; t = t instanceof SQLException e && e.getNextException() != null
                ? e.getNextException() : t.getCause()) {
            if (t instanceof SQLException e && e.getSQLState() != null) {
                states.add(e.getSQLState());
            }
        }
        assertThat(states).anySatisfy(state -> assertThat(message).contains("(SQLState " + state + ")"));
    }

    // ---------------------------------------------------------------- TTL

    @Test
    void should_hide_then_purge_a_session_when_its_ttl_passes_without_writes() {
        // given
        JdbcSessionStore store = JdbcSessionStore.builder(dataSource()).tablePrefix(prefix).clock(clock)
                .ttl(Duration.ofMinutes(30)).build();
        store.createSchema();
        store.append("old", entries("a", "b"), "k");
        store.compareAndSetState("old", 0, SessionState.EMPTY.withAttributes(Map.of("x", "1")));
        store.append("fresh", entries("c"));

        // when: reads do not extend the TTL, writes do
        clock.advance(Duration.ofMinutes(20));
        assertThat(store.read("old", 0, 10)).hasSize(2);
        store.append("fresh", entries("d"));
        clock.advance(Duration.ofMinutes(11));

        // then
        assertThat(store.read("old", 0, 10)).isEmpty();
        assertThat(store.readLast("old", 10)).isEmpty();
        assertThat(store.nextIndex("old")).isZero();
        assertThat(store.state("old")).isEqualTo(SessionState.EMPTY);
        assertThat(store.sessions()).containsExactly("fresh");
        assertThat(store.read("fresh", 0, 10)).hasSize(2);

        assertThat(store.purgeExpired()).isEqualTo(1);
        assertThat(count("entry")).isEqualTo(2);
        assertThat(count("session")).isEqualTo(1);

        assertThat(store.append("old", entries("new life"), "k")).extracting(Entry::index).containsExactly(0L);
        assertThat(store.compareAndSetState("old", 0, SessionState.EMPTY)).isPresent();
    }

    @Test
    void should_start_afresh_when_writing_to_an_expired_session_before_any_purge() {
        JdbcSessionStore store = JdbcSessionStore.builder(dataSource()).tablePrefix(prefix).clock(clock)
                .ttl(Duration.ofSeconds(10)).build();
        store.createSchema();
        store.append("s", entries("a", "b"), "k");
        clock.advance(Duration.ofSeconds(10));

        assertThat(store.append("s", entries("c"), "k")).extracting(Entry::index).containsExactly(0L);

        assertThat(store.read("s", 0, 10)).extracting(e -> ((UserMessage) e.message()).singleText())
                .containsExactly("c");
        assertThat(store.ttl()).contains(Duration.ofSeconds(10));
    }

    private long count(String table) {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT COUNT(*) FROM " + prefix + table)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    // ---------------------------------------------------------------- identifiers

    @ParameterizedTest
    @ValueSource(strings = {"x; DROP TABLE y; --", "\"quoted\"", "a b", "", "1abc", "a.b", "ü",
            "p1234567890123456789012345678901234567890"})
    void should_reject_prefix_and_schema_when_they_could_change_the_sql(String bad) {
        JdbcSessionStore.Builder builder = JdbcSessionStore.builder(dataSource());

        assertThatThrownBy(() -> builder.tablePrefix(bad)).isInstanceOf(IllegalArgumentException.class);
        if (bad.length() < 40) {
            assertThatThrownBy(() -> builder.schema(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void should_create_and_use_tables_in_a_schema_when_one_is_given() {
        String schema = "mp_" + prefix.substring(0, prefix.length() - 1);
        JdbcSessionStore store = JdbcSessionStore.builder(dataSource()).schema(schema).tablePrefix("chat_")
                .clock(clock).build();
        try {
            store.createSchema();
            store.createSchema(); // idempotent

            store.append("s", entries("in a schema"));

            assertThat(store.read("s", 0, 1)).hasSize(1);
            assertThat(store.toString()).contains(schema + ".chat_entry");
            assertThat(store.processId()).isNotNull(); // its row is in the schema's process table
        } finally {
            sql("DROP TABLE IF EXISTS " + schema + ".chat_entry");
            sql("DROP TABLE IF EXISTS " + schema + ".chat_session");
            sql("DROP TABLE IF EXISTS " + schema + ".chat_process");
            sql("DROP SCHEMA IF EXISTS " + schema);
        }
    }

    // ---------------------------------------------------------------- messages

    @Test
    void should_keep_tool_messages_and_their_requests_when_round_tripped() {
        JdbcSessionStore store = store();
        List<ChatMessage> messages = io.github.memorypack.testkit.SampleMessages.everyType();

        store.append("s", messages.stream().map(NewEntry::of).toList(), "all");

        assertThat(store().getMessages("s")).containsExactlyElementsOf(messages);
    }
}
