package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What only the adapter does; the shared store contract runs in memory-pack-testkit. */
class ChatMemoryStoreAdapterTest {

    private final InMemoryChatMemoryStore wrapped = new InMemoryChatMemoryStore();
    private final SessionStore store = ChatMemoryStoreAdapter.of(wrapped);

    @Test
    void should_keep_hidden_record_first_in_wrapped_store_when_session_is_written() {
        // when
        store.append("s", List.of(NewEntry.of(UserMessage.from("hi"), 3)));
        store.compareAndSetState("s", 0, SessionState.EMPTY.withAttributes(Map.of("k", "v")));

        // then
        List<ChatMessage> raw = wrapped.getMessages("s");
        assertThat(raw).hasSize(2);
        assertThat(raw.get(0)).isInstanceOfSatisfying(CustomMessage.class,
                record -> assertThat(record.attributes()).containsKey(ChatMemoryStoreAdapter.RECORD));
        assertThat(raw.get(1)).isEqualTo(UserMessage.from("hi"));
        assertThat(store.getMessages("s")).containsExactly(UserMessage.from("hi"));
        assertThat(store.readLast("s", 10)).extracting(Entry::message).containsExactly(UserMessage.from("hi"));
    }

    @Test
    void should_adopt_messages_with_stable_ids_when_list_was_written_without_adapter() {
        // given: a conversation LangChain4j stored directly
        wrapped.updateMessages("s", List.of(UserMessage.from("q"), AiMessage.from("a")));

        // when
        List<Entry> first = store.read("s", 0, 10);
        List<Entry> again = ChatMemoryStoreAdapter.of(wrapped).read("s", 0, 10);
        List<Entry> appended = store.append("s", List.of(NewEntry.of(UserMessage.from("q2"))));

        // then
        assertThat(first).extracting(Entry::index).containsExactly(0L, 1L);
        assertThat(first).extracting(Entry::timestamp).containsOnly(Instant.EPOCH);
        assertThat(first).allSatisfy(e -> assertThat(e.hasTokenCount()).isFalse());
        assertThat(again).isEqualTo(first);
        assertThat(appended).extracting(Entry::index).containsExactly(2L);
        assertThat(store.read("s", 0, 2)).isEqualTo(first);
        assertThat(wrapped.getMessages("s")).hasSize(4);
    }

    @Test
    void should_throw_store_exception_when_list_was_changed_behind_the_adapter() {
        // given
        store.append("s", List.of(NewEntry.of(UserMessage.from("a"))));
        List<ChatMessage> tampered = new ArrayList<>(wrapped.getMessages("s"));
        tampered.add(AiMessage.from("added by someone else"));
        wrapped.updateMessages("s", tampered);

        // when / then
        assertThatThrownBy(() -> store.read("s", 0, 10))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("changed without this adapter");
    }

    @Test
    void should_show_nothing_of_a_failed_write_when_wrapped_store_fails() {
        // given
        FailingStore failing = new FailingStore();
        SessionStore adapter = ChatMemoryStoreAdapter.of(failing);
        adapter.append("s", List.of(NewEntry.of(UserMessage.from("a"))));
        failing.fail = true;

        // when / then
        assertThatThrownBy(() -> adapter.append("s", List.of(NewEntry.of(UserMessage.from("b")))))
                .isInstanceOf(StoreException.class)
                .hasRootCauseMessage("disk full");
        assertThatThrownBy(() -> adapter.compareAndSetState("s", 0, SessionState.EMPTY))
                .isInstanceOf(StoreException.class);
        failing.fail = false;
        assertThat(adapter.getMessages("s")).containsExactly(UserMessage.from("a"));
        assertThat(adapter.state("s")).isEqualTo(SessionState.EMPTY);
        assertThat(adapter.nextIndex("s")).isEqualTo(1);
    }

    @Test
    void should_list_only_sessions_it_has_seen_when_created_over_existing_data() {
        // given
        store.append("a", List.of(NewEntry.of(UserMessage.from("1"))));
        store.append("b", List.of(NewEntry.of(UserMessage.from("1"))));
        SessionStore restarted = ChatMemoryStoreAdapter.of(wrapped);

        // when
        List<String> before = restarted.sessions();
        restarted.read("b", 0, 1);

        // then
        assertThat(before).isEmpty();
        assertThat(restarted.sessions()).containsExactly("b");
        assertThat(store.sessions()).containsExactly("a", "b");
    }

    @Test
    void should_refuse_to_wrap_when_store_is_already_a_session_store() {
        assertThatThrownBy(() -> ChatMemoryStoreAdapter.of(InMemorySessionStore.create()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChatMemoryStoreAdapter.of(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void should_use_a_session_store_as_it_is_and_adapt_any_other_when_asked_through_session_store_of() {
        // given
        SessionStore sessionStore = InMemorySessionStore.create();

        // when
        SessionStore same = MemoryOptions.sessionStore(sessionStore);
        SessionStore adapted = MemoryOptions.sessionStore(wrapped);

        // then
        assertThat(same).isSameAs(sessionStore);
        assertThat(adapted).isInstanceOf(ChatMemoryStoreAdapter.class);
        adapted.append("s", List.of(NewEntry.of(UserMessage.from("hi"))));
        assertThat(adapted.read("s", 0, 10)).extracting(Entry::message).containsExactly(UserMessage.from("hi"));
        assertThatThrownBy(() -> MemoryOptions.sessionStore(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MemoryOptions.sessionStore(wrapped, null)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A plain store whose writes can be made to fail. */
    private static final class FailingStore implements ChatMemoryStore {
        private final InMemoryChatMemoryStore delegate = new InMemoryChatMemoryStore();
        volatile boolean fail;

        @Override
        public List<ChatMessage> getMessages(Object memoryId) {
            return delegate.getMessages(memoryId);
        }

        @Override
        public void updateMessages(Object memoryId, List<ChatMessage> messages) {
            if (fail) {
                throw new IllegalStateException("disk full");
            }
            delegate.updateMessages(memoryId, messages);
        }

        @Override
        public void deleteMessages(Object memoryId) {
            delegate.deleteMessages(memoryId);
        }
    }
}
