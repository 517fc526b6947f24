package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.added;
import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertState;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static io.github.memorypack.integration.PathAssertions.count;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reprompting output guardrail ({@code reprompt(message, prompt)}): LangChain4j 1.19 reads
 * {@code messages()} (the rejected answer is already in the memory), appends the reprompt as a user
 * message that is never stored, and asks again; neither the reprompt nor the new answer is added to
 * the memory. The reprompt request must be a well-formed continuation of the conversation, and
 * the memory must hold exactly what LangChain4j added.
 */
class RepromptGuardrailTest extends ShopTestBase {

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_the_conversation_with_the_rejected_answer_and_store_only_what_langchain4j_added_when_reprompting(
            Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        Baseline before = baseline();

        // when
        String answer = assistant.chat(SESSION, Shop.ASK_SUM);
        assistant.chat(SESSION, "Thanks.");

        // then
        assertThat(answer).isEqualTo(Shop.GOOD_SUM_ANSWER);
        List<Request> requests = requestsFrom(before.firstRequest());
        assertThat(requests).as("question, reprompt, next turn").hasSize(3);
        List<String> reprompt = requests.get(1).history();
        assertThat(reprompt.get(0)).isEqualTo(Shop.SYSTEM_LINE);
        assertThat(reprompt.get(reprompt.size() - 1)).isEqualTo("user: " + Shop.REPROMPT);
        if (!strategy.foldsNewestTurn()) {
            assertThat(reprompt.subList(reprompt.size() - 3, reprompt.size())).as("reprompt request").containsExactly(
                    "user: " + Shop.ASK_SUM, "assistant: " + Shop.BAD_SUM_ANSWER, "user: " + Shop.REPROMPT);
            assertThat(count(requests.get(2).history(), "user: " + Shop.ASK_SUM)).as("next request").isOne();
        }
        assertToolCallsAnswered(requests);
        List<Entry> after = log();
        assertKept(before.log(), after);
        List<ChatMessage> turns = added(before.log(), after);
        assertThat(turns).as("what LangChain4j added: never the reprompt nor the reprompted answer")
                .startsWith(UserMessage.from(Shop.ASK_SUM), AiMessage.from(Shop.BAD_SUM_ANSWER))
                .doesNotContain(UserMessage.from(Shop.REPROMPT), AiMessage.from(Shop.GOOD_SUM_ANSWER))
                .hasSize(4);
        assertState(store, SESSION, before.summary());
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_the_tool_call_with_its_result_in_the_reprompt_when_the_rejected_answer_followed_a_tool_call(
            Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        Baseline before = baseline();

        // when: a stock check, then an answer the guardrail reprompts
        String answer = assistant.chat(SESSION, Shop.ASK_STOCK_SUM);

        // then
        assertThat(answer).isEqualTo(Shop.GOOD_SUM_ANSWER);
        List<Request> requests = requestsFrom(before.firstRequest());
        assertThat(requests).as("question, after the tool, reprompt").hasSize(3);
        assertToolCallsAnswered(requests);
        List<String> reprompt = requests.get(2).history();
        assertThat(reprompt.get(reprompt.size() - 1)).isEqualTo("user: " + Shop.REPROMPT);
        if (!strategy.foldsNewestTurn()) {
            assertThat(reprompt.subList(reprompt.size() - 5, reprompt.size() - 1)).as("reprompt request")
                    .satisfies(lines -> {
                        assertThat(lines.get(0)).isEqualTo("user: " + Shop.ASK_STOCK_SUM);
                        assertThat(lines.get(1)).startsWith("assistant: tool_calls[").contains("matcha");
                        assertThat(lines.get(2)).startsWith("tool ").contains("matcha: 12 packs");
                        assertThat(lines.get(3)).isEqualTo("assistant: " + Shop.BAD_SUM_ANSWER);
                    });
        }
        List<Entry> after = log();
        assertKept(before.log(), after);
        assertThat(added(before.log(), after)).as("user, tool call, result, rejected answer").hasSize(4)
                .endsWith(AiMessage.from(Shop.BAD_SUM_ANSWER));
        assertState(store, SESSION, before.summary());
    }
}
