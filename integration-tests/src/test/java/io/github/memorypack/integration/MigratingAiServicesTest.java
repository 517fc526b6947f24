package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.SystemMessage;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.V;
import dev.langchain4j.service.memory.ChatMemoryAccess;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Reply;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A user migrating from LangChain4j 1.19's {@link MessageWindowChatMemory} to ours behind real
 * {@code AiServices} and the real OpenAI client: each conversation runs once on LangChain4j's
 * window and once on ours (window and buffer), and the requests the model gets are compared.
 */
class MigratingAiServicesTest {

    interface Assistant extends ChatMemoryAccess {
        @SystemMessage("You are a {{mood}} tea shop assistant.")
        String chat(@MemoryId String session, @UserMessage String message, @V("mood") String mood);

        @SystemMessage("You are a tea shop assistant.")
        @UserMessage("Tell me about {{item}}, please.")
        Result<String> about(@MemoryId String session, @V("item") String item);
    }

    interface Single {
        @SystemMessage("You are a tea shop assistant.")
        String chat(String message);
    }

    static final class Shop {
        final List<String> asked = new ArrayList<>();

        @Tool("How many packs of an item are in stock")
        int stock(String item) {
            asked.add(item);
            if (item.equals("mate")) {
                throw new IllegalStateException("mate is not sold here");
            }
            return item.length();
        }
    }

    private static final ToolExecutionRequest TEA = call("call_a", "tea");
    private static final ToolExecutionRequest COFFEE = call("call_b", "coffee");
    private static final ToolExecutionRequest MATE = call("call_c", "mate");

    private static ToolExecutionRequest call(String id, String item) {
        return ToolExecutionRequest.builder().id(id).name("stock").arguments("{\"item\":\"" + item + "\"}").build();
    }

    private static List<Supplier<ChatMemoryProvider>> ours() {
        return List.of(() -> WindowChatMemory.builder().chatMemoryStore(InMemorySessionStore.create()).maxMessages(100).provider(),
                () -> BufferChatMemory.builder().chatMemoryStore(InMemorySessionStore.create()).provider());
    }

    private static ChatMemoryProvider theirs() {
        return id -> MessageWindowChatMemory.builder().id(id).maxMessages(100).build();
    }

