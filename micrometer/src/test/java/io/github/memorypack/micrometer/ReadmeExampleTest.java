package io.github.memorypack.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The example of micrometer/README.md, compiled and run. */
class ReadmeExampleTest {

    interface Assistant {
        String chat(String message);
    }

    @Test
    void should_run_the_readme_example_when_a_registry_is_given(@TempDir Path folder) throws Exception {
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            server.answerWith(request -> OpenAiTestServer.Reply.text("ok"));
            MeterRegistry meterRegistry = new SimpleMeterRegistry();
            ChatModel chatModel = server.model();
            ChatModel cheapModel = server.model();

            // --- README example starts
            MemoryPackMetrics metrics = MemoryPackMetrics.of(meterRegistry);
            SessionStore store = metrics.instrument(FileSessionStore.of(folder));   // timed, tagged backend=file
            ChatMemoryProvider memories = SummaryBufferChatMemory.builder()
                    .chatMemoryStore(store)
                    .summarizer(Summarizer.llm(cheapModel))
                    .maxBufferTokens(2_000)
                    .listener(metrics)                                                 // views, folds, failures
                    .provider();
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(chatModel).chatMemoryProvider(memories).build();
            // --- README example ends

            assertThat(assistant.chat("hi")).isEqualTo("ok");
            assertThat(meterRegistry.get(MemoryPackMetrics.VIEW_TOKENS).summary().count()).isPositive();
            assertThat(meterRegistry.get(MemoryPackMetrics.STORE_OPERATIONS).tag("backend", "file").timers())
                    .isNotEmpty();
        }
    }

    /** The example between the markers of this test's source, and the README's java block: the same code. */
    @Test
    void should_show_the_code_this_test_runs_when_the_readme_is_read() throws Exception {
        String source = Files.readString(Path.of("src/test/java/" + getClass().getName().replace('.', '/') + ".java"),
                StandardCharsets.UTF_8);
        String start = "// --- README example starts\n";
        String code = source.substring(source.indexOf(start) + start.length(), source.indexOf("// --- README example ends"));
        String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
        int from = readme.indexOf("```java\n") + "```java\n".length();
        assertThat(normalized(readme.substring(from, readme.indexOf("```", from)))).isEqualTo(normalized(code));
    }

    private static String normalized(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty()).reduce("", (a, b) -> a + b + "\n");
    }
}
