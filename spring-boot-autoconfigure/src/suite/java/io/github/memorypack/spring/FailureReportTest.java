package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import io.github.memorypack.core.Summarizer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;

/**
 * Every {@code memory-pack.*} misconfiguration fails a real application's start with Spring Boot's
 * "APPLICATION FAILED TO START" report, and the report names the property, its value (and where it was
 * set) and the fix; it never sends the user to define a bean the configuration merely misnames.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailureReportTest {

    /** The application's own bean that needs the provider, as the issue's {@code assistant} did. */
    interface Assistant {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class MisconfiguredApplication {

        @Bean
        ChatModel chatModel() {
            return new MemoryPackAutoConfigurationTest.EchoModel();
        }

        @Bean
        ChatModel cheapModel() {
            return new MemoryPackAutoConfigurationTest.EchoModel();
        }

        @Bean
        @ConditionalOnProperty("test.summarizer-bean")
        Summarizer ownSummarizer() {
            return (previous, messages) -> "summary";
        }

        @Bean
        Assistant assistant(ChatMemoryProvider memories) {
            return new Assistant() {
            };
        }
    }

    static Stream<Arguments> misconfigurations() throws IOException {
        Path notAFolder = Files.createTempFile("not-a-folder", ".txt");
        return Stream.of(
                // a bean name with the wrong case: the report names the property and the bean meant, not the assistant
                misconfigured(List.of("memory-pack.strategy=summary", "memory-pack.summarizer.model=cheapmodel"),
                        "Property: memory-pack.summarizer.model", "Value: \"cheapmodel\"", "names no bean",
                        "'chatModel', 'cheapModel'", "did you mean 'cheapModel'?",
                        "Set memory-pack.summarizer.model to the name of the ChatModel bean"),
                misconfigured(List.of("memory-pack.strategy=summary-buffer"),
                        "Property: memory-pack.strategy", "Value: \"summary-buffer\"", "needs a summarizer",
                        "none @Primary", "memory-pack.summarizer.extractive=true"),
                misconfigured(List.of("memory-pack.strategy=summary", "memory-pack.summarizer.extractive=true",
                                "test.summarizer-bean=true"),
                        "Property: memory-pack.summarizer.extractive", "Value: \"true\"",
                        "its own Summarizer bean", "Remove the property"),
                misconfigured(List.of("memory-pack.strategy=sumary"),
                        "Property: memory-pack.strategy", "Value: \"sumary\"",
                        "Set memory-pack.strategy to one of buffer, window, summary, summary-buffer."),
                misconfigured(List.of("memory-pack.window.max-messages=0"),
                        "Property: memory-pack.window.max-messages", "Value: \"0\"", "must be at least 1",
                        "Set memory-pack.window.max-messages to 1 or more, or remove it for the default"),
                misconfigured(List.of("memory-pack.window.max-messages=ten"),
                        "Property: memory-pack.window.max-messages", "Value: \"ten\"",
                        "Set memory-pack.window.max-messages to a whole number."),
                // a misspelt property name: without the check it would do nothing, and the window would keep 20
                misconfigured(List.of("memory-pack.window.max-mesages=5"),
                        "Property: memory-pack.window.max-mesages", "Value: \"5\"", "is no Memory Pack property",
                        "did you mean memory-pack.window.max-messages?"),
                misconfigured(List.of("memory-pack.summary-buffer.max-tokens=4000"),
                        "Property: memory-pack.summary-buffer.max-tokens", "is no Memory Pack property",
                        "did you mean memory-pack.summary-buffer.max-buffer-tokens?"),
                misconfigured(List.of("memory-pack.store.directory=sessions"),
                        "Property: memory-pack.store.directory", "is no Memory Pack property",
                        "did you mean memory-pack.store.file.directory?"),
                misconfigured(List.of("memory-pack.window.max-messages=10", "memory-pack.window.max-turns=5"),
                        "Property: memory-pack.window.max-turns", "Value: \"5\"", "is one of 2 window limits set",
                        "Set only one of memory-pack.window.max-messages"),
                misconfigured(List.of("memory-pack.tokenizer-model=llama-3"),
                        "Property: memory-pack.tokenizer-model", "Value: \"llama-3\"",
                        "Remove memory-pack.tokenizer-model to count with o200k_base"),
                misconfigured(List.of("memory-pack.concurrent-sends.mode=wait"),
                        "Property: memory-pack.concurrent-sends.mode", "Value: \"wait\"",
                        "Set memory-pack.concurrent-sends.mode to one of queue, refuse, branch."),
                misconfigured(List.of("memory-pack.concurrent-sends.max-wait=0s"),
                        "Property: memory-pack.concurrent-sends.max-wait", "Value: \"0s\"", "must be positive",
                        "a positive duration such as 30s"),
                misconfigured(List.of("memory-pack.summarizer.timeout=0s"),
                        "Property: memory-pack.summarizer.timeout", "Value: \"0s\"", "must be positive",
                        "a positive duration such as 60s"),
                misconfigured(List.of("memory-pack.store.type=file"),
                        "Property: memory-pack.store.file.directory", "Value: (not set)",
                        "is required with memory-pack.store.type=file",
                        "Set memory-pack.store.file.directory to the folder"),
                misconfigured(List.of("memory-pack.store.type=file",
                                "memory-pack.store.file.directory=" + notAFolder.resolve("sessions")),
                        "Property: memory-pack.store.file.directory", "Value: \"" + notAFolder.resolve("sessions"),
                        "cannot be used as the file store's folder", "a folder the application can create and write"),
                misconfigured(List.of("memory-pack.store.type=jdbc",
                                "spring.autoconfigure.exclude=" + BootGeneration.DATA_SOURCE_AUTO_CONFIGURATION),
                        "Property: memory-pack.store.type", "Value: \"jdbc\"", "needs a DataSource bean",
                        "spring-boot-starter-jdbc", "spring.datasource.url"),
                misconfigured(List.of("memory-pack.store.type=jdbc", "memory-pack.store.jdbc.table-prefix=chat-",
                                "spring.datasource.url=jdbc:h2:mem:failure-report"),
                        "Property: memory-pack.store.jdbc.table-prefix", "Value: \"chat-\"",
                        "Use letters, digits and underscores only"),
                misconfigured(List.of("memory-pack.store.type=jdbc",
                                "spring.datasource.url=jdbc:postgresql://127.0.0.1:1/chat"),
                        "Property: memory-pack.store.type", "Value: \"jdbc\"",
                        "cannot connect through the application's DataSource",
                        "Check spring.datasource.url, spring.datasource.username and spring.datasource.password"),
                misconfigured(List.of("memory-pack.store.type=redis", "spring.data.redis.sentinel.master=chat",
                                "spring.data.redis.sentinel.nodes=127.0.0.1:26379"),
                        "Redis Sentinel", "Point the store at a standalone Redis server"),
                misconfigured(List.of("memory-pack.store.type=redis", "spring.data.redis.ssl.bundle=chat-tls"),
                        "Property: spring.data.redis.ssl.bundle", "Value: \"chat-tls\"",
                        "spring.ssl.bundle"));
    }

    private static Arguments misconfigured(List<String> properties, String... expected) {
        return Arguments.of(properties, List.of(expected));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("misconfigurations")
    void should_name_the_property_its_value_and_the_fix_when_a_misconfiguration_fails_the_start(
            List<String> properties, List<String> expected, CapturedOutput output) {
        // given
        List<String> all = new ArrayList<>(properties);
        all.add("spring.main.banner-mode=off");

        // when
        assertThatThrownBy(() -> new SpringApplicationBuilder(MisconfiguredApplication.class)
                .web(WebApplicationType.NONE).properties(all.toArray(String[]::new)).run().close())
                .isInstanceOf(RuntimeException.class);

        // then: Memory Pack's report, with what to change, and not Spring's advice to define a bean
        String text = output.getAll();
        assertThat(text).as("the start-up report").contains("APPLICATION FAILED TO START");
        String report = text.substring(text.lastIndexOf("APPLICATION FAILED TO START"));
        assertThat(report).as("on %s", BootGeneration.NAME).contains("Memory Pack cannot start with this configuration")
                .contains(expected).contains("Action:").doesNotContain("Consider defining a bean");
    }
}
