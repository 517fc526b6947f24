package io.github.memorypack.integration;

import io.github.memorypack.window.WindowChatMemory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The memories inside real LangChain4j {@code AiServices} with the real OpenAI client, against a
 * local OpenAI-compatible server: two sessions via {@code @MemoryId} and one {@code @Tool}. Each
 * request's history is asserted exactly.
 */
class WindowAiServicesEndToEndTest {

    interface Assistant {
        @SystemMessage("You are a tea shop assistant.")
        String chat(@MemoryId String session, @UserMessage String message);
    }

    static final class Shop {
        final List<String> asked = new ArrayList<>();

        @Tool("How many packs of an item are in stock")
        int stock(String item) {
            asked.add(item);
            return 12;
        }
    }

    private static final String SYSTEM = "system: You are a tea shop assistant.";
    private static final String TOOL_CALL = "assistant: tool_calls[call_1 stock {\"item\":\"tea\"}]";

    private final InMemorySessionStore store = InMemorySessionStore.create();
    private final Shop shop = new Shop();
    private OpenAiTestServer server;

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    @Test
    void should_send_exact_window_history_per_session_when_assistant_calls_a_tool() throws Exception {
        // given
        List<List<String>> requests = converse(WindowChatMemory.builder().chatMemoryStore(store).maxTurns(1).provider());

        // then
        assertThat(requests.get(0)).containsExactly(SYSTEM, "user: Is tea in stock?");
        assertThat(requests.get(1)).containsExactly(SYSTEM, "user: Is tea in stock?", TOOL_CALL, "tool call_1: 12");
        assertThat(requests.get(2)).containsExactly(SYSTEM, "user: Hi, I am Bo.");
        assertThat(requests.get(3)).containsExactly(SYSTEM, "user: Is tea in stock?", TOOL_CALL, "tool call_1: 12",
                "assistant: Yes, 12 packs.", "user: Great, thanks.");
        // AiServices reads the window (one turn) and then adds the new user message: the oldest turn of
        // session a, with its tool call, is cut whole
        assertThat(requests.get(4)).containsExactly(SYSTEM, "user: Great, thanks.", "assistant: You are welcome.",
                "user: Bye.");
        // the store still holds all of session a: the system message once, then 8 conversation messages
        assertThat(store.getMessages("a")).hasSize(9).first().isEqualTo(
                dev.langchain4j.data.message.SystemMessage.from("You are a tea shop assistant."));
    }

    @Test
    void should_send_exact_full_history_per_session_when_buffer_backs_the_assistant() throws Exception {
        // given
        List<List<String>> requests = converse(BufferChatMemory.builder().chatMemoryStore(store).provider());

        // then
        assertThat(requests.get(0)).containsExactly(SYSTEM, "user: Is tea in stock?");
        assertThat(requests.get(1)).containsExactly(SYSTEM, "user: Is tea in stock?", TOOL_CALL, "tool call_1: 12");
        assertThat(requests.get(2)).containsExactly(SYSTEM, "user: Hi, I am Bo.");
        assertThat(requests.get(4)).containsExactly(SYSTEM, "user: Is tea in stock?", TOOL_CALL, "tool call_1: 12",
                "assistant: Yes, 12 packs.", "user: Great, thanks.", "assistant: You are welcome.", "user: Bye.");
        assertThat(store.getMessages("b")).hasSize(3);
    }

    /** Session a asks about stock (one tool call), session b says hello, session a goes on twice. */
    private List<List<String>> converse(ChatMemoryProvider memories) throws Exception {
        server = new OpenAiTestServer();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(memories).tools(shop).build();
        server.enqueueToolCall("call_1", "stock", "{\"item\":\"tea\"}");
        server.enqueueText("Yes, 12 packs.");
        server.enqueueText("Hello Bo.");
        server.enqueueText("You are welcome.");
        server.enqueueText("Goodbye.");

        assertThat(assistant.chat("a", "Is tea in stock?")).isEqualTo("Yes, 12 packs.");
        assertThat(assistant.chat("b", "Hi, I am Bo.")).isEqualTo("Hello Bo.");
        assertThat(assistant.chat("a", "Great, thanks.")).isEqualTo("You are welcome.");
        assertThat(assistant.chat("a", "Bye.")).isEqualTo("Goodbye.");

        List<List<String>> requests = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            List<String> history = server.takeHistory();
            assertEveryToolMessageFollowsItsCall(history);
            requests.add(history);
        }
        assertThat(server.requestCount()).isEqualTo(5);
        assertThat(shop.asked).containsExactly("tea");
        return requests;
    }

    private static void assertEveryToolMessageFollowsItsCall(List<String> history) {
        for (int i = 0; i < history.size(); i++) {
            if (history.get(i).startsWith("tool ")) {
                String id = history.get(i).substring(5, history.get(i).indexOf(':'));
                int call = i - 1;
                while (history.get(call).startsWith("tool ")) {
                    call--;
                }
                assertThat(history.get(call)).startsWith("assistant: tool_calls[").contains(id + " ");
            }
        }
    }
}
