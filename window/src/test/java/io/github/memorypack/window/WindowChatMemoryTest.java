package io.github.memorypack.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.Retention;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowChatMemoryTest {

    private final InMemorySessionStore store = InMemorySessionStore.create();

    @Test
    void should_show_last_whole_turns_within_max_messages_when_history_is_longer() {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxMessages(5).build();
        memory.add(SystemMessage.from("be brief"));
        for (int i = 0; i < 5; i++) {
            memory.add(UserMessage.from("q" + i));
            memory.add(AiMessage.from("a" + i));
        }

        // when
        List<ChatMessage> view = memory.messages();

        // then: system + 2 whole turns (5 messages); nothing deleted from the store
        assertThat(view).containsExactly(SystemMessage.from("be brief"), UserMessage.from("q3"), AiMessage.from("a3"),
                UserMessage.from("q4"), AiMessage.from("a4"));
        assertThat(store.getMessages("s1")).hasSize(11);
    }

    @Test
    void should_snap_cut_to_user_message_when_limit_falls_inside_a_turn() {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxMessages(3).build();
        memory.add(UserMessage.from("q0"));
        memory.add(AiMessage.from("a0"));
        memory.add(UserMessage.from("q1"));
        memory.add(AiMessage.from("a1"));

        // when
        List<ChatMessage> view = memory.messages();

        // then: a cut after "q0" would start with AI a0, so the window shows the last turn only
        assertThat(view).containsExactly(UserMessage.from("q1"), AiMessage.from("a1"));
    }

    @Test
    void should_keep_newest_turn_and_report_overflow_when_it_alone_exceeds_the_limit() {
        // given
        List<MemoryListener.Overflow> reports = new ArrayList<>();
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxMessages(2)
                .listener(MemoryListener.onOverflow(reports::add)).build();
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("time").arguments("{}").build();
        memory.add(UserMessage.from("what time is it?"));
        memory.add(AiMessage.from(call));
        memory.add(ToolExecutionResultMessage.from(call, "12:00"));
        memory.add(AiMessage.from("noon"));

        // when
        List<ChatMessage> view = memory.messages();

        // then
        assertThat(view).hasSize(4);
        assertThat(reports).containsExactly(new MemoryListener.Overflow("s1", MemoryListener.Overflow.Unit.MESSAGES, 2, 4));
    }

    @Test
    void should_not_tokenize_when_window_counts_messages() {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxMessages(4).build();

        // when
        memory.add(UserMessage.from("hello"));

        // then
        assertThat(store.readLast("s1", 1)).extracting(Entry::tokenCount).containsExactly(Entry.UNKNOWN_TOKENS);
    }

    @Test
    void should_show_the_turn_once_and_keep_the_earlier_attempt_in_the_log_when_request_is_retried_in_a_request_scope() {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxMessages(10).build();
        Runnable turn = () -> {
            memory.add(SystemMessage.from("sys"));
            memory.add(UserMessage.from("hi"));
            memory.add(AiMessage.from("hello"));
        };

        // when
        RequestScope.run("req-1", turn);
        RequestScope.run("req-1", turn);

        // then
        assertThat(memory.messages()).containsExactly(SystemMessage.from("sys"), UserMessage.from("hi"),
                AiMessage.from("hello"));
        assertThat(store.read("s1", 0, 100)).extracting(Entry::message).containsExactly(SystemMessage.from("sys"),
                UserMessage.from("hi"), AiMessage.from("hello"), UserMessage.from("hi"), AiMessage.from("hello"));
    }

    @Test
    void should_fail_build_when_no_limit_or_two_limits_are_set() {
        assertThatThrownBy(() -> WindowChatMemory.builder().build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> WindowChatMemory.builder().maxMessages(3).maxTurns(2).build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> WindowChatMemory.builder().maxMessages(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WindowChatMemory.builder().dynamicMaxTokens(id -> -1).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WindowChatMemory.builder().id(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_build_one_memory_per_id_on_one_store_when_used_as_provider() {
        // given
        ChatMemoryProvider provider = WindowChatMemory.builder().chatMemoryStore(store).maxTurns(1).provider();

        // when
        ChatMemory a = provider.get("a");
        ChatMemory b = provider.get("b");
        a.add(UserMessage.from("to a"));
        b.add(UserMessage.from("to b"));

        // then
        assertThat(a.id()).isEqualTo("a");
        assertThat(a.messages()).containsExactly(UserMessage.from("to a"));
        assertThat(store.sessions()).containsExactly("a", "b");
    }

    @Test
    void should_trim_only_what_the_window_does_not_show_when_retention_is_bounded() {
        // given
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxTurns(20)
                .retention(Retention.keepLast(4)).build();

        // when
        for (int i = 0; i < 50; i++) {
            memory.add(UserMessage.from("q" + i));
            memory.add(AiMessage.from("a" + i));
            memory.messages();
        }

        // then: the window of 20 turns (40 entries) is still whole
        assertThat(memory.messages()).hasSize(40);
        assertThat(store.getMessages("s1").size()).isBetween(40, 60);
    }

    @Test
    void should_read_further_back_when_newest_turn_is_longer_than_the_first_read() {
        // given: one turn of 1 + 2 * 15 messages in a window of 3 messages
        WindowChatMemory memory = WindowChatMemory.builder().id("s1").chatMemoryStore(store).maxMessages(3)
                .listener(MemoryListener.NONE).build();
        memory.add(UserMessage.from("old"));
        memory.add(AiMessage.from("old answer"));
        memory.add(UserMessage.from("check all 15 shops"));
        for (int i = 0; i < 15; i++) {
            ToolExecutionRequest call = ToolExecutionRequest.builder().id("c" + i).name("stock").arguments("{}").build();
            memory.add(AiMessage.from(call));
            memory.add(ToolExecutionResultMessage.from(call, "shop " + i + ": 3 left"));
        }

        // when
        List<ChatMessage> view = memory.messages();

        // then: the whole newest turn, starting with its user message
        assertThat(view).hasSize(31).first().isEqualTo(UserMessage.from("check all 15 shops"));
    }

    @Test
    void should_apply_each_session_limit_when_limit_is_a_function_of_the_id() {
        // given
        ChatMemoryProvider provider = WindowChatMemory.builder().chatMemoryStore(store)
                .dynamicMaxTurns(id -> id.equals("vip") ? 3 : 1).provider();
        ChatMemory vip = provider.get("vip");
        ChatMemory basic = provider.get("basic");

        // when
        for (int i = 0; i < 5; i++) {
            for (ChatMemory memory : List.of(vip, basic)) {
                memory.add(UserMessage.from("q" + i));
                memory.add(AiMessage.from("a" + i));
            }
        }

        // then
        assertThat(vip.messages()).hasSize(6).first().isEqualTo(UserMessage.from("q2"));
        assertThat(basic.messages()).containsExactly(UserMessage.from("q4"), AiMessage.from("a4"));
    }

    @Test
    void should_reject_null_settings_at_the_setter_when_building() {
        assertThatThrownBy(() -> WindowChatMemory.builder().dynamicMaxMessages(null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
