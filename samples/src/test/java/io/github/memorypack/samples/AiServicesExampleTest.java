package io.github.memorypack.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.summary.ExtractiveSummarizer;
import io.github.memorypack.summary.LlmSummarizer;
import io.github.memorypack.summary.TokenAccounting;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The AiServices example with the real {@link OpenAiChatModel} against a local OpenAI-compatible
 * server (okhttp MockWebServer), once per strategy: two travellers, one tool call.
 */
class AiServicesExampleTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SYSTEM = "system: You are a friendly travel planner. Use the tools for arithmetic on money.";

    private final MockWebServer server = new MockWebServer();

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws Exception {
        server.shutdown();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void should_keep_travellers_apart_and_run_the_tool_when_strategy_is_plugged_into_ai_services(Strategy strategy)
            throws Exception {
        // given
        OpenAiChatModel model = model();
        TravelAssistant assistant = AiServicesExample.assistant(model, strategy,
                FileSessionStore.open(dir), Tokenizers.o200k(), ExtractiveSummarizer.builder().build(),
                TokenAccounting.create());
        enqueueToolCall("call_1", "dailyBudget", "{\"totalEuros\":1200,\"days\":3}");
        enqueueText("That is 400 euros a day.");
        enqueueText("Hello Bruno!");
        enqueueText("You are Ana.");

        // when
        String first = assistant.chat("ana", "Hi, I'm Ana. I have 1200 euros for 3 days. Daily budget?");
        String second = assistant.chat("bruno", "Hi, I'm Bruno.");
        String third = assistant.chat("ana", "What's my name?");

        // then
        assertThat(List.of(first, second, third)).containsExactly("That is 400 euros a day.", "Hello Bruno!", "You are Ana.");
        assertThat(takeHistory()).containsExactly(SYSTEM, "user: Hi, I'm Ana. I have 1200 euros for 3 days. Daily budget?");
        assertThat(takeHistory()).containsExactly(SYSTEM, "user: Hi, I'm Ana. I have 1200 euros for 3 days. Daily budget?",
                "assistant: tool_calls[call_1 dailyBudget {\"totalEuros\":1200,\"days\":3}]",
                "tool call_1: 400.00 euros per day");
        assertThat(takeHistory()).containsExactly(SYSTEM, "user: Hi, I'm Bruno.");
        List<String> anaAgain = takeHistory();
        assertThat(anaAgain.get(0)).isEqualTo(SYSTEM);
        assertThat(anaAgain.get(anaAgain.size() - 1)).isEqualTo("user: What's my name?");
        assertThat(String.join("\n", anaAgain)).contains("Ana").doesNotContain("Bruno");
        if (strategy == Strategy.SUMMARY) {
            // the finished turn was folded: a summary stands in for it
            assertThat(anaAgain).hasSize(3);
            assertThat(anaAgain.get(1)).startsWith("system: ").contains("1200 euros");
        } else {
            assertThat(anaAgain).contains("tool call_1: 400.00 euros per day", "assistant: That is 400 euros a day.");
        }
        assertThat(server.getRequestCount()).isEqualTo(4);
    }

    @Test
    void should_answer_through_the_readme_snippet_when_summary_buffer_is_plugged_in() throws Exception {
        // given
        OpenAiChatModel chatModel = model();
        OpenAiChatModel cheapModel = chatModel;
        Path folder = dir;
        enqueueText("400 euros a day.");

        // when: the README's example, verbatim
        TravelAssistant assistant = AiServices.builder(TravelAssistant.class)
                .chatModel(chatModel)
                .chatMemoryProvider(SummaryBufferChatMemory.builder()
                        .store(FileSessionStore.open(folder)).summarizer(LlmSummarizer.of(cheapModel))
                        .maxTokens(2_000).provider())              // or BufferChatMemory / WindowChatMemory / SummaryChatMemory
                .tools(new TravelTools())
                .build();
        String answer = assistant.chat("ana", "I have 1200 euros for 3 days. Daily budget?");

        // then
        assertThat(answer).isEqualTo("400 euros a day.");
        assertThat(takeHistory()).containsExactly(SYSTEM, "user: I have 1200 euros for 3 days. Daily budget?");
        assertThat(FileSessionStore.open(folder).getMessages("ana")).hasSize(3);
    }

    private OpenAiChatModel model() {
        return OpenAiChatModel.builder()
                .baseUrl("http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + server.getPort() + "/v1")
                .apiKey("test-key").modelName("gpt-4o-mini").maxRetries(0).build();
    }

    private void enqueueText(String text) {
        enqueue(JSON.createObjectNode().put("role", "assistant").put("content", text), "stop");
    }

    private void enqueueToolCall(String id, String name, String arguments) {
        ObjectNode message = JSON.createObjectNode().put("role", "assistant");
        message.putNull("content");
        ObjectNode call = message.putArray("tool_calls").addObject().put("id", id).put("type", "function");
        call.putObject("function").put("name", name).put("arguments", arguments);
        enqueue(message, "tool_calls");
    }

    private void enqueue(ObjectNode message, String finishReason) {
        ObjectNode body = JSON.createObjectNode().put("id", "chatcmpl-" + server.getRequestCount())
                .put("object", "chat.completion").put("created", 1_700_000_000L).put("model", "gpt-4o-mini");
        body.putArray("choices").addObject().put("index", 0).put("finish_reason", finishReason).set("message", message);
        body.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 5).put("total_tokens", 15);
        server.enqueue(new MockResponse().setHeader("Content-Type", "application/json").setBody(body.toString()));
    }

    /** The next request's messages, one "role: text" line each (tool calls and results spelled out). */
    private List<String> takeHistory() throws Exception {
        RecordedRequest request = server.takeRequest(10, TimeUnit.SECONDS);
        assertThat(request).as("a request reached the server").isNotNull();
        List<String> lines = new ArrayList<>();
        for (JsonNode message : JSON.readTree(request.getBody().readUtf8()).get("messages")) {
            String role = message.get("role").asText();
            if (role.equals("tool")) {
                lines.add("tool " + message.get("tool_call_id").asText() + ": " + message.get("content").asText());
            } else if (message.has("tool_calls")) {
                JsonNode call = message.get("tool_calls").get(0);
                lines.add(role + ": tool_calls[" + call.get("id").asText() + " " + call.get("function").get("name").asText()
                        + " " + call.get("function").get("arguments").asText() + "]");
            } else {
                lines.add(role + ": " + message.get("content").asText());
            }
        }
        return lines;
    }
}
