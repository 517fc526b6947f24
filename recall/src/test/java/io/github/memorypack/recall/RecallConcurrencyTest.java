package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.joined;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.rag.query.Metadata;
import dev.langchain4j.rag.query.Query;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One retriever, a real file store, threads appending and querying on one session and on others at once. */
class RecallConcurrencyTest {

    private static final int TURNS = 12;
    /** Two writers on "shared", one each on "solo-2" and "solo-3". */
    private static final String[] SESSIONS = {"shared", "shared", "solo-2", "solo-3"};

    @TempDir
    Path folder;

    /** A made-up word, different for every writer and turn, that no other text contains. */
    private static String codeword(int writer, int turn) {
        String letters = "bcdfghjklmnpqrstvwxz";
        int n = writer * 100 + turn + 421;
        StringBuilder word = new StringBuilder("qu");
        while (n > 0) {
            word.append(letters.charAt(n % letters.length())).append('o');
            n /= letters.length();
        }
        return word.toString();
    }

    private static String fact(int writer, int turn) {
        return "Writer " + writer + " says the gate code word is " + codeword(writer, turn) + ".";
    }

    private static String answer(int writer, int turn) {
        // names the code word: recall shows a reply that matches nothing of the question as "…"
        return "Noted " + writer + "/" + turn + ": " + codeword(writer, turn) + ".";
    }

    private static Query noView(Object memoryId, String text) {
        return Query.from(text, Metadata.builder().chatMessage(UserMessage.from(text))
                .invocationContext(InvocationContext.builder().chatMemoryId(memoryId).build()).build());
    }

    @Test
    void should_lose_nothing_and_leak_nothing_when_threads_append_and_query_at_once() throws Exception {
        // given
        FileSessionStore store = FileSessionStore.of(folder);
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).hybrid().build();
        ExecutorService threads = Executors.newFixedThreadPool(SESSIONS.length + 1);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> work = new ArrayList<>();

        // when: every writer appends its turns and queries for its previous fact between question and answer
        for (int w = 0; w < SESSIONS.length; w++) {
            int writer = w;
            work.add(threads.submit(() -> {
                WindowChatMemory memory = WindowChatMemory.builder().id(SESSIONS[writer]).chatMemoryStore(store)
                        .maxMessages(4).build();
                go.await();
                for (int t = 0; t < TURNS; t++) {
                    memory.add(UserMessage.from(fact(writer, t)));
                    if (t > 3) {
                        recall.retrieve(Chats.query(memory, "What was the code word " + codeword(writer, t - 3) + "?"));
                    }
                    memory.add(AiMessage.from(answer(writer, t)));
                }
                return null;
            }));
        }
        // and another thread rebuilds and updates the shared session meanwhile
        work.add(threads.submit(() -> {
            go.await();
            for (int i = 0; i < 6; i++) {
                recall.rebuild("shared");
                recall.update("solo-2");
            }
            return null;
        }));
        go.countDown();
        for (Future<?> future : work) {
            future.get(60, TimeUnit.SECONDS);
        }
        threads.shutdown();

        // then: every turn is found with its own answer, in its own session only
        for (int w = 0; w < SESSIONS.length; w++) {
            for (int t = 0; t < TURNS; t++) {
                String found = joined(recall.retrieve(noView(SESSIONS[w], "code word " + codeword(w, t))));
                assertThat(found).as("writer %d turn %d", w, t)
                        .contains("User: " + fact(w, t) + "\nAssistant: " + answer(w, t));
                for (int other = 0; other < SESSIONS.length; other++) {
                    if (!SESSIONS[other].equals(SESSIONS[w])) {
                        assertThat(found).doesNotContain("Writer " + other + " says");
                    }
                }
            }
        }
        // and each index holds exactly what a fresh one built from the log holds
        RecallContentRetriever fresh = RecallContentRetriever.builder().store(store).lexicalOnly()
                .indexDirectory(folder.resolve("fresh")).build();
        for (String session : List.of("shared", "solo-2", "solo-3")) {
            assertThat(recall.indexedMessages(session)).as(session).isEqualTo(fresh.indexedMessages(session));
        }
        assertThat(recall.indexedMessages("shared")).isEqualTo(4 * TURNS);
        // and the background embedded every message exactly once, none lost between appends and catch-ups
        for (String session : List.of("shared", "solo-2", "solo-3")) {
            recall.awaitEmbedded(session);
            assertThat(recall.embeddedMessages(session)).as(session).isEqualTo(recall.indexedMessages(session));
        }
        fresh.close();
        recall.close();
    }
}
