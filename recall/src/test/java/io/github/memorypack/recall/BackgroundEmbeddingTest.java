package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.BUDGET;
import static io.github.memorypack.recall.Chats.BUDGET_ANSWER;
import static io.github.memorypack.recall.Chats.BUDGET_QUESTION;
import static io.github.memorypack.recall.Chats.fillerQuestion;
import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Embedding is off the request path: a query indexes the words of what was appended since the last one
 * and leaves their embedding to the retriever's background thread; a query that can return a turn whose
 * embeddings are still to come waits for them (bounded). Each test fails if that background step were
 * skipped: the turn it asks about shares no word with its question, so only its embedding finds it.
 */
class BackgroundEmbeddingTest {

    @TempDir
    Path folder;

    /** The default model, recording which thread embedded which texts (and failing while {@link #down}). */
    static final class RecordingModel implements EmbeddingModel {
        private final EmbeddingModel model = DefaultModel.get();
        final ConcurrentLinkedQueue<String[]> calls = new ConcurrentLinkedQueue<>();
        volatile boolean down;

        @Override
        public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
            for (TextSegment segment : segments) {
                calls.add(new String[] {Thread.currentThread().getName(), segment.text()});
            }
            if (down) {
                throw new IllegalStateException("embedding service unavailable");
            }
            return model.embedAll(segments);
        }

        @Override
        public int dimension() {
            return 384;
        }

        /** The texts embedded on threads other than recall's background thread. */
        Set<String> embeddedOutsideTheBackground() {
            Set<String> texts = new HashSet<>();
            for (String[] call : calls) {
                if (!call[0].startsWith("memory-pack-recall-embedder-")) {
                    texts.add(call[1]);
                }
            }
            return texts;
        }
    }

    /** One request as AiServices makes it: retrieve for the question on the current view, then add question and answer. */
    private static String request(RecallContentRetriever recall, WindowChatMemory memory, String question, String answer) {
        String recalled = joined(recall.retrieve(query(memory, question)));
        turn(memory, question, answer);
        return recalled;
    }

    @Test
    void should_embed_appended_turns_in_the_background_and_find_them_once_the_view_lets_them_go() {
        // given: a hybrid retriever, and requests made as AiServices makes them (retrieve, then append)
        RecordingModel model = new RecordingModel();
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        WindowChatMemory memory = Chats.window(store);
        List<String> asked = new ArrayList<>();
        asked.add("Hello!");
        request(recall, memory, "Hello!", "Hi, how can I help?");
        asked.add(BUDGET);
        request(recall, memory, BUDGET, BUDGET_ANSWER);
        for (int i = 0; i < 8; i++) {
            asked.add(fillerQuestion(i));
            request(recall, memory, fillerQuestion(i), Chats.fillerAnswer(i));
        }

        // when: the budget turn left the view long ago, and the question shares none of its words
        asked.add(BUDGET_QUESTION);
        String recalled = request(recall, memory, BUDGET_QUESTION, "About 1,400 euros.");

        // then: found by its embedding, which no request thread made: requests embedded only their questions
        assertThat(recalled).contains("User: " + BUDGET);
        assertThat(model.embeddedOutsideTheBackground()).isSubsetOf(asked);
        recall.close();
    }

    @Test
    void should_wait_for_the_background_when_the_query_can_return_a_turn_not_embedded_yet() {
        // given: a view of one turn, so the turn appended before the last one is already out of it
        RecordingModel model = new RecordingModel();
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        WindowChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(2).build();
        request(recall, memory, "Hello!", "Hi, how can I help?");
        turn(memory, BUDGET, BUDGET_ANSWER);
        turn(memory, fillerQuestion(0), Chats.fillerAnswer(0));

        // when: the next query is the first to see the budget turn, which it may return
        String recalled = joined(recall.retrieve(query(memory, BUDGET_QUESTION)));

        // then: it waited for the background's embedding of it (made there, not on this thread)
        assertThat(recalled).contains("User: " + BUDGET);
        assertThat(model.embeddedOutsideTheBackground()).containsExactlyInAnyOrder("Hello!", BUDGET_QUESTION);
        recall.close();
    }

    @Test
    void should_embed_after_a_restart_the_turns_whose_embeddings_were_still_to_come_at_close() {
        // given: a persistent index whose model failed in the background, so the budget turn is indexed by its
        // words only when the application stops
        RecordingModel model = new RecordingModel();
        FileSessionStore store = FileSessionStore.of(folder);
        RecallContentRetriever first = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        WindowChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(4).build();
        turn(memory, BUDGET, BUDGET_ANSWER);
        fillers(memory, 0, 6);
        model.down = true;
        first.catchUp("ana");
        first.close();
        assertThat(RecallContentRetriever.builder().store(store).lexicalOnly().indexDirectory(folder.resolve("x"))
                .build()).satisfies(r -> {
                    assertThat(r.indexedMessages("ana")).isEqualTo(14);
                    r.close();
                });

        // when: it starts again with the model back
        model.down = false;
        RecallContentRetriever second = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        String recalled = joined(second.retrieve(query(memory, BUDGET_QUESTION)));

        // then: the turn is found by its embedding, and every message is embedded once
        assertThat(recalled).contains("User: " + BUDGET);
        second.awaitEmbedded("ana");
        assertThat(second.embeddedMessages("ana")).isEqualTo(second.indexedMessages("ana")).isEqualTo(14);
        second.close();
    }

    @Test
    void should_embed_every_message_once_when_appends_and_queries_interleave_with_the_background() {
        // given
        RecordingModel model = new RecordingModel();
        SessionStore store = InMemorySessionStore.create();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).embeddingModel(model).build();
        WindowChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(4).build();

        // when: turns appended between catch-ups, a set() rewriting the view and a clear() among them
        for (int i = 0; i < 30; i++) {
            fillers(memory, i, i + 1);
            recall.catchUp("ana");
            if (i == 10) {
                List<ChatMessage> view = new ArrayList<>(memory.messages());
                view.set(view.size() - 1, AiMessage.from("Corrected answer."));
                memory.set(view);
            }
            if (i == 20) {
                memory.clear();
                memory.add(UserMessage.from(BUDGET));
                memory.add(AiMessage.from(BUDGET_ANSWER));
            }
        }
        recall.awaitEmbedded("ana");

        // then: one embedding per indexed message, and the turn after the clear is found by meaning
        assertThat(recall.embeddedMessages("ana")).isEqualTo(recall.indexedMessages("ana"));
        assertThat(joined(recall.retrieve(query(memory, BUDGET_QUESTION)))).contains("User: " + BUDGET);
        recall.close();
    }
}
