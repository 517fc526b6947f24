package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.added;
import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertState;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tool compensation ({@code compensateOnToolErrors(true)} and {@code @CompensateFor}): when a tool
 * fails, LangChain4j 1.19 undoes the compensable tools that succeeded, then rewrites the memory
 * with {@code chatMemory.set(chatMemory.messages())} (their results replaced by "rolled back"
 * notes) — at a moment when the newest AI tool-call message has no results yet — and then adds the
 * results. Nothing but those replaced results may change, and the follow-up request must carry the
 * tool calls with their results, as LangChain4j's own memory sends them.
 */
class ToolCompensationTest extends ShopTestBase {

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#oldestFirstStrategiesAndStores")
    void should_keep_the_log_and_send_the_calls_with_their_results_when_a_tool_fails_in_the_booking_round(
            Strategy strategy, StoreKind kind) {
        // given: a conversation that has been cut or folded already
        Shop.Assistant assistant = warmedUp(strategy, kind);
        Baseline before = baseline();
        assertThat(before.summary().isPresent()).as("precondition: the warm-up was folded").isEqualTo(strategy.summarizes());

        // when: one AI message calls book (succeeds, compensable) and pay (fails)
        Throwable failure = catchThrowable(() -> assistant.chat(SESSION, Shop.BOOK_AND_PAY));
        Throwable nextFailure = catchThrowable(() -> assistant.chat(SESSION, "Thanks."));

        // then: LangChain4j compensated
        assertThat(tools.cancellations).as("precondition: the booking was compensated").contains("table for 2");
        List<Request> requests = requestsFrom(before.firstRequest());
        assertThat(requests.get(0).history().contains("user: " + Shop.ASK_TEA))
                .as("precondition: the tea turn is cut or folded by now").isEqualTo(strategy.showsEverything());
        assertToolCallsAnswered(requests);
        // the follow-up request carries the tool calls with the rolled-back and the failed result
        Request followUp = requests.get(1);
        assertThat(followUp.history()).as("follow-up request").anySatisfy(line -> assertThat(line)
                .startsWith("assistant: tool_calls[").contains(" book ").contains(" pay "));
        assertThat(followUp.history()).anySatisfy(line -> assertThat(line).startsWith("tool ").contains("rolled back"));
        assertThat(followUp.history()).anySatisfy(line -> assertThat(line).startsWith("tool ").contains("card declined"));
        assertThat(failure).as("the compensated turn").isNull();
        assertThat(nextFailure).as("the next turn").isNull();
        assertThat(tools.cancellations).as("compensations").hasSize(1);
        assertThat(requests).as("requests of both turns").hasSize(3);
        // the log holds everything it held, plus exactly the turn as LangChain4j recorded it
        List<Entry> after = log();
        assertKept(before.log(), after);
        List<ChatMessage> turn = added(before.log(), after);
        assertThat(turn).as("messages the two turns added").hasSize(7);
        assertThat(turn.get(0)).isEqualTo(UserMessage.from(Shop.BOOK_AND_PAY));
        assertThat(((AiMessage) turn.get(1)).toolExecutionRequests()).extracting(r -> r.name())
                .containsExactly("book", "pay");
        assertThat(((ToolExecutionResultMessage) turn.get(2)).text()).contains("rolled back");
        assertThat(((ToolExecutionResultMessage) turn.get(3)).text()).contains("card declined");
        assertThat(turn.get(5)).isEqualTo(UserMessage.from("Thanks."));
        assertState(store, SESSION, before.summary());
        assertThat(requests.get(2).history().get(0)).isEqualTo(Shop.SYSTEM_LINE);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_keep_the_log_and_send_every_round_with_its_results_when_the_payment_round_fails_after_the_booking_round(
            Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        Baseline before = baseline();

        // when: round 1 books (its result is in the memory), round 2 pays and fails: LangChain4j
        // replaces the stored booking result with a "rolled back" note through set(messages())
        Throwable failure = catchThrowable(() -> assistant.chat(SESSION, Shop.BOOK_THEN_PAY));
        Throwable nextFailure = catchThrowable(() -> assistant.chat(SESSION, "Thanks."));

        // then
        assertThat(tools.cancellations).as("precondition: the booking was compensated").contains("table for 4");
        List<Request> requests = requestsFrom(before.firstRequest());
        assertToolCallsAnswered(requests);
        Request afterPayment = requests.get(2);
        assertThat(afterPayment.history()).as("request after the failed payment").anySatisfy(line -> assertThat(line)
                .startsWith("assistant: tool_calls[").contains(" pay "));
        assertThat(afterPayment.history()).anySatisfy(line -> assertThat(line).startsWith("tool ").contains("rolled back"));
        assertThat(afterPayment.history()).anySatisfy(line -> assertThat(line).startsWith("tool ").contains("card declined"));
        assertThat(afterPayment.history()).noneMatch(line -> line.contains("table for 4 booked"));
        assertThat(failure).as("the compensated turn").isNull();
        assertThat(nextFailure).as("the next turn").isNull();
        assertThat(tools.cancellations).as("compensations").hasSize(1);
        List<Entry> after = log();
        assertKept(before.log(), after);
        List<ChatMessage> turn = added(before.log(), after);
        assertThat(turn).as("the turn as LangChain4j recorded it: booking result rolled back").extracting(
                        PathAssertions::describe)
                .filteredOn(line -> !line.contains("table for 4 booked")) // the replaced result may stay archived
                .hasSize(8)
                .satisfies(lines -> {
                    // the log is append-only: the rolled-back result is appended where set() ran (after the
                    // pending pay call); every request shows it right after its call (assertToolCallsAnswered)
                    assertThat(lines.get(0)).isEqualTo("USER: " + Shop.BOOK_THEN_PAY);
                    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("TOOL").contains("rolled back"));
                    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("AI tool_calls").contains("pay"));
                    assertThat(lines).anySatisfy(line -> assertThat(line).startsWith("TOOL").contains("card declined"));
                });
        assertState(store, SESSION, before.summary());
    }

    @Test
    void should_send_what_langchain4js_own_memory_sends_when_the_buffer_backs_a_compensated_turn() throws Exception {
        assertBufferSendsWhatLangChain4jSends(ToolCompensationTest::converse);
    }

    private static void converse(Shop.Assistant assistant) {
        Shop.warmUp(assistant, SESSION);
        catchThrowable(() -> assistant.chat(SESSION, Shop.BOOK_AND_PAY));
        catchThrowable(() -> assistant.chat(SESSION, Shop.BOOK_THEN_PAY));
        catchThrowable(() -> assistant.chat(SESSION, "Thanks."));
    }
}
