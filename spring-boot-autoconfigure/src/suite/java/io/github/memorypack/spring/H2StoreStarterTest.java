package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.SessionStore;
import io.github.memorypack.jdbc.JdbcSessionStore;
import io.github.memorypack.micrometer.MemoryPackMetrics;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * JDBC store on the application's H2 DataSource ({@code spring.datasource.*}), summary strategy with
 * the LLM summarizer on the application's own ChatModel.
 */
@SpringBootTest(classes = TestApplication.class, properties = {
        "memory-pack.strategy=summary",
        "memory-pack.store.type=jdbc",
        "memory-pack.store.jdbc.create-schema=true",
        "spring.datasource.url=jdbc:h2:mem:starter;DB_CLOSE_DELAY=-1"})
class H2StoreStarterTest extends StarterConversationTest {

    H2StoreStarterTest() {
        super("jdbc", "summary", JdbcSessionStore.class);
    }

    @Override
    void thenAlso(String ana) {
        // ana's turns 2 and 3 each folded the turn before into the summary; bob's single turn folds nothing
        assertThat(registry.get(MemoryPackMetrics.SUMMARIZER_CALLS).tag("outcome", "success").counter().count())
                .isEqualTo(callsBefore + 2);
        assertThat(registry.get(MemoryPackMetrics.FOLDS).tag("strategy", "summary").timer().count()).isEqualTo((long) foldsBefore + 2);
        assertThat(((JdbcSessionStore) store).dialect()).isEqualTo(JdbcSessionStore.Dialect.H2);
        assertThat(store.state(ana).summary()).isPresent();
        assertThat(chatRequest(TestApplication.openAi(), "user: Where do I live?"))
                .anyMatch(line -> line.startsWith("system:"));
    }
}
