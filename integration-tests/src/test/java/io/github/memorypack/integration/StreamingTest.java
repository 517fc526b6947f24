package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static io.github.memorypack.integration.PathAssertions.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Streaming ({@link TokenStream} on the real {@code OpenAiStreamingChatModel}): LangChain4j 1.19
 * reads the memory and adds the user message on the thread that calls the AI service method, sends
 * the first request on the thread that calls {@code start()}, and adds the AI message, runs the
 * tools, adds their results, reads the memory and sends the follow-up on the HTTP client's callback
 * threads. The request scope (idempotent retries) and token accounting must follow the request
 * onto those threads.
 */
class StreamingTest extends ShopTestBase {

    private final ExecutorService starter = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopStarter() {
        starter.shutdownNow();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_store_the_streamed_turn_once_and_send_the_new_tool_result_when_a_streamed_tool_turn_is_retried(
            Strategy strategy, StoreKind kind) throws Exception {
        retryStreamedToolTurn(strategy, kind, true);
    }

    /**
     * Without {@code RequestScope.aiServiceListeners()}: the messages the HTTP client's threads add belong
     * to the one turn running on the session in this process, with its request and attempt, so the
     * retried streamed turn still shows once, with the new attempt's answer.
     */
    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_show_one_answer_when_a_streamed_tool_turn_is_retried_without_the_listeners(Strategy strategy,
            StoreKind kind) throws Exception {
        retryStreamedToolTurn(strategy, kind, false);
    }

    private void retryStreamedToolTurn(Strategy strategy, StoreKind kind, boolean listeners) throws Exception {
        // given
        open(kind);
        ChatMemoryProvider memories = strategy.provider(store);
        Shop.StreamingAssistant assistant = listeners ? streamingAssistant(server.streamingModel(), memories)
                : AiServices.builder(Shop.StreamingAssistant.class).streamingChatModel(server.streamingModel())
                        .chatMemoryProvider(memories).tools(tools).maxToolCallingRoundTrips(10).build();
        stream(assistant, SESSION, Shop.ASK_TEA, Runnable::run);
        stream(assistant, SESSION, Shop.INTRODUCE, Runnable::run);
        int firstRequest = server.requestCount() + 1;
        String firstAnswer = RequestScope.call("streamed-1", () -> stream(assistant, SESSION, Shop.ASK_COFFEE, Runnable::run));
        List<Entry> afterFirst = log();
        int secondRequest = server.requestCount() + 1;

        // when
        String secondAnswer = RequestScope.call("streamed-1",
                () -> stream(assistant, SESSION, Shop.ASK_COFFEE, Runnable::run));

        // then
        // the HTTP client may complete a stream on the thread that started it when the response is
        // already there; the point is that the retried turn's tool ran on a callback thread
        String testThread = Thread.currentThread().getName();
        assumeTrue(!tools.stockThreads.get(tools.stockThreads.size() - 1).equals(testThread),
                "the second attempt's tool ran on the test thread: nothing to carry the request scope to");
        assertThat(requestsFrom(firstRequest).subList(0, secondRequest - firstRequest)).as("first attempt").hasSize(2);
        List<Request> second = requestsFrom(secondRequest);
        assertThat(second).as("model calls of the second attempt").hasSizeBetween(2, 4);
        assertToolCallsAnswered(server.requests());
        for (Request request : second) {
            assertThat(count(request.history(), "user: " + Shop.ASK_COFFEE)).as("the question in %s", request).isOne();
        }
        assertThat(second.get(1).history()).as("the follow-up of the second attempt carries its own tool result")
                .anySatisfy(line -> assertThat(line).startsWith("tool ").endsWith("coffee: 12 packs (check 3)"))
                .noneSatisfy(line -> assertThat(line).contains("(check 2)"));
        List<ChatMessage> view = memories.get(SESSION).messages();
        PathAssertions.assertShownOnce(strategy, view, Shop.ASK_COFFEE);
        assertThat(view).as("messages in the view").filteredOn(ToolExecutionResultMessage.class::isInstance)
                .extracting(m -> ((ToolExecutionResultMessage) m).text()).noneMatch(text -> text.contains("(check 2)"));
        assertThat(view).as("answers in the view").filteredOn(AiMessage.class::isInstance)
                .extracting(m -> ((AiMessage) m).text()).doesNotContain(firstAnswer);
        if (!strategy.foldsNewestTurn()) {
            assertThat(view).filteredOn(AiMessage.class::isInstance).extracting(m -> ((AiMessage) m).text())
                    .contains(secondAnswer);
        }
        assertKept(afterFirst, log());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"SUMMARY", "SUMMARY_BUFFER"})
    void should_count_every_request_with_the_reported_usage_when_streams_start_on_another_thread_and_one_is_retried(
            Strategy strategy) throws Exception {
        // given: usage that differs per request (see accountedModel)
        TokenAccounting accounting = TokenAccounting.create();
        OpenAiStreamingChatModel model = accountedModel(accounting);
        Shop.StreamingAssistant assistant = streamingAssistant(model, accountedProvider(strategy, accounting));

        for (String session : List.of("alice", "bob")) {
            int firstRequest = server.requestCount() + 1;

            // when: three turns, the last one retried, each stream started on another thread
            stream(assistant, session, Shop.ASK_TEA, starter);
            stream(assistant, session, Shop.INTRODUCE, starter);
            for (int attempt = 0; attempt < 2; attempt++) {
                RequestScope.call("coffee-" + session, () -> stream(assistant, session, Shop.ASK_COFFEE, starter));
            }

            // then: every request of the session is counted, with the usage the server reported
            List<Request> requests = requestsFrom(firstRequest);
            TokenAccounting.Report report = accounting.report(session);
            assertThat(report.requests()).as("requests counted for %s", session).isEqualTo(requests.size());
            assertThat(report.reportedRequests()).as("requests with reported usage").isEqualTo(requests.size());
            assertThat(report.reportedPromptTokens()).as("reported prompt tokens")
                    .isEqualTo(requests.stream().mapToLong(r -> r.reply().promptTokens()).sum());
            assertThat(report.reportedOutputTokens()).as("reported output tokens").isEqualTo(7L * requests.size());
            List<ChatMessage> view = accountedProvider(strategy, accounting).get(session).messages();
            PathAssertions.assertShownOnce(strategy, view, Shop.ASK_COFFEE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"SUMMARY", "SUMMARY_BUFFER"})
    void should_count_the_requests_it_cannot_charge_and_charge_no_other_session_when_streaming_without_the_listeners(
            Strategy strategy) throws Exception {
        // given: no RequestScope.aiServiceListeners(); streams started on another thread
        TokenAccounting accounting = TokenAccounting.create();
        OpenAiStreamingChatModel model = accountedModel(accounting);
        Shop.StreamingAssistant assistant = AiServices.builder(Shop.StreamingAssistant.class).streamingChatModel(model)
                .chatMemoryProvider(accountedProvider(strategy, accounting)).tools(tools).maxToolCallingRoundTrips(10)
                .build();
        TokenAccounting.Report aliceAfterHers = null;

        for (String session : List.of("alice", "bob")) {
            int firstRequest = server.requestCount() + 1;

            // when
            stream(assistant, session, Shop.ASK_TEA, starter);
            stream(assistant, session, Shop.INTRODUCE, starter);
            for (int attempt = 0; attempt < 2; attempt++) {
                RequestScope.call("coffee-" + session, () -> stream(assistant, session, Shop.ASK_COFFEE, starter));
            }

            // then: what is charged to the session is its own, the rest is counted as not attributed
            int requests = requestsFrom(firstRequest).size();
            TokenAccounting.Report report = accounting.report(session);
            assertThat(report.requests()).as("requests charged to %s of its %d", session, requests)
                    .isLessThanOrEqualTo(requests);
            if (session.equals("alice")) {
                aliceAfterHers = report;
                assertThat(report.requests() + accounting.unattributedRequests()).as("charged or counted as not")
                        .isEqualTo(requests);
            }
            List<ChatMessage> view = accountedProvider(strategy, accounting).get(session).messages();
            PathAssertions.assertShownOnce(strategy, view, Shop.ASK_COFFEE);
        }
        assertThat(accounting.report("alice")).as("alice's figures after bob's requests").isEqualTo(aliceAfterHers);
        assertThat(accounting.report("alice").requests() + accounting.report("bob").requests()
                + accounting.unattributedRequests()).as("every request charged or counted as not attributed")
                .isEqualTo(server.requestCount());
        assertThat(accounting.unattributedRequests()).as("requests sent from the thread that started the stream")
                .isPositive();
    }

    /**
     * {@code branch} lets two streams run on one session at once; without the listeners the memory cannot
     * tell which of them a callback thread's answer belongs to, so it refuses to store it (the stream
     * fails, saying what to register) rather than guess: no answer is stored with the wrong question.
     */
    @org.junit.jupiter.api.Test
    void should_fail_loudly_and_store_no_answer_with_the_wrong_question_when_two_streams_branch_without_the_listeners()
            throws Exception {
        // given: A's answer held at the server until B's answer has come
        java.util.concurrent.CountDownLatch bAnswered = new java.util.concurrent.CountDownLatch(1);
        server.answerWith(request -> {
            if (request.lastLine().equals("user: " + TwoRequests.A)) {
                TwoRequests.await(bAnswered, "B never got its answer");
            }
            return io.github.memorypack.testkit.OpenAiTestServer.Reply.text("Answer to " + request.lastLine());
        });
        open(StoreKind.IN_MEMORY);
        Shop.StreamingAssistant assistant = AiServices.builder(Shop.StreamingAssistant.class)
                .streamingChatModel(server.streamingModel())
                .chatMemoryProvider(Strategy.BUFFER.provider(store, io.github.memorypack.core.ConcurrentSends.branch()))
                .build();

        // when: each stream started by a thread of its own (two HTTP requests of a web server)
        CompletableFuture<ChatResponse> a = new CompletableFuture<>();
        CompletableFuture<ChatResponse> b = new CompletableFuture<>();
        Thread threadA = new Thread(() -> assistant.chat(SESSION, TwoRequests.A).onCompleteResponse(a::complete)
                .onError(a::completeExceptionally).start(), "request A");
        threadA.start();
        threadA.join();
        Thread threadB = new Thread(() -> assistant.chat(SESSION, TwoRequests.B).onCompleteResponse(b::complete)
                .onError(e -> {
                    b.completeExceptionally(e);
                    bAnswered.countDown();
                }).start(), "request B");
        threadB.start();
        threadB.join();

        // then
        for (CompletableFuture<ChatResponse> stream : List.of(b, a)) {
            Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> stream.get(10, TimeUnit.SECONDS));
            assertThat(failure).hasRootCauseInstanceOf(IllegalStateException.class)
                    .rootCause().hasMessageContaining("RequestScope.aiServiceListeners()");
        }
        assertThat(log()).as("answers stored").noneMatch(e -> e.message() instanceof AiMessage);
    }

