package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * A bad {@code memory-pack.*} value fails the start, and the failure names the property as the
 * application's configuration spells it (not the memory builder's option name).
 */
class PropertyValidationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(Starters.memoryPack())
            .withBean("cheapModel", ChatModel.class, MemoryPackAutoConfigurationTest.EchoModel::new);

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource(delimiter = '|', value = {
            "memory-pack.window.max-messages=0            | memory-pack.strategy=window         | memory-pack.window.max-messages",
            "memory-pack.window.max-turns=-1              | memory-pack.strategy=window         | memory-pack.window.max-turns",
            "memory-pack.window.max-tokens=0              | memory-pack.strategy=window         | memory-pack.window.max-tokens",
            "memory-pack.window.max-turns=3               | memory-pack.window.max-messages=5   | memory-pack.window.max-turns",
            "memory-pack.context-tokens=0                 | memory-pack.strategy=buffer         | memory-pack.context-tokens",
            "memory-pack.context-tokens=4000              | memory-pack.strategy=window         | memory-pack.context-tokens",
            "memory-pack.view-cache-size=-1               | memory-pack.strategy=buffer         | memory-pack.view-cache-size",
            "memory-pack.tokenizer-model=no-such-model    | memory-pack.strategy=buffer         | memory-pack.tokenizer-model",
            "memory-pack.summary.fold-every-turns=0       | memory-pack.strategy=summary        | memory-pack.summary.fold-every-turns",
            "memory-pack.summary-buffer.max-buffer-tokens=0 | memory-pack.strategy=summary-buffer | memory-pack.summary-buffer.max-buffer-tokens",
            "memory-pack.summary-buffer.low-watermark=2000 | memory-pack.strategy=summary-buffer | memory-pack.summary-buffer.low-watermark",
            "memory-pack.summary-buffer.low-watermark=-1  | memory-pack.strategy=summary-buffer | memory-pack.summary-buffer.low-watermark",
            "memory-pack.summarizer.max-summary-tokens=0  | memory-pack.strategy=summary        | memory-pack.summarizer.max-summary-tokens",
            "memory-pack.summarizer.timeout=0s            | memory-pack.strategy=summary        | memory-pack.summarizer.timeout",
            "memory-pack.summarizer.model=noSuchModel     | memory-pack.strategy=summary        | memory-pack.summarizer.model",
            "memory-pack.store.redis.ttl=0s               | memory-pack.strategy=buffer         | memory-pack.store.redis.ttl",
            "memory-pack.store.redis.retry-duration=-1s   | memory-pack.strategy=buffer         | memory-pack.store.redis.retry-duration",
            "memory-pack.store.type=file                  | memory-pack.strategy=buffer         | memory-pack.store.file.directory"})
    void should_fail_to_start_naming_the_property_when_a_value_is_invalid(String bad, String with, String named) {
        runner.withPropertyValues(bad.trim(), with.trim()).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).as("the start-up failure's messages")
                    .anyMatch(message -> message.contains(named.trim()));
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "memory-pack.store.jdbc.table-prefix=chat-memory-  | memory-pack.store.jdbc.table-prefix",
            "memory-pack.store.jdbc.schema=app;drop           | memory-pack.store.jdbc.schema"})
    void should_fail_to_start_naming_the_jdbc_property_when_a_table_name_part_is_invalid(String bad, String named) {
        runner.withBean(DataSource.class, () -> new DriverManagerDataSource("jdbc:h2:mem:validation;DB_CLOSE_DELAY=-1"))
                .withPropertyValues("memory-pack.store.type=jdbc", bad.trim())
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(messages(context.getStartupFailure())).anyMatch(m -> m.contains(named.trim()));
                });
    }

    @Test
    void should_bind_environment_variables_and_other_relaxed_forms_when_the_application_starts() {
        // given: what a container's environment sets, in Spring's environment-variable form
        Map<String, Object> environment = Map.of("MEMORYPACK_STRATEGY", "SUMMARY_BUFFER",
                "MEMORYPACK_SUMMARYBUFFER_MAXBUFFERTOKENS", "300", "MEMORYPACK_SUMMARIZER_EXTRACTIVE", "true",
                "MEMORYPACK_STORE_REDIS_TTL", "2h");
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                                environment)))
                .withPropertyValues("memory-pack.summarizer.maxSummaryTokens=90", "memory-pack.view_cache_size=0")
                .run(context -> {
                    MemoryPackProperties properties = context.getBean(MemoryPackProperties.class);
                    assertThat(properties.getStrategy()).isEqualTo(MemoryPackProperties.Strategy.SUMMARY_BUFFER);
                    assertThat(properties.getSummaryBuffer().getMaxBufferTokens()).isEqualTo(300);
                    assertThat(properties.getSummarizer().isExtractive()).isTrue();
                    assertThat(properties.getSummarizer().getMaxSummaryTokens()).isEqualTo(90);
                    assertThat(properties.getViewCacheSize()).isZero();
                    assertThat(properties.getStore().getRedis().getTtl()).isEqualTo(Duration.ofHours(2));
                    assertThat(context.getBean(ChatMemoryProvider.class).get("ada"))
                            .isInstanceOf(SummaryBufferChatMemory.class);
                });
    }

    private static List<String> messages(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages;
    }
}
