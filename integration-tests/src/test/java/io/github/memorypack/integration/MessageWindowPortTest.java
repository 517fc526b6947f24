package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.testkit.CountingSessionStore;
import io.github.memorypack.testkit.CountingSessionStore.Operation;
import io.github.memorypack.window.WindowChatMemory;
import java.util.ArrayList;
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

    private static final ToolExecutionRequest TWO_PLUS_TWO = ToolExecutionRequest.builder().id("1").name("calculator")
            .arguments("{ \"a\": 2, \"b\": 2 }").build();
    private static final ToolExecutionRequest THREE_PLUS_THREE = ToolExecutionRequest.builder().id("2")
            .name("calculator").arguments("{ \"a\": 3, \"b\": 3 }").build();

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
        ChatMemory memory = window(2);
        memory.add(UserMessage.from("hello"));
        memory.add(UserMessage.from("world"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("hello"), UserMessage.from("world"));

        memory.add(UserMessage.from("banana"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("world"), UserMessage.from("banana"));

        memory.clear();
        memory.clear();
        assertThat(memory.messages()).isEmpty();
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_keep_specified_number_of_messages_in_chat_memory")
    @DeliberateDifference("LangChain4j shows [firstAi, secondUser, secondAi] at the end; we cut whole turns, so a "
            + "window never starts with an AI message (DESIGN.md: whole turns; LangChain4j #585/#940/#1326)")
    void should_keep_whole_turns_within_max_messages_when_the_conversation_grows() {
        ChatMemory memory = window(3);
        UserMessage firstUser = UserMessage.from("hello");
        AiMessage firstAi = AiMessage.from("hi");
        UserMessage secondUser = UserMessage.from("sup");
        AiMessage secondAi = AiMessage.from("not much");

        memory.add(firstUser);
        assertThat(memory.messages()).containsExactly(firstUser);
        memory.add(firstAi);
        assertThat(memory.messages()).containsExactly(firstUser, firstAi);
        memory.add(secondUser);
        assertThat(memory.messages()).containsExactly(firstUser, firstAi, secondUser);
        memory.add(secondAi);
        assertThat(memory.messages()).containsExactly(secondUser, secondAi);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_not_evict_system_message_from_chat_memory")
    @DeliberateDifference("after 'Tell me a joke' LangChain4j shows [system, firstAi, secondUser]; we cut the whole "
            + "first turn: [system, secondUser] (whole turns)")
    void should_keep_the_system_message_first_when_turns_are_cut() {
        ChatMemory memory = window(3);
        SystemMessage system = SystemMessage.from("You are a helpful assistant");
        UserMessage firstUser = UserMessage.from("Hello");
        AiMessage firstAi = AiMessage.from("Hi, how can I help you?");
        UserMessage secondUser = UserMessage.from("Tell me a joke");
        AiMessage secondAi = AiMessage.from("Why did the Java developer wear glasses? Because they didn't see sharp!");

        memory.add(system);
        memory.add(firstUser);
        memory.add(firstAi);
        assertThat(memory.messages()).containsExactly(system, firstUser, firstAi);
        memory.add(secondUser);
        assertThat(memory.messages()).containsExactly(system, secondUser);
        memory.add(secondAi);
        assertThat(memory.messages()).containsExactly(system, secondUser, secondAi);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_keep_only_the_latest_system_message_in_chat_memory")
    @DeliberateDifference("LangChain4j appends the new system message at the end: [firstUser, firstAi, "
            + "secondSystem]; ours is pinned first (DESIGN.md: system message pinned first, a changed one replaces it)")
    void should_show_only_the_latest_system_message_first_when_it_changes() {
        ChatMemory memory = window(3);
        SystemMessage firstSystem = SystemMessage.from("You are a helpful assistant");
        UserMessage firstUser = UserMessage.from("Hello");
        AiMessage firstAi = AiMessage.from("Hi, how can I help you?");
        SystemMessage secondSystem = SystemMessage.from("You are an unhelpful assistant");

        memory.add(firstSystem);
        memory.add(firstUser);
        memory.add(firstAi);
        assertThat(memory.messages()).containsExactly(firstSystem, firstUser, firstAi);
        memory.add(secondSystem);
        assertThat(memory.messages()).containsExactly(secondSystem, firstUser, firstAi);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_not_add_the_same_system_message_to_chat_memory_if_it_is_already_there")
    void should_not_add_the_same_system_message_again_when_it_is_already_there() {
        ChatMemory memory = window(3);
        SystemMessage system = SystemMessage.from("You are a helpful assistant");
        UserMessage user = UserMessage.from("Hello");
        AiMessage ai = AiMessage.from("Hi, how can I help you?");

        memory.add(system);
        memory.add(user);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(system, user, ai);
        memory.add(system);
        assertThat(memory.messages()).containsExactly(system, user, ai);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest")
    @DeliberateDifference("LangChain4j shows [user, aiCall] while the tool runs, then [aiCall, result], then [ai2]; "
            + "we hide a call that has no result yet (it may still be running), and keep the newest turn whole even "
            + "over the limit, reporting the overflow (DESIGN.md: tool calls stay whole, the newest turn is always kept)")
    void should_keep_the_newest_turn_whole_with_its_tool_call_and_result_when_it_alone_exceeds_the_window() {
        ChatMemory memory = window(2);
        UserMessage user = UserMessage.from("How much is 2+2?");
        AiMessage call = AiMessage.from(TWO_PLUS_TWO);
        ToolExecutionResultMessage result = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");
        AiMessage answer = AiMessage.from("2 + 2 = 4");

        memory.add(user);
        assertThat(memory.messages()).containsExactly(user);
        memory.add(call);
        assertThat(memory.messages()).containsExactly(user);
        memory.add(result);
        assertThat(memory.messages()).containsExactly(user, call, result);
        memory.add(answer);
        assertThat(memory.messages()).containsExactly(user, call, result, answer);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest_when_SystemMessage_is_present")
    @DeliberateDifference("LangChain4j: [system, user, aiCall], [system, aiCall, result], [system, ai2]; ours hides the "
            + "running call and keeps the newest turn whole (tool calls stay whole, the newest turn is always kept)")
    void should_keep_the_newest_turn_whole_after_the_system_message_when_it_alone_exceeds_the_window() {
        ChatMemory memory = window(3);
        SystemMessage system = SystemMessage.from("Use calculator for math questions");
        UserMessage user = UserMessage.from("How much is 2+2?");
        AiMessage call = AiMessage.from(TWO_PLUS_TWO);
        ToolExecutionResultMessage result = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");
        AiMessage answer = AiMessage.from("2 + 2 = 4");

        memory.add(system);
        assertThat(memory.messages()).containsExactly(system);
        memory.add(user);
        assertThat(memory.messages()).containsExactly(system, user);
        memory.add(call);
        assertThat(memory.messages()).containsExactly(system, user);
        memory.add(result);
        assertThat(memory.messages()).containsExactly(system, user, call, result);
        memory.add(answer);
        assertThat(memory.messages()).containsExactly(system, user, call, result, answer);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest_when_SystemMessage_is_present_2")
    @DeliberateDifference("LangChain4j: [system, aiCall] while the tool runs, then only [system] once the result "
            + "arrives; ours never shows a lone call or a turn without its question: [system, user], then the whole "
            + "turn over the limit (tool calls stay whole, the newest turn is always kept)")
    void should_never_show_only_the_system_message_when_a_tool_turn_exceeds_a_two_message_window() {
        ChatMemory memory = window(2);
        SystemMessage system = SystemMessage.from("Use calculator for math questions");
        UserMessage user = UserMessage.from("How much is 2+2?");
        AiMessage call = AiMessage.from(TWO_PLUS_TWO);
        ToolExecutionResultMessage result = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");

        memory.add(system);
        assertThat(memory.messages()).containsExactly(system);
        memory.add(user);
        assertThat(memory.messages()).containsExactly(system, user);
        memory.add(call);
        assertThat(memory.messages()).containsExactly(system, user);
        memory.add(result);
        assertThat(memory.messages()).containsExactly(system, user, call, result);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_multiple_orphan_ToolExecutionResultMessages_when_evicting_AiMessage_with_ToolExecutionRequests")
    @DeliberateDifference("LangChain4j: [user, aiCall, result1] with one result missing, then [aiCall, result1, "
            + "result2], then [ai2]; ours shows a call only with all its results and keeps the newest turn whole")
    void should_show_a_call_with_all_its_results_only_when_a_message_calls_two_tools() {
        ChatMemory memory = window(3);
        UserMessage user = UserMessage.from("How much is 2+2 and 3+3?");
        AiMessage calls = AiMessage.from(TWO_PLUS_TWO, THREE_PLUS_THREE);
        ToolExecutionResultMessage first = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");
        ToolExecutionResultMessage second = ToolExecutionResultMessage.from(THREE_PLUS_THREE, "6");
        AiMessage answer = AiMessage.from("2 + 2 = 4, 3 + 3 = 6");

        memory.add(user);
        assertThat(memory.messages()).containsExactly(user);
        memory.add(calls);
        assertThat(memory.messages()).containsExactly(user);
        memory.add(first);
        assertThat(memory.messages()).containsExactly(user);
        memory.add(second);
        assertThat(memory.messages()).containsExactly(user, calls, first, second);
        memory.add(answer);
        assertThat(memory.messages()).containsExactly(user, calls, first, second, answer);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.should_evict_multiple_orphan_ToolExecutionResultMessages_when_evicting_AiMessage_with_ToolExecutionRequests_when_SystemMessage_is_present")
    @DeliberateDifference("LangChain4j: [system, user, aiCall, result1], then [system, aiCall, result1, result2], "
            + "then [system, ai2]; ours shows a call only with all its results and keeps the newest turn whole")
    void should_show_a_call_with_all_its_results_after_the_system_message_when_a_message_calls_two_tools() {
        ChatMemory memory = window(4);
        SystemMessage system = SystemMessage.from("Use calculator for math questions");
        UserMessage user = UserMessage.from("How much is 2+2 and 3+3?");
        AiMessage calls = AiMessage.from(TWO_PLUS_TWO, THREE_PLUS_THREE);
        ToolExecutionResultMessage first = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");
        ToolExecutionResultMessage second = ToolExecutionResultMessage.from(THREE_PLUS_THREE, "6");
        AiMessage answer = AiMessage.from("2 + 2 = 4, 3 + 3 = 6");

        memory.add(system);
        memory.add(user);
        assertThat(memory.messages()).containsExactly(system, user);
        memory.add(calls);
        memory.add(first);
        assertThat(memory.messages()).containsExactly(system, user);
        memory.add(second);
        assertThat(memory.messages()).containsExactly(system, user, calls, first, second);
        memory.add(answer);
        assertThat(memory.messages()).containsExactly(system, user, calls, first, second, answer);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.dynamic_max_messages_behavior")
    void should_apply_each_memory_ids_limit_when_max_messages_is_a_function_of_the_id() {
        Function<Object, Integer> limits = id -> "short".equals(id) ? 2 : "long".equals(id) ? 4 : 3;
        ChatMemory shortMemory = WindowChatMemory.builder().id("short").maxMessages(limits).build();
        ChatMemory longMemory = WindowChatMemory.builder().id("long").maxMessages(limits).build();
        ChatMemory otherMemory = WindowChatMemory.builder().id("other").maxMessages(limits).build();

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
        ChatMemory memory = WindowChatMemory.builder().id("same-id").maxMessages(id -> max[0]).build();

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
        SystemMessage system = SystemMessage.from("You are a helpful assistant");
        UserMessage user = UserMessage.from("Hello");
        AiMessage ai = AiMessage.from("Hi, how can I help?");
        ChatMemory memory = window(5);
        memory.add(system);
        memory.add(user);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(system, user, ai);

        memory = window(5);
        memory.add(user);
        memory.add(system);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(system, user, ai);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.system_message_first_disabled")
    @DeliberateDifference("with alwaysKeepSystemMessageFirst(false) LangChain4j shows [user, system, ai] when the system "
            + "message came second; ours has no such option and always pins it first (DESIGN.md)")
    void should_show_the_system_message_first_when_it_is_added_after_a_user_message() {
        SystemMessage system = SystemMessage.from("You are a helpful assistant");
        UserMessage user = UserMessage.from("Hello");
        AiMessage ai = AiMessage.from("Hi, how can I help?");
        ChatMemory memory = window(5);
        memory.add(user);
        memory.add(system);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(system, user, ai);
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.system_message_first_with_message_eviction")
    void should_keep_the_system_message_first_when_user_messages_are_evicted() {
        ChatMemory memory = window(3);
        SystemMessage system = SystemMessage.from("You are a helpful assistant");
        memory.add(system);
        addUsers(memory, "Message 1", "Message 2");
        assertThat(memory.messages()).containsExactly(system, UserMessage.from("Message 1"), UserMessage.from("Message 2"));
        addUsers(memory, "Message 3");
        assertThat(memory.messages()).containsExactly(system, UserMessage.from("Message 2"), UserMessage.from("Message 3"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.chat_memory_set_uses_reduced_store_ops")
    @DeliberateDifference("LangChain4j's add(m1, m2, m3) is 3 reads + 3 whole-list writes; ours is one atomic "
            + "append (DESIGN.md: add(Iterable)/add(ChatMessage...) are one atomic append); messages() writes nothing "
            + "and set is one store write, as in LangChain4j")
    void should_append_once_read_without_writing_and_set_in_one_write_when_counting_store_calls() {
        CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());
        ChatMemory memory = WindowChatMemory.builder().store(store).maxMessages(3).build();

        memory.add(UserMessage.from("first"), AiMessage.from("second"), AiMessage.from("3rd"));
        assertThat(store.count(Operation.APPEND)).as("appends of add(m1, m2, m3)").isOne();
        assertThat(writes(store)).as("writes of add(m1, m2, m3)").isOne();

        store.reset();
        memory.messages();
        assertThat(writes(store)).as("writes of messages()").isZero();

        store.reset();
        memory.set(UserMessage.from("world"), AiMessage.from("hi"));
        assertThat(writes(store)).as("writes of set(…)").isOne();
        assertThat(memory.messages()).containsExactly(UserMessage.from("world"), AiMessage.from("hi"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.set_with_varargs_should_not_throw_when_eviction_is_needed")
    void should_set_more_messages_than_the_window_shows_when_set_with_varargs() {
        ChatMemory memory = window(2);
        memory.set(UserMessage.from("m1"), UserMessage.from("m2"), UserMessage.from("m3"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("m2"), UserMessage.from("m3"));
    }

    @Test
    @DisplayName("MessageWindowChatMemoryTest.set_with_list_should_not_mutate_or_alias_the_caller_provided_list")
    void should_neither_change_nor_keep_the_callers_list_when_set_with_a_list() {
        ChatMemory memory = window(2);
        List<ChatMessage> callers = new ArrayList<>(Arrays.asList(UserMessage.from("a1"), UserMessage.from("a2"),
                UserMessage.from("a3")));

        memory.set(callers);

        assertThat(callers).containsExactly(UserMessage.from("a1"), UserMessage.from("a2"), UserMessage.from("a3"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("a2"), UserMessage.from("a3"));
        callers.add(UserMessage.from("a4-injected"));
        assertThat(memory.messages()).containsExactly(UserMessage.from("a2"), UserMessage.from("a3"));
    }

    static void addUsers(ChatMemory memory, String... texts) {
        for (String text : texts) {
            memory.add(UserMessage.from(text));
        }
    }

    static List<ChatMessage> users(String... texts) {
        return Arrays.stream(texts).<ChatMessage>map(UserMessage::from).toList();
    }

    /** Store calls that write: appends, replaces, state updates, trims, deletes. */
    static long writes(CountingSessionStore store) {
        return store.count(Operation.APPEND) + store.count(Operation.REPLACE) + store.count(Operation.COMPARE_AND_SET_STATE)
                + store.count(Operation.TRIM) + store.count(Operation.DELETE) + store.count(Operation.UPDATE_MESSAGES)
                + store.count(Operation.DELETE_MESSAGES);
    }
}
