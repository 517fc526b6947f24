package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.openai.OpenAiChatModelName;
import dev.langchain4j.model.openai.OpenAiTokenCountEstimator;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Our port of LangChain4j 1.19's {@code TokenWindowChatMemoryTest} against {@link WindowChatMemory}
 * with {@code maxTokens}, counting with the same estimator LangChain4j's test uses
 * ({@link OpenAiTokenCountEstimator} for gpt-4o-mini: 3 tokens per request besides its messages),
 * so every limit means the same here. Each case asserts what LangChain4j's test asserts, or is marked
 * {@link DeliberateDifference} and asserts our documented behaviour instead.
 */
class TokenWindowPortTest {

    private static final OpenAiTokenCountEstimator ESTIMATOR = new OpenAiTokenCountEstimator(OpenAiChatModelName.GPT_4_O_MINI);
    private static final int EXTRA_TOKENS_PER_REQUEST = 3;

    private static WindowChatMemory window(int maxTokens) {
        return WindowChatMemory.builder().maxTokens(maxTokens).tokenizer(ESTIMATOR).build();
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.id")
    void should_have_the_default_id_or_the_given_one_when_built() {
        assertThat(window(2).id()).isEqualTo("default");
        assertThat(WindowChatMemory.builder().id("abc").maxTokens(2).tokenizer(ESTIMATOR).build().id()).isEqualTo("abc");
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.store_and_clear")
    void should_slide_and_clear_idempotently_when_user_messages_exceed_the_tokens() {
        ChatMessage m1 = UserMessage.from("hello");
        ChatMessage m2 = UserMessage.from("world");
        int m1Tokens = ESTIMATOR.estimateTokenCountInMessage(m1);
        int m2Tokens = ESTIMATOR.estimateTokenCountInMessage(m2);
        assertThat(ESTIMATOR.estimateTokenCountInMessages(List.of(m1))).isEqualTo(EXTRA_TOKENS_PER_REQUEST + m1Tokens);
        WindowCases.slideAndClear(window(EXTRA_TOKENS_PER_REQUEST + m1Tokens + m2Tokens), m1, m2,
                UserMessage.from("banana"));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_keep_specified_number_of_tokens_in_chat_memory")
    @DeliberateDifference("LangChain4j ends with [firstAi, secondUser, secondAi] (33 tokens); we cut whole turns: "
            + "[secondUser, secondAi] (23 tokens), never starting with an AI message (DESIGN.md: whole turns)")
    void should_keep_whole_turns_within_max_tokens_when_the_conversation_grows() {
        ChatMemory memory = window(33);
        UserMessage secondUser = userWithTokens(10);
        AiMessage secondAi = aiWithTokens(10);
        WindowCases.wholeTurnsWithinLimit(memory, userWithTokens(10), aiWithTokens(10), secondUser, secondAi);
        assertThat(ESTIMATOR.estimateTokenCountInMessages(memory.messages())).isEqualTo(EXTRA_TOKENS_PER_REQUEST + 20);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_not_evict_system_message_from_chat_memory")
    @DeliberateDifference("after the second user message LangChain4j shows [system, firstAi, secondUser]; we cut the "
            + "whole first turn: [system, secondUser] (whole turns)")
    void should_keep_the_system_message_first_when_turns_are_cut_by_tokens() {
        WindowCases.systemMessageStaysFirst(window(33), systemWithTokens(10), userWithTokens(10), aiWithTokens(10),
                userWithTokens(10), aiWithTokens(10));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_keep_only_the_latest_system_message_in_chat_memory")
    @DeliberateDifference("LangChain4j appends the new system message at the end: [firstUser, firstAi, "
            + "secondSystem]; ours is pinned first (DESIGN.md: system message pinned first)")
    void should_show_only_the_latest_system_message_first_when_it_changes() {
        WindowCases.latestSystemMessageFirst(window(40), SystemMessage.from("You are a helpful assistant"),
                userWithTokens(10), aiWithTokens(10), SystemMessage.from("You are an unhelpful assistant"));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_not_add_the_same_system_message_to_chat_memory_if_it_is_already_there")
    void should_not_add_the_same_system_message_again_when_it_is_already_there() {
        WindowCases.sameSystemMessageOnce(window(33), systemWithTokens(10), userWithTokens(10), aiWithTokens(10));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest")
    @DeliberateDifference("LangChain4j (39 tokens): [user, aiCall], [aiCall, result], [ai2]; ours hides the running "
            + "call and keeps the newest turn whole over the limit, reporting it (tool calls stay whole, the newest "
            + "turn is always kept)")
    void should_keep_the_newest_tool_turn_whole_when_it_alone_exceeds_the_tokens() {
        assertThat(ESTIMATOR.estimateTokenCountInMessage(UserMessage.from("How much is 2+2?"))).isEqualTo(12);
        assertThat(ESTIMATOR.estimateTokenCountInMessage(AiMessage.from(WindowCases.TWO_PLUS_TWO))).isEqualTo(24);
        assertThat(ESTIMATOR.estimateTokenCountInMessage(ToolExecutionResultMessage.from(WindowCases.TWO_PLUS_TWO, "4")))
                .isEqualTo(5);
        WindowCases.newestToolTurnWhole(window(39), null, true);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest_when_SystemMessage_is_present")
    @DeliberateDifference("LangChain4j (48 tokens): [system, user, aiCall], [system, aiCall, result], [system, ai2]; "
            + "ours hides the running call and keeps the newest turn whole")
    void should_keep_the_newest_tool_turn_whole_after_the_system_message_when_it_exceeds_the_tokens() {
        WindowCases.newestToolTurnWhole(window(48), SystemMessage.from("Use calculator for math questions"), true);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_evict_orphan_ToolExecutionResultMessage_when_evicting_AiMessage_with_ToolExecutionRequest_when_SystemMessage_is_present_2")
    @DeliberateDifference("LangChain4j (36 tokens): [system, aiCall] while the tool runs, [system] once the result "
            + "arrives; ours: [system, user], then the whole turn over the limit")
    void should_never_show_only_the_system_message_when_a_tool_turn_exceeds_the_tokens() {
        WindowCases.newestToolTurnWhole(window(36), SystemMessage.from("Use calculator for math questions"), false);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_evict_multiple_orphan_ToolExecutionResultMessages_when_evicting_AiMessage_with_ToolExecutionRequests")
    @DeliberateDifference("LangChain4j (82 tokens): [user, aiCall, result1] with a result missing, [aiCall, result1, "
            + "result2], [ai2]; ours shows a call only with all its results and keeps the newest turn whole")
    void should_show_a_call_with_all_its_results_only_when_a_message_calls_two_tools() {
        WindowCases.twoCallTurnWhole(window(82), null);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_evict_multiple_orphan_ToolExecutionResultMessages_when_evicting_AiMessage_with_ToolExecutionRequests_when_SystemMessage_is_present")
    @DeliberateDifference("LangChain4j (91 tokens): [system, user, aiCall, result1], [system, aiCall, result1, "
            + "result2], [system, ai2]; ours shows a call only with all its results and keeps the newest turn whole")
    void should_show_a_call_with_all_its_results_after_the_system_message_when_a_message_calls_two_tools() {
        WindowCases.twoCallTurnWhole(window(91), SystemMessage.from("Use calculator for math questions"));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_work_even_if_the_first_message_exceeds_max_tokens")
    @DeliberateDifference("LangChain4j's test only asks for no exception (its window then shows nothing); ours also "
            + "shows the newest turn over the limit and reports the overflow (the newest turn is always kept)")
    void should_not_fail_and_show_the_newest_turn_when_a_message_alone_exceeds_max_tokens() {
        OpenAiTokenCountEstimator gpt35 = new OpenAiTokenCountEstimator(OpenAiChatModelName.GPT_3_5_TURBO);
        ChatMemory memory = WindowChatMemory.builder().maxTokens(2).tokenizer(gpt35).build();
        UserMessage lastUser = userWithTokens(25);
        AiMessage lastAi = aiWithTokens(10);

        assertThatCode(() -> {
            memory.add(userWithTokens(25));
            memory.add(aiWithTokens(10));
            memory.add(lastUser);
            memory.add(lastAi);
        }).doesNotThrowAnyException();
        assertThat(memory.messages()).containsExactly(lastUser, lastAi);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.should_not_fail_even_with_just_system_message")
    void should_not_fail_when_only_a_system_message_over_the_limit_is_added() {
        OpenAiTokenCountEstimator gpt35 = new OpenAiTokenCountEstimator(OpenAiChatModelName.GPT_3_5_TURBO);
        ChatMemory memory = WindowChatMemory.builder().maxTokens(2).tokenizer(gpt35).build();
        assertThatCode(() -> memory.add(systemWithTokens(10))).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.dynamic_max_tokens_behavior")
    @DeliberateDifference("with 33 tokens LangChain4j keeps [B, C, D] (AI message first); ours keeps the whole turn "
            + "[C, D] (whole turns). With 45 tokens LangChain4j keeps [A, B, C, D] (43 tokens); ours, read after an "
            + "answer, leaves room for the next question AiServices adds (the whole request within the limit): "
            + "[C, D]. The 60-token memory, read while its turn is open, agrees with LangChain4j")
    void should_apply_each_memory_ids_token_limit_when_max_tokens_is_a_function_of_the_id() {
        Function<Object, Integer> limits = id -> "short".equals(id) ? 33 : "long".equals(id) ? 60 : 45;
        UserMessage a = userWithTokens(10);
        AiMessage b = aiWithTokens(10);
        UserMessage c = userWithTokens(10);
        AiMessage d = aiWithTokens(10);
        UserMessage e = userWithTokens(10);
        ChatMemory shortMemory = WindowChatMemory.builder().id("short").dynamicMaxTokens(limits).tokenizer(ESTIMATOR).build();
        ChatMemory longMemory = WindowChatMemory.builder().id("long").dynamicMaxTokens(limits).tokenizer(ESTIMATOR).build();
        ChatMemory otherMemory = WindowChatMemory.builder().id("other").dynamicMaxTokens(limits).tokenizer(ESTIMATOR).build();

        addEach(shortMemory, a, b, c, d);
        assertThat(shortMemory.messages()).containsExactly(c, d);
        addEach(longMemory, a, b, c, d, e);
        assertThat(longMemory.messages()).containsExactly(a, b, c, d, e);
        addEach(otherMemory, a, b, c, d);
        assertThat(otherMemory.messages()).containsExactly(c, d);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.dynamic_max_tokens_can_change_for_same_id")
    @DeliberateDifference("LangChain4j: [B, C, D] at 33 tokens and [B, C, D, E] at 43; ours keeps whole turns: "
            + "[C, D] and [C, D, E]. After shrinking back to 33 both show [C, D, E]")
    void should_follow_the_current_token_limit_when_it_changes_for_the_same_id() {
        int[] max = {33};
        ChatMemory memory = WindowChatMemory.builder().id("same-id").dynamicMaxTokens(id -> max[0]).tokenizer(ESTIMATOR).build();
        UserMessage a = userWithTokens(10);
        AiMessage b = aiWithTokens(10);
        UserMessage c = userWithTokens(10);
        AiMessage d = aiWithTokens(10);
        UserMessage e = userWithTokens(10);

        memory.add(a);
        memory.add(b);
        memory.add(c);
        assertThat(memory.messages()).containsExactly(a, b, c);
        memory.add(d);
        assertThat(memory.messages()).containsExactly(c, d);
        max[0] = 43;
        memory.add(e);
        assertThat(memory.messages()).containsExactly(c, d, e);
        max[0] = 33;
        assertThat(memory.messages()).containsExactly(c, d, e);
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.system_message_first_enabled")
    void should_show_the_system_message_first_whenever_it_was_added() {
        WindowCases.systemMessageFirstAlways(window(100), window(100), systemWithTokens(10), userWithTokens(10),
                aiWithTokens(10));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.system_message_first_disabled")
    @DeliberateDifference("with alwaysKeepSystemMessageFirst(false) LangChain4j shows [user, system, ai] when the "
            + "system message came second; ours always pins it first (DESIGN.md)")
    void should_show_the_system_message_first_when_it_is_added_after_a_user_message() {
        WindowCases.systemMessageFirstWhenAddedSecond(window(100), systemWithTokens(10), userWithTokens(10),
                aiWithTokens(10));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.system_message_first_with_message_eviction")
    void should_keep_the_system_message_first_when_user_messages_are_evicted_by_tokens() {
        WindowCases.systemMessageFirstWhileEvicting(window(35), systemWithTokens(10), userWithTokens(10),
                userWithTokens(10), userWithTokens(10));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.chat_memory_set_uses_reduced_store_ops")
    @DeliberateDifference("LangChain4j's add(m1, m2, m3) is 3 reads + 3 whole-list writes; ours is one atomic append; "
            + "messages() writes nothing and set is one store write, as in LangChain4j")
    void should_append_once_read_without_writing_and_set_in_one_write_when_counting_store_calls() {
        CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());
        WindowCases.reducedStoreOperations(store,
                WindowChatMemory.builder().chatMemoryStore(store).maxTokens(35).tokenizer(ESTIMATOR).build());
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.set_with_varargs_should_not_throw_when_eviction_is_needed")
    void should_set_more_messages_than_the_window_shows_when_set_with_varargs() {
        WindowCases.setMoreThanShown(window(25), userWithTokens(10), userWithTokens(10), userWithTokens(10));
    }

    @Test
    @DisplayName("TokenWindowChatMemoryTest.set_with_list_should_not_mutate_or_alias_the_caller_provided_list")
    void should_neither_change_nor_keep_the_callers_list_when_set_with_a_list() {
        WindowCases.setKeepsNoAlias(window(25), userWithTokens(10), userWithTokens(10), userWithTokens(10),
                userWithTokens(10));
    }

    private static void addEach(ChatMemory memory, ChatMessage... messages) {
        for (ChatMessage message : messages) {
            memory.add(message);
        }
    }

    /** A user message of exactly {@code tokens} tokens for {@link #ESTIMATOR} (distinct texts, so equal sizes differ). */
    private static UserMessage userWithTokens(int tokens) {
        return UserMessage.from(textFor(tokens, UserMessage::from));
    }

    private static AiMessage aiWithTokens(int tokens) {
        return AiMessage.from(textFor(tokens, AiMessage::from));
    }

    private static SystemMessage systemWithTokens(int tokens) {
        return SystemMessage.from(textFor(tokens, SystemMessage::from));
    }

    private static int counter;

    /** Text that makes a message of exactly {@code tokens} tokens, starting with a running number. */
    private static synchronized String textFor(int tokens, Function<String, ChatMessage> message) {
        String prefix = "m" + (++counter);
        StringBuilder text = new StringBuilder(prefix);
        while (ESTIMATOR.estimateTokenCountInMessage(message.apply(text.toString())) < tokens) {
            text.append(" one");
        }
        if (ESTIMATOR.estimateTokenCountInMessage(message.apply(text.toString())) != tokens) {
            throw new IllegalStateException("cannot make a message of " + tokens + " tokens: " + text);
        }
        return text.toString();
    }
}
