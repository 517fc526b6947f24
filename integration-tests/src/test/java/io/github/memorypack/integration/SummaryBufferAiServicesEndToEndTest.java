package io.github.memorypack.integration;

import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.Summary;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.TokenAccounting;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real LangChain4j AiServices and OpenAI client against two local OpenAI-compatible servers:
 * one for the chat model, one for the (separate, cheaper) summarizer model.
 */
class SummaryBufferAiServicesEndToEndTest {

    interface Assistant {
        @SystemMessage("You are a travel agent.")
        String chat(@MemoryId String session, @UserMessage String text);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MockWebServer chatServer = new MockWebServer();
    private final MockWebServer summarizerServer = new MockWebServer();
    private final List<JsonNode> chatRequests = new ArrayList<>();
    private final List<JsonNode> summarizerRequests = new ArrayList<>();

    private static Dispatcher answering(List<JsonNode> requests, String prefix, int promptTokens) {
        AtomicInteger count = new AtomicInteger();
        return new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                try {
                    synchronized (requests) {
                        requests.add(JSON.readTree(request.getBody().readUtf8()));
                    }
                } catch (IOException e) {
                    return new MockResponse().setResponseCode(400);
                }
                int n = count.incrementAndGet();
                String body = """
                        {"id":"r%d","object":"chat.completion","created":1,"model":"gpt-4o-mini",
                         "choices":[{"index":0,"message":{"role":"assistant","content":"%s %d"},"finish_reason":"stop"}],
                         "usage":{"prompt_tokens":%d,"completion_tokens":9,"total_tokens":%d}}"""
                        .formatted(n, prefix, n, promptTokens, promptTokens + 9);
                return new MockResponse().setHeader("Content-Type", "application/json").setBody(body);
            }
        };
    }

    @BeforeEach
    void start() throws IOException {
        chatServer.setDispatcher(answering(chatRequests, "Sure, noted. Reply", 150));
        summarizerServer.setDispatcher(answering(summarizerRequests,
                "Ana lives in Porto, travels by train, budget 1200 euros. Summary", 80));
        // the loopback address avoids a slow host-name lookup
        chatServer.start(InetAddress.getLoopbackAddress(), 0);
        summarizerServer.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws IOException {
        chatServer.shutdown();
        summarizerServer.shutdown();
    }

    private static OpenAiChatModel.OpenAiChatModelBuilder model(MockWebServer server) {
        return OpenAiChatModel.builder().baseUrl(server.url("/v1").toString()).apiKey("test-key")
                .modelName("gpt-4o-mini").maxRetries(0);
    }

    @Test
    void should_send_system_summary_and_recent_turns_to_chat_and_folded_turns_to_summarizer_when_used_by_ai_services() {
        // given
        SessionStore store = InMemorySessionStore.create();
        TokenAccounting accounting = TokenAccounting.create();
        OpenAiChatModel chatModel = model(chatServer).listeners(List.of(accounting.listener(Tokenizers.o200k()))).build();
        OpenAiChatModel summarizerModel = model(summarizerServer).build();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(chatModel)
                .chatMemoryProvider(SummaryBufferChatMemory.builder().chatMemoryStore(store)
                        .summarizer(Summarizer.llm(summarizerModel)).maxBufferTokens(60).tokenAccounting(accounting)
                        .provider())
                .build();
        List<String> questions = List.of(
                "My name is Ana and I live in Porto.",
                "I prefer trains over planes, and my budget is 1200 euros for the whole trip.",
                "Which cities in Spain can I reach by train from Porto in under ten hours?",
                "Please also suggest a quiet hotel near the station in each of those cities.",
                "What should I pack for a week in late October?");

        // when
        for (String question : questions) {
            assistant.chat("ana-1", question);
        }

        // then: the summarizer was asked to fold the oldest turns, with instructions and transcript
        assertThat(summarizerRequests).isNotEmpty();
        JsonNode firstFold = summarizerRequests.get(0).get("messages");
        assertThat(firstFold.get(0).get("role").asText()).isEqualTo("system");
        assertThat(firstFold.get(0).get("content").asText()).contains("Keep every name, fact, number");
        String folded = firstFold.get(1).get("content").asText();
        assertThat(folded).contains("User: My name is Ana and I live in Porto.", "Assistant: Sure, noted. Reply 1")
                .doesNotContain("What should I pack");

        // and the last chat request carries system, summary, then only recent turns and the new question
        JsonNode last = chatRequests.get(chatRequests.size() - 1).get("messages");
        assertThat(last.get(0).get("role").asText()).isEqualTo("system");
        assertThat(last.get(0).get("content").asText()).isEqualTo("You are a travel agent.");
        assertThat(last.get(1).get("role").asText()).isEqualTo("system");
        assertThat(last.get(1).get("content").asText()).startsWith(SummaryMessage.HEADER)
                .contains("Ana lives in Porto, travels by train, budget 1200 euros. Summary ");
        assertThat(last.get(2).get("role").asText()).isEqualTo("user");
        assertThat(last.get(last.size() - 1).get("content").asText()).isEqualTo(questions.get(4));
        for (int i = 2; i < last.size(); i++) {
            assertThat(last.get(i).get("content").asText()).doesNotContain("My name is Ana");
        }

        // and the ledger has the provider's usage next to our estimates, and the summarizer's calls
        TokenAccounting.Report report = accounting.report("ana-1");
        assertThat(report.requests()).isEqualTo(questions.size());
        assertThat(report.reportedPromptTokens()).isEqualTo(150L * questions.size());
        assertThat(report.estimatedPromptTokens()).isPositive();
        assertThat(report.summarizerCalls()).isEqualTo(summarizerRequests.size());
        assertThat(report.calibrationFactor()).isPositive();
    }
}
