package io.github.memorypack.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.SummaryBufferChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
}
