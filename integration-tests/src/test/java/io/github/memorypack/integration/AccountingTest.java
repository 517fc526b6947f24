package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.memorymd.MemoryMdChatMemory;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 16: token accounting for every strategy, blocking and streaming, through the real
 * {@code AiServices}: the ledger's reported totals equal what the test server reported, request by
 * request, and every request is charged to its session.
 */
class AccountingTest extends ShopTestBase {

    static Stream<Arguments> strategies() {
        return Stream.of(
                Arguments.of("buffer", (Provider) (s, a) -> BufferChatMemory.builder().chatMemoryStore(s)
                        .tokenAccounting(a).provider()),
                Arguments.of("window", (Provider) (s, a) -> WindowChatMemory.builder().chatMemoryStore(s)
                        .maxMessages(8).tokenAccounting(a).provider()),
                Arguments.of("window tokens", (Provider) (s, a) -> WindowChatMemory.builder().chatMemoryStore(s)
                        .maxTokens(100).calibrateWith(a).provider()),
                Arguments.of("summary", (Provider) (s, a) -> SummaryChatMemory.builder().chatMemoryStore(s)
                        .summarizer(Summarizer.extractive()).tokenAccounting(a).provider()),
                Arguments.of("summary-buffer", (Provider) (s, a) -> SummaryBufferChatMemory.builder()
                        .chatMemoryStore(s).summarizer(Summarizer.extractive()).maxBufferTokens(80)
                        .tokenAccounting(a).provider()),
                Arguments.of("memory-md", (Provider) (s, a) -> MemoryMdChatMemory.builder().chatMemoryStore(s)
                        .tokenAccounting(a).provider()));
    }

    interface Provider {
        ChatMemoryProvider of(SessionStore store, TokenAccounting accounting);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_match_the_servers_usage_for_every_blocking_request_when_accounting_is_on(String name, Provider provider) {
        // given: the warm-up has tool turns; the server reports a different usage for every request
        open(StoreKind.IN_MEMORY);
        server.answerWith(request -> new Shop.Brain().apply(request).withUsage(100 + request.number(), 7));
        TokenAccounting accounting = TokenAccounting.create();
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUrl()).apiKey("test-key")
                .modelName("gpt-4o-mini").maxRetries(0).listeners(List.of(accounting.listener(Tokenizers.o200k())))
                .build();
        Shop.Assistant assistant = AiServices.builder(Shop.Assistant.class).chatModel(model)
                .chatMemoryProvider(provider.of(store, accounting)).tools(tools).maxToolCallingRoundTrips(10).build();

        // when
        Shop.warmUp(assistant, SESSION);
        Shop.warmUp(assistant, "shop-2");

        // then
        assertMatchesServer(accounting);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_match_the_servers_usage_for_every_streaming_request_when_streams_start_on_other_threads(
            String name, Provider provider) throws Exception {
        // given
        open(StoreKind.IN_MEMORY);
        server.answerWith(request -> new Shop.Brain().apply(request).withUsage(100 + request.number(), 7));
        TokenAccounting accounting = TokenAccounting.create();
        OpenAiStreamingChatModel model = OpenAiStreamingChatModel.builder().baseUrl(server.baseUrl()).apiKey("test-key")
                .modelName("gpt-4o-mini").listeners(List.of(accounting.listener(Tokenizers.o200k()))).build();
        Shop.StreamingAssistant assistant = AiServices.builder(Shop.StreamingAssistant.class).streamingChatModel(model)
                .chatMemoryProvider(provider.of(store, accounting)).tools(tools).maxToolCallingRoundTrips(10)
                .registerListeners(RequestScope.aiServiceListeners()).build();

        // when: every stream is started on another thread, as reactive and async callers do
        for (String session : List.of(SESSION, "shop-2")) {
            for (String text : Shop.WARM_UP) {
                CompletableFuture<ChatResponse> done = new CompletableFuture<>();
                TokenStream stream = assistant.chat(session, text).onCompleteResponse(done::complete)
                        .onError(done::completeExceptionally);
                Thread starter = new Thread(stream::start);
                starter.start();
                done.get(10, TimeUnit.SECONDS);
                starter.join();
            }
        }

        // then
        assertMatchesServer(accounting);
    }

    private void assertMatchesServer(TokenAccounting accounting) {
        List<OpenAiTestServer.Request> requests = server.requests();
        long reportedByServer = requests.stream().mapToLong(r -> r.reply().promptTokens()).sum();
        TokenAccounting.Report one = accounting.report(SESSION);
        TokenAccounting.Report two = accounting.report("shop-2");
        assertThat(accounting.unattributedRequests()).as("requests not charged to a session").isZero();
        assertThat(one.requests() + two.requests()).as("requests counted").isEqualTo(requests.size());
        assertThat(one.reportedRequests() + two.reportedRequests()).isEqualTo(requests.size());
        assertThat(one.reportedPromptTokens() + two.reportedPromptTokens()).as("reported prompt tokens")
                .isEqualTo(reportedByServer);
        assertThat(one.reportedOutputTokens() + two.reportedOutputTokens()).isEqualTo(7L * requests.size());
        assertThat(accounting.reportsByStrategy()).hasSize(1);
    }
}
