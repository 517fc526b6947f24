package io.github.memorypack.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.replay.Strategy;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The AiServices example with the real {@link OpenAiChatModel} against a local OpenAI-compatible
 * server (testkit's {@link OpenAiTestServer} on okhttp MockWebServer), once per strategy: two travellers, one tool call.
 */
class AiServicesExampleTest {

    private static final String SYSTEM = "system: You are a friendly travel planner. Use the tools for arithmetic on money.";

    private OpenAiTestServer server;

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = new OpenAiTestServer();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, mode = EnumSource.Mode.EXCLUDE, names = {"WINDOW_RECALL", "SUMMARY_BUFFER_RECALL"})
    void should_keep_travellers_apart_and_run_the_tool_when_strategy_is_plugged_into_ai_services(Strategy strategy)
            throws Exception {
        // given
        OpenAiChatModel model = server.model();
        TravelAssistant assistant = AiServicesExample.assistant(model, strategy,
                FileSessionStore.of(dir), Tokenizers.o200k(), Summarizer.extractiveBuilder().build(),
                TokenAccounting.create());
        server.enqueueToolCall("call_1", "dailyBudget", "{\"totalEuros\":1200,\"days\":3}");
        server.enqueueText("That is 400 euros a day.");
        server.enqueueText("Hello Bruno!");
        server.enqueueText("You are Ana.");

        // when
        String first = assistant.chat("ana", "Hi, I'm Ana. I have 1200 euros for 3 days. Daily budget?");
        String second = assistant.chat("bruno", "Hi, I'm Bruno.");
        String third = assistant.chat("ana", "What's my name?");

        // then
        assertThat(List.of(first, second, third)).containsExactly("That is 400 euros a day.", "Hello Bruno!", "You are Ana.");
        assertThat(server.takeHistory()).containsExactly(SYSTEM, "user: Hi, I'm Ana. I have 1200 euros for 3 days. Daily budget?");
        assertThat(server.takeHistory()).containsExactly(SYSTEM, "user: Hi, I'm Ana. I have 1200 euros for 3 days. Daily budget?",
                "assistant: tool_calls[call_1 dailyBudget {\"totalEuros\":1200,\"days\":3}]",
                "tool call_1: 400.00 euros per day");
        assertThat(server.takeHistory()).containsExactly(SYSTEM, "user: Hi, I'm Bruno.");
        List<String> anaAgain = server.takeHistory();
        assertThat(anaAgain.get(0)).isEqualTo(SYSTEM);
        assertThat(anaAgain.get(anaAgain.size() - 1)).isEqualTo("user: What's my name?");
        assertThat(String.join("\n", anaAgain)).contains("Ana").doesNotContain("Bruno");
        // Ana's only earlier turn is her newest: every strategy shows it verbatim (summary folds it later)
        assertThat(anaAgain).contains("tool call_1: 400.00 euros per day", "assistant: That is 400 euros a day.");
        assertThat(server.requestCount()).isEqualTo(4);
    }

    @Test
    void should_answer_through_the_readme_snippet_when_summary_buffer_is_plugged_in() throws Exception {
        // given
        OpenAiChatModel chatModel = server.model();
        OpenAiChatModel cheapModel = chatModel;
        Path folder = dir;
        server.enqueueText("400 euros a day.");

        // when: the README's example, verbatim
        TravelAssistant assistant = AiServices.builder(TravelAssistant.class)
                .chatModel(chatModel)
                .chatMemoryProvider(SummaryBufferChatMemory.builder()
                        .chatMemoryStore(FileSessionStore.of(folder)).summarizer(Summarizer.llm(cheapModel))
                        .maxBufferTokens(2_000).provider())              // or BufferChatMemory / WindowChatMemory / SummaryChatMemory
                .tools(new TravelTools())
                .build();
        String answer = assistant.chat("ana", "I have 1200 euros for 3 days. Daily budget?");

        // then
        assertThat(answer).isEqualTo("400 euros a day.");
        assertThat(server.takeHistory()).containsExactly(SYSTEM, "user: I have 1200 euros for 3 days. Daily budget?");
        assertThat(FileSessionStore.of(folder).getMessages("ana")).hasSize(3);
    }

}
