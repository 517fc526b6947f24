package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.BUDGET;
import static io.github.memorypack.recall.Chats.BUDGET_ANSWER;
import static io.github.memorypack.recall.Chats.BUDGET_QUESTION;
import static io.github.memorypack.recall.Chats.OTHER_QUESTION;
import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import java.io.UncheckedIOException;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Indexes next to a file store: they survive a restart and are rebuilt from the log when damaged or missing. */
class PersistentIndexTest {

    @TempDir
    Path folder;

    private FileSessionStore store;
    private final CountingEmbeddingModel model = new CountingEmbeddingModel();

    private RecallContentRetriever open() {
        store = FileSessionStore.of(folder);
        return RecallContentRetriever.builder().store(store).embeddingModel(model).build();
    }

    private WindowChatMemory memory(String id) {
        return WindowChatMemory.builder().id(id).chatMemoryStore(store).maxMessages(6).build();
    }

    /** Fact, 30 filler turns; queried once so the index is built; closed. Returns the indexed message count. */
    /** Texts the model embedded to build the index (each message and its sentences), in {@link #buildAndClose}. */
    private int built;

    private int buildAndClose(String id) {
        RecallContentRetriever recall = open();
        WindowChatMemory memory = memory(id);
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 30);
        model.texts.set(0);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        recall.awaitEmbedded(id); // the turns the view still shows are embedded in the background
        built = model.texts.get() - 1;
        int indexed = recall.indexedMessages(id);
        assertThat(recall.persistent(id)).isTrue();
        recall.close();
        return indexed;
    }

    private Path indexOf(String id) {
        return folder.resolve(RecallContentRetriever.INDEX_FOLDER).resolve(id);
    }

    @Test
    void should_keep_index_and_embed_only_new_messages_when_restarted() {
        // given
        int indexed = buildAndClose("ana");
        assertThat(indexed).isEqualTo(62);
        assertThat(indexOf("ana")).isDirectoryContaining(p -> p.getFileName().toString().startsWith("segments_"));

        // when: a restart, then two more turns
        RecallContentRetriever recall = open();
        WindowChatMemory memory = memory("ana");
        turn(memory, BUDGET, BUDGET_ANSWER);
        fillers(memory, 30, 31);
        model.texts.set(0);
        List<String> found = List.of(joined(recall.retrieve(query(memory, SISTER_QUESTION))));

        // then: only the four new messages (and the query) were embedded
        assertThat(found.get(0)).contains("Tromsø");
        recall.awaitEmbedded("ana");
        assertThat(model.texts.get()).isEqualTo(4 + 1);
        assertThat(recall.indexedMessages("ana")).isEqualTo(66);
        assertThat(store.sessions()).containsExactly("ana");
        recall.close();
    }

    @Test
    void should_index_the_messages_after_a_restart_as_an_index_built_in_one_go_does() throws IOException {
        // given: a turn indexed, a restart, then a turn that says little itself: what it is about is in
        // the message before it (each message is indexed with the one before it as its context)
        RecallContentRetriever recall = lexical();
        WindowChatMemory memory = memory("ana");
        turn(memory, "Next month Marta and I are hiking across the Dolomites.", "Wonderful, the Dolomites in"
                + " late summer are the best time for it.");
        recall.retrieve(query(memory, OTHER_QUESTION)); // indexes the turn
        recall.close();
        recall = lexical();
        memory = memory("ana");
        turn(memory, "Great, then I will book the huts now.", "Do it early, they fill up fast.");
        fillers(memory, 0, 10);
        List<String> questions = List.of("Which mountains is Ana hiking in with Marta?",
                "When is the best time for the Dolomites?", "What should I book early?", OTHER_QUESTION);

        // when
        List<String> afterRestart = recalled(recall, memory, questions);
        recall.close();
        int withContextAfterRestart = messagesWithContext();
        deleteTree(indexOf("ana"));
        recall = lexical();
        List<String> inOneGo = recalled(recall, memory("ana"), questions);
        recall.close();

        // then: every message but the first has its context, the first after the restart too
        assertThat(messagesWithContext()).isEqualTo(2 * 12 - 1);
        assertThat(withContextAfterRestart).isEqualTo(2 * 12 - 1);
        assertThat(afterRestart).isEqualTo(inOneGo);
    }

    @Test
    void should_recall_the_answer_to_a_photo_sent_without_words_when_it_came_after_a_restart() {
        // given: the user sends a photo alone and the index reads it; a restart; then the assistant's answer
        RecallContentRetriever recall = lexical();
        WindowChatMemory memory = memory("ana");
        fillers(memory, 0, 3);
        memory.add(dev.langchain4j.data.message.UserMessage.from(
                dev.langchain4j.data.message.ImageContent.from("https://example.com/dog.jpg")));
        recall.update("ana");
        recall.close();
        recall = lexical();
        memory = memory("ana");
        memory.add(dev.langchain4j.data.message.AiMessage.from("What a cheerful golden retriever puppy on the beach!"));
        fillers(memory, 3, 30);

        // when
        String recalled = joined(recall.retrieve(query(memory, "Which breed was the puppy in my picture?")));
        recall.close();

        // then: as an index built in one go finds it
        assertThat(recalled).contains("User: [image]\nAssistant: What a cheerful golden retriever puppy on the beach!");
    }

    /** How many indexed messages of "ana" have a context (the message before them), read from the index files. */
    private int messagesWithContext() throws IOException {
        try (Directory directory = FSDirectory.open(indexOf("ana")); DirectoryReader reader = DirectoryReader.open(directory)) {
            return new IndexSearcher(reader).count(new FieldExistsQuery(MessageDocuments.CONTEXT));
        }
    }

    private RecallContentRetriever lexical() {
        store = FileSessionStore.of(folder);
        return RecallContentRetriever.builder().store(store).lexicalOnly().build();
    }

    private static List<String> recalled(RecallContentRetriever recall, WindowChatMemory memory, List<String> questions) {
        List<String> found = new ArrayList<>();
        for (String question : questions) {
            found.add(question + " -> " + joined(recall.retrieve(query(memory, question))));
        }
        return found;
    }

    @Test
    void should_rebuild_from_log_when_index_files_are_damaged() throws IOException {
        // given: every index file but the lock has bytes flipped in its middle
        int indexed = buildAndClose("ana");
        try (Stream<Path> files = Files.list(indexOf("ana"))) {
            for (Path file : (Iterable<Path>) files::iterator) {
                long size = Files.size(file);
                if (size > 16 && !file.getFileName().toString().equals("write.lock")) {
                    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                        channel.write(ByteBuffer.wrap(new byte[] {0x13, 0x37, 0x42, 0x24}), size / 2);
                    }
                }
            }
        }

        // when
        RecallContentRetriever recall = open();
        model.texts.set(0);
        String found = joined(recall.retrieve(query(memory("ana"), SISTER_QUESTION)));

        // then: rebuilt from the log (every message embedded again), same answer
        assertThat(found).contains("Tromsø");
        recall.awaitEmbedded("ana");
        assertThat(model.texts.get()).isEqualTo(built + 1);
        assertThat(recall.indexedMessages("ana")).isEqualTo(indexed);
        recall.close();
    }

    @Test
    void should_rebuild_from_log_when_index_is_missing() throws IOException {
        int indexed = buildAndClose("ana");
        deleteTree(indexOf("ana"));

        RecallContentRetriever recall = open();
        model.texts.set(0);
        String found = joined(recall.retrieve(query(memory("ana"), SISTER_QUESTION)));

        assertThat(found).contains("Tromsø");
        recall.awaitEmbedded("ana");
        assertThat(model.texts.get()).isEqualTo(built + 1);
        recall.close();
    }

    @Test
    void should_rebuild_when_asked() {
        int indexed = buildAndClose("ana");
        RecallContentRetriever recall = open();
        model.texts.set(0);

        recall.rebuild("ana");

        assertThat(model.texts.get()).isEqualTo(built);
        assertThat(joined(recall.retrieve(query(memory("ana"), SISTER_QUESTION)))).contains("Tromsø");
        recall.close();
    }

    @Test
    void should_drop_index_of_session_deleted_while_closed_and_not_recall_from_it() {
        // given
        buildAndClose("ana");
        FileSessionStore.of(folder).delete("ana");

        // when
        RecallContentRetriever recall = open();

        // then: the folder is gone at once, and a new "ana" recalls nothing of the old one
        assertThat(indexOf("ana")).doesNotExist();
        WindowChatMemory memory = memory("ana");
        turn(memory, BUDGET, BUDGET_ANSWER);
        fillers(memory, 0, 30);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).doesNotContain("Tromsø");
        assertThat(joined(recall.retrieve(query(memory, BUDGET_QUESTION)))).contains(BUDGET);
        recall.close();
    }

    @Test
    void should_rebuild_when_log_was_replaced_by_one_of_the_same_length_while_closed() {
        // given: the session deleted and written again, to the same length, while no retriever ran
        int indexed = buildAndClose("ana");
        FileSessionStore other = FileSessionStore.of(folder);
        other.delete("ana");
        store = other;
        WindowChatMemory memory = memory("ana");
        turn(memory, BUDGET, BUDGET_ANSWER);
        fillers(memory, 100, 130);
        // the index folder was not dropped (the session exists again): it must notice the ids differ

        // when
        RecallContentRetriever recall = RecallContentRetriever.builder().store(other).embeddingModel(model).build();
        String sister = joined(recall.retrieve(query(memory, SISTER_QUESTION)));

        // then
        assertThat(sister).doesNotContain("Tromsø");
        assertThat(joined(recall.retrieve(query(memory, BUDGET_QUESTION)))).contains(BUDGET);
        assertThat(recall.indexedMessages("ana")).isEqualTo(indexed);
        recall.close();
    }

    @Test
    void should_index_in_memory_when_another_process_holds_the_index() throws IOException {
        // given: one retriever holds the index open (its IndexWriter lock)
        buildAndClose("ana");
        RecallContentRetriever first = open();
        assertThat(first.persistent("ana")).isTrue();

        // when: a second one (as another process would) opens the same folder
        RecallContentRetriever second = RecallContentRetriever.builder().store(FileSessionStore.of(folder))
                .embeddingModel(model).build();

        // then
        assertThat(second.persistent("ana")).isFalse();
        assertThat(joined(second.retrieve(query(memory("ana"), SISTER_QUESTION)))).contains("Tromsø");
        second.close();
        first.close();
    }

    private static void deleteTree(Path path) throws IOException {
        try (Stream<Path> files = Files.walk(path)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        }
    }

    @Test
    void should_keep_the_index_when_the_thread_is_interrupted_while_it_commits() {
        interruptedCatchUp(true);
    }

    @Test
    void should_keep_the_index_when_the_thread_is_interrupted_while_it_opens() {
        interruptedCatchUp(false);
    }

    /** A catch-up on an interrupted thread, with the session's index open already or opened by it. */
    private void interruptedCatchUp(boolean openFirst) {
        // given: a store that reads on an interrupted thread (the file store refuses to: it takes a file
        // lock), a persistent index of a fact and 30 filler turns, then more messages than the index
        // commits at once (a commit during catch-up)
        SessionStore memoryStore = InMemorySessionStore.create();
        Path indexes = folder.resolve("indexes");
        // a model that embeds on the calling thread, as a remote client mid-call or the default model on one
        // text does, so that the interrupt reaches the index's own I/O
        AtomicInteger texts = new AtomicInteger();
        EmbeddingModel oneByOne = new EmbeddingModel() {
            @Override
            public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
                List<Embedding> embeddings = new ArrayList<>();
                for (TextSegment segment : segments) {
                    texts.incrementAndGet();
                    embeddings.add(model.embed(segment).content());
                }
                return Response.from(embeddings);
            }
        };
        WindowChatMemory memory = WindowChatMemory.builder().id("ana").chatMemoryStore(memoryStore).maxMessages(6)
                .build();
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 0, 30);
        RecallContentRetriever first = RecallContentRetriever.builder().store(memoryStore).embeddingModel(oneByOne)
                .indexDirectory(indexes).build();
        first.update("ana");
        first.close(); // commits
        RecallContentRetriever recall = RecallContentRetriever.builder().store(memoryStore).embeddingModel(oneByOne)
                .indexDirectory(indexes).build();
        if (openFirst) {
            recall.update("ana");
        }
        int added = SessionIndex.COMMIT_EVERY / 2 + 10;
        fillers(memory, 30, 30 + added);

        // when: the thread is interrupted (a cancelled request) while the index catches up and commits
        texts.set(0);
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> recall.update("ana")).isInstanceOf(RuntimeException.class);
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept").isTrue();
        } finally {
            Thread.interrupted();
        }

        // then: the index was not thrown away and rebuilt: the messages after its last commit are indexed
        // again, never the whole log (62 messages)
        texts.set(0);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains("Tromsø");
        assertThat(texts.get()).as("embedded after").isEqualTo(2 * added + 1);
        assertThat(recall.indexedMessages("ana")).isEqualTo(62 + 2 * added);
        assertThat(recall.persistent("ana")).isTrue();
        recall.close();
    }
}
