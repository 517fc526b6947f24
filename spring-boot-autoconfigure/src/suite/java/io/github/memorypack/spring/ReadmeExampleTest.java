package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.SummaryBufferChatMemory;
import io.github.memorypack.jdbc.JdbcSessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The example of spring-boot-starter/README.md: its properties (read from the README itself) and its bean. */
class ReadmeExampleTest {

    interface Assistant {
        String chat(String message);
    }

    @Configuration(proxyBeanMethods = false)
    static class Application {

        @Bean
        ChatModel cheapModel() {
            return TestApplication.openAi().model();
        }

        // --- README example starts
        @Bean
        Assistant assistant(ChatModel chatModel, ChatMemoryProvider chatMemoryProvider) {
            return AiServices.builder(Assistant.class)
                    .chatModel(chatModel)
                    .chatMemoryProvider(chatMemoryProvider)   // memory-pack's, configured above
                    .build();
        }
        // --- README example ends
    }

    @Test
    void should_run_the_readme_example_when_its_properties_are_set() throws IOException {
        List<String> properties = readmeProperties().stream()
                .map(p -> p.startsWith("spring.datasource.url=") ? "spring.datasource.url=jdbc:h2:mem:readme" : p)
                .toList();
        assertThat(properties).contains("memory-pack.strategy=summary-buffer", "memory-pack.store.type=jdbc");
        new ApplicationContextRunner()
                .withConfiguration(BootGeneration.dataSource()).withConfiguration(Starters.memoryPack())
                .withUserConfiguration(Application.class)
                .withPropertyValues(properties.toArray(String[]::new))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    OpenAiTestServer server = TestApplication.openAi();
                    assertThat(context.getBean(Assistant.class).chat("Hi, I'm Ada.")).startsWith("Noted");
                    assertThat(context.getBean(SessionStore.class)).isInstanceOf(JdbcSessionStore.class);
                    assertThat(context.getBean(ChatMemoryProvider.class).get("default"))
                            .isInstanceOf(SummaryBufferChatMemory.class);
                    assertThat(server.requests()).isNotEmpty();
                });
    }

    /** The lines of the README's properties block. */
    private static List<String> readmeProperties() {
        try {
            String readme = Files.readString(Starters.README, StandardCharsets.UTF_8);
            int start = readme.indexOf("```properties\n") + "```properties\n".length();
            int end = readme.indexOf("```", start);
            return readme.substring(start, end).lines().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The example between the markers of this test's source, and the README's java block: the same code. */
    @Test
    void should_show_the_code_this_test_runs_when_the_readme_is_read() throws Exception {
        String source = Files.readString(Starters.suiteSource(getClass()),
                StandardCharsets.UTF_8);
        String start = "// --- README example starts\n";
        String code = source.substring(source.indexOf(start) + start.length(), source.indexOf("// --- README example ends"));
        String readme = Files.readString(Starters.README, StandardCharsets.UTF_8);
        int from = readme.indexOf("```java\n") + "```java\n".length();
        assertThat(normalized(readme.substring(from, readme.indexOf("```", from)))).isEqualTo(normalized(code));
    }

    private static String normalized(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty()).reduce("", (a, b) -> a + b + "\n");
    }
}
