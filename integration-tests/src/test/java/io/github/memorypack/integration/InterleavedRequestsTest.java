package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.added;
import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertState;
import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static org.assertj.core.api.Assertions.assertThat;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Summary;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two requests on one session, interleaved deterministically: request A is in its tool round
 * (user message and AI tool call stored, the tool running, held on a latch) while request B
 * completes a whole turn with a tool call of its own, then a plain one (so A's open turn has two
 * newer turns when it resumes). LangChain4j shares one memory instance per
 * memory id between them. Neither request may lose its open turn to the other's fold or cut: each
 * follow-up request carries its own user message and tool result.
 */
class InterleavedRequestsTest extends ShopTestBase {

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_each_request_its_own_question_and_tool_result_when_another_turn_completes_during_a_tool_call(
            Strategy strategy, StoreKind kind) throws Exception {
        // given
        open(kind);
        Shop.Assistant assistant = assistant(strategy);
        assistant.chat(SESSION, Shop.ASK_TEA);
        assistant.chat(SESSION, Shop.INTRODUCE);
        List<Entry> before = log();
        Optional<Summary> summary = store.state(SESSION).summary();
        tools.heldItem = "matcha";
        ExecutorService requestA = Executors.newSingleThreadExecutor();
        try {
            // when: A stops inside its tool call, B runs a whole tool turn and a plain one, then A goes on
            Future<String> answerA = requestA.submit(() -> assistant.chat(SESSION, Shop.ASK_MATCHA));
            assertThat(tools.held.await(10, TimeUnit.SECONDS)).as("request A reached its tool call").isTrue();
            String answerB = assistant.chat(SESSION, Shop.ASK_COFFEE);
            assistant.chat(SESSION, Shop.ASK_RECOMMENDATION);
            tools.release.countDown();
            answerA.get(10, TimeUnit.SECONDS);

            // then
            assertThat(answerB).startsWith("Answer ");
            List<Request> requests = server.requests();
            // B's follow-up: the request that ends with B's result
            Request followUpB = requests.stream().filter(request -> request.lastLine().startsWith("tool ")
                    && request.lastLine().contains("coffee: 12 packs")).findFirst()
                    .orElseThrow(() -> new AssertionError("no request ends with the coffee result: " + requests));
            assertFollowUp(followUpB, "coffee", Shop.ASK_COFFEE);
            // A's follow-up: the last request, sent once A's tool returned
            assertFollowUp(requests.get(requests.size() - 1), "matcha", Shop.ASK_MATCHA);
            // A's call was running, never interrupted: no request may say it was (the repair note says "interrupted")
            assertThat(requests).allSatisfy(request -> assertThat(request.history())
                    .noneMatch(line -> line.contains("interrupted")));
            assertToolCallsAnswered(requests);
            List<Entry> after = log();
            assertKept(before, after);
            assertThat(added(before, after)).as("A's and B's tool turns (4 messages each), B's plain turn (2)").hasSize(10);
            assertState(store, SESSION, summary);
        } finally {
            requestA.shutdownNow();
        }
    }

    /** {@code request} carries {@code question}, and a call of the {@code item} stock check with its result. */
    private static void assertFollowUp(Request request, String item, String question) {
        List<String> history = request.history();
        assertThat(history).as("follow-up of %s", question).contains("user: " + question)
                .anySatisfy(line -> assertThat(line).startsWith("assistant: tool_calls[").contains(item))
                .anySatisfy(line -> assertThat(line).startsWith("tool ").contains(item + ": 12 packs"));
    }
}
