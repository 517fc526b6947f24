package io.github.memorypack.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import java.io.IOException;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every strategy (buffer, window, summary, summary-buffer, and LangChain4j's own window memory on
 * this store as a plain ChatMemoryStore) inside real AiServices with the real OpenAI client, against
 * mock HTTP servers (one for the chat model, one for the summarizer's model), with the session
 * living in Redis. Two application instances (two stores, two connection pools) answer alternate
 * turns of the same session.
 */
class RedisAiServicesTest {

    interface Assistant {
        @dev.langchain4j.service.SystemMessage("You are a weather bot.")
        String chat(@MemoryId String sessionId, @UserMessage String text);
    }

    static final class WeatherTools {
        @Tool("current weather in a city")
        String weather(String city) {
            return "sunny in " + city;
        }
    }

    static final String SUMMARY_TEXT = "The user asked about the weather in Paris; it is sunny.";

    private MockWebServer openAi;
    private MockWebServer summaryModel;
    private String prefix;
    private RedisSessionStore instanceA;
    private RedisSessionStore instanceB;

    @BeforeEach
    void setUp() throws IOException {
        openAi = new MockWebServer();
        openAi.start();
        summaryModel = new MockWebServer();
        summaryModel.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return answer(SUMMARY_TEXT);
            }
        });
        summaryModel.start();
        prefix = TestRedis.freshPrefix();
        instanceA = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build();
        instanceB = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build();
    }

    @AfterEach
    void tearDown() throws IOException {
        instanceA.close();
        instanceB.close();
        openAi.shutdown();
        summaryModel.shutdown();
    }

    /** A strategy: (store, summarizer) -> memory provider. */
    interface Strategy extends BiFunction<RedisSessionStore, Summarizer, ChatMemoryProvider> {
    }

    static Stream<Arguments> strategies() {
        Strategy buffer = (store, summarizer) -> id -> BufferChatMemory.builder().id(id).chatMemoryStore(store).build();
        Strategy window = (store, summarizer) -> id -> WindowChatMemory.builder().id(id).chatMemoryStore(store).maxTurns(1)
                .build();
        Strategy summary = (store, summarizer) -> id -> SummaryChatMemory.builder().id(id).chatMemoryStore(store)
                .summarizer(summarizer).build();
        Strategy summaryBuffer = (store, summarizer) -> SummaryBufferChatMemory.builder().chatMemoryStore(store)
                .summarizer(summarizer).maxBufferTokens(50).provider();
        Strategy langchain4jWindow = (store, summarizer) -> id -> MessageWindowChatMemory.builder().id(id)
                .maxMessages(100).chatMemoryStore(store).build();
        // name, strategy; does the third request show turn 1 verbatim, turn 2 verbatim, the summary
        return Stream.of(
                Arguments.of("buffer", buffer, true, true, false),
                Arguments.of("window (1 turn)", window, false, true, false),
                Arguments.of("summary (folds every turn but the newest)", summary, false, true, true),
                Arguments.of("summary-buffer (50 tokens)", summaryBuffer, false, true, true),
                Arguments.of("LangChain4j MessageWindowChatMemory", langchain4jWindow, true, true, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_keep_the_whole_conversation_in_redis_when_instances_alternate_turns(
            String name, Strategy strategy, boolean showsTurn1, boolean showsTurn2, boolean summarizes) throws Exception {
        // given
        Summarizer summarizer = Summarizer.llm(model(summaryModel));
        Assistant onA = assistant(strategy.apply(instanceA, summarizer));
        Assistant onB = assistant(strategy.apply(instanceB, summarizer));
        openAi.enqueue(toolCall("call_1", "weather", "{\\\"city\\\":\\\"Paris\\\"}"));
        openAi.enqueue(answer("It is sunny in Paris."));
        openAi.enqueue(answer("You asked about Paris."));
        openAi.enqueue(answer("You are welcome."));

        // when
        String first = onA.chat("chat-1", "Weather in Paris?");
        String second = onB.chat("chat-1", "Which city did I ask about?");
        String third = onA.chat("chat-1", "Thanks!");

        // then
        assertThat(first).isEqualTo("It is sunny in Paris.");
        assertThat(second).isEqualTo("You asked about Paris.");
        assertThat(third).isEqualTo("You are welcome.");
        List<Entry> log = instanceB.read("chat-1", 0, 100);
        assertThat(log).extracting(e -> e.message().type()).containsExactly(
                ChatMessageType.SYSTEM, ChatMessageType.USER, ChatMessageType.AI, ChatMessageType.TOOL_EXECUTION_RESULT,
                ChatMessageType.AI, ChatMessageType.USER, ChatMessageType.AI, ChatMessageType.USER, ChatMessageType.AI);
        assertThat(log).extracting(Entry::index).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(((ToolExecutionResultMessage) log.get(3).message()).text()).isEqualTo("sunny in Paris");
        assertThat(((AiMessage) log.get(2).message()).toolExecutionRequests()).hasSize(1);
        assertThat(log.get(0).message()).isEqualTo(SystemMessage.from("You are a weather bot."));

        openAi.takeRequest(); // tool call
        RecordedRequest toolResultRequest = openAi.takeRequest();
        assertThat(toolResultRequest.getBody().readUtf8()).contains("sunny in Paris").contains("call_1");
        assertThat(openAi.takeRequest().getBody().readUtf8()).contains("Which city did I ask about?");
        String thirdTurnRequest = openAi.takeRequest().getBody().readUtf8();
        assertThat(thirdTurnRequest).contains("Thanks!").contains("You are a weather bot.");
        assertThat(thirdTurnRequest.contains("Weather in Paris?")).as("third request shows turn 1").isEqualTo(showsTurn1);
        assertThat(thirdTurnRequest.contains("Which city did I ask about?")).as("third request shows turn 2")
                .isEqualTo(showsTurn2);
        assertThat(thirdTurnRequest.contains(SUMMARY_TEXT)).as("third request shows the summary").isEqualTo(summarizes);
        assertThat(instanceA.state("chat-1").summary().map(Summary::text)).as("summary stored in Redis")
                .isEqualTo(summarizes ? java.util.Optional.of(SUMMARY_TEXT) : java.util.Optional.empty());
        assertThat(instanceA.getMessages("chat-1")).extracting(ChatMessage::type).hasSize(9);
    }

    private Assistant assistant(ChatMemoryProvider memories) {
        return AiServices.builder(Assistant.class).chatModel(model(openAi)).chatMemoryProvider(memories)
                .tools(new WeatherTools()).build();
    }

    private static OpenAiChatModel model(MockWebServer server) {
        return OpenAiChatModel.builder().baseUrl(server.url("/v1").toString()).apiKey("test")
                .modelName("gpt-4o-mini").build();
    }

    private static MockResponse answer(String text) {
        return json("{\"id\":\"r\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text + "\"},"
                + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":5,"
                + "\"total_tokens\":25}}");
    }

    private static MockResponse toolCall(String id, String tool, String escapedArguments) {
        return json("{\"id\":\"r\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
                + "{\"id\":\"" + id + "\",\"type\":\"function\",\"function\":{\"name\":\"" + tool
                + "\",\"arguments\":\"" + escapedArguments + "\"}}]},\"finish_reason\":\"tool_calls\"}],"
                + "\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":5,\"total_tokens\":25}}");
    }

    private static MockResponse json(String body) {
        return new MockResponse().setHeader("Content-Type", "application/json").setBody(body);
    }
}
