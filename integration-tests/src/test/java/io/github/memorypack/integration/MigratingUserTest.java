package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A user migrating from LangChain4j 1.19's {@link MessageWindowChatMemory}, using {@link ChatMemory}
 * directly as LangChain4j's Javadoc describes it: each sequence runs on LangChain4j's window and on
 * ours (and the buffer), and what {@code messages()} returns is compared.
 */
class MigratingUserTest {

    private static final ToolExecutionRequest A = ToolExecutionRequest.builder().id("call_a").name("stock")
            .arguments("{\"item\":\"tea\"}").build();
    private static final ToolExecutionRequest B = ToolExecutionRequest.builder().id("call_b").name("stock")
            .arguments("{\"item\":\"coffee\"}").build();

    private final InMemorySessionStore store = InMemorySessionStore.create();

    private ChatMemory theirs() {
        return MessageWindowChatMemory.builder().id("s").maxMessages(100).build();
    }

    private ChatMemory window() {
        return WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(100).build();
    }

    private ChatMemory buffer() {
        return BufferChatMemory.builder().id("s").chatMemoryStore(InMemorySessionStore.create()).build();
    }

    private void assertSame(Consumer<ChatMemory> sequence) {
        ChatMemory theirs = theirs();
        sequence.accept(theirs);
        for (ChatMemory ours : List.of(window(), buffer())) {
            sequence.accept(ours);
            assertThat(ours.messages()).as(ours.getClass().getSimpleName()).isEqualTo(theirs.messages());
        }
    }

    @Test
    void should_return_the_id_it_was_built_with_when_asked() {
        assertThat(window().id()).isEqualTo(theirs().id()).isEqualTo("s");
        assertThat(WindowChatMemory.builder().id(42L).maxMessages(3).build().id()).isEqualTo(42L);
    }

    @Test
    void should_keep_both_when_the_same_user_message_object_is_added_twice() {
        UserMessage hi = UserMessage.from("Hi");
        assertSame(m -> {
            m.add(hi);
            m.add(AiMessage.from("Hello"));
            m.add(hi);
            m.add(hi);
        });
    }

    @Test
    void should_keep_both_when_two_equal_messages_are_added_together() {
        assertSame(m -> m.add(UserMessage.from("Hi"), UserMessage.from("Hi"), AiMessage.from("Hello"), AiMessage.from("Hello")));
    }

    @Test
    void should_ignore_the_same_system_message_added_again_when_it_has_not_changed() {
        assertSame(m -> {
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Bye"));
        });
    }

    @Test
    void should_not_change_the_memory_when_the_returned_list_is_changed() {
        for (ChatMemory memory : List.of(window(), buffer())) {
            memory.add(UserMessage.from("Hi"));
            memory.add(AiMessage.from("Hello"));
            List<ChatMessage> view = memory.messages();
            List<ChatMessage> before = new ArrayList<>(view);
            try {
                view.clear();
            } catch (UnsupportedOperationException immutable) {
                // a read-only view is fine
            }
            assertThat(memory.messages()).isEqualTo(before);
        }
    }

    @Test
    void should_be_empty_and_keep_its_id_when_cleared_and_used_again() {
        assertSame(m -> {
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.clear();
            m.add(UserMessage.from("Again"));
        });
    }

    @Test
    void should_clear_the_system_message_too_when_cleared() {
        assertSame(m -> {
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Hi"));
            m.clear();
        });
    }

    @Test
    void should_show_what_was_set_when_set_replaces_everything() {
        assertSame(m -> {
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.set(List.of(UserMessage.from("Other"), AiMessage.from("Answer")));
        });
    }

    @Test
    void should_show_the_system_message_first_and_keep_the_order_when_set_gets_it_in_the_middle() {
        // given
        List<ChatMessage> list = List.of(UserMessage.from("Hi"), SystemMessage.from("Be brief."), AiMessage.from("Hello"));
        for (ChatMemory memory : List.of(window(), buffer())) {
            // when
            memory.set(list);
            // then: pinned first (deliberate difference), nothing lost or duplicated
            assertThat(memory.messages()).as(memory.getClass().getSimpleName())
                    .containsExactly(SystemMessage.from("Be brief."), UserMessage.from("Hi"), AiMessage.from("Hello"));
        }
    }

