package io.github.memorypack.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.TokenUsage;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import io.github.memorypack.testkit.OpenAiTestServer.Reply;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiTestServerTest {

    private final OpenAiTestServer server = newServer();

    private static OpenAiTestServer newServer() {
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

    @Test
    void should_use_queued_replies_first_then_the_answerer_when_the_queue_is_empty() {
        // given
        server.enqueueText("queued");
        server.answerWith(request -> Reply.text("computed from " + request.lastLine()).withUsage(42, 3));

        // when
        ChatResponse first = server.model().chat(ChatRequest.builder().messages(UserMessage.from("one")).build());
        ChatResponse second = server.model().chat(ChatRequest.builder().messages(UserMessage.from("two")).build());

        // then
        assertThat(first.aiMessage().text()).isEqualTo("queued");
        assertUsage(first.tokenUsage(), 10, 5);
        assertThat(second.aiMessage().text()).isEqualTo("computed from user: two");
        assertUsage(second.tokenUsage(), 42, 3);
        List<Request> requests = server.requests();
        assertThat(requests).extracting(Request::number).containsExactly(1, 2);
        assertThat(requests.get(1).history()).containsExactly("user: two");
        assertThat(requests.get(1).streaming()).isFalse();
        assertThat(requests.get(1).reply().promptTokens()).isEqualTo(42);
    }

    @Test
    void should_fail_the_request_naming_it_when_nothing_is_queued_and_no_answerer_is_set() {
        assertThatThrownBy(() -> server.model().chat(ChatRequest.builder().messages(UserMessage.from("hi")).build()))
                .hasMessageContaining("no reply for request #1").hasMessageContaining("user: hi");
    }

    @Test
    void should_stream_text_and_tool_calls_with_usage_when_the_client_streams() throws Exception {
        // given
        server.enqueue(Reply.toolCalls(ToolExecutionRequest.builder().id("call_7").name("stock")
                .arguments("{\"item\":\"tea\"}").build()).withUsage(30, 4));
        server.enqueue(Reply.text("Twelve packs of tea."));
        ToolSpecification stock = ToolSpecification.builder().name("stock").description("stock of an item").build();

        // when
        Streamed call = stream(ChatRequest.builder().messages(UserMessage.from("tea?")).toolSpecifications(stock).build());
        Streamed text = stream(ChatRequest.builder().messages(UserMessage.from("so?")).build());

        // then
        assertThat(call.response.aiMessage().toolExecutionRequests()).containsExactly(ToolExecutionRequest.builder()
                .id("call_7").name("stock").arguments("{\"item\":\"tea\"}").build());
        assertUsage(call.response.tokenUsage(), 30, 4);
        assertThat(text.response.aiMessage().text()).isEqualTo("Twelve packs of tea.");
        assertThat(text.partials).hasSizeGreaterThan(1);
        assertThat(String.join("", text.partials)).isEqualTo("Twelve packs of tea.");
        assertUsage(text.response.tokenUsage(), 10, 5);
        assertThat(server.requests()).allMatch(Request::streaming);
    }

    interface Assistant {
        String chat(@MemoryId String session, @dev.langchain4j.service.UserMessage String text);
    }

    static final class Shop {
        @Tool("packs of an item in stock")
        int stock(String item) {
            return 12;
        }
    }

    @Test
    void should_run_the_readme_example() throws Exception {
        ChatMemoryProvider memories = id -> MessageWindowChatMemory.builder().id(id).maxMessages(20).build();
        Shop shop = new Shop();
        List<Request> requests;
        List<String> first;
        // README example from here
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            server.enqueueToolCall("call_1", "stock", "{\"item\":\"tea\"}");   // queued replies are used first, in order
            server.enqueueText("12 packs.");
            server.answerWith(request -> request.lastLine().startsWith("tool ")   // then every request is answered
                    ? Reply.text("Done.") : Reply.text("Hello.").withUsage(120, 7));  // from what it carries
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())  // or streamingModel()
                    .chatMemoryProvider(memories).tools(shop).build();
            assistant.chat("s1", "Is tea in stock?");
            assistant.chat("s1", "Hi!");
            requests = server.requests();   // every request: number(), history() as lines, streaming(), reply()
            first = server.takeHistory();   // or one request's history at a time, in order
        }
        // README example until here
        assertThat(requests).hasSize(3);
        assertThat(requests.get(1).history()).containsExactly("user: Is tea in stock?",
                "assistant: tool_calls[call_1 stock {\"item\":\"tea\"}]", "tool call_1: 12");
        assertThat(requests.get(2).reply().text()).isEqualTo("Hello.");
        assertThat(first).containsExactly("user: Is tea in stock?");
    }

    private static void assertUsage(TokenUsage usage, int input, int output) {
        assertThat(usage.inputTokenCount()).isEqualTo(input);
        assertThat(usage.outputTokenCount()).isEqualTo(output);
    }

    private Streamed stream(ChatRequest request) throws Exception {
        List<String> partials = new CopyOnWriteArrayList<>();
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        server.streamingModel().chat(request, new StreamingChatResponseHandler() {
            @Override
            public void onPartialResponse(String partialResponse) {
                partials.add(partialResponse);
            }

            @Override
            public void onCompleteResponse(ChatResponse completeResponse) {
                done.complete(completeResponse);
            }

            @Override
            public void onError(Throwable error) {
                done.completeExceptionally(error);
            }
        });
        return new Streamed(partials, done.get(10, TimeUnit.SECONDS));
    }

    private record Streamed(List<String> partials, ChatResponse response) {
    }
}
