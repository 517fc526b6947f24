package io.github.memorypack.recall;

import static io.github.memorypack.recall.Chats.BUDGET;
import static io.github.memorypack.recall.Chats.BUDGET_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER;
import static io.github.memorypack.recall.Chats.SISTER_ANSWER;
import static io.github.memorypack.recall.Chats.SISTER_QUESTION;
import static io.github.memorypack.recall.Chats.fillers;
import static io.github.memorypack.recall.Chats.joined;
import static io.github.memorypack.recall.Chats.query;
import static io.github.memorypack.recall.Chats.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Retention;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code set()} or {@code clear()} whose state write failed is undone by the memory (its record is
 * superseded again by a set record, core's {@code Appender.undo}): the memory's views show the turns again,
 * and so does recall — whether the index read the set or clear record before its undo (a query between the
 * two), read both at once, or reads them again after a restart or a rebuild. A clear() or set() that went
 * through still removes what it removed.
 */
class UndoneChangeTest {

    /** Said only in the answer a failed set() tried to write. */
    private static final String REPLACEMENT_ANSWER = "Noted, Ingrid moved up to the Arctic circle then.";

    @TempDir
    Path folder;

    private final MutableClock clock = MutableClock.at(Instant.parse("2026-03-14T10:02:00Z"));

    /** A file store whose next state write fails, after running what is given (a query in between). */
    private static final class FailingStateStore extends ForwardingSessionStore {
        final AtomicReference<Runnable> failNext = new AtomicReference<>();
        /** The failing write is made all the same (it reports a failure after it went through). */
        volatile boolean writeAnyway;

        FailingStateStore(SessionStore delegate) {
            super(delegate);
        }

        /** The next state write runs {@code meanwhile}, then fails. */
        void failNextStateWrite(Runnable meanwhile) {
            failNext.set(meanwhile);
        }

        @Override
        public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
            Runnable meanwhile = failNext.getAndSet(null);
            if (meanwhile != null) {
                meanwhile.run();
                if (writeAnyway) {
                    delegate.compareAndSetState(sessionId, expectedVersion, newState);
                }
                throw new StoreException("state write failed for a moment");
            }
            return delegate.compareAndSetState(sessionId, expectedVersion, newState);
        }
    }

    private FailingStateStore store() {
        return new FailingStateStore(FileSessionStore.builder().directory(folder).clock(clock).build());
    }

    private static RecallContentRetriever lexical(SessionStore store) {
        return RecallContentRetriever.builder().store(store).lexicalOnly().build();
    }

    private static WindowChatMemory window(SessionStore store, String id) {
        return WindowChatMemory.builder().id(id).chatMemoryStore(store).maxMessages(6).build();
    }

    /** A conversation whose planted fact is long out of the window, read by the index. */
    private static WindowChatMemory conversation(SessionStore store, RecallContentRetriever recall, String id) {
        WindowChatMemory memory = window(store, id);
        memory.add(SystemMessage.from("You are a helpful assistant."));
        fillers(memory, 0, 3);
        turn(memory, SISTER, SISTER_ANSWER);
        fillers(memory, 3, 20);
        assertThat(joined(recall.retrieve(query(memory, SISTER_QUESTION)))).contains(SISTER);
        return memory;
    }

    private static String sister(RecallContentRetriever recall, WindowChatMemory memory) {
        return joined(recall.retrieve(query(memory, SISTER_QUESTION)));
    }

    @Test
    void should_recall_the_turns_of_a_clear_that_was_undone_when_the_index_read_the_clear_record_first() {
        // given: a clear() whose state write fails; a query meanwhile reads its clear record
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = conversation(store, recall, "ana");
        List<ChatMessage> view = memory.messages();
        store.failNextStateWrite(() -> recall.update("ana"));

        // when
        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);

        // then: the memory shows the conversation still, and recall recalls from it
        assertThat(memory.messages()).isEqualTo(view);
        assertThat(sister(recall, memory)).contains(SISTER);
        fillers(memory, 20, 25);
        assertThat(sister(recall, memory)).contains(SISTER);
        recall.close();
    }

    @Test
    void should_recall_the_turns_of_a_clear_that_was_undone_when_the_index_reads_both_records_at_once() {
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = conversation(store, recall, "ana");
        store.failNextStateWrite(() -> { });

        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);

        assertThat(sister(recall, memory)).contains(SISTER);
        recall.close();
    }

    @Test
    void should_recall_the_turns_of_an_undone_clear_after_a_restart_and_a_rebuild_as_in_one_go() {
        // given: an undone clear() the index read before its undo, committed; then a restart
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = conversation(store, recall, "ana");
        store.failNextStateWrite(() -> recall.update("ana"));
        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);
        int indexed = recall.indexedMessages("ana");
        recall.close();
        RecallContentRetriever reopened = lexical(store);
        fillers(memory, 20, 22);

        // when
        String afterRestart = sister(reopened, memory);
        int afterRestartIndexed = reopened.indexedMessages("ana");
        reopened.rebuild("ana");
        String rebuilt = sister(reopened, memory);
        int rebuiltIndexed = reopened.indexedMessages("ana");
        reopened.close();
        // and an index that never saw the session (another folder: built from the log in one go)
        RecallContentRetriever fresh = RecallContentRetriever.builder().store(store).lexicalOnly()
                .indexDirectory(folder.resolve("other-indexes")).build();
        String inOneGo = sister(fresh, memory);
        int inOneGoIndexed = fresh.indexedMessages("ana");
        fresh.close();

        // then: every index holds the whole conversation (20 filler turns and the fact's turn, then 2 more turns)
        assertThat(indexed).isEqualTo(42); // before the two fillers added after the restart
        assertThat(afterRestartIndexed).isEqualTo(46);
        assertThat(rebuiltIndexed).isEqualTo(46);
        assertThat(inOneGoIndexed).isEqualTo(46);
        assertThat(afterRestart).contains(SISTER).isEqualTo(rebuilt).isEqualTo(inOneGo);
    }

    @Test
    void should_forget_the_turns_of_a_clear_that_went_through_after_one_that_was_undone() {
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = conversation(store, recall, "ana");
        store.failNextStateWrite(() -> recall.update("ana"));
        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);
        assertThat(sister(recall, memory)).contains(SISTER);

        // when: clear() again, and it goes through; a new conversation of the same length
        memory.clear();
        fillers(memory, 0, 3);
        turn(memory, BUDGET, BUDGET_ANSWER);
        fillers(memory, 3, 20);

        // then: only the new conversation is recalled, incrementally and rebuilt
        assertThat(sister(recall, memory)).doesNotContain(SISTER);
        assertThat(joined(recall.retrieve(query(memory, "What budget for the computer?")))).contains(BUDGET);
        recall.rebuild("ana");
        assertThat(sister(recall, memory)).doesNotContain(SISTER);
        assertThat(joined(recall.retrieve(query(memory, "What budget for the computer?")))).contains(BUDGET);
        recall.close();
    }

    /** set() of the view with another system message (a state write) and the fact's answer replaced. */
    private static List<ChatMessage> replaced(WindowChatMemory memory) {
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        view.set(0, SystemMessage.from("You are a concise assistant."));
        view.set(view.size() - 1, AiMessage.from(REPLACEMENT_ANSWER));
        return view;
    }

    /** The fact's turn as the newest of the view, so that set() can replace its answer. */
    private static WindowChatMemory recentFact(SessionStore store, RecallContentRetriever recall, String id) {
        WindowChatMemory memory = window(store, id);
        memory.add(SystemMessage.from("You are a helpful assistant."));
        fillers(memory, 0, 10);
        turn(memory, SISTER, SISTER_ANSWER);
        recall.update(id);
        return memory;
    }

    @Test
    void should_recall_what_an_undone_set_replaced_and_not_what_it_tried_to_write() {
        for (boolean queryInBetween : new boolean[] {true, false}) {
            // given: a set() whose state write fails (with a query meanwhile reading its set record, or not)
            FailingStateStore store = store();
            RecallContentRetriever recall = lexical(store);
            String id = queryInBetween ? "ana" : "bo";
            WindowChatMemory memory = recentFact(store, recall, id);
            List<ChatMessage> view = memory.messages();
            store.failNextStateWrite(queryInBetween ? () -> recall.update(id) : () -> { });

            // when: it fails, and the conversation goes on past the window
            assertThatThrownBy(() -> memory.set(replaced(memory))).isInstanceOf(StoreException.class);
            assertThat(memory.messages()).isEqualTo(view);
            fillers(memory, 10, 25);

            // then: the answer it tried to replace is recalled, the one it tried to write never
            assertThat(sister(recall, memory)).as("query in between: %s", queryInBetween)
                    .contains(SISTER_ANSWER).doesNotContain(REPLACEMENT_ANSWER);
            assertThat(joined(recall.retrieve(query(memory, "Arctic circle?")))).isEmpty();
            int indexed = recall.indexedMessages(id);
            recall.rebuild(id);
            assertThat(recall.indexedMessages(id)).isEqualTo(indexed).isEqualTo(2 * 26);
            assertThat(sister(recall, memory)).contains(SISTER_ANSWER).doesNotContain(REPLACEMENT_ANSWER);
            recall.close();
        }
    }

    @Test
    void should_forget_what_a_set_that_went_through_replaced() {
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = recentFact(store, recall, "ana");

        memory.set(replaced(memory));
        fillers(memory, 10, 25);

        assertThat(sister(recall, memory)).contains(REPLACEMENT_ANSWER).doesNotContain(SISTER_ANSWER);
        assertThat(joined(recall.retrieve(query(memory, "Arctic circle?")))).contains(REPLACEMENT_ANSWER);
        recall.close();
    }

    @Test
    void should_recall_an_undone_clear_under_a_retention_and_leave_other_sessions_alone() {
        // given: two sessions under a retention that trims; "ana"'s clear() is undone, "bo"'s goes through
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory ana = WindowChatMemory.builder().id("ana").chatMemoryStore(store).maxMessages(6)
                .retention(Retention.keepLast(30)).build();
        WindowChatMemory bo = WindowChatMemory.builder().id("bo").chatMemoryStore(store).maxMessages(6)
                .retention(Retention.keepLast(30)).build();
        for (WindowChatMemory memory : List.of(ana, bo)) {
            fillers(memory, 0, 3);
            turn(memory, SISTER, SISTER_ANSWER);
            fillers(memory, 3, 8);
            assertThat(sister(recall, memory)).contains(SISTER);
        }
        store.failNextStateWrite(() -> recall.update("ana"));
        assertThatThrownBy(ana::clear).isInstanceOf(StoreException.class);
        bo.clear();
        fillers(bo, 0, 8);

        // then
        assertThat(sister(recall, ana)).contains(SISTER);
        assertThat(sister(recall, bo)).doesNotContain(SISTER);
        // and the retention still trims the fact away in time
        fillers(ana, 8, 30);
        assertThat(sister(recall, ana)).doesNotContain(SISTER);
        recall.close();
    }

    @Test
    void should_recall_the_turns_of_an_undone_clear_when_the_index_was_committed_between_the_clear_record_and_its_undo() {
        // given: the index reads the clear record and is closed (committed there) before the undo is appended
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = conversation(store, recall, "ana");
        store.failNextStateWrite(() -> {
            recall.update("ana");
            recall.close();
        });
        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);

        // when: a restart reads the undo (the clear record it names is before the commit)
        RecallContentRetriever reopened = lexical(store);
        String recalled = sister(reopened, memory);
        int indexed = reopened.indexedMessages("ana");
        reopened.close();

        // then
        assertThat(recalled).contains(SISTER);
        assertThat(indexed).isEqualTo(42);
    }

    @Test
    void should_forget_the_turns_of_a_clear_whose_state_write_went_through_though_it_reported_a_failure() {
        // given: a clear() whose state write is made but reports a failure: the memory undoes its record,
        // yet its views follow the state (cleared there), as core's Dialogue reads a log and its state
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = conversation(store, recall, "ana");
        store.writeAnyway = true;
        store.failNextStateWrite(() -> recall.update("ana"));
        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);
        assertThat(memory.messages()).as("the memory's view").isEmpty();
        fillers(memory, 0, 5);

        // then: recall follows the memory, incrementally and rebuilt
        assertThat(sister(recall, memory)).doesNotContain(SISTER);
        recall.rebuild("ana");
        assertThat(sister(recall, memory)).doesNotContain(SISTER);
        assertThat(recall.indexedMessages("ana")).isEqualTo(10);
        recall.close();
    }

    @Test
    void should_embed_again_every_message_an_undone_clear_brought_back_with_a_model() {
        // given: a hybrid index; a clear() undone after a query read its clear record
        FailingStateStore store = store();
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store)
                .embeddingModel(new CountingEmbeddingModel()).build();
        WindowChatMemory memory = conversation(store, recall, "ana");
        recall.awaitEmbedded("ana");
        store.failNextStateWrite(() -> recall.update("ana"));
        assertThatThrownBy(memory::clear).isInstanceOf(StoreException.class);

        // when
        String recalled = joined(recall.retrieve(query(memory, SISTER_QUESTION)));
        recall.awaitEmbedded("ana");

        // then: the whole conversation is indexed and embedded again, once
        assertThat(recalled).contains(SISTER);
        assertThat(recall.indexedMessages("ana")).isEqualTo(42);
        assertThat(recall.embeddedMessages("ana")).isEqualTo(42);
        recall.close();
    }

    @Test
    void should_recall_the_whole_turn_an_undone_set_rewrote_from_its_question_on_as_an_index_built_in_one_go() {
        // given: a set() that replaces the fact's question (its answer is stored again after the new one,
        // tagged with the fact's turn) and fails on the state; a query meanwhile reads its records
        FailingStateStore store = store();
        RecallContentRetriever recall = lexical(store);
        WindowChatMemory memory = recentFact(store, recall, "ana");
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        view.set(0, SystemMessage.from("You are a concise assistant."));
        view.set(view.size() - 2, UserMessage.from("My sister lives abroad, Ingrid."));
        store.failNextStateWrite(() -> recall.update("ana"));
        assertThatThrownBy(() -> memory.set(view)).isInstanceOf(StoreException.class);
        fillers(memory, 10, 25);

        // when
        String incremental = sister(recall, memory);
        String abroad = joined(recall.retrieve(query(memory, "abroad?")));
        recall.rebuild("ana");
        String inOneGo = sister(recall, memory);
        recall.close();

        // then: the fact's turn as it was, never the question set() tried to write
        assertThat(incremental).contains("User: " + SISTER + "\nAssistant: " + SISTER_ANSWER).doesNotContain("abroad")
                .isEqualTo(inOneGo);
        assertThat(abroad).isEmpty();
    }
}