    /** Runs {@code conversation} against a fresh server and returns every request's history. */
    private static List<List<String>> requests(ChatMemoryProvider memories, List<Reply> replies,
            Function<Assistant, Object> conversation) throws Exception {
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            replies.forEach(server::enqueue);
            server.answerWith(request -> Reply.text("fallback " + request.number()));
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())
                    .chatMemoryProvider(memories).tools(new Shop()).maxSequentialToolsInvocations(3).build();
            conversation.apply(assistant);
            return server.requests().stream().map(Request::history).toList();
        }
    }

    private static void assertSameAsLangChain4j(List<Reply> replies, Function<Assistant, Object> conversation) throws Exception {
        List<List<String>> expected = requests(theirs(), replies, conversation);
        for (Supplier<ChatMemoryProvider> ours : ours()) {
            assertThat(requests(ours.get(), replies, conversation)).isEqualTo(expected);
        }
    }

    @Test
    void should_send_what_langchain4j_sends_when_one_answer_calls_two_tools() throws Exception {
        assertSameAsLangChain4j(List.of(Reply.toolCalls(TEA, COFFEE), Reply.text("Both."), Reply.text("Bye.")), a -> {
            a.chat("s", "Tea and coffee?", "kind");
            return a.chat("s", "Thanks.", "kind");
        });
    }

    @Test
    void should_send_what_langchain4j_sends_when_a_tool_throws() throws Exception {
        assertSameAsLangChain4j(List.of(Reply.toolCalls(MATE, TEA), Reply.text("No mate."), Reply.text("Bye.")), a -> {
            a.chat("s", "Mate and tea?", "kind");
            return a.chat("s", "Thanks.", "kind");
        });
    }

    @Test
    void should_send_what_langchain4j_sends_when_the_method_returns_a_result_with_a_template() throws Exception {
        assertSameAsLangChain4j(List.of(Reply.toolCalls(TEA), Reply.text("Tea: 3."), Reply.text("Coffee.")), a -> {
            Result<String> tea = a.about("s", "tea");
            assertThat(tea.content()).isEqualTo("Tea: 3.");
            assertThat(tea.toolExecutions()).hasSize(1);
            return a.about("s", "coffee");
        });
    }

    @Test
    void should_send_what_langchain4j_sends_when_max_sequential_tool_invocations_is_exceeded() throws Exception {
        assertSameAsLangChain4j(List.of(Reply.toolCalls(TEA), Reply.toolCalls(COFFEE), Reply.toolCalls(TEA),
                Reply.toolCalls(COFFEE), Reply.text("Bye.")), a -> {
            assertThat(catchThrowable(() -> a.chat("s", "Stock?", "kind"))).isNotNull();
            return a.chat("s", "Never mind.", "kind");
        });
    }

    @Test
    void should_replace_the_system_message_first_when_the_system_template_changes_between_calls() throws Exception {
        for (Supplier<ChatMemoryProvider> ours : ours()) {
            List<List<String>> actual = requests(ours.get(), List.of(Reply.text("Hi."), Reply.text("Bye.")), a -> {
                a.chat("s", "Hello.", "kind");
                return a.chat("s", "Goodbye.", "grumpy");
            });
            assertThat(actual.get(1)).containsExactly("system: You are a grumpy tea shop assistant.", "user: Hello.",
                    "assistant: Hi.", "user: Goodbye.");
        }
    }

    @Test
    void should_evict_and_give_the_memory_back_when_the_application_uses_chat_memory_access() throws Exception {
        for (Supplier<ChatMemoryProvider> ours : ours()) {
            requests(ours.get(), List.of(Reply.text("Hi.")), a -> {
                a.chat("s", "Hello.", "kind");
                ChatMemory memory = a.getChatMemory("s");
                assertThat(memory.id()).isEqualTo("s");
                assertThat(memory.messages()).hasSize(3);
                assertThat(a.getChatMemory("unknown")).isNull();
                assertThat(a.evictChatMemory("s")).isTrue();
                assertThat(a.evictChatMemory("s")).isFalse();
                return null;
            });
        }
    }

    @Test
    void should_send_what_langchain4j_sends_when_a_provider_returns_one_memory_for_two_ids() throws Exception {
        ChatMemory theirs = MessageWindowChatMemory.withMaxMessages(100);
        Function<Assistant, Object> conversation = a -> {
            a.chat("a", "I am Ana.", "kind");
            a.chat("b", "I am Bo.", "kind");
            return a.chat("a", "Who am I?", "kind");
        };
        List<Reply> replies = List.of(Reply.text("Hi Ana."), Reply.text("Hi Bo."), Reply.text("Ana or Bo."));
        List<List<String>> expected = requests(id -> theirs, replies, conversation);
        ChatMemory window = WindowChatMemory.builder().chatMemoryStore(InMemorySessionStore.create()).maxMessages(100).build();
        assertThat(requests(id -> window, replies, conversation)).isEqualTo(expected);
        ChatMemory buffer = BufferChatMemory.builder().chatMemoryStore(InMemorySessionStore.create()).build();
        assertThat(requests(id -> buffer, replies, conversation)).isEqualTo(expected);
    }

    @Test
    void should_send_what_langchain4j_sends_when_two_services_share_one_memory() throws Exception {
        List<ChatMemory> memories = List.of(MessageWindowChatMemory.withMaxMessages(100),
                WindowChatMemory.builder().chatMemoryStore(InMemorySessionStore.create()).maxMessages(100).build(),
                BufferChatMemory.builder().chatMemoryStore(InMemorySessionStore.create()).build());
        List<List<List<String>>> all = new ArrayList<>();
        for (ChatMemory memory : memories) {
            try (OpenAiTestServer server = new OpenAiTestServer()) {
                server.enqueue(Reply.toolCalls(TEA));
                server.answerWith(request -> Reply.text("answer " + request.number()));
                Single first = AiServices.builder(Single.class).chatModel(server.model()).chatMemory(memory).tools(new Shop()).build();
                Single second = AiServices.builder(Single.class).chatModel(server.model()).chatMemory(memory).build();
                first.chat("Tea?");
                second.chat("And you?");
                first.chat("Bye.");
                all.add(server.requests().stream().map(Request::history).toList());
            }
        }
        assertThat(all.get(1)).isEqualTo(all.get(0));
        assertThat(all.get(2)).isEqualTo(all.get(0));
    }

    @Test
    void should_behave_as_langchain4j_when_the_user_text_is_empty() throws Exception {
        List<Object> outcomes = new ArrayList<>();
        List<ChatMemoryProvider> providers = new ArrayList<>();
        providers.add(theirs());
        ours().forEach(s -> providers.add(s.get()));
        for (ChatMemoryProvider provider : providers) {
            List<List<String>> requests = requests(provider, List.of(Reply.text("Hm?"), Reply.text("Ok.")), a -> {
                Throwable thrown = catchThrowable(() -> a.chat("s", "", "kind"));
                outcomes.add(thrown == null ? "ok" : thrown.getClass().getName());
                return a.chat("s", "Tea.", "kind");
            });
            outcomes.add(requests);
        }
        assertThat(outcomes.subList(2, 4)).isEqualTo(outcomes.subList(0, 2));
        assertThat(outcomes.subList(4, 6)).isEqualTo(outcomes.subList(0, 2));
    }
}
