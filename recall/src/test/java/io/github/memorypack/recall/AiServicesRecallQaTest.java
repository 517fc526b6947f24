package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.BUDGET;
import static io.github.memorypack.recall.Chats.BUDGET_ANSWER;
import static io.github.memorypack.recall.Chats.BUDGET_QUESTION;
import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.memory.ChatMemoryAccess;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recall as a LangChain4j user would use it from the README alone: real AiServices, the real OpenAI
 * clients (blocking and streaming) against the local test server, memory ids of every kind, both
 * settings of storeRetrievedContentInChatMemory, retries, and the memory's life cycle.
 */
class AiServicesRecallQaTest {

    interface Assistant extends ChatMemoryAccess {
        String chat(@MemoryId Object session, @UserMessage String text);
    }

    interface StreamingAssistant {
        TokenStream chat(@MemoryId Object session, @UserMessage String text);
    }

    record UserKey(String tenant, long user) {
    }

    /** Memory ids of other types than a plain String; each session is told another town. */
    private static final Map<Object, String> TOWNS = new LinkedHashMap<>();

    static {
        TOWNS.put(7, "Bergen");
        TOWNS.put(8L, "Tromsø");
        TOWNS.put(UUID.fromString("3f1c2a8e-5b7d-4e0a-9c61-0d2b7e4f9a13"), "Narvik");
        TOWNS.put(new UserKey("acme", 42), "Bodø");
        TOWNS.put("team/alpha beta", "Ålesund");
        TOWNS.put("Zoë 日本 🙂", "Stavanger");
        TOWNS.put("x".repeat(300), "Trondheim");
        TOWNS.put("ana", "Kirkenes");
    }

    @TempDir
    Path folder;

