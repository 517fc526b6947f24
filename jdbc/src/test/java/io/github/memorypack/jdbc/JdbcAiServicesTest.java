package io.github.memorypack.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every strategy inside real {@code AiServices} with the real OpenAI client against local
 * OpenAI-compatible servers (one for the chat model, one for the summarizer's model), with the
 * session in PostgreSQL. Two application instances (two stores on two connection pools) answer
 * alternate turns of the same session, one of them with a tool call.
 */
class JdbcAiServicesTest {

    interface Assistant {
        @SystemMessage("You are a weather bot.")
        String chat(@MemoryId String sessionId, @UserMessage String text);
    }

    static final class WeatherTools {
        @Tool("current weather in a city")
        String weather(String city) {
            return "sunny in " + city;
        }
    }

    static final String SUMMARY_TEXT = "The user asked about the weather in Paris; it is sunny.";

    private final String prefix = TestPostgres.freshPrefix();
    private OpenAiTestServer openAi;
    private OpenAiTestServer summaryModel;
    private HikariDataSource poolA;
    private HikariDataSource poolB;
    private JdbcSessionStore instanceA;
    private JdbcSessionStore instanceB;

    @BeforeEach
    void setUp() throws Exception {
        openAi = new OpenAiTestServer();
        summaryModel = new OpenAiTestServer();
        for (int i = 0; i < 10; i++) {
            summaryModel.enqueueText(SUMMARY_TEXT);
        }
        poolA = TestPostgres.pool(2);
        poolB = TestPostgres.pool(2);
        instanceA = JdbcSessionStore.builder(poolA).tablePrefix(prefix).build();
        instanceA.createSchema();
        instanceB = JdbcSessionStore.builder(poolB).tablePrefix(prefix).build();
    }

    @AfterEach
    void tearDown() throws Exception {
        TestPostgres.dropTables(poolA, prefix);
        poolA.close();
        poolB.close();
        openAi.close();
        summaryModel.close();
    }

    /** A strategy: (store, summarizer) -> memory provider. */
    interface Strategy extends BiFunction<JdbcSessionStore, Summarizer, ChatMemoryProvider> {
    }

    @Test
    void should_keep_the_whole_conversation_in_postgres_when_buffer_memory_alternates_instances() throws Exception {
        Strategy buffer = (store, summarizer) -> id -> BufferChatMemory.builder().id(id).chatMemoryStore(store).build();

        converse(buffer, true, true, false);
    }

    @Test
    void should_keep_the_whole_conversation_in_postgres_when_window_memory_alternates_instances() throws Exception {
        Strategy window = (store, summarizer) -> id -> WindowChatMemory.builder().id(id).chatMemoryStore(store).maxTurns(1)
                .build();

        converse(window, false, true, false);
    }

    @Test
    void should_keep_the_whole_conversation_in_postgres_when_summary_memory_alternates_instances() throws Exception {
        Strategy summary = (store, summarizer) -> id -> SummaryChatMemory.builder().id(id).chatMemoryStore(store)
                .summarizer(summarizer).build();

        converse(summary, false, true, true); // every turn but the newest is folded
    }

    @Test
    void should_keep_the_whole_conversation_in_postgres_when_summary_buffer_memory_alternates_instances()
            throws Exception {
        Strategy summaryBuffer = (store, summarizer) -> SummaryBufferChatMemory.builder().chatMemoryStore(store)
                .summarizer(summarizer).maxBufferTokens(50).provider();

        converse(summaryBuffer, false, true, true);
    }

    /** Three turns (the first with a tool call) on alternating instances; checks the log and the third request. */
    private void converse(Strategy strategy, boolean showsTurn1, boolean showsTurn2, boolean summarizes)
            throws Exception {
        // given
        Summarizer summarizer = Summarizer.llm(summaryModel.model());
        Assistant onA = assistant(strategy.apply(instanceA, summarizer));
        Assistant onB = assistant(strategy.apply(instanceB, summarizer));
        openAi.enqueueToolCall("call_1", "weather", "{\"city\":\"Paris\"}");
        openAi.enqueueText("It is sunny in Paris.");
        openAi.enqueueText("You asked about Paris.");
        openAi.enqueueText("You are welcome.");

        // when
        String first = onA.chat("chat-1", "Weather in Paris?");
        String second = onB.chat("chat-1", "Which city did I ask about?");
        String third = onA.chat("chat-1", "Thanks!");

        // then: the answers, and the whole conversation in the database, in order, tool turn included
        assertThat(List.of(first, second, third))
                .containsExactly("It is sunny in Paris.", "You asked about Paris.", "You are welcome.");
        List<Entry> log = instanceB.read("chat-1", 0, 100);
        assertThat(log).extracting(e -> e.message().type()).containsExactly(
                ChatMessageType.SYSTEM, ChatMessageType.USER, ChatMessageType.AI, ChatMessageType.TOOL_EXECUTION_RESULT,
                ChatMessageType.AI, ChatMessageType.USER, ChatMessageType.AI, ChatMessageType.USER, ChatMessageType.AI);
        assertThat(log).extracting(Entry::index).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(((ToolExecutionResultMessage) log.get(3).message()).text()).isEqualTo("sunny in Paris");

        assertThat(openAi.takeHistory()).contains("user: Weather in Paris?");
        assertThat(openAi.takeHistory()).contains("tool call_1: sunny in Paris");
        assertThat(openAi.takeHistory()).contains("user: Which city did I ask about?");
        List<String> thirdRequest = openAi.takeHistory();
        assertThat(thirdRequest).startsWith("system: You are a weather bot.").endsWith("user: Thanks!");
        assertThat(thirdRequest.contains("user: Weather in Paris?")).as("third request shows turn 1").isEqualTo(showsTurn1);
        assertThat(thirdRequest.contains("user: Which city did I ask about?")).as("third request shows turn 2")
                .isEqualTo(showsTurn2);
        assertThat(String.join("\n", thirdRequest).contains(SUMMARY_TEXT)).as("third request shows the summary")
                .isEqualTo(summarizes);
        assertThat(instanceA.state("chat-1").summary().map(Summary::text)).as("summary stored in PostgreSQL")
                .isEqualTo(summarizes ? Optional.of(SUMMARY_TEXT) : Optional.empty());
    }

    private Assistant assistant(ChatMemoryProvider memories) {
        return AiServices.builder(Assistant.class).chatModel(openAi.model()).chatMemoryProvider(memories)
                .tools(new WeatherTools()).build();
    }
}