    @Test
    void should_show_both_results_in_order_when_one_ai_message_calls_two_tools() {
        assertSame(m -> {
            m.add(UserMessage.from("Tea or coffee in stock?"));
            m.add(AiMessage.from(List.of(A, B)));
            m.add(ToolExecutionResultMessage.from(A, "12"));
            m.add(ToolExecutionResultMessage.from(B, "0"));
            m.add(AiMessage.from("Tea only."));
        });
    }

    @Test
    void should_show_both_results_when_they_come_back_in_the_other_order() {
        assertSame(m -> {
            m.add(UserMessage.from("Tea or coffee in stock?"));
            m.add(AiMessage.from(List.of(A, B)));
            m.add(ToolExecutionResultMessage.from(B, "0"));
            m.add(ToolExecutionResultMessage.from(A, "12"));
            m.add(AiMessage.from("Tea only."));
        });
    }

    @Test
    void should_keep_an_ai_message_with_text_and_tool_calls_when_it_is_added() {
        assertSame(m -> {
            m.add(UserMessage.from("Tea?"));
            m.add(AiMessage.from("Let me check.", List.of(A)));
            m.add(ToolExecutionResultMessage.from(A, "12"));
            m.add(AiMessage.from("Yes."));
        });
    }

    @Test
    void should_keep_the_conversation_when_set_gets_the_view_back_with_a_system_message_added() {
        assertSame(m -> {
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            List<ChatMessage> list = new ArrayList<>();
            list.add(SystemMessage.from("Be brief."));
            list.addAll(m.messages());
            m.set(list);
        });
    }

    @Test
    void should_keep_consecutive_user_messages_when_no_answer_came_between_them() {
        assertSame(m -> {
            m.add(UserMessage.from("Hi"));
            m.add(UserMessage.from("Are you there?"));
            m.add(AiMessage.from("Yes"));
        });
    }

    @Test
    void should_keep_an_ai_message_without_a_question_in_the_middle_when_no_user_message_came() {
        assertSame(m -> {
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.add(AiMessage.from("Anything else?"));
            m.add(UserMessage.from("No"));
        });
    }

    @Test
    void should_keep_a_user_message_with_a_name_when_added() {
        assertSame(m -> {
            m.add(UserMessage.from("ana", "Hi"));
            m.add(AiMessage.from("Hello Ana"));
        });
    }

    @Test
    void should_drop_the_system_message_when_set_gets_a_list_without_it() {
        assertSame(m -> {
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.set(List.of(UserMessage.from("Hi"), AiMessage.from("Hello")));
        });
    }

    @Test
    void should_drop_the_newest_messages_when_set_gets_a_prefix_of_the_view() {
        assertSame(m -> {
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.add(UserMessage.from("Bye"));
            m.add(AiMessage.from("Goodbye"));
            m.set(List.of(UserMessage.from("Hi"), AiMessage.from("Hello")));
        });
    }

    @Test
    void should_keep_both_copies_when_set_gets_the_same_message_twice() {
        UserMessage hi = UserMessage.from("Hi");
        assertSame(m -> {
            m.add(hi);
            m.set(List.of(hi, AiMessage.from("Hello"), hi, AiMessage.from("Hello")));
        });
    }

    @Test
    void should_show_the_new_system_message_when_set_gets_a_different_one() {
        for (ChatMemory memory : List.of(window(), buffer())) {
            memory.add(SystemMessage.from("Be brief."));
            memory.add(UserMessage.from("Hi"));
            memory.add(AiMessage.from("Hello"));
            memory.set(List.of(SystemMessage.from("Be verbose."), UserMessage.from("Hi"), AiMessage.from("Hello")));
            assertThat(memory.messages()).containsExactly(SystemMessage.from("Be verbose."), UserMessage.from("Hi"),
                    AiMessage.from("Hello"));
        }
    }

    @Test
    void should_show_the_system_message_after_clear_when_it_is_added_again() {
        assertSame(m -> {
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Hi"));
            m.clear();
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Again"));
        });
    }

    @Test
    void should_show_what_was_set_when_set_follows_clear() {
        assertSame(m -> {
            m.add(SystemMessage.from("Be brief."));
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            List<ChatMessage> view = m.messages();
            m.clear();
            m.set(view);
            m.add(UserMessage.from("Again"));
        });
    }

