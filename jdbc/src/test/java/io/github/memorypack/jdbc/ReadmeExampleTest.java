package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The example from jdbc/README.md, compiled and run against the test PostgreSQL. */
class ReadmeExampleTest {

    @Test
    void should_run_the_readme_example_when_postgres_is_up() {
        String jdbcUrl = TestPostgres.jdbcUrl();
        String prefix = TestPostgres.freshPrefix();

        // --- README example starts
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);                   // jdbc:postgresql://db:5432/app?user=…&password=…
        config.setMaximumPoolSize(10);
        config.setConnectionTimeout(2_000);           // a busy pool fails a turn after 2 s with a StoreException
        try (HikariDataSource dataSource = new HikariDataSource(config)) {

            JdbcSessionStore store = JdbcSessionStore.builder(dataSource)
                    .tablePrefix(prefix)                  // default "memory_pack_"
                    .ttl(Duration.ofDays(30))             // optional: a session expires 30 days after its last write
                    .build();                             // PostgreSQL or H2, detected from the connection
            store.createSchema();                     // or run the shipped DDL with your migrations

            // every Memory Pack memory takes the store (LangChain4j's own memories too, as a ChatMemoryStore)
            ChatMemory memory = WindowChatMemory.builder().id("user-42").chatMemoryStore(store).maxMessages(20).build();
            memory.add(UserMessage.from("Hi, I'm Ada."));
            // --- README example ends

            assertThat(store.getMessages("user-42")).containsExactly(UserMessage.from("Hi, I'm Ada."));
            assertThat(store.dialect()).isEqualTo(JdbcSessionStore.Dialect.POSTGRESQL);
            TestPostgres.dropTables(dataSource, prefix);
        }
    }
}
