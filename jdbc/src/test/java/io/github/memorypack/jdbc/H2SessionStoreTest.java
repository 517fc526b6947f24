package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The behaviour tests on an in-memory H2 database (the contract runs on an H2 file database). */
class H2SessionStoreTest extends JdbcSessionStoreBehaviourTest {

    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:behaviour-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        config.setMaximumPoolSize(12);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    @Override
    DataSource dataSource() {
        return pool;
    }

    @Override
    JdbcSessionStore.Dialect expectedDialect() {
        return JdbcSessionStore.Dialect.H2;
    }

    @Test
    void should_use_the_tables_of_the_shipped_ddl_when_a_migration_tool_ran_it() throws Exception {
        // given: a database of its own whose tables were made by running the shipped DDL resource
        // statement by statement, as Flyway or Liquibase would, not by createSchema()
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:migrated-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        try (HikariDataSource migrated = new HikariDataSource(config)) {
            List<String> statements = ddlStatements(JdbcSessionStore.Dialect.H2.schemaResource());
            try (Connection connection = migrated.getConnection(); Statement statement = connection.createStatement()) {
                for (String sql : statements) {
                    statement.execute(sql);
                }
            }
            JdbcSessionStore store = JdbcSessionStore.builder(migrated).build();

            // when
            store.append("ana", List.of(NewEntry.of(UserMessage.from("My name is Ana.")),
                    NewEntry.of(AiMessage.from("Hello Ana."))));
            store.createSchema(); // later, an application that also calls createSchema() must not lose data

            // then
            assertThat(statements).hasSize(5);
            List<ChatMessage> messages = store.getMessages("ana");
            assertThat(messages).containsExactly(UserMessage.from("My name is Ana."), AiMessage.from("Hello Ana."));
            assertThat(rows(migrated, "memory_pack_entry")).isEqualTo(2);
            // and the process table the DDL made marks the store alive (SessionStore.processId())
            assertThat(store.processId()).isNotNull();
            assertThat(rows(migrated, "memory_pack_process")).isEqualTo(1);
        }
    }

    /** The statements of a DDL resource: comments removed, split at each semicolon. */
    private static List<String> ddlStatements(String resource) throws IOException {
        try (InputStream in = JdbcSessionStore.class.getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .map(line -> line.replaceFirst("--.*$", ""))
                    .collect(Collectors.joining("\n"));
            return Arrays.stream(text.split(";")).map(String::strip).filter(sql -> !sql.isEmpty()).toList();
        }
    }

    private static long rows(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                var result = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            result.next();
            return result.getLong(1);
        }
    }
}