    private OpenAiTestServer server;
    private final List<RecallContentRetriever> retrievers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new OpenAiTestServer();
        server.answerWith(request -> OpenAiTestServer.Reply.text("Noted."));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        retrievers.forEach(RecallContentRetriever::close);
    }

    private RecallContentRetriever recall(RecallContentRetriever.Builder builder) {
        RecallContentRetriever recall = builder.build();
        retrievers.add(recall);
        return recall;
    }

    private static ChatMemoryProvider window(SessionStore store) {
        return WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6).provider();
    }

    private Assistant assistant(ChatMemoryProvider memories, RecallContentRetriever recall, boolean storeRetrieved) {
        return AiServices.builder(Assistant.class).chatModel(server.model()).chatMemoryProvider(memories)
                .retrievalAugmentor(recall.augmentor()).storeRetrievedContentInChatMemory(storeRetrieved).build();
    }

    /** Sends one message and returns the last request's user message (with what recall appended). */
    private String ask(Assistant assistant, Object session, String text) throws Exception {
        int before = server.requestCount();
        assistant.chat(session, text);
        assertThat(server.requestCount()).isEqualTo(before + 1);
        return server.requests().get(before).lastLine();
    }

    private void fillers(Assistant assistant, Object session, int from, int to) throws Exception {
        for (int i = from; i < to; i++) {
            ask(assistant, session, Chats.fillerQuestion(i));
        }
    }

    private static String sister(String town) {
        return "By the way, my sister Ingrid moved to " + town + " last spring.";
    }

    private void plantTowns(Assistant assistant) throws Exception {
        for (Map.Entry<Object, String> id : TOWNS.entrySet()) {
            ask(assistant, id.getKey(), sister(id.getValue()));
        }
        for (Object id : TOWNS.keySet()) {
            fillers(assistant, id, 0, 8);
        }
    }

    private void assertEachSessionRecallsOnlyItsOwnTown(Assistant assistant) throws Exception {
        for (Map.Entry<Object, String> id : TOWNS.entrySet()) {
            String request = ask(assistant, id.getKey(), SISTER_QUESTION);
            assertThat(request).as("memory id %s", id.getKey()).contains("User: " + sister(id.getValue()));
            for (String other : TOWNS.values()) {
                if (!other.equals(id.getValue())) {
                    assertThat(request).as("memory id %s", id.getKey()).doesNotContain(other);
                }
            }
        }
    }

    @Test
    void should_recall_each_sessions_own_turns_when_memory_ids_are_not_plain_strings() throws Exception {
        SessionStore store = InMemorySessionStore.create();
        Assistant assistant = assistant(window(store), recall(RecallContentRetriever.builder().store(store).hybrid()), false);

        plantTowns(assistant);

        assertEachSessionRecallsOnlyItsOwnTown(assistant);
    }

    @Test
    void should_recall_each_sessions_own_turns_from_persistent_indexes_after_a_restart() throws Exception {
        // given: a file store; every session indexed once, then the retriever and services stop
        FileSessionStore store = FileSessionStore.of(folder);
        RecallContentRetriever first = recall(RecallContentRetriever.builder().store(store).hybrid());
        plantTowns(assistant(window(store), first, false));
        for (Object id : TOWNS.keySet()) {
            first.update(id);
            assertThat(first.persistent(id)).as("memory id %s", id).isTrue();
            assertThat(folder.resolve(RecallContentRetriever.INDEX_FOLDER).resolve(SessionIds.of(id))).isDirectory();
        }
        first.close();

        // when: a new retriever (and new memories) on the same folder
        RecallContentRetriever second = recall(RecallContentRetriever.builder().store(FileSessionStore.of(folder)).hybrid());
        Assistant assistant = assistant(window(store), second, false);

        // then
        assertEachSessionRecallsOnlyItsOwnTown(assistant);
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void should_recall_each_turn_once_and_never_a_recalled_block_whatever_is_stored_in_memory(boolean storeRetrieved)
            throws Exception {
        // given
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());
        Assistant assistant = assistant(window(store), recall, storeRetrieved);
        ask(assistant, "ana", SISTER);
        fillers(assistant, "ana", 0, 10);
        String first = ask(assistant, "ana", SISTER_QUESTION);
        assertThat(first).contains("User: " + SISTER);
        assertThat(store.getMessages("ana").toString().contains("Recalled from earlier")).isEqualTo(storeRetrieved);
        fillers(assistant, "ana", 10, 20);

        // when: asked again, once the augmented turn is out of the window too
        String again = ask(assistant, "ana", "Remind me, where did Ingrid move to?");

        // then: one recall block, the fact's turn once, and no recalled text shown as something the user said
        assertThat(again.split("\\[Recalled from earlier", -1)).hasSize(2);
        assertThat(again.split("User: " + SISTER, -1)).hasSize(2);
        assertThat(again).doesNotContain("User: " + SISTER_QUESTION + "\n\n[");
        // at most the fact's turn and the earlier question's turn
        assertThat(again.split("Earlier turn \\(", -1).length - 1).isBetween(1, 2);
        // and the index holds exactly the messages said, nothing recalled
        RecallContentRetriever fresh = recall(RecallContentRetriever.builder().store(store).lexicalOnly());
        assertThat(recall.indexedMessages("ana")).isEqualTo(fresh.indexedMessages("ana")).isEqualTo(2 * 23);
    }

    private String stream(StreamingAssistant assistant, Object session, String text) throws Exception {
        CompletableFuture<String> done = new CompletableFuture<>();
        assistant.chat(session, text).onPartialResponse(token -> { })
                .onCompleteResponse(response -> done.complete(response.aiMessage().text()))
                .onError(done::completeExceptionally).start();
        return done.get(10, TimeUnit.SECONDS);
    }

    private StreamingAssistant streaming(SessionStore store, RecallContentRetriever recall) {
        return AiServices.builder(StreamingAssistant.class).streamingChatModel(server.streamingModel())
                .chatMemoryProvider(window(store)).retrievalAugmentor(recall.augmentor())
                .storeRetrievedContentInChatMemory(false).registerListeners(RequestScope.aiServiceListeners()).build();
    }

    @Test
    void should_recall_only_the_latest_attempt_when_a_streaming_request_is_retried() throws Exception {
        // given: a streaming request answered, then retried under the same request id with another answer
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());
        StreamingAssistant assistant = streaming(store, recall);
        server.answerWith(request -> OpenAiTestServer.Reply.text(
                request.lastLine().contains(SISTER) && request.number() == 1 ? "Ingrid lives in Bergen, I think."
                        : request.lastLine().contains(SISTER) ? SISTER_ANSWER : "Noted."));
        RequestScope.call("req-1", () -> unchecked(() -> stream(assistant, "ana", SISTER)));
        recall.update("ana"); // the index has seen the first attempt
        RequestScope.call("req-1", () -> unchecked(() -> stream(assistant, "ana", SISTER)));
        for (int i = 0; i < 10; i++) {
            stream(assistant, "ana", Chats.fillerQuestion(i));
        }

        // when
        stream(assistant, "ana", SISTER_QUESTION);
        String request = server.requests().get(server.requestCount() - 1).lastLine();

        // then
        assertThat(request).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER).doesNotContain("Bergen");
        assertThat(request.split("User: " + SISTER, -1)).hasSize(2);
    }

    @Test
    void should_pair_each_question_with_its_answer_when_streaming_requests_interleave() throws Exception {
        // given: the sister request is answered only once the budget question has been asked (side by side:
        // under the default ConcurrentSends.queue() the budget request would wait for the sister's answer)
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());
        StreamingAssistant assistant = AiServices.builder(StreamingAssistant.class)
                .streamingChatModel(server.streamingModel())
                .chatMemoryProvider(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6)
                        .concurrentSends(io.github.memorypack.core.ConcurrentSends.branch()).provider())
                .retrievalAugmentor(recall.augmentor()).storeRetrievedContentInChatMemory(false)
                .registerListeners(RequestScope.aiServiceListeners()).build();
        CountDownLatch budgetAsked = new CountDownLatch(1);
        server.answerWith(request -> {
            String last = request.lastLine();
            if (last.contains(SISTER)) {
                unchecked(() -> budgetAsked.await(10, TimeUnit.SECONDS));
                return OpenAiTestServer.Reply.text(SISTER_ANSWER);
            }
            if (last.contains(BUDGET)) {
                budgetAsked.countDown();
                return OpenAiTestServer.Reply.text(BUDGET_ANSWER);
            }
            return OpenAiTestServer.Reply.text("Noted.");
        });
        CompletableFuture<String> sister = CompletableFuture.supplyAsync(() -> unchecked(() -> stream(assistant, "ana", SISTER)));
        while (store.nextIndex(SessionIds.of("ana")) == 0) {
            Thread.onSpinWait();
        }
        stream(assistant, "ana", BUDGET);
        sister.get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 10; i++) {
            stream(assistant, "ana", Chats.fillerQuestion(i));
        }

        // when
        stream(assistant, "ana", SISTER_QUESTION);
        String aboutSister = server.requests().get(server.requestCount() - 1).lastLine();
        stream(assistant, "ana", BUDGET_QUESTION);
        String aboutBudget = server.requests().get(server.requestCount() - 1).lastLine();

        // then
        assertThat(aboutSister).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER);
        assertThat(aboutBudget).contains("User: " + BUDGET + "\nAssistant: " + BUDGET_ANSWER);
    }

    @Test
    void should_follow_clear_evict_and_delete_of_memories_the_provider_created() throws Exception {
        // given: three sessions told the same fact, far outside the window
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());
        Assistant assistant = assistant(window(store), recall, false);
        for (String id : List.of("cleared", "evicted", "deleted")) {
            ask(assistant, id, SISTER);
            fillers(assistant, id, 0, 8);
            assertThat(ask(assistant, id, SISTER_QUESTION)).contains("User: " + SISTER);
        }

        // when
        assistant.getChatMemory("cleared").clear();
        assertThat(assistant.evictChatMemory("evicted")).isTrue();
        store.delete("deleted");

        // then: cleared and deleted forget; evicted only leaves the service's map, its log (and recall) stay
        assertThat(ask(assistant, "cleared", SISTER_QUESTION)).doesNotContain("Tromsø");
        assertThat(ask(assistant, "deleted", SISTER_QUESTION)).doesNotContain("Tromsø");
        assertThat(ask(assistant, "evicted", SISTER_QUESTION)).contains("User: " + SISTER);
    }

    @Test
    void should_not_recall_what_retention_trimmed() throws Exception {
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());
        Assistant assistant = assistant(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6)
                .retention(Retention.keepLast(16)).provider(), recall, false);
        ask(assistant, "ana", SISTER);
        fillers(assistant, "ana", 0, 4);
        assertThat(ask(assistant, "ana", SISTER_QUESTION)).contains("User: " + SISTER);

        fillers(assistant, "ana", 4, 20);

        assertThat(ask(assistant, "ana", "Remind me where Ingrid moved?")).doesNotContain("moved to Tromsø");
    }

    interface Single {
        String chat(String text);
    }

    /** A service with one chat memory (no @MemoryId) told the fact, then filler; returns the question's request. */
    private String askSingle(WindowChatMemory memory, RecallContentRetriever recall) throws Exception {
        Single single = AiServices.builder(Single.class).chatModel(server.model()).chatMemory(memory)
                .retrievalAugmentor(recall.augmentor()).storeRetrievedContentInChatMemory(false).build();
        single.chat(SISTER);
        for (int i = 0; i < 8; i++) {
            single.chat(Chats.fillerQuestion(i));
        }
        single.chat(SISTER_QUESTION);
        return server.requests().get(server.requestCount() - 1).lastLine();
    }

    @Test
    void should_recall_with_a_single_chat_memory_of_the_default_id() throws Exception {
        // AiServices.chatMemory(…) (one memory, no @MemoryId) passes the memory id "default"
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());

        String request = askSingle(WindowChatMemory.builder().chatMemoryStore(store).maxMessages(6).build(), recall);

        assertThat(request).contains("User: " + SISTER);
    }

    @Test
    void should_search_session_default_when_a_single_chat_memory_has_another_id() throws Exception {
        // as the README says: AiServices.chatMemory(…) passes "default" whatever the memory's own id
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());

        String request = askSingle(Chats.window(store),
                recall);

        assertThat(store.sessions()).containsExactly("ana");
        assertThat(request).isEqualTo("user: " + SISTER_QUESTION);
    }

    @Test
    void should_answer_the_tool_from_the_callers_session_when_the_memory_id_is_a_uuid() throws Exception {
        // given: two users (UUID memory ids) told different towns, an agent with the recall tool only
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = recall(RecallContentRetriever.builder().store(store).hybrid());
        Assistant agent = AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(window(store)).tools(recall.tool()).build();
        UUID ana = UUID.fromString("00000000-0000-4000-8000-00000000000a");
        UUID bob = UUID.fromString("00000000-0000-4000-8000-00000000000b");
        ask(agent, ana, sister("Tromsø"));
        ask(agent, bob, sister("Bergen"));
        fillers(agent, ana, 0, 6);
        fillers(agent, bob, 0, 6);

        // when: the model calls the tool for bob
        server.enqueueToolCall("call_1", "search_earlier_conversation", "{\"query\":\"where Ingrid moved\"}");
        server.enqueueText("Bergen.");
        agent.chat(bob, SISTER_QUESTION);

        // then
        String toolResult = server.requests().get(server.requestCount() - 1).history().stream()
                .filter(line -> line.startsWith("tool call_1: ")).findFirst().orElseThrow();
        assertThat(toolResult).contains("User: " + sister("Bergen")).doesNotContain("Tromsø");
    }

    interface ThrowingCall<T> {
        T call() throws Exception;
    }

    private static <T> T unchecked(ThrowingCall<T> call) {
        try {
            return call.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
