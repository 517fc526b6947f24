package io.github.memorypack.memorymd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.window.WindowChatMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
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

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private MockWebServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new MockWebServer();
        server.start();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.shutdown();
    }

    private Assistant newAssistant() {
        // new objects every time, as after a process restart: only the folder is shared
        MemoryMdSessionStore store = MemoryMdSessionStore.of(dir);
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.url("/v1").toString()).apiKey("test-key")
                .modelName("gpt-4o-mini").build();
        return AiServices.builder(Assistant.class).chatModel(model)
                .chatMemoryProvider(id -> WindowChatMemory.builder().id(id).store(store).maxMessages(20).build())
                .build();
    }

    private void reply(String text) throws Exception {
        String body = JSON.writeValueAsString(JSON.createObjectNode()
                .put("id", "chatcmpl-1").put("object", "chat.completion").put("created", 1_764_000_000)
                .put("model", "gpt-4o-mini")
                .set("choices", JSON.createArrayNode().add(JSON.createObjectNode().put("index", 0)
                        .put("finish_reason", "stop")
                        .set("message", JSON.createObjectNode().put("role", "assistant").put("content", text)))));
        server.enqueue(new MockResponse().setHeader("Content-Type", "application/json").setBody(body));
    }

    private static List<String> sentMessages(RecordedRequest request) throws Exception {
        JsonNode body = JSON.readTree(request.getBody().readUtf8());
        List<String> sent = new ArrayList<>();
        for (JsonNode m : body.get("messages")) {
            sent.add(m.get("role").asText() + ": " + m.get("content").asText());
        }
        return sent;
    }

    @Test
    void should_send_the_same_history_when_the_application_restarts_on_the_same_folder() throws Exception {
        // given
        reply("Nice to meet you, Ana.");
        reply("Your name is Ana.");
        assertThat(newAssistant().chat("ana", "Hi, my name is Ana.")).isEqualTo("Nice to meet you, Ana.");
        server.takeRequest();
        // when
        String answer = newAssistant().chat("ana", "What is my name?");
        // then
        assertThat(answer).isEqualTo("Your name is Ana.");
        assertThat(sentMessages(server.takeRequest())).containsExactly(
                "system: You are a concise assistant.",
                "user: Hi, my name is Ana.",
                "assistant: Nice to meet you, Ana.",
                "user: What is my name?");
        String file = Files.readString(dir.resolve("ana/MEMORY.md"));
        assertThat(file).doesNotContain("concise assistant").contains("Your name is Ana.");
        assertThat(MemoryMdSessionStore.of(dir).read("ana", 0, 100)).hasSize(5); // system record + 4 messages
    }
}
