package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.window.WindowChatMemory;
import java.nio.file.Path;
import java.time.Instant;
import io.github.memorypack.core.Entry;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What set() replaced and what a retried request's earlier attempt said is not part of the conversation:
 * no query finds a turn through those words, not even through the context field (the message before a
 * message), and an index built across a restart holds what one built in one go holds.
 */
class SupersededTextTest {

    /** Said only in the first attempt of a retried request. */
    private static final String FIRST_ATTEMPT_ANSWER = "Ingrid lives in Bergen, as far as I know.";

    @TempDir
    Path folder;

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-03-14T10:02:00Z"));

    private SessionStore store() {
        return FileSessionStore.builder().directory(folder).clock(clock).build();
    }

    private static RecallContentRetriever lexical(SessionStore store) {
        return RecallContentRetriever.builder().store(store).lexicalOnly().build();
    }

    private static WindowChatMemory window(SessionStore store) {
        return Chats.window(store);
    }

    @Test
    void should_not_find_the_turn_set_wrote_through_the_words_of_the_turn_it_replaced() {
        // given: the newest turn replaced through set() (LangChain4j's set(messages()) round trip), and
        // the conversation going on past the window
        SessionStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = window(store);
        fillers(memory, 0, 5);
        turn(memory, SISTER, SISTER_ANSWER);
        recall.retrieve(query(memory, SISTER_QUESTION)); // the index has read the turn
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        view.set(view.size() - 2, UserMessage.from("My sister lives abroad."));
        view.set(view.size() - 1, AiMessage.from("Noted."));
        memory.set(view);
        fillers(memory, 5, 30);

        // when: a question whose words only the replaced turn said
        String recalled = joined(recall.retrieve(query(memory, "Ingrid, north?")));
        recall.close();

        // then: nothing (the turn set() wrote says neither word, nor does the message before it)
        assertThat(recalled).isEmpty();
    }

    @Test
    void should_not_find_the_retry_through_the_words_of_the_earlier_attempt_it_superseded() {
        // given: attempt 1 of a request asks and is answered (the client gave up on it); attempt 2 asks
        // again and gets another answer: the memory shows attempt 2 only
        SessionStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = window(store);
        fillers(memory, 0, 5);
        RequestScope.run("req-1", () -> turn(memory, SISTER, FIRST_ATTEMPT_ANSWER));
        RequestScope.run("req-1", () -> turn(memory, SISTER, SISTER_ANSWER));
        fillers(memory, 5, 30);

        // when: a question whose word only attempt 1 said
        String recalled = joined(recall.retrieve(query(memory, "Bergen?")));
        String sister = joined(recall.retrieve(query(memory, SISTER_QUESTION)));
        recall.close();

        // then: nothing for it; the retry's turn still for its own words
        assertThat(recalled).isEmpty();
        assertThat(sister).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER).doesNotContain("Bergen");
    }

    @Test
    void should_recall_after_a_restart_what_an_index_built_in_one_go_recalls_when_a_request_was_retried() {
        // given: attempt 1 of a request, indexed and committed; a restart; then its retry
        SessionStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = window(store);
        fillers(memory, 0, 5);
        turn(memory, "I am planning a hike in the Dolomites next month.", "Lovely, the huts open in June.");
        RequestScope.run("req-1", () -> turn(memory, SISTER, FIRST_ATTEMPT_ANSWER));
        recall.update("ana");
        recall.close();
        recall = lexical(store);
        RequestScope.run("req-1", () -> turn(memory, SISTER, SISTER_ANSWER));
        fillers(memory, 5, 30);
        List<String> questions = List.of("Bergen?", "When do the huts open?", "Dolomites huts?", SISTER_QUESTION);

        // when
        List<String> afterRestart = recalled(recall, memory, questions);
        recall.rebuild("ana");
        List<String> inOneGo = recalled(recall, memory, questions);
        recall.close();

        // then
        assertThat(afterRestart).isEqualTo(inOneGo);
        assertThat(afterRestart.get(0)).isEqualTo("Bergen? -> ");
    }

    @Test
    void should_index_each_message_once_when_the_store_fails_while_the_index_reads_a_context_back() {
        // given: a turn whose answer set() replaces, and a store whose read of that turn's question fails
        // once: the read that gives the replacement its context, after the batch's first documents were added
        java.util.concurrent.atomic.AtomicLong failAt = new java.util.concurrent.atomic.AtomicLong(-1);
        ForwardingSessionStore store = new ForwardingSessionStore(io.github.memorypack.core.InMemorySessionStore.create(clock)) {
            @Override
            public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
                if (maxCount == 1 && failAt.compareAndSet(fromIndex, -1)) {
                    throw new io.github.memorypack.core.StoreException("store unavailable for a moment");
                }
                return delegate.read(sessionId, fromIndex, maxCount);
            }
        };
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = window(store);
        fillers(memory, 0, 5);
        recall.update("ana");
        long question = store.nextIndex("ana");
        turn(memory, SISTER, SISTER_ANSWER);
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        view.set(view.size() - 1, AiMessage.from("That is a big move! I hope she enjoys the north."));
        memory.set(view);
        failAt.set(question);

        // when: the catch-up fails on the store, and the next one succeeds
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> recall.update("ana"))
                .isInstanceOf(io.github.memorypack.core.StoreException.class);
        recall.update("ana");
        int indexed = recall.indexedMessages("ana");
        recall.rebuild("ana");
        int inOneGo = recall.indexedMessages("ana");
        recall.close();

        // then: what an index built in one go holds (5 fillers, the question and the replacement answer)
        assertThat(failAt.get()).isEqualTo(-1);
        assertThat(inOneGo).isEqualTo(2 * 5 + 2);
        assertThat(indexed).isEqualTo(inOneGo);
    }

    private static List<String> recalled(RecallContentRetriever recall, WindowChatMemory memory, List<String> questions) {
        List<String> found = new ArrayList<>();
        for (String question : questions) {
            found.add(question + " -> " + joined(recall.retrieve(query(memory, question))));
        }
        return found;
    }
}
