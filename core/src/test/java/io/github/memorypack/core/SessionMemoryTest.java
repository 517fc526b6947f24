package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionMemoryTest {

    private final InMemorySessionStore store = InMemorySessionStore.create();

    private SessionMemory memory(Object id, Retention retention) {
        MemoryOptions options = MemoryOptions.builder().chatMemoryStore(store).retention(retention)
                .listener(MemoryListener.NONE).viewCacheSize(10).build();
        return options.engine(TestStrategies.BUFFER, id).memory();
    }

    private static View tail(SessionMemory memory, ViewLimit limit, int firstRead) {
        return memory.shared().views.tail(memory, memory.state(), limit, firstRead, null);
    }

    private static List<ChatMessage> add(SessionMemory memory, List<ChatMessage> messages) {
        return memory.shared().appender.add(memory, messages);
    }

    private static List<ChatMessage> one(ChatMessage message) {
        return List.of(message);
    }

    @Test
    void should_change_nothing_when_same_system_message_is_added_again() {
        // given
        SessionMemory memory = memory("s", Retention.keepAll());

        // when
        add(memory, one(SystemMessage.from("sys")));
        add(memory, one(SystemMessage.from("sys")));

        // then
        assertThat(store.read("s", 0, 10)).extracting(Entry::message).containsExactly(SystemMessage.from("sys"));
        assertThat(store.state("s").systemMessage()).contains(SystemMessage.from("sys"));
        assertThat(store.state("s").version()).isEqualTo(1);
    }

    @Test
    void should_replace_state_and_record_change_when_system_message_changes() {
        // given
        SessionMemory memory = memory("s", Retention.keepAll());

        // when
        add(memory, one(SystemMessage.from("v1")));
        add(memory, one(UserMessage.from("hi")));
        add(memory, one(SystemMessage.from("v2")));

        // then
        assertThat(store.state("s").systemMessage()).contains(SystemMessage.from("v2"));
        assertThat(store.read("s", 0, 10)).extracting(Entry::message)
                .containsExactly(SystemMessage.from("v1"), UserMessage.from("hi"), SystemMessage.from("v2"));
        assertThat(tail(memory, ViewLimit.none(), 10).messages())
                .containsExactly(SystemMessage.from("v2"), UserMessage.from("hi"));
    }

    @Test
    void should_take_a_newer_system_record_over_the_state_when_the_state_update_was_lost() {
        // given: a record appended, then a crash before the state update (simulated by appending directly)
        SessionMemory memory = memory("s", Retention.keepAll());
        add(memory, one(SystemMessage.from("v1")));
        store.append("s", List.of(NewEntry.of(UserMessage.from("hi")), NewEntry.of(SystemMessage.from("v2"))));

        // when
        List<ChatMessage> view = tail(memory, ViewLimit.none(), 10).messages();

        // then
        assertThat(view).containsExactly(SystemMessage.from("v2"), UserMessage.from("hi"));
    }

    @Test
    void should_count_tokens_once_at_append_when_tokenizer_is_given() {
        // given
        MemoryOptions options = MemoryOptions.builder().chatMemoryStore(store).tokenizer(Tokenizers.o200k()).build();
        SessionMemory counting = options.engine(TestStrategies.BUFFER, "c").memory();

        // when
        add(counting, one(UserMessage.from("hello there")));

        // then
        assertThat(store.readLast("c", 1).get(0).tokenCount())
                .isEqualTo(Tokenizers.o200k().estimateTokenCountInMessage(UserMessage.from("hello there")));
    }

    @Test
    void should_read_more_of_the_tail_only_when_the_view_could_take_older_turns() {
        // given: 10 one-message turns, read through a store that counts reads
        SessionMemory memory = memory("s", Retention.keepAll());
        for (int i = 0; i < 10; i++) {
            add(memory, List.of(UserMessage.from("q" + i), dev.langchain4j.data.message.AiMessage.from("a" + i)));
        }
        SessionMemory fresh = memory("s", Retention.keepAll());

        // when
        View small = tail(fresh, ViewLimit.messages(3), 4);
        View all = tail(memory("s", Retention.keepAll()), ViewLimit.messages(100), 4);

        // then
        assertThat(small.messages()).hasSize(2);
        assertThat(all.messages()).hasSize(20);
    }

    @Test
    void should_trim_only_below_the_needed_index_when_retention_is_bounded() {
        // given
        SessionMemory bounded = memory("b", Retention.keepLast(1));
        for (int i = 0; i < 20; i++) {
            add(bounded, one(UserMessage.from("q" + i)));
        }

        // when
        bounded.shared().retainer.retain(bounded, 5);

        // then
        assertThat(store.read("b", 0, 100)).extracting(Entry::index).first().isEqualTo(5L);
    }

    @Test
    void should_accept_any_memory_id_and_store_it_under_its_session_id() {
        // given
        SessionMemory memory = memory("alice@example.com", Retention.keepAll());

        // when
        add(memory, one(UserMessage.from("hi")));

        // then
        assertThat(store.sessions()).containsExactly(SessionIds.of("alice@example.com"));
        assertThat(SessionIds.memoryId(store, store.sessions().get(0))).isEqualTo("alice@example.com");
    }
}
