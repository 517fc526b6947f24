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
import io.github.memorypack.window.WindowChatMemory;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every strategy that exists (buffer, window, and LangChain4j's own window memory on this store as a
 * plain ChatMemoryStore) inside real AiServices with the real OpenAI client, against a mock HTTP
 * server, with the session living in Redis. Two application instances (two stores, two connection
 * pools) answer alternate turns of the same session.
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

    private MockWebServer openAi;
    private String prefix;
    private RedisSessionStore instanceA;
    private RedisSessionStore instanceB;

    @BeforeEach
    void setUp() throws IOException {
        openAi = new MockWebServer();
        openAi.start();
        prefix = TestRedis.freshPrefix();
        instanceA = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build();
        instanceB = RedisSessionStore.builder().uri(TestRedis.standaloneUri()).keyPrefix(prefix).build();
    }

    @AfterEach
    void tearDown() throws IOException {
        instanceA.close();
        instanceB.close();
        openAi.shutdown();
    }

    static Stream<Arguments> strategies() {
        Function<RedisSessionStore, ChatMemoryProvider> buffer =
                store -> id -> BufferChatMemory.builder().id(id).store(store).build();
        Function<RedisSessionStore, ChatMemoryProvider> window =
                store -> id -> WindowChatMemory.builder().id(id).store(store).maxTurns(1).build();
        Function<RedisSessionStore, ChatMemoryProvider> langchain4jWindow =
                store -> id -> MessageWindowChatMemory.builder().id(id).maxMessages(100).chatMemoryStore(store).build();
        return Stream.of(
                Arguments.of("buffer", buffer, true),
                Arguments.of("window (1 turn)", window, false),
                Arguments.of("LangChain4j MessageWindowChatMemory", langchain4jWindow, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_keep_the_whole_conversation_in_redis_when_instances_alternate_turns(
            String name, Function<RedisSessionStore, ChatMemoryProvider> strategy, boolean thirdTurnSeesFirstTurn)
            throws Exception {
        // given
        Assistant onA = assistant(strategy.apply(instanceA));
        Assistant onB = assistant(strategy.apply(instanceB));
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
        assertThat(openAi.takeRequest().getBody().readUtf8()).contains("Weather in Paris?")
                .contains("Which city did I ask about?");
        String thirdTurnRequest = openAi.takeRequest().getBody().readUtf8();
        assertThat(thirdTurnRequest).contains("Thanks!").contains("Which city did I ask about?")
                .contains("You are a weather bot.");
        assertThat(thirdTurnRequest.contains("Weather in Paris?")).as("third request shows turn 1")
                .isEqualTo(thirdTurnSeesFirstTurn);
        assertThat(instanceA.getMessages("chat-1")).extracting(ChatMessage::type).hasSize(9);
    }

    private Assistant assistant(ChatMemoryProvider memories) {
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(openAi.url("/v1").toString()).apiKey("test")
                .modelName("gpt-4o-mini").build();
        return AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(memories)
                .tools(new WeatherTools()).build();
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