    /**
     * Opens an in-memory store and a streaming model charging {@code accounting}; the server reports
     * usage that differs per request, so a request charged to the wrong session shows.
     */
    private OpenAiStreamingChatModel accountedModel(TokenAccounting accounting) {
        Shop.Brain brain = new Shop.Brain();
        server.answerWith(request -> brain.apply(request).withUsage(100 + request.number(), 7));
        open(StoreKind.IN_MEMORY);
        return OpenAiStreamingChatModel.builder().baseUrl(server.baseUrl()).apiKey("test-key").modelName("gpt-4o-mini")
                .listeners(List.of(accounting.listener(Tokenizers.o200k()))).build();
    }

    private ChatMemoryProvider accountedProvider(Strategy strategy, TokenAccounting accounting) {
        return strategy == Strategy.SUMMARY
                ? SummaryChatMemory.builder().chatMemoryStore(store).summarizer(Summarizer.extractive())
                        .tokenAccounting(accounting).provider()
                : SummaryBufferChatMemory.builder().chatMemoryStore(store).summarizer(Summarizer.extractive())
                        .maxBufferTokens(Strategy.SUMMARY_BUFFER_LIMIT).tokenAccounting(accounting).provider();
    }

    private Shop.StreamingAssistant streamingAssistant(StreamingChatModel model, ChatMemoryProvider memories) {
        // the listeners carry each request's scope and memory id onto LangChain4j's streaming threads
        return AiServices.builder(Shop.StreamingAssistant.class).streamingChatModel(model).chatMemoryProvider(memories)
                .registerListeners(RequestScope.aiServiceListeners()).tools(tools).maxToolCallingRoundTrips(10).build();
    }

    /**
     * Calls the AI service on this thread, starts the stream with {@code starter} and waits for the
     * complete response: the tools, the memory writes and the follow-up run on callback threads.
     */
    private static String stream(Shop.StreamingAssistant assistant, String session, String text, Executor starter) {
        CompletableFuture<ChatResponse> done = new CompletableFuture<>();
        TokenStream stream = assistant.chat(session, text).onCompleteResponse(done::complete)
                .onError(done::completeExceptionally);
        starter.execute(stream::start);
        try {
            return done.get(10, TimeUnit.SECONDS).aiMessage().text();
        } catch (Exception e) {
            throw new AssertionError("the stream of \"" + text + "\" did not complete", e);
        }
    }
}
