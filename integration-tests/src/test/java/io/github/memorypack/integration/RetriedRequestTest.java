package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static io.github.memorypack.integration.PathAssertions.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A request retried with the same request id ({@link RequestScope}), as a client retry, a double
 * click or a redelivered queue message does: the second attempt runs the whole LangChain4j turn
 * again (the model answers differently, the tool runs again). The latest attempt wins in every
 * view, earlier attempts stay in the log, and a retry can never loop.
 */
class RetriedRequestTest extends ShopTestBase {

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_show_the_turn_once_with_the_new_tool_result_when_a_tool_turn_is_retried(Strategy strategy, StoreKind kind) {
        // given
        open(kind);
        Shop.Assistant assistant = assistant(strategy);
        assistant.chat(SESSION, Shop.ASK_TEA);
        assistant.chat(SESSION, Shop.INTRODUCE);
        Attempt first = attempt(assistant, Shop.ASK_COFFEE);
        List<Entry> afterFirst = log();

        // when
        Attempt second = attempt(assistant, Shop.ASK_COFFEE);

        // then: each attempt is one tool round trip
        assertThat(first.requests).as("model calls of the first attempt").hasSize(2);
        assertThat(second.requests).as("model calls of the second attempt").hasSizeLessThan(5);
        assertThat(second.failure).as("the second attempt").isNull();
        assertToolCallsAnswered(second.requests);
        for (Request request : second.requests) {
            assertThat(count(request.history(), "user: " + Shop.ASK_COFFEE)).as("the question in %s", request).isOne();
        }
        assertThat(second.requests).as("model calls of the second attempt").hasSizeGreaterThanOrEqualTo(2);
        List<String> followUp = second.requests.get(1).history();
        assertThat(followUp).as("the follow-up of the second attempt carries its own tool result")
                .anySatisfy(line -> assertThat(line).startsWith("tool ").endsWith("coffee: 12 packs (check 3)"))
                .noneSatisfy(line -> assertThat(line).contains("(check 2)"));
        // the view shows the second attempt only
        List<ChatMessage> view = assistant.getChatMemory(SESSION).messages();
        PathAssertions.assertShownOnce(strategy, view, Shop.ASK_COFFEE);
        assertThat(results(view)).as("tool results in the view").noneMatch(text -> text.contains("(check 2)"));
        if (!strategy.foldsNewestTurn()) {
            assertThat(results(view)).contains("coffee: 12 packs (check 3)");
            assertThat(answers(view)).contains(second.answer).doesNotContain(first.answer);
        }
        // the first attempt stays in the log, and the second is there too
        List<Entry> after = log();
        assertKept(afterFirst, after);
        assertThat(after).extracting(Entry::message).filteredOn(ToolExecutionResultMessage.class::isInstance)
                .extracting(m -> ((ToolExecutionResultMessage) m).text()).contains("coffee: 12 packs (check 3)");
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_show_the_turn_once_with_the_new_answer_when_a_plain_turn_is_retried(Strategy strategy, StoreKind kind) {
        // given
        open(kind);
        Shop.Assistant assistant = assistant(strategy);
        Shop.warmUp(assistant, SESSION);
        Attempt first = attempt(assistant, Shop.ASK_RECOMMENDATION);
        List<Entry> afterFirst = log();

        // when
        Attempt second = attempt(assistant, Shop.ASK_RECOMMENDATION);

        // then
        assertThat(second.failure).as("the second attempt").isNull();
        assertThat(second.requests).as("model calls of the second attempt").hasSize(1);
        List<String> request = second.requests.get(0).history();
        assertThat(count(request, "user: " + Shop.ASK_RECOMMENDATION)).as("the question in the retried request").isOne();
        assertThat(String.join("\n", request)).as("the retried request, verbatim or summarized")
                .doesNotContain(first.answer);
        List<ChatMessage> view = assistant.getChatMemory(SESSION).messages();
        PathAssertions.assertShownOnce(strategy, view, Shop.ASK_RECOMMENDATION);
        assertThat(answers(view)).as("answers in the view").doesNotContain(first.answer);
        if (!strategy.foldsNewestTurn()) {
            assertThat(answers(view)).contains(second.answer);
        }
        // the latest attempt wins in every view, a summary included
        assertThat(store.state(SESSION).summary().map(Summary::text).orElse("")).as("the summary")
                .doesNotContain(first.answer);
        assertKept(afterFirst, log());
    }

    /** One attempt of request {@code "retried-1"}: the requests it made, its answer or failure. */
    private Attempt attempt(Shop.Assistant assistant, String question) {
        int firstRequest = server.requestCount() + 1;
        AtomicReference<String> answer = new AtomicReference<>();
        Throwable failure = catchThrowable(() -> answer.set(
                RequestScope.call("retried-1", () -> assistant.chat(SESSION, question))));
        return new Attempt(requestsFrom(firstRequest), answer.get(), failure);
    }

    private record Attempt(List<Request> requests, String answer, Throwable failure) {
    }

    private static List<String> results(List<ChatMessage> view) {
        return view.stream().filter(ToolExecutionResultMessage.class::isInstance)
                .map(m -> ((ToolExecutionResultMessage) m).text()).toList();
    }

    private static List<String> answers(List<ChatMessage> view) {
        return view.stream().filter(m -> m instanceof AiMessage ai && !ai.hasToolExecutionRequests())
                .map(m -> ((AiMessage) m).text()).toList();
    }
}
