package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.window.WindowChatMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real AiServices + OpenAiChatModel conversation on MEMORY.md that survives a restart. */
class AiServicesRestartTest {

    interface Assistant {
        @SystemMessage("You are a concise assistant.")
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @TempDir
    Path dir;

    private OpenAiTestServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new OpenAiTestServer();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    private Assistant newAssistant() {
        // new objects every time, as after a process restart: only the folder is shared
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);
        return AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(id -> WindowChatMemory.builder().id(id).chatMemoryStore(store).maxMessages(20).build())
                .build();
    }

    @Test
    void should_send_the_same_history_when_the_application_restarts_on_the_same_folder() throws Exception {
        // given
        server.enqueueText("Nice to meet you, Ana.");
        server.enqueueText("Your name is Ana.");
        assertThat(newAssistant().chat("ana", "Hi, my name is Ana.")).isEqualTo("Nice to meet you, Ana.");
        server.takeHistory();
        // when
        String answer = newAssistant().chat("ana", "What is my name?");
        // then
        assertThat(answer).isEqualTo("Your name is Ana.");
        assertThat(server.takeHistory()).containsExactly(
                "system: You are a concise assistant.",
                "user: Hi, my name is Ana.",
                "assistant: Nice to meet you, Ana.",
                "user: What is my name?");
        String file = Files.readString(dir.resolve("ana/MEMORY.md"));
        assertThat(file).doesNotContain("concise assistant").contains("Your name is Ana.");
        assertThat(MemoryMdSessionStore.of(dir).read("ana", 0, 100)).hasSize(5); // system record + 4 messages
    }
}
