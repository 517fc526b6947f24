package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.integration.CountingSessionStore.Operation;
import java.util.ArrayList;
import java.util.List;

/**
 * The steps LangChain4j 1.19's {@code MessageWindowChatMemoryTest} and {@code TokenWindowChatMemoryTest}
 * share, written once with the view our window shows after each step. The two ports call them with a
 * window sized like LangChain4j's (in messages or in tokens) and the messages of their test.
 */
final class WindowCases {

    static final ToolExecutionRequest TWO_PLUS_TWO = ToolExecutionRequest.builder().id("1").name("calculator")
            .arguments("{ \"a\": 2, \"b\": 2 }").build();
    static final ToolExecutionRequest THREE_PLUS_THREE = ToolExecutionRequest.builder().id("2").name("calculator")
            .arguments("{ \"a\": 3, \"b\": 3 }").build();

    private WindowCases() {
    }

    /** store_and_clear: two user messages fill the window, a third slides it; clear() twice empties it. */
    static void slideAndClear(ChatMemory memory, ChatMessage m1, ChatMessage m2, ChatMessage m3) {
        memory.add(m1);
        memory.add(m2);
        assertThat(memory.messages()).containsExactly(m1, m2);
        memory.add(m3);
        assertThat(memory.messages()).containsExactly(m2, m3);
        memory.clear();
        memory.clear();
        assertThat(memory.messages()).isEmpty();
    }

    /** should_keep_specified_number_of_…: ours cuts the whole first turn once the second one ends. */
    static void wholeTurnsWithinLimit(ChatMemory memory, UserMessage u1, AiMessage a1, UserMessage u2, AiMessage a2) {
        memory.add(u1);
        assertThat(memory.messages()).containsExactly(u1);
        memory.add(a1);
        assertThat(memory.messages()).containsExactly(u1, a1);
        memory.add(u2);
        assertThat(memory.messages()).containsExactly(u1, a1, u2);
        memory.add(a2);
        assertThat(memory.messages()).containsExactly(u2, a2);
    }

    /** should_not_evict_system_message_…: ours cuts the whole first turn, the system message stays first. */
    static void systemMessageStaysFirst(ChatMemory memory, SystemMessage system, UserMessage u1, AiMessage a1,
                                        UserMessage u2, AiMessage a2) {
        memory.add(system);
        memory.add(u1);
        memory.add(a1);
        assertThat(memory.messages()).containsExactly(system, u1, a1);
        memory.add(u2);
        assertThat(memory.messages()).containsExactly(system, u2);
        memory.add(a2);
        assertThat(memory.messages()).containsExactly(system, u2, a2);
    }

    /** should_keep_only_the_latest_system_message_…: the new system message replaces the old one, first. */
    static void latestSystemMessageFirst(ChatMemory memory, SystemMessage first, UserMessage user, AiMessage ai,
                                         SystemMessage second) {
        memory.add(first);
        memory.add(user);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(first, user, ai);
        memory.add(second);
        assertThat(memory.messages()).containsExactly(second, user, ai);
    }

    /** should_not_add_the_same_system_message_…: as LangChain4j. */
    static void sameSystemMessageOnce(ChatMemory memory, SystemMessage system, UserMessage user, AiMessage ai) {
        memory.add(system);
        memory.add(user);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(system, user, ai);
        memory.add(system);
        assertThat(memory.messages()).containsExactly(system, user, ai);
    }

    /**
     * should_evict_orphan_ToolExecutionResultMessage_…: a call without its result is not shown (it may
     * still be running); the newest turn is shown whole even over the limit. {@code system} may be null.
     */
    static void newestToolTurnWhole(ChatMemory memory, SystemMessage system, boolean answered) {
        UserMessage user = UserMessage.from("How much is 2+2?");
        AiMessage call = AiMessage.from(TWO_PLUS_TWO);
        ToolExecutionResultMessage result = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");
        AiMessage answer = AiMessage.from("2 + 2 = 4");
        List<ChatMessage> shown = new ArrayList<>();
        if (system != null) {
            memory.add(system);
            shown.add(system);
            assertThat(memory.messages()).containsExactlyElementsOf(shown);
        }
        memory.add(user);
        shown.add(user);
        assertThat(memory.messages()).containsExactlyElementsOf(shown);
        memory.add(call);
        assertThat(memory.messages()).as("while the tool runs").containsExactlyElementsOf(shown);
        memory.add(result);
        shown.add(call);
        shown.add(result);
        assertThat(memory.messages()).containsExactlyElementsOf(shown);
        if (answered) {
            memory.add(answer);
            shown.add(answer);
            assertThat(memory.messages()).containsExactlyElementsOf(shown);
        }
    }

