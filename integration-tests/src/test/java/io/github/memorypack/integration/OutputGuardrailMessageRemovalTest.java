package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.added;
import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertState;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static io.github.memorypack.integration.PathAssertions.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.guardrail.OutputGuardrailException;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Output guardrails with message removal ({@code fatalWithMessageRemoval},
 * {@code failureWithMessageRemoval}): LangChain4j 1.19 reads {@code messages()}, drops the last AI
 * message, calls {@code clear()} and adds the rest back one by one, then throws
 * {@link OutputGuardrailException}. The earlier log must survive (archived, never lost), the state
 * must keep the application's system message and the summary, the removed answer must never reach
 * the model again, and the re-added messages must not be doubled.
 */
class OutputGuardrailMessageRemovalTest extends ShopTestBase {

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#oldestFirstStrategiesAndStores")
    void should_keep_the_log_state_and_view_but_never_send_the_removed_answer_when_a_guardrail_removes_it(
            Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        Baseline before = baseline();

        // when
        Throwable removed = catchThrowable(() -> assistant.chat(SESSION, Shop.ASK_SECRET));
        Throwable next = catchThrowable(() -> assistant.chat(SESSION, "Thanks."));

        // then
        assertThat(removed).as("precondition: the guardrail failed the answer").isInstanceOf(OutputGuardrailException.class);
        assertThat(next).as("the next turn").isNull();
        List<Request> requests = requestsFrom(before.firstRequest());
        assertThat(requests).as("requests of both turns").hasSize(2);
        List<String> nextRequest = requests.get(1).history();
        assertThat(String.join("\n", nextRequest)).as("the next request").doesNotContain(Shop.SECRET_ANSWER);
        assertThat(nextRequest.get(0)).isEqualTo(Shop.SYSTEM_LINE);
        assertThat(nextRequest).as("system lines: the application's, then the summary if any")
                .filteredOn(line -> line.startsWith("system: ")).hasSize(strategy.summarizes() ? 2 : 1);
        assertThat(nextRequest.get(nextRequest.size() - 1)).isEqualTo("user: Thanks.");
        if (!strategy.foldsNewestTurn()) {
            assertThat(nextRequest.get(nextRequest.size() - 2)).as("the removed answer's question, kept")
                    .isEqualTo("user: " + Shop.ASK_SECRET);
            assertThat(count(nextRequest, "user: " + Shop.ASK_SECRET)).as("the question, not doubled by the re-add")
                    .isOne();
        }
        // clear() + re-adding the view lost nothing of it: the next request is the removed answer's
        // request (as much of it as the view showed when the guardrail ran) plus the new question
        List<String> first = requests.get(0).history();
        List<String> shown = nextRequest.subList(0, nextRequest.size() - 1);
        if (strategy.showsEverything()) {
            assertThat(shown).as("the next request, before its question").isEqualTo(first);
        } else if (!strategy.summarizes()) {
            assertThat(shown.get(0)).isEqualTo(Shop.SYSTEM_LINE);
            assertThat(first).as("the next request, before its question, ends the removed answer's request")
                    .endsWith(shown.subList(1, shown.size()).toArray(String[]::new));
        }
        assertToolCallsAnswered(requests);
        assertKept(before.log(), log());
        assertThat(added(before.log(), log())).as("the log holds the question").contains(UserMessage.from(Shop.ASK_SECRET));
        assertState(store, SESSION, before.summary());
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_the_tool_call_with_its_result_after_the_removal_when_the_removed_answer_followed_a_tool_call(
            Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        Baseline before = baseline();

        // when: stock check (tool call and result in the memory), then an answer the guardrail removes
        Throwable removed = catchThrowable(() -> assistant.chat(SESSION, Shop.ASK_STOCK_SECRET));
        Throwable next = catchThrowable(() -> assistant.chat(SESSION, "Thanks."));

        // then
        assertThat(removed).as("precondition: the guardrail failed the answer").isInstanceOf(OutputGuardrailException.class);
        assertThat(next).as("the next turn").isNull();
        List<Request> requests = requestsFrom(before.firstRequest());
        assertToolCallsAnswered(requests);
        List<String> nextRequest = requests.get(requests.size() - 1).history();
        assertThat(String.join("\n", nextRequest)).as("the next request").doesNotContain(Shop.SECRET_ANSWER);
        if (!strategy.foldsNewestTurn()) {
            assertThat(nextRequest).as("the next request keeps the stock check of the removed answer's turn")
                    .anySatisfy(line -> assertThat(line).startsWith("assistant: tool_calls[").contains("matcha"));
        }
        assertKept(before.log(), log());
        assertState(store, SESSION, before.summary());
    }

    @Test
    void should_send_what_langchain4js_own_memory_sends_when_the_buffer_backs_a_removal() throws Exception {
        assertBufferSendsWhatLangChain4jSends(OutputGuardrailMessageRemovalTest::converse);
    }

    private static void converse(Shop.Assistant assistant) {
        Shop.warmUp(assistant, SESSION);
        catchThrowable(() -> assistant.chat(SESSION, Shop.ASK_SECRET));
        catchThrowable(() -> assistant.chat(SESSION, Shop.ASK_STOCK_SECRET));
        catchThrowable(() -> assistant.chat(SESSION, "Thanks."));
    }
}
