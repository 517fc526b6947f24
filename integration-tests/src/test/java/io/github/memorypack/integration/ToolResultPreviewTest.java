package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 16: cost rules apply to closed turns. {@code AiServices} reads the view before it adds the
 * new user message, so a large tool result must be sent in full to the request that calls the tool
 * and to its follow-up, and as a preview from the next user request on — not once more in full.
 */
class ToolResultPreviewTest {

    private static final String LOG = "weather station log: " + "2026-11-30 rain 12mm wind 30kmh; ".repeat(400);

    interface Forecaster {
        String chat(@MemoryId String session, @UserMessage String text);
    }

    static final class Station {
        @Tool("The weather station's full log")
        String weatherLog() {
            return LOG;
        }
    }

    private final OpenAiTestServer server = server();

    private static OpenAiTestServer server() {
        try {
            return new OpenAiTestServer();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void close() throws Exception {
        server.close();
    }

    static Stream<Arguments> memories() {
        return Stream.of(
                Arguments.of("buffer", (Supplier<ChatMemoryProvider>) () -> BufferChatMemory.builder()
                        .chatMemoryStore(InMemorySessionStore.create()).toolResultPreviews(500).provider()),
                Arguments.of("window", (Supplier<ChatMemoryProvider>) () -> WindowChatMemory.builder()
                        .chatMemoryStore(InMemorySessionStore.create()).maxMessages(20).toolResultPreviews(500)
                        .provider()),
                Arguments.of("summary-buffer", (Supplier<ChatMemoryProvider>) () -> SummaryBufferChatMemory.builder()
                        .chatMemoryStore(InMemorySessionStore.create()).summarizer(Summarizer.extractive())
                        .maxBufferTokens(100_000).toolResultPreviews(500).provider()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("memories")
    void should_send_a_large_tool_result_in_full_only_to_the_requests_of_its_own_turn(String name,
                                                                                   Supplier<ChatMemoryProvider> memories) {
        // given
        Forecaster forecaster = AiServices.builder(Forecaster.class).chatModel(server.model())
                .chatMemoryProvider(memories.get()).tools(new Station()).build();
        server.enqueueToolCall("call_1", "weatherLog", "{}");
        server.enqueueText("It rained 12 mm.");
        server.enqueueText("You are welcome.");
        server.enqueueText("Sunny tomorrow.");

        // when
        forecaster.chat("s", "How much rain fell?");
        forecaster.chat("s", "Thanks!");
        forecaster.chat("s", "And tomorrow?");

        // then
        List<OpenAiTestServer.Request> requests = server.requests();
        assertThat(requests).hasSize(4);
        String full = "tool call_1: " + LOG;
        assertThat(requests.get(1).history()).as("the follow-up that answers with the result").contains(full);
        for (OpenAiTestServer.Request later : requests.subList(2, 4)) {
            assertThat(later.history()).as("request %d", later.number()).doesNotContain(full)
                    .anySatisfy(line -> assertThat(line).startsWith("tool call_1: weather station log")
                            .contains("shortened to a preview"));
        }
    }
}