    /**
     * should_evict_multiple_orphan_ToolExecutionResultMessages_…: a message calling two tools is shown
     * only with both results, and its turn whole. {@code system} may be null.
     */
    static void twoCallTurnWhole(ChatMemory memory, SystemMessage system) {
        UserMessage user = UserMessage.from("How much is 2+2 and 3+3?");
        AiMessage calls = AiMessage.from(TWO_PLUS_TWO, THREE_PLUS_THREE);
        ToolExecutionResultMessage first = ToolExecutionResultMessage.from(TWO_PLUS_TWO, "4");
        ToolExecutionResultMessage second = ToolExecutionResultMessage.from(THREE_PLUS_THREE, "6");
        AiMessage answer = AiMessage.from("2 + 2 = 4, 3 + 3 = 6");
        List<ChatMessage> shown = new ArrayList<>();
        if (system != null) {
            memory.add(system);
            shown.add(system);
        }
        memory.add(user);
        shown.add(user);
        assertThat(memory.messages()).containsExactlyElementsOf(shown);
        memory.add(calls);
        memory.add(first);
        assertThat(memory.messages()).as("one result still missing").containsExactlyElementsOf(shown);
        memory.add(second);
        shown.addAll(List.of(calls, first, second));
        assertThat(memory.messages()).containsExactlyElementsOf(shown);
        memory.add(answer);
        shown.add(answer);
        assertThat(memory.messages()).containsExactlyElementsOf(shown);
    }

    /** system_message_first_disabled: a system message added after a user message is still shown first. */
    static void systemMessageFirstWhenAddedSecond(ChatMemory memory, SystemMessage system, UserMessage user,
                                                  AiMessage ai) {
        memory.add(user);
        memory.add(system);
        memory.add(ai);
        assertThat(memory.messages()).containsExactly(system, user, ai);
    }

    /** system_message_first_enabled: the system message first, whenever it was added. */
    static void systemMessageFirstAlways(ChatMemory before, ChatMemory after, SystemMessage system, UserMessage user,
                                         AiMessage ai) {
        before.add(system);
        before.add(user);
        before.add(ai);
        assertThat(before.messages()).containsExactly(system, user, ai);
        systemMessageFirstWhenAddedSecond(after, system, user, ai);
    }

    /** system_message_first_with_message_eviction: as LangChain4j. */
    static void systemMessageFirstWhileEvicting(ChatMemory memory, SystemMessage system, UserMessage m1, UserMessage m2,
                                                UserMessage m3) {
        memory.add(system);
        memory.add(m1);
        memory.add(m2);
        assertThat(memory.messages()).containsExactly(system, m1, m2);
        memory.add(m3);
        assertThat(memory.messages()).containsExactly(system, m2, m3);
    }

    /**
     * chat_memory_set_uses_reduced_store_ops: add(m1, m2, m3) is one append, messages() writes nothing,
     * set(…) is one write.
     */
    static void reducedStoreOperations(CountingSessionStore store, ChatMemory memory) {
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

    /** set_with_varargs_…: set accepts more than the window shows; the window shows the newest. */
    static void setMoreThanShown(ChatMemory memory, UserMessage m1, UserMessage m2, UserMessage m3) {
        memory.set(m1, m2, m3);
        assertThat(memory.messages()).containsExactly(m2, m3);
    }

    /** set_with_list_…: the caller's list is neither changed nor kept. */
    static void setKeepsNoAlias(ChatMemory memory, UserMessage m1, UserMessage m2, UserMessage m3, UserMessage m4) {
        List<ChatMessage> callers = new ArrayList<>(List.of(m1, m2, m3));
        memory.set(callers);
        assertThat(callers).containsExactly(m1, m2, m3);
        assertThat(memory.messages()).containsExactly(m2, m3);
        callers.add(m4);
        assertThat(memory.messages()).containsExactly(m2, m3);
    }

    /** Store calls that write: appends, replaces, state updates, trims, deletes. */
    static long writes(CountingSessionStore store) {
        return store.count(Operation.APPEND) + store.count(Operation.REPLACE) + store.count(Operation.COMPARE_AND_SET_STATE)
                + store.count(Operation.TRIM) + store.count(Operation.DELETE) + store.count(Operation.UPDATE_MESSAGES)
                + store.count(Operation.DELETE_MESSAGES);
    }
}