    @Test
    void should_show_the_same_when_set_reorders_the_view() {
        assertSame(m -> {
            m.add(UserMessage.from("Hi"));
            m.add(AiMessage.from("Hello"));
            m.add(UserMessage.from("Bye"));
            m.add(AiMessage.from("Goodbye"));
            m.set(List.of(UserMessage.from("Bye"), AiMessage.from("Goodbye"), UserMessage.from("Hi"), AiMessage.from("Hello")));
        });
    }

    @Test
    void should_equal_a_list_with_the_same_messages_when_messages_are_returned() {
        ChatMemory memory = window();
        memory.add(UserMessage.from("Hi"));
        assertThat(memory.messages()).isEqualTo(List.of(UserMessage.from("Hi"))).isEqualTo(memory.messages());
        assertThat(memory.messages().hashCode()).isEqualTo(List.of(UserMessage.from("Hi")).hashCode());
    }

    @Test
    void should_show_only_the_newest_turns_when_set_gets_a_longer_history_than_the_window() {
        ChatMemory theirs = MessageWindowChatMemory.builder().id("s").maxMessages(2).build();
        ChatMemory ours = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(2).build();
        for (ChatMemory m : List.of(theirs, ours)) {
            m.add(UserMessage.from("u1"));
            m.add(AiMessage.from("a1"));
            m.add(UserMessage.from("u2"));
            m.add(AiMessage.from("a2"));
            // a mutable copy: LangChain4j 1.17's window evicts from the very list given to set
            m.set(new ArrayList<>(List.of(UserMessage.from("u1"), AiMessage.from("a1"), UserMessage.from("u2"),
                    AiMessage.from("a2"), UserMessage.from("u3"), AiMessage.from("a3"))));
        }
        assertThat(ours.messages()).isEqualTo(theirs.messages());
        // and a larger window over the same log shows no message twice
        ChatMemory wider = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(100).build();
        assertThat(wider.messages()).doesNotHaveDuplicates();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void should_show_no_system_message_also_after_a_restart_when_set_gets_a_list_without_it(Strategy strategy) {
        // given
        InMemorySessionStore shared = InMemorySessionStore.create();
        ChatMemory memory = strategy.provider(shared).get("s");
        memory.add(SystemMessage.from("Be brief."));
        memory.add(UserMessage.from("Hi"));
        memory.add(AiMessage.from("Hello"));
        memory.add(UserMessage.from("Tea?"));
        memory.add(AiMessage.from("Yes."));
        List<ChatMessage> without = new ArrayList<>(memory.messages());
        without.removeIf(m -> m.equals(SystemMessage.from("Be brief.")));

        // when
        memory.set(without);

        // then: no system message with the text, in this memory and in a new one on the same store
        for (ChatMemory m : List.of(memory, strategy.provider(shared).get("s"))) {
            assertThat(m.messages()).noneMatch(x -> x.equals(SystemMessage.from("Be brief.")));
            assertThat(m.messages()).contains(UserMessage.from("Tea?"), AiMessage.from("Yes."));
        }
        // and adding it again shows it first
        memory.add(SystemMessage.from("Be brief."));
        assertThat(memory.messages().get(0)).isEqualTo(SystemMessage.from("Be brief."));
    }

    @Test
    void should_store_new_messages_before_the_view_when_set_gets_them_ahead_of_the_window() {
        // given: a window of 2 over u1 a1 u2 a2
        ChatMemory ours = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(2).build();
        ours.add(UserMessage.from("u1"));
        ours.add(AiMessage.from("a1"));
        ours.add(UserMessage.from("u2"));
        ours.add(AiMessage.from("a2"));

        // when: the list brings messages the log does not hold before the view
        ours.set(List.of(UserMessage.from("x"), AiMessage.from("y"), UserMessage.from("u2"), AiMessage.from("a2")));

        // then: nothing is lost or duplicated (what the view did not show stays, as DESIGN.md "Round trips" says)
        ChatMemory wider = WindowChatMemory.builder().id("s").chatMemoryStore(store).maxMessages(100).build();
        assertThat(wider.messages()).containsExactly(UserMessage.from("u1"), AiMessage.from("a1"), UserMessage.from("x"),
                AiMessage.from("y"), UserMessage.from("u2"), AiMessage.from("a2"));
    }
}
