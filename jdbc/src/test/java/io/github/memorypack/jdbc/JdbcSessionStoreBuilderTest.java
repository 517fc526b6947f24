package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.StoreException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class JdbcSessionStoreBuilderTest {

    private final HikariDataSource h2 = new HikariDataSource(h2Config());

    private static HikariConfig h2Config() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:builder-" + System.nanoTime());
        config.setMaximumPoolSize(1);
        return config;
    }

    @AfterEach
    void closePool() {
        h2.close();
    }

    @Test
    void should_reject_bad_values_at_the_setter_when_building() {
        JdbcSessionStore.Builder builder = JdbcSessionStore.builder(h2);

        assertThatThrownBy(() -> JdbcSessionStore.builder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.dialect(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.clock(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.ttl(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.ttl(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.ttl(Duration.ofMillis(-5))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.tablePrefix(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.schema(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.schema("s".repeat(64))).isInstanceOf(IllegalArgumentException.class);
        assertThat(builder.tablePrefix("p".repeat(JdbcSessionStore.MAX_TABLE_PREFIX_LENGTH)).build()).isNotNull();
    }

    @Test
    void should_build_without_connecting_when_the_dialect_is_given_and_fail_typed_when_used() throws Exception {
        // given: a pool pointed at a loopback port where nothing listens
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        HikariConfig config = TestPostgres.config("jdbc:postgresql://127.0.0.1:" + port + "/none", 1,
                Duration.ofMillis(250));
        config.setInitializationFailTimeout(-1);
        try (HikariDataSource nowhere = new HikariDataSource(config)) {
            // when
            JdbcSessionStore store = JdbcSessionStore.builder(nowhere).dialect(JdbcSessionStore.Dialect.POSTGRESQL)
                    .build();

            // then
            assertThat(store.dialect()).isEqualTo(JdbcSessionStore.Dialect.POSTGRESQL);
            assertThatThrownBy(() -> store.append("s", List.of(NewEntry.of(UserMessage.from("x")))))
                    .isInstanceOf(StoreException.class).hasMessageContaining("no connection from the DataSource");
            assertThatThrownBy(() -> JdbcSessionStore.builder(nowhere).build())
                    .isInstanceOf(StoreException.class).hasMessageContaining("cannot detect the SQL dialect");
        }
    }

    @Test
    void should_name_the_dialect_when_the_product_name_is_known() {
        assertThat(JdbcSessionStore.Dialect.of("PostgreSQL")).isEqualTo(JdbcSessionStore.Dialect.POSTGRESQL);
        assertThat(JdbcSessionStore.Dialect.of("H2")).isEqualTo(JdbcSessionStore.Dialect.H2);
        assertThat(JdbcSessionStore.Dialect.of("MySQL")).isNull();
        assertThat(JdbcSessionStore.Dialect.of(null)).isNull();
        assertThat(JdbcSessionStore.class.getResource(JdbcSessionStore.Dialect.POSTGRESQL.schemaResource())).isNotNull();
        assertThat(JdbcSessionStore.class.getResource(JdbcSessionStore.Dialect.H2.schemaResource())).isNotNull();
    }

    @Test
    void should_qualify_and_prefix_every_name_when_schema_statements_are_built() {
        List<String> statements = Sql.schemaStatements(JdbcSessionStore.Dialect.POSTGRESQL, "chat", "app_");

        assertThat(statements.get(0)).isEqualTo("CREATE SCHEMA IF NOT EXISTS chat");
        assertThat(String.join("\n", statements)).contains("chat.app_session", "chat.app_entry", "chat.app_process",
                "INDEX IF NOT EXISTS app_entry_key_idx", "ON chat.app_entry").doesNotContain("memory_pack_", "--");
        assertThat(statements).hasSize(6);
    }
}
