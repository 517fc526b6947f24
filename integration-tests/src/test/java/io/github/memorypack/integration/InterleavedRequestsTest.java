package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static io.github.memorypack.integration.PathAssertions.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What each request sees when requests interleave in ways the other suites do not try: a tool result
 * whose append failed and the request retried, a retry after a restart, many threads on equal and
 * distinct ids, a second instance (or a restart) after every path, and a stream interleaved with a
 * blocking call, with and without the listeners, also on the thread that started the stream.
 */
class InterleavedRequestsTest extends ShopTestBase {

    static Stream<Arguments> strategiesOnFileAndMemory() {
        return Stream.of(Strategy.values()).flatMap(s -> Stream.of(StoreKind.IN_MEMORY, StoreKind.FILE)
                .map(k -> Arguments.of(s, k)));
    }

    /** A store whose first append holding a tool result fails (once), as a store whose server blinks does. */
    static final class ToolResultFailsOnce extends ForwardingSessionStore {
        final AtomicBoolean armed = new AtomicBoolean();

        ToolResultFailsOnce(SessionStore delegate) {
            super(delegate);
        }

        @Override
        public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
            if (entries.stream().anyMatch(e -> e.message() instanceof ToolExecutionResultMessage)
                    && armed.compareAndSet(true, false)) {
                throw new StoreException("injected: the tool result's append failed");
            }
            return delegate.append(sessionId, entries, idempotencyKey);
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("strategiesOnFileAndMemory")
    void should_show_the_retried_tool_turn_once_when_the_first_attempts_tool_result_was_not_stored(Strategy strategy,
            StoreKind kind) {
        // given
        open(kind);
        ToolResultFailsOnce flaky = new ToolResultFailsOnce(store);
        Shop.Assistant assistant = Shop.assistant(server, strategy.provider(flaky), tools).build();
        Shop.warmUp(assistant, SESSION);
        List<Entry> before = log();
        flaky.armed.set(true);

        // when: the first attempt fails at its tool result's append, the retry runs under the same request id
        int first = server.requestCount() + 1;
        Throwable failed = catchThrowable(() -> RequestScope.call("req-1", () -> assistant.chat(SESSION, Shop.ASK_MATCHA)));
        int second = server.requestCount() + 1;
        String answer = RequestScope.call("req-1", () -> assistant.chat(SESSION, Shop.ASK_MATCHA));

        // then
        assertThat(failed).as("the first attempt").isNotNull();
        assertThat(answer).startsWith("Answer ");
        List<Request> retried = requestsFrom(second);
        assertThat(retried).as("model calls of the retry").hasSize(2);
        assertToolCallsAnswered(requestsFrom(first));
        for (Request request : retried) {
            assertThat(count(request.history(), "user: " + Shop.ASK_MATCHA)).as("the question in %s", request).isOne();
            assertThat(request.history()).as("%s", request).noneMatch(line -> line.contains("interrupted"));
        }
        List<ChatMessage> view = assistant.getChatMemory(SESSION).messages();
        PathAssertions.assertShownOnce(strategy, view, Shop.ASK_MATCHA);
        assertKept(before, log());
        // the next request sees the retried turn once, and no interrupted call
        int third = server.requestCount() + 1;
        assistant.chat(SESSION, Shop.ASK_RECOMMENDATION);
        for (Request request : requestsFrom(third)) {
            assertThat(count(request.history(), "user: " + Shop.ASK_MATCHA)).as("the question in %s", request)
                    .isLessThanOrEqualTo(1);
            assertThat(request.history()).as("%s", request).noneMatch(line -> line.contains("interrupted"));
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("restartCases")
    void should_let_a_retry_after_a_restart_in_when_the_first_attempt_died_between_its_question_and_its_answer(
            Strategy strategy, TwoRequests.Setting setting) throws Exception {
        // given: a request whose process died while its tool ran (question and tool call stored, no answer)
        FileSessionStore first = FileSessionStore.of(dir.resolve("shared"));
        store = first;
        Shop.Assistant before = Shop.assistant(server, strategy.provider(first, setting.sends), tools).build();
        Shop.warmUp(before, SESSION);
        ToolResultFailsOnce dying = new ToolResultFailsOnce(first);
        dying.armed.set(true);
        Shop.Assistant doomed = Shop.assistant(server, strategy.provider(dying, setting.sends), tools).build();
        catchThrowable(() -> RequestScope.call("req-7", () -> doomed.chat(SESSION, Shop.ASK_MATCHA)));
        first = null; // the process is gone (a file store holds nothing to close)

        // when: after the restart (a new store and provider over the folder) the client retries the request
        FileSessionStore reopened = FileSessionStore.of(dir.resolve("shared"));
        store = reopened;
        Shop.Assistant after = Shop.assistant(server, strategy.provider(reopened, setting.sends), tools).build();
        int retry = server.requestCount() + 1;
        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> RequestScope.call("req-7", () -> after.chat(SESSION, Shop.ASK_MATCHA)));
        long millis = (System.nanoTime() - start) / 1_000_000;

        // then
        assertThat(failure).as("the retry of the same request").isNull();
        assertThat(millis).as("ms the retry waited").isLessThan(5_000);
        for (Request request : requestsFrom(retry)) {
            assertThat(count(request.history(), "user: " + Shop.ASK_MATCHA)).as("the question in %s", request).isOne();
            assertThat(request.history()).as("%s", request).noneMatch(line -> line.contains("interrupted"));
        }
        assertToolCallsAnswered(requestsFrom(retry));
    }

    static Stream<Arguments> restartCases() {
        return Stream.of(Strategy.BUFFER, Strategy.WINDOW_MESSAGES, Strategy.SUMMARY_BUFFER, Strategy.MEMORY_MD)
                .flatMap(s -> Stream.of(TwoRequests.Setting.values()).map(x -> Arguments.of(s, x)));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("threadsCases")
    void should_keep_every_request_to_its_own_turn_when_many_threads_send_on_one_and_on_distinct_ids(Strategy strategy,
            StoreKind kind) throws Exception {
        // given
        open(kind);
        Shop.Assistant assistant = Shop.assistant(server, strategy.provider(store, ConcurrentSends.queue()), tools)
                .build();
        int threads = 6;
        List<Thread> running = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            String session = t % 2 == 0 ? SESSION : "other-" + t;
            String question = t % 3 == 0 ? Shop.ASK_MATCHA : "Question " + t + " please.";
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < 3; i++) {
                        assistant.chat(session, question);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            thread.start();
            running.add(thread);
        }
        go.countDown();
        for (Thread thread : running) {
            thread.join(60_000);
        }

        // then: no failure; every request ends with its own question and nothing of another's after it
        assertThat(failures).isEmpty();
        for (Request request : server.requests()) {
            List<String> history = request.history();
            int lastUser = TwoRequests.lastUser(history);
            List<String> tail = history.subList(lastUser, history.size());
            assertThat(tail.stream().filter(l -> l.startsWith("user: ")).count()).isOne();
            if (!tail.get(0).contains("matcha")) {
                assertThat(tail).as("%s", request).noneMatch(l -> l.startsWith("assistant: tool_calls"));
            }
        }
        assertToolCallsAnswered(server.requests());
        // three threads ask three times each on the shared session: nine answers, each stored once
        long answers = log().stream().filter(e -> e.message() instanceof dev.langchain4j.data.message.AiMessage ai
                && !ai.hasToolExecutionRequests()).count();
        assertThat(answers).as("answers on " + SESSION).isEqualTo(9);
    }

    static Stream<Arguments> threadsCases() {
        return Stream.of(Strategy.BUFFER, Strategy.WINDOW_MESSAGES, Strategy.SUMMARY_BUFFER, Strategy.MEMORY_MD)
                .flatMap(s -> Stream.of(StoreKind.IN_MEMORY, StoreKind.FILE).map(k -> Arguments.of(s, k)));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("twoInstanceCases")
    void should_show_the_same_view_on_a_second_instance_and_after_a_restart_after_every_path(Strategy strategy,
            StoreKind kind) throws Exception {
        // given: two instances of the application over one folder (two processes, or one before and after a restart)
        open(kind);
        SessionStore other = kind.open(dir);
        Shop.Assistant a = Shop.assistant(server, strategy.provider(store), tools)
                .registerListeners(RequestScope.aiServiceListeners()).build();
        Shop.Assistant b = Shop.assistant(server, strategy.provider(other), tools)
                .registerListeners(RequestScope.aiServiceListeners()).build();
        List<Runnable> steps = List.of(
                () -> Shop.warmUp(a, SESSION),
                () -> catchThrowable(() -> b.chat(SESSION, Shop.BOOK_AND_PAY)),
                () -> catchThrowable(() -> a.chat(SESSION, Shop.ASK_SECRET)),
                () -> RequestScope.call("r-1", () -> b.chat(SESSION, Shop.ASK_COFFEE)),
                () -> RequestScope.call("r-1", () -> a.chat(SESSION, Shop.ASK_COFFEE)),
                () -> b.chat(SESSION, Shop.ASK_SUM),
                () -> a.getChatMemory(SESSION).clear(),
                () -> b.chat(SESSION, Shop.ASK_TEA),
                () -> catchThrowable(() -> a.chat(SESSION, Shop.BOOK_THEN_PAY)),
                () -> b.chat(SESSION, Shop.ASK_RECOMMENDATION));
        int n = 0;
        for (Runnable step : steps) {
            n++;
            step.run();
            // then: both instances and a fresh one (a restart) show the same view
            SessionStore fresh = kind.open(dir);
            List<String> restarted = describe(strategy.provider(fresh).get(SESSION).messages());
            if (a.getChatMemory(SESSION) != null) {
                assertThat(describe(a.getChatMemory(SESSION).messages())).as("instance A after step %d", n)
                        .isEqualTo(restarted);
            }
            if (b.getChatMemory(SESSION) != null) {
                assertThat(describe(b.getChatMemory(SESSION).messages())).as("instance B after step %d", n)
                        .isEqualTo(restarted);
            }
            StoreKind.close(fresh);
        }
        StoreKind.close(other);
    }

    private static List<String> describe(List<ChatMessage> messages) {
        return messages.stream().map(PathAssertions::describe).toList();
    }

    static Stream<Arguments> twoInstanceCases() {
        return Stream.of(Strategy.values()).flatMap(s -> Stream.of(StoreKind.FILE, StoreKind.MEMORY_MD)
                .map(k -> Arguments.of(s, k)));
    }

    @ParameterizedTest(name = "{0} on {1}, {2}, B on the same thread: {3}")
    @MethodSource("streamCases")
    void should_keep_a_stream_and_a_blocking_call_to_their_own_turns_when_they_interleave_on_one_session(
            Strategy strategy, StoreKind kind, TwoRequests.Setting setting, boolean sameThread) throws Exception {
        // given: request A streams (its tool runs on the HTTP client's thread, held there); B is a blocking call
        open(kind);
        ChatMemoryProvider memories = strategy.provider(store, setting.sends);
        Shop.Assistant blocking = Shop.assistant(server, memories, tools)
                .registerListeners(RequestScope.aiServiceListeners()).build();
        Shop.StreamingAssistant streaming = dev.langchain4j.service.AiServices.builder(Shop.StreamingAssistant.class)
                .streamingChatModel(server.streamingModel()).chatMemoryProvider(memories)
                .registerListeners(RequestScope.aiServiceListeners()).tools(tools).maxToolCallingRoundTrips(10)
                .build();
        Shop.warmUp(blocking, SESSION);
        int firstRequest = server.requestCount() + 1;
        int checksBefore = tools.stockItems.size();
        tools.heldItem = TwoRequests.A_ITEM;
        java.util.concurrent.ExecutorService web = java.util.concurrent.Executors.newFixedThreadPool(sameThread ? 1 : 2);
        java.util.concurrent.CompletableFuture<dev.langchain4j.model.chat.response.ChatResponse> a =
                new java.util.concurrent.CompletableFuture<>();
        web.submit(() -> streaming.chat(SESSION, TwoRequests.A).onCompleteResponse(a::complete)
                .onError(a::completeExceptionally).start()).get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(tools.held.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("A's tool runs").isTrue();

        // when
        java.util.concurrent.Future<String> b = web.submit(() -> blocking.chat(SESSION, TwoRequests.B));
        if (setting == TwoRequests.Setting.QUEUE) {
            Thread.sleep(300);
            assertThat(b.isDone()).as("B queued behind A").isFalse();
        } else if (setting == TwoRequests.Setting.BRANCH) {
            b.get(10, java.util.concurrent.TimeUnit.SECONDS);
        } else {
            assertThat(catchThrowable(() -> b.get(10, java.util.concurrent.TimeUnit.SECONDS)))
                    .hasCauseInstanceOf(io.github.memorypack.core.SessionBusyException.class);
        }
        tools.release.countDown();
        a.get(10, java.util.concurrent.TimeUnit.SECONDS);
        if (setting == TwoRequests.Setting.QUEUE) {
            b.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        web.shutdownNow();

        // then
        TwoRequests.assertEachRequestKeepsToItsOwnTurn(requestsFrom(firstRequest),
                new ArrayList<>(tools.stockItems.subList(checksBefore, tools.stockItems.size())), setting);
        List<ChatMessage> view = memories.get(SESSION).messages();
        if (strategy.showsEverything()) {
            List<String> questions = PathAssertions.userTexts(view);
            assertThat(questions).as("questions in the view").containsOnlyOnce(TwoRequests.A);
            if (setting == TwoRequests.Setting.REFUSE) {
                assertThat(questions).as("questions in the view").doesNotContain(TwoRequests.B);
            } else {
                assertThat(questions).as("questions in the view").containsOnlyOnce(TwoRequests.B);
            }
            if (setting == TwoRequests.Setting.QUEUE) {
                assertThat(questions).as("questions in the view").containsSubsequence(TwoRequests.A, TwoRequests.B);
            }
            long answers = view.stream().filter(m -> m instanceof dev.langchain4j.data.message.AiMessage ai
                    && !ai.hasToolExecutionRequests()).count();
            assertThat(answers).as("answers in the view").isEqualTo(setting == TwoRequests.Setting.REFUSE ? 4 : 5);
        }
    }

    static Stream<Arguments> streamCases() {
        return Stream.of(Strategy.BUFFER, Strategy.WINDOW_MESSAGES, Strategy.SUMMARY_BUFFER, Strategy.MEMORY_MD)
                .flatMap(s -> Stream.of(StoreKind.IN_MEMORY, StoreKind.FILE).flatMap(k -> Stream.of(
                        TwoRequests.Setting.values()).flatMap(x -> Stream.of(false, true)
                        .map(same -> Arguments.of(s, k, x, same)))));
    }

    @ParameterizedTest(name = "{0} on {1}, {2}, held at {3}, B on the same thread: {4}")
    @MethodSource("unscopedStreamCases")
    void should_keep_a_stream_and_a_blocking_call_to_their_own_turns_without_the_listeners(Strategy strategy,
            StoreKind kind, TwoRequests.Setting setting, TwoRequests.Step step, boolean sameThread) throws Exception {
        // given: as above, without RequestScope.aiServiceListeners() (README: queue and refuse are right without them)
        open(kind);
        TwoRequests.Hold hold = new TwoRequests.Hold(step, tools);
        server.answerWith(hold.around(new Shop.Brain()));
        ChatMemoryProvider memories = strategy.provider(store, setting.sends);
        Shop.Assistant blocking = Shop.assistant(server, memories, tools).build();
        Shop.StreamingAssistant streaming = dev.langchain4j.service.AiServices.builder(Shop.StreamingAssistant.class)
                .streamingChatModel(server.streamingModel()).chatMemoryProvider(memories).tools(tools)
                .maxToolCallingRoundTrips(10).build();
        Shop.warmUp(blocking, SESSION);
        int firstRequest = server.requestCount() + 1;
        int checksBefore = tools.stockItems.size();
        hold.arm();
        java.util.concurrent.ExecutorService web = java.util.concurrent.Executors.newFixedThreadPool(sameThread ? 1 : 2);
        java.util.concurrent.CompletableFuture<dev.langchain4j.model.chat.response.ChatResponse> a =
                new java.util.concurrent.CompletableFuture<>();
        web.submit(() -> streaming.chat(SESSION, TwoRequests.A).onCompleteResponse(a::complete)
                .onError(a::completeExceptionally).start()).get(10, java.util.concurrent.TimeUnit.SECONDS);
        hold.awaitReached();

        // when
        java.util.concurrent.Future<String> b = web.submit(() -> blocking.chat(SESSION, TwoRequests.B));
        Thread.sleep(300);
        boolean bDoneWhileAHeld = b.isDone();
        hold.release();
        Throwable aFailure = catchThrowable(() -> a.get(10, java.util.concurrent.TimeUnit.SECONDS));
        Throwable bFailure = catchThrowable(() -> b.get(10, java.util.concurrent.TimeUnit.SECONDS));
        web.shutdownNow();

        // then
        assertThat(aFailure).as("stream A").isNull();
        if (setting == TwoRequests.Setting.QUEUE) {
            assertThat(bDoneWhileAHeld).as("B done while A held (queue)").isFalse();
            assertThat(bFailure).as("B").isNull();
        } else {
            assertThat(bFailure).as("B").hasCauseInstanceOf(io.github.memorypack.core.SessionBusyException.class);
        }
        TwoRequests.assertEachRequestKeepsToItsOwnTurn(requestsFrom(firstRequest),
                new ArrayList<>(tools.stockItems.subList(checksBefore, tools.stockItems.size())), setting);
    }

    static Stream<Arguments> unscopedStreamCases() {
        // B on the thread that started A's stream: only once the stream has added to its turn from a callback
        // thread can the memory tell it from a failed blocking call of that thread (README, Two requests at once)
        return Stream.of(Strategy.BUFFER, Strategy.WINDOW_MESSAGES, Strategy.SUMMARY_BUFFER, Strategy.MEMORY_MD)
                .flatMap(s -> Stream.of(StoreKind.IN_MEMORY, StoreKind.FILE).flatMap(k -> Stream.of(
                        TwoRequests.Setting.QUEUE, TwoRequests.Setting.REFUSE).flatMap(x -> Stream.of(
                        TwoRequests.Step.values()).flatMap(st -> Stream.of(false, true)
                        .filter(same -> !same || st != TwoRequests.Step.FIRST_CALL)
                        .map(same -> Arguments.of(s, k, x, st, same))))));
    }

    /**
     * {@code clear()} while a request runs (its question stored, its answer not yet): the answer that comes
     * after the clear belongs to a turn the conversation no longer holds, so no view shows it, least of all
     * as the answer to the question another request asked after the clear.
     */
    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("strategiesOnFileAndMemory")
    void should_show_no_answer_to_a_question_cleared_while_its_request_ran(Strategy strategy, StoreKind kind)
            throws Exception {
        // given: request A's question stored on its thread, then clear() (an eviction, another request's guardrail)
        open(kind);
        ChatMemoryProvider memories = strategy.provider(store, ConcurrentSends.branch());
        dev.langchain4j.memory.ChatMemory memory = memories.get(SESSION);
        java.util.concurrent.ExecutorService threadA = java.util.concurrent.Executors.newSingleThreadExecutor();
        java.util.concurrent.ExecutorService threadB = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            threadA.submit(() -> memory.add(dev.langchain4j.data.message.UserMessage.from("question A"))).get();
            memory.clear();

            // when: request B asks after the clear, then A's answer comes, then B's
            threadB.submit(() -> memory.add(dev.langchain4j.data.message.UserMessage.from("question B"))).get();
            threadA.submit(() -> memory.add(dev.langchain4j.data.message.AiMessage.from("answer A"))).get();
            List<String> seenByB = threadB.submit(() -> describe(memory.messages())).get();
            threadB.submit(() -> memory.add(dev.langchain4j.data.message.AiMessage.from("answer B"))).get();

            // then
            assertThat(seenByB).as("B's view before its answer").containsExactly("USER: question B");
            for (List<String> view : List.of(describe(memory.messages()),
                    describe(strategy.provider(store, ConcurrentSends.branch()).get(SESSION).messages()))) {
                assertThat(view).as("the view after both answers").doesNotContain("AI: answer A", "USER: question A");
                if (!strategy.foldsNewestTurn()) {
                    assertThat(view).as("the view after both answers").containsExactly("USER: question B",
                            "AI: answer B");
                }
            }
            assertThat(log()).extracting(e -> PathAssertions.describe(e.message())).as("the log keeps A's turn")
                    .contains("USER: question A", "AI: answer A");
        } finally {
            threadA.shutdownNow();
            threadB.shutdownNow();
        }
    }

    /** A store whose reads fail while armed, as a store whose server blinks between the append and the view. */
    static final class ReadsFail extends ForwardingSessionStore {
        volatile boolean armed;

        ReadsFail(SessionStore delegate) {
            super(delegate);
        }

        @Override
        public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
            fail();
            return delegate.read(sessionId, fromIndex, maxCount);
        }

        @Override
        public List<Entry> readLast(String sessionId, int count) {
            fail();
            return delegate.readLast(sessionId, count);
        }

        @Override
        public io.github.memorypack.core.SessionState state(String sessionId) {
            fail();
            return delegate.state(sessionId);
        }

        private void fail() {
            if (armed) {
                armed = false;
                throw new StoreException("injected: a read failed");
            }
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("strategiesOnFileAndMemory")
    void should_show_the_retried_turn_once_when_the_first_attempts_view_could_not_be_read(Strategy strategy,
            StoreKind kind) {
        // given: the first attempt's question is stored, then the view's read fails
        open(kind);
        ReadsFail flaky = new ReadsFail(store);
        Shop.Assistant assistant = Shop.assistant(server, strategy.provider(flaky), tools).build();
        Shop.warmUp(assistant, SESSION);
        List<Entry> before = log();
        int first = server.requestCount();
        java.util.concurrent.atomic.AtomicInteger adds = new java.util.concurrent.atomic.AtomicInteger();
        flaky.armed = false;
        Throwable failed = catchThrowable(() -> RequestScope.call("req-r", () -> {
            dev.langchain4j.memory.ChatMemory memory = assistant.getChatMemory(SESSION);
            memory.add(dev.langchain4j.data.message.UserMessage.from(Shop.ASK_MATCHA));
            adds.incrementAndGet();
            flaky.armed = true;
            return memory.messages();
        }));

        // when: the request is retried through AiServices under the same id
        String answer = RequestScope.call("req-r", () -> assistant.chat(SESSION, Shop.ASK_MATCHA));

        // then
        assertThat(failed).as("the first attempt's view").isInstanceOf(StoreException.class);
        assertThat(adds).hasValue(1);
        assertThat(answer).startsWith("Answer ");
        for (Request request : requestsFrom(first + 1)) {
            assertThat(count(request.history(), "user: " + Shop.ASK_MATCHA)).as("the question in %s", request).isOne();
        }
        assertToolCallsAnswered(requestsFrom(first + 1));
        PathAssertions.assertShownOnce(strategy, assistant.getChatMemory(SESSION).messages(), Shop.ASK_MATCHA);
        assertKept(before, log());
    }
}
