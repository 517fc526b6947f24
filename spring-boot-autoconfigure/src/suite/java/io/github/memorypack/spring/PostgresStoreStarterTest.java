package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.jdbc.JdbcSessionStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * JDBC store on the application's PostgreSQL DataSource: a real PostgreSQL 17 started from the
 * Maven-packaged binaries on a free port (as the jdbc module's tests start it), buffer strategy.
 */
@SpringBootTest(classes = TestApplication.class, properties = {
        "memory-pack.strategy=buffer",
        "memory-pack.store.type=jdbc",
        "memory-pack.store.jdbc.table-prefix=starter_"})
class PostgresStoreStarterTest extends StarterConversationTest {

    PostgresStoreStarterTest() {
        super("jdbc", "buffer", JdbcSessionStore.class);
    }

    private static final EmbeddedPostgres POSTGRES = start();

    private static EmbeddedPostgres start() {
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // the probed free port may be taken meanwhile
            try {
                return EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
            } catch (IOException e) {
                last = e;
            }
        }
        throw new UncheckedIOException("PostgreSQL did not start", last);
    }

    @DynamicPropertySource
    static void postgres(DynamicPropertyRegistry properties) {
        properties.add("spring.datasource.url", () -> POSTGRES.getJdbcUrl("postgres", "postgres"));
    }

    @AfterAll
    static void stopPostgres() throws IOException {
        POSTGRES.close();
    }

    @Override
    void thenAlso(String ana) {
        assertThat(((JdbcSessionStore) store).dialect()).isEqualTo(JdbcSessionStore.Dialect.POSTGRESQL);
        // the buffer kept every turn verbatim
        assertThat(chatRequest(TestApplication.openAi(), "user: Where do I live?")).contains("user: My name is Ana.");
    }
}
