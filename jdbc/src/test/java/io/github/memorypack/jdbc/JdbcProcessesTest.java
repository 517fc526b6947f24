package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a JDBC store tells whether the process (store instance) that started an open turn has ended: a row
 * in {@code <prefix>process} whose {@code last_seen} (the database's clock) a daemon thread of the live
 * store keeps fresh. A row that is gone or older than the TTL means the process ended, and it stays ended:
 * whoever finds a row stale deletes it, the heartbeat never refreshes a stale row, and the owner takes a
 * new id. Short TTLs here, so that going stale takes a second or two. Subclasses say which database.
 */
abstract class JdbcProcessesTest {

    private static final Duration TTL = Duration.ofMillis(1_200);

    final String prefix = TestPostgres.freshPrefix();
    private final List<String> prefixes = new ArrayList<>(List.of(prefix));

    abstract DataSource dataSource();

    @AfterEach
    void dropTables() {
        for (String p : prefixes) {
            TestPostgres.dropTables(dataSource(), p);
        }
    }

    private JdbcSessionStore store() {
        JdbcSessionStore store = JdbcSessionStore.builder(dataSource()).tablePrefix(prefix)
                .processTimeToLive(TTL).build();
        store.createSchema();
        return store;
    }

    private long rows(String where) {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + prefix + "process WHERE " + where)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void sql(String statement) {
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(statement, e);
        }
    }

    private static void await(BooleanSupplier condition, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition met in time").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static Set<Thread> refreshers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("memory-pack-process-lease") && t.isAlive()).collect(Collectors.toSet());
    }

    /** The refresher thread that {@code start} starts (it asks a store for its id). */
    private static Thread refresherStartedBy(Runnable start) {
        Set<Thread> before = refreshers();
        start.run();
        Set<Thread> started = new HashSet<>(refreshers());
        started.removeAll(before);
        assertThat(started).hasSize(1);
        return started.iterator().next();
    }

    @Test
    void should_keep_the_process_row_fresh_while_the_store_runs() throws InterruptedException {
        // given
        JdbcSessionStore store = store();
        JdbcSessionStore other = store();

        // when
        String id = store.processId();

        // then: a row, kept fresh well past the TTL
        assertThat(id).matches("[0-9a-f]{16}");
        assertThat(rows("process_id = '" + id + "'")).isEqualTo(1);
        Thread.sleep(TTL.toMillis() * 3);
        assertThat(store.processId()).isEqualTo(id);
        assertThat(other.processEnded(id)).isFalse();
        assertThat(store.processEnded(id)).isFalse();
        assertThat(rows("process_id = '" + id + "'")).isEqualTo(1);
        // another instance has an id of its own
        assertThat(other.processId()).isNotNull().isNotEqualTo(id);
        // and the rows are no sessions
        assertThat(store.sessions()).isEmpty();
    }

    @Test
    void should_report_a_process_whose_row_is_gone_as_ended_and_keep_it_ended() throws InterruptedException {
        // given: a live process, seen by another
        JdbcSessionStore owner = store();
        JdbcSessionStore other = store();
        String id = owner.processId();
        assertThat(other.processEnded(id)).isFalse();

        // when: its row is gone
        sql("DELETE FROM " + prefix + "process WHERE process_id = '" + id + "'");

        // then: it has ended
        assertThat(other.processEnded(id)).isTrue();
        // and the owner never brings the row back: it takes a new id for the turns it starts from now on
        await(() -> !id.equals(owner.processId()), TTL.multipliedBy(3));
        String next = owner.processId();
        assertThat(next).matches("[0-9a-f]{16}");
        Thread.sleep(TTL.toMillis());
        assertThat(rows("process_id = '" + id + "'")).isZero();
        assertThat(rows("process_id = '" + next + "'")).isEqualTo(1);
        assertThat(other.processEnded(id)).isTrue();
        assertThat(owner.processEnded(id)).isTrue();
        assertThat(other.processEnded(next)).isFalse();
        assertThat(owner.processId()).isEqualTo(next);
    }

    @Test
    void should_report_a_process_whose_row_is_stale_as_ended_and_delete_the_row() throws InterruptedException {
        // given: a live process, seen by another
        JdbcSessionStore owner = store();
        JdbcSessionStore other = store();
        String id = owner.processId();

        // when: its row is older than the TTL (as after a pause of its process longer than that)
        sql("UPDATE " + prefix + "process SET last_seen = last_seen - INTERVAL '1' HOUR WHERE process_id = '" + id
                + "'");

        // then: another process finds it ended, and the row is deleted
        assertThat(other.processEnded(id)).isTrue();
        assertThat(rows("process_id = '" + id + "'")).isZero();
        // and the heartbeat does not bring it back: the owner takes a new id
        await(() -> !id.equals(owner.processId()), TTL.multipliedBy(3));
        Thread.sleep(TTL.toMillis());
        assertThat(rows("process_id = '" + id + "'")).isZero();
        assertThat(other.processEnded(id)).isTrue();
        assertThat(other.processEnded(owner.processId())).isFalse();
    }

    @Test
    void should_never_refresh_a_stale_row_even_before_anyone_has_judged_it() throws InterruptedException {
        // given: a live process whose row is stale, which no other process has looked at
        JdbcSessionStore owner = store();
        String id = owner.processId();
        sql("UPDATE " + prefix + "process SET last_seen = last_seen - INTERVAL '1' HOUR WHERE process_id = '" + id
                + "'");

        // when: its heartbeat comes
        await(() -> !id.equals(owner.processId()), TTL.multipliedBy(3));

        // then: the row was not made fresh again (it is gone: the new id's insert deleted the stale rows)
        assertThat(rows("process_id = '" + id + "'")).isZero();
        assertThat(store().processEnded(id)).isTrue();
    }

    @Test
    void should_stop_the_heartbeat_of_a_store_the_application_dropped() throws InterruptedException {
        // given: a store that was asked for its id, with its heartbeat thread
        JdbcSessionStore other = store();
        assertThat(other.processId()).isNotNull();
        AtomicReference<JdbcSessionStore> held = new AtomicReference<>(store());
        String[] id = new String[1];
        Thread refresher = refresherStartedBy(() -> id[0] = held.get().processId());

        // when: the application drops it
        held.set(null);

        // then: once collected, nothing keeps its row fresh, and its thread has ended
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!other.processEnded(id[0])) {
            assertThat(System.nanoTime()).as("the dropped store's row went stale").isLessThan(deadline);
            System.gc();
            Thread.sleep(50);
        }
        refresher.join(5_000);
        assertThat(refresher.isAlive()).isFalse();
        assertThat(rows("process_id = '" + id[0] + "'")).isZero();
        assertThat(other.processEnded(other.processId())).isFalse();
    }

    @Test
    void should_not_report_ended_what_it_cannot_tell() {
        // given
        JdbcSessionStore store = store();

        // then: ids that no store makes name no ended process, and are not written
        for (String bad : List.of("", "../x", "'", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0",
                "0123456789abcde'")) {
            assertThat(store.processEnded(bad)).as(bad).isFalse();
        }
        assertThat(rows("1 = 1")).isZero();

        // and without the process table (a schema the application manages, not migrated): no id, nothing ended
        String unmigrated = TestPostgres.freshPrefix();
        prefixes.add(unmigrated);
        JdbcSessionStore old = JdbcSessionStore.builder(dataSource()).tablePrefix(unmigrated).processTimeToLive(TTL)
                .build();
        assertThat(old.processId()).isNull();
        assertThat(old.processId()).isNull();
        assertThat(old.processEnded("0123456789abcdef")).isFalse();
    }

    @Test
    void should_add_the_process_table_to_tables_made_before_it_existed() {
        // given: the session and entry tables of an earlier version, with a session in them
        sql("CREATE TABLE " + prefix + "session (session_id VARCHAR(128) NOT NULL PRIMARY KEY,"
                + " next_index BIGINT NOT NULL, version BIGINT NOT NULL, state " + text() + ","
                + " state_checksum CHAR(8), expires_at TIMESTAMP(6) WITH TIME ZONE)");
        sql("CREATE TABLE " + prefix + "entry (session_id VARCHAR(128) NOT NULL, entry_index BIGINT NOT NULL,"
                + " entry_id UUID NOT NULL, created_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,"
                + " token_count INTEGER NOT NULL, idempotency_key VARCHAR(1600), metadata " + text() + ","
                + " message " + text() + " NOT NULL, checksum CHAR(8) NOT NULL, PRIMARY KEY (session_id, entry_index))");
        JdbcSessionStore earlier = JdbcSessionStore.builder(dataSource()).tablePrefix(prefix).build();
        earlier.append("s", List.of(NewEntry.of(UserMessage.from("q"))));

        // when
        JdbcSessionStore store = store();

        // then
        assertThat(store.processId()).isNotNull();
        assertThat(store.read("s", 0, 10)).hasSize(1);
        assertThat(store.sessions()).containsExactly("s");
    }

    /** The database's large-text type, as the tables of an earlier version were made with it. */
    abstract String text();

    /**
     * The type the store's own schema gives a message's text (the entry table's {@code message} column),
     * as the database's metadata names it: what {@link #text()} must be for the earlier tables to be the
     * store's own.
     */
    String messageColumnType() {
        store();
        try (Connection c = dataSource().getConnection();
             ResultSet columns = c.getMetaData().getColumns(null, null, "%", "%")) {
            while (columns.next()) {
                if (columns.getString("TABLE_NAME").equalsIgnoreCase(prefix + "entry")
                        && columns.getString("COLUMN_NAME").equalsIgnoreCase("message")) {
                    return columns.getString("TYPE_NAME");
                }
            }
            throw new AssertionError("no column " + prefix + "entry.message");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void should_refuse_a_process_ttl_that_is_too_short() {
        for (Duration bad : new Duration[] {null, Duration.ZERO, Duration.ofMillis(999), Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> JdbcSessionStore.builder(dataSource()).processTimeToLive(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
