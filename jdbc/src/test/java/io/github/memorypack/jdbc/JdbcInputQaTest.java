package io.github.memorypack.jdbc;

import io.github.memorypack.testkit.SampleMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.testkit.MutableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Bad input writes no row; every message kind (and a 2-million-character one) round-trips exactly. */
class JdbcInputQaTest {

    @Test
    void should_reject_bad_arguments_and_write_no_row_when_they_are_invalid_on_postgres() throws SQLException {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(2)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            badArguments(store);
            assertThat(store.compareAndSetState("s", 5, SessionState.EMPTY)).isEmpty();
            assertThat(store.compareAndSetState("s", -1, SessionState.EMPTY)).isEmpty();
            store.trim("s", -5);
            store.delete("s");
            assertThat(rows(pool, prefix)).isZero();
            TestPostgres.dropTables(pool, prefix);
        }
    }

    static void badArguments(JdbcSessionStore store) {
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
    }

    private static long rows(DataSource dataSource, String prefix) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (SELECT COUNT(*) FROM " + prefix + "entry) + (SELECT COUNT(*) FROM "
                     + prefix + "session)")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void should_round_trip_every_rare_message_exactly_when_read_by_a_new_store_on_postgres() {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(2)) {
            roundTrip(pool, JdbcSessionStore.builder(pool).tablePrefix(prefix), prefix);
            TestPostgres.dropTables(pool, prefix);
        }
    }

    @Test
    void should_round_trip_every_rare_message_exactly_when_read_by_a_new_store_on_h2() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:rare-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            roundTrip(pool, JdbcSessionStore.builder(pool), JdbcSessionStore.DEFAULT_TABLE_PREFIX);
        }
    }

    private static void roundTrip(DataSource pool, JdbcSessionStore.Builder builder, String prefix) {
        MutableClock clock = MutableClock.at(Instant.parse("2026-12-01T14:00:00.123456789Z"));
        JdbcSessionStore store = builder.clock(clock).build();
        store.createSchema();
        List<ChatMessage> messages = SampleMessages.rare();
        for (ChatMessage m : messages) {
            store.append("one", List.of(NewEntry.of(m)));
        }
        List<Entry> stored = store.append("batch", messages.stream().map(NewEntry::of).toList(), "key");
        store.compareAndSetState("batch", 0, SessionState.EMPTY.withSystemMessage(
                SystemMessage.from(SampleMessages.longText())));

        JdbcSessionStore reopened = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
        assertThat(reopened.read("one", 0, 100)).extracting(Entry::message).containsExactlyElementsOf(messages);
        assertThat(reopened.read("batch", 0, 100)).containsExactlyElementsOf(stored);
        assertThat(reopened.readLast("batch", 1).get(0).timestamp())
                .isEqualTo(clock.instant().truncatedTo(ChronoUnit.MICROS));
        assertThat(reopened.state("batch").systemMessage().orElseThrow().text()).isEqualTo(SampleMessages.longText());
    }

    @Test
    void should_store_nothing_and_return_the_kept_entries_when_a_key_is_retried_after_a_trim_cut_its_batch() {
        String prefix = TestPostgres.freshPrefix();
        try (HikariDataSource pool = TestPostgres.pool(2)) {
            JdbcSessionStore store = JdbcSessionStore.builder(pool).tablePrefix(prefix).build();
            store.createSchema();
            store.append("s", List.of(NewEntry.of(UserMessage.from("older"))));
            List<Entry> batch = store.append("s", List.of(NewEntry.of(UserMessage.from("q")),
                    NewEntry.of(UserMessage.from("a1")), NewEntry.of(UserMessage.from("a2"))), "request-1");
            store.trim("s", 2);

            List<Entry> again = store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1");

            assertThat(again).containsExactlyElementsOf(batch.subList(1, 3));
            assertThat(store.read("s", 0, 10)).containsExactlyElementsOf(batch.subList(1, 3));
            store.trim("s", 4);
            assertThat(store.append("s", List.of(NewEntry.of(UserMessage.from("q"))), "request-1"))
                    .extracting(Entry::index).containsExactly(4L);
            TestPostgres.dropTables(pool, prefix);
        }
    }
}
