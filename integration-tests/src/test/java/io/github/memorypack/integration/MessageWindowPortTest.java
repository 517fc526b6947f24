package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Our port of LangChain4j 1.19's {@code MessageWindowChatMemoryTest} (langchain4j/src/test/java/
 * dev/langchain4j/memory/chat), case by case, against {@link WindowChatMemory} with
 * {@code maxMessages}. Each case asserts what LangChain4j's test asserts, or is marked
 * {@link DeliberateDifference} and asserts our documented behaviour instead.
 */
class MessageWindowPortTest {

    static WindowChatMemory window(int maxMessages) {
        return WindowChatMemory.builder().maxMessages(maxMessages).build();
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.id")
    void should_have_the_default_id_or_the_given_one_when_built() {
        assertThat(WindowChatMemory.builder().maxMessages(1).build().id()).isEqualTo("default");
        assertThat(WindowChatMemory.builder().id("abc").maxMessages(1).build().id()).isEqualTo("abc");
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.store_and_clear")
    void should_slide_and_clear_idempotently_when_user_messages_exceed_the_window() {
        WindowCases.slideAndClear(window(2), UserMessage.from("hello"), UserMessage.from("world"),
                UserMessage.from("banana"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_keep_specified_number_of_messages_in_chat_memory")
    @DeliberateDifference("LangChain4j shows [firstAi, secondUser, secondAi] at the end; we cut whole turns, so a "
            + "window never starts with an AI message (DESIGN.md: whole turns; LangChain4j #585/#940/#1326)")
    void should_keep_whole_turns_within_max_messages_when_the_conversation_grows() {
        WindowCases.wholeTurnsWithinLimit(window(3), UserMessage.from("hello"), AiMessage.from("hi"),
                UserMessage.from("sup"), AiMessage.from("not much"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_not_evict_system_message_from_chat_memory")
    @DeliberateDifference("after 'Tell me a joke' LangChain4j shows [system, firstAi, secondUser]; we cut the whole "
            + "first turn: [system, secondUser] (whole turns)")
    void should_keep_the_system_message_first_when_turns_are_cut() {
        WindowCases.systemMessageStaysFirst(window(3), SystemMessage.from("You are a helpful assistant"),
                UserMessage.from("Hello"), AiMessage.from("Hi, how can I help you?"), UserMessage.from("Tell me a joke"),
                AiMessage.from("Why did the Java developer wear glasses? Because they didn't see sharp!"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_keep_only_the_latest_system_message_in_chat_memory")
    @DeliberateDifference("LangChain4j appends the new system message at the end: [firstUser, firstAi, "
            + "secondSystem]; ours is pinned first (DESIGN.md: system message pinned first, a changed one replaces it)")
    void should_show_only_the_latest_system_message_first_when_it_changes() {
        WindowCases.latestSystemMessageFirst(window(3), SystemMessage.from("You are a helpful assistant"),
                UserMessage.from("Hello"), AiMessage.from("Hi, how can I help you?"),
                SystemMessage.from("You are an unhelpful assistant"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_not_add_the_same_system_message_to_chat_memory_if_it_is_already_there")
    void should_not_add_the_same_system_message_again_when_it_is_already_there() {
        WindowCases.sameSystemMessageOnce(window(3), SystemMessage.from("You are a helpful assistant"),
                UserMessage.from("Hello"), AiMessage.from("Hi, how can I help you?"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest")
    @DeliberateDifference("LangChain4j shows [user, aiCall] while the tool runs, then [aiCall, result], then [ai2]; "
            + "we hide a call that has no result yet (it may still be running), and keep the newest turn whole even "
            + "over the limit, reporting the overflow (DESIGN.md: tool calls stay whole, the newest turn is always kept)")
    void should_keep_the_newest_turn_whole_with_its_tool_call_and_result_when_it_alone_exceeds_the_window() {
        WindowCases.newestToolTurnWhole(window(2), null, true);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest_when_SystemMessage_is_present")
    @DeliberateDifference("LangChain4j: [system, user, aiCall], [system, aiCall, result], [system, ai2]; ours hides the "
            + "running call and keeps the newest turn whole (tool calls stay whole, the newest turn is always kept)")
    void should_keep_the_newest_turn_whole_after_the_system_message_when_it_alone_exceeds_the_window() {
        WindowCases.newestToolTurnWhole(window(3), SystemMessage.from("Use calculator for math questions"), true);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest_when_SystemMessage_is_present_2")
    @DeliberateDifference("LangChain4j: [system, aiCall] while the tool runs, then only [system] once the result "
            + "arrives; ours never shows a lone call or a turn without its question: [system, user], then the whole "
            + "turn over the limit (tool calls stay whole, the newest turn is always kept)")
    void should_never_show_only_the_system_message_when_a_tool_turn_exceeds_a_two_message_window() {
        WindowCases.newestToolTurnWhole(window(2), SystemMessage.from("Use calculator for math questions"), false);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_multiple_orphan_ToolExecutionResultMessages_when_evicting_AiMessage_with_ToolExecutionRequests")
    @DeliberateDifference("LangChain4j: [user, aiCall, result1] with one result missing, then [aiCall, result1, "
            + "result2], then [ai2]; ours shows a call only with all its results and keeps the newest turn whole")
    void should_show_a_call_with_all_its_results_only_when_a_message_calls_two_tools() {
        WindowCases.twoCallTurnWhole(window(3), null);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_multiple_orphan_ToolExecutionResultMessages_when_evicting_AiMessage_with_ToolExecutionRequests_when_SystemMessage_is_present")
    @DeliberateDifference("LangChain4j: [system, user, aiCall, result1], then [system, aiCall, result1, result2], "
            + "then [system, ai2]; ours shows a call only with all its results and keeps the newest turn whole")
    void should_show_a_call_with_all_its_results_after_the_system_message_when_a_message_calls_two_tools() {
        WindowCases.twoCallTurnWhole(window(4), SystemMessage.from("Use calculator for math questions"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.dynamic_max_messages_behavior")
    void should_apply_each_memory_ids_limit_when_max_messages_is_a_function_of_the_id() {
        Function<Object, Integer> limits = id -> "short".equals(id) ? 2 : "long".equals(id) ? 4 : 3;
        ChatMemory shortMemory = WindowChatMemory.builder().id("short").dynamicMaxMessages(limits).build();
        ChatMemory longMemory = WindowChatMemory.builder().id("long").dynamicMaxMessages(limits).build();
        ChatMemory otherMemory = WindowChatMemory.builder().id("other").dynamicMaxMessages(limits).build();

        addUsers(shortMemory, "a", "b", "c");
        assertThat(shortMemory.messages()).containsExactlyElementsOf(users("b", "c"));
        addUsers(longMemory, "1", "2", "3", "4", "5");
        assertThat(longMemory.messages()).containsExactlyElementsOf(users("2", "3", "4", "5"));
        addUsers(otherMemory, "x", "y", "z", "w");
        assertThat(otherMemory.messages()).containsExactlyElementsOf(users("y", "z", "w"));
        shortMemory.clear();
        assertThat(shortMemory.messages()).isEmpty();
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.dynamic_max_messages_can_change_for_same_id")
    @DeliberateDifference("after the limit grows from 3 to 5 LangChain4j shows [B, C, D, E]: it deleted A when the "
            + "limit was 3; ours shows [A, B, C, D, E], because eviction never deletes, it only moves the view "
            + "(DESIGN.md: the log is the truth, a memory is a view)")
    void should_show_older_messages_again_when_the_limit_grows_for_the_same_id() {
        int[] max = {3};
        ChatMemory memory = WindowChatMemory.builder().id("same-id").dynamicMaxMessages(id -> max[0]).build();

        addUsers(memory, "A", "B", "C");
        assertThat(memory.messages()).containsExactlyElementsOf(users("A", "B", "C"));
        addUsers(memory, "D");
        assertThat(memory.messages()).containsExactlyElementsOf(users("B", "C", "D"));
        max[0] = 5;
        addUsers(memory, "E");
        assertThat(memory.messages()).containsExactlyElementsOf(users("A", "B", "C", "D", "E"));
        max[0] = 2;
        assertThat(memory.messages()).containsExactlyElementsOf(users("D", "E"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.system_message_first_enabled")
    void should_show_the_system_message_first_whenever_it_was_added() {
        WindowCases.systemMessageFirstAlways(window(5), window(5), SystemMessage.from("You are a helpful assistant"),
                UserMessage.from("Hello"), AiMessage.from("Hi, how can I help?"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.system_message_first_disabled")
    @DeliberateDifference("with alwaysKeepSystemMessageFirst(false) LangChain4j shows [user, system, ai] when the system "
            + "message came second; ours refuses that option and always pins it first (DESIGN.md)")
    void should_show_the_system_message_first_when_it_is_added_after_a_user_message() {
        WindowCases.systemMessageFirstWhenAddedSecond(window(5), SystemMessage.from("You are a helpful assistant"),
                UserMessage.from("Hello"), AiMessage.from("Hi, how can I help?"));
    }

    @Test
    void should_refuse_saying_why_when_asked_not_to_keep_the_system_message_first() {
        // when / then: false would be a promise the window does not keep; true is what it always does
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WindowChatMemory.builder().alwaysKeepSystemMessageFirst(false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("alwaysKeepSystemMessageFirst(false) is not supported")
                .hasMessageContaining("always keeps the system message first");
        assertThat(WindowChatMemory.builder().alwaysKeepSystemMessageFirst(true).maxMessages(5).build().messages()).isEmpty();
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.system_message_first_with_message_eviction")
    void should_keep_the_system_message_first_when_user_messages_are_evicted() {
        WindowCases.systemMessageFirstWhileEvicting(window(3), SystemMessage.from("You are a helpful assistant"),
                UserMessage.from("Message 1"), UserMessage.from("Message 2"), UserMessage.from("Message 3"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.chat_memory_set_uses_reduced_store_ops")
    @DeliberateDifference("LangChain4j's add(m1, m2, m3) is 3 reads + 3 whole-list writes; ours is one atomic "
            + "append (DESIGN.md: add(Iterable)/add(ChatMessage...) are one atomic append); messages() writes nothing "
            + "and set is one store write, as in LangChain4j")
    void should_append_once_read_without_writing_and_set_in_one_write_when_counting_store_calls() {
        CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());
        WindowCases.reducedStoreOperations(store, WindowChatMemory.builder().chatMemoryStore(store).maxMessages(3).build());
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.set_with_varargs_should_not_throw_when_eviction_is_needed")
    void should_set_more_messages_than_the_window_shows_when_set_with_varargs() {
        WindowCases.setMoreThanShown(window(2), UserMessage.from("m1"), UserMessage.from("m2"), UserMessage.from("m3"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.set_with_list_should_not_mutate_or_alias_the_caller_provided_list")
    void should_neither_change_nor_keep_the_callers_list_when_set_with_a_list() {
        WindowCases.setKeepsNoAlias(window(2), UserMessage.from("a1"), UserMessage.from("a2"), UserMessage.from("a3"),
                UserMessage.from("a4-injected"));
    }

    static void addUsers(ChatMemory memory, String... texts) {
        for (String text : texts) {
            memory.add(UserMessage.from(text));
        }
    }

    static List<ChatMessage> users(String... texts) {
        return Arrays.stream(texts).<ChatMessage>map(UserMessage::from).toList();
    }
}
