package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionMemoryTest {

    private final InMemorySessionStore store = InMemorySessionStore.create();
    private final SessionMemory memory = new SessionMemory("s", store, null, Retention.keepAll(), OverflowListener.ignore());

    @Test
    void should_change_nothing_when_same_system_message_is_added_again() {
        // when
        memory.add(SystemMessage.from("sys"));
        memory.add(SystemMessage.from("sys"));

        // then
        assertThat(store.getMessages("s")).containsExactly(SystemMessage.from("sys"));
        assertThat(store.state("s").systemMessage()).contains(SystemMessage.from("sys"));
        assertThat(store.state("s").version()).isEqualTo(1);
    }

    @Test
    void should_replace_state_and_record_change_when_system_message_changes() {
        // when
        memory.add(SystemMessage.from("v1"));
        memory.add(UserMessage.from("hi"));
        memory.add(SystemMessage.from("v2"));

        // then
        assertThat(store.state("s").systemMessage()).contains(SystemMessage.from("v2"));
        assertThat(store.getMessages("s")).containsExactly(SystemMessage.from("v1"), UserMessage.from("hi"),
                SystemMessage.from("v2"));
        assertThat(memory.tail(ViewRules.defaults(), ViewLimit.none(), 10).messages())
                .containsExactly(SystemMessage.from("v2"), UserMessage.from("hi"));
    }

    @Test
    void should_count_tokens_once_at_append_when_tokenizer_is_given() {
        // given
        SessionMemory counting = new SessionMemory("c", store, Tokenizers.o200k(), Retention.keepAll(),
                OverflowListener.ignore());

        // when
        counting.add(UserMessage.from("hello there"));

        // then
        assertThat(store.readLast("c", 1).get(0).tokenCount())
                .isEqualTo(Tokenizers.o200k().estimateTokenCountInMessage(UserMessage.from("hello there")));
    }

    @Test
    void should_replace_log_and_clear_summary_when_set_is_called() {
        // given
        memory.add(SystemMessage.from("old"));
        memory.add(UserMessage.from("q"));
        SessionState state = store.state("s");
        store.compareAndSetState("s", state.version(),
                state.withSummary(new Summary("earlier", 1, 3, Instant.EPOCH)));

        // when
        memory.set(List.of(SystemMessage.from("new"), UserMessage.from("q2"), AiMessage.from("a2")));

        // then
        assertThat(store.getMessages("s")).containsExactly(SystemMessage.from("new"), UserMessage.from("q2"),
                AiMessage.from("a2"));
        assertThat(store.state("s").summary()).isEmpty();
        assertThat(store.state("s").systemMessage()).contains(SystemMessage.from("new"));
    }

    @Test
    void should_reject_set_when_messages_are_empty() {
        assertThatThrownBy(() -> memory.set(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_delete_session_when_cleared() {
        // given
        memory.add(SystemMessage.from("sys"));
        memory.add(UserMessage.from("q"));

        // when
        memory.clear();

        // then
        assertThat(store.sessions()).isEmpty();
        assertThat(store.state("s")).isEqualTo(SessionState.EMPTY);
    }

    @Test
    void should_read_more_of_the_tail_only_when_the_view_could_take_older_turns() {
        // given: 10 one-message turns
        for (int i = 0; i < 10; i++) {
            memory.add(UserMessage.from("q" + i));
        }

        // when
        View small = memory.tail(ViewRules.defaults(), ViewLimit.messages(3), 4);
        int smallRead = memory.lastReadCount();
        View all = memory.tail(ViewRules.defaults(), ViewLimit.messages(100), 4);

        // then
        assertThat(small.messages()).hasSize(3);
        assertThat(smallRead).isEqualTo(4);
        assertThat(all.messages()).hasSize(10);
        assertThat(memory.lastReadCount()).isEqualTo(16);
    }

    @Test
    void should_trim_only_below_the_needed_index_when_retention_is_bounded() {
        // given
        SessionMemory bounded = new SessionMemory("b", store, null, Retention.keepLast(1), OverflowListener.ignore());
        for (int i = 0; i < 20; i++) {
            bounded.add(UserMessage.from("q" + i));
        }

        // when
        bounded.retain(5);

        // then
        assertThat(store.read("b", 0, 100)).extracting(Entry::index).first().isEqualTo(5L);
    }

    @Test
    void should_reject_id_when_it_is_not_a_valid_session_id() {
        assertThatThrownBy(() -> new SessionMemory("a/b", store, null, Retention.keepAll(), OverflowListener.ignore()))
                .isInstanceOf(InvalidSessionIdException.class);
        assertThat(store.sessions()).isEmpty();
    }
}
