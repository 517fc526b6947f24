package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertKept;
import static io.github.memorypack.integration.PathAssertions.assertState;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.memorypack.core.SessionBusyException;
import io.github.memorypack.integration.TwoRequests.Hold;
import io.github.memorypack.integration.TwoRequests.Setting;
import io.github.memorypack.integration.TwoRequests.Step;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two requests on one session through one real {@code AiServices} (so one memory object, as
 * LangChain4j shares it per memory id), interleaved deterministically: request A is held at one step
 * of its tool round — its first model call in flight, its tool running, its follow-up model call in
 * flight — while request B starts; then A is let go. For every strategy on the in-memory, file, Redis
 * and JDBC stores and under each {@code ConcurrentSends} setting:
 *
 * <ul>
 *   <li>no request ends with the other's turn, none lacks its own question, each tool runs once per
 *       request, and no running tool call is shown as interrupted ({@link TwoRequests});</li>
 *   <li>{@code queue}: B waits in the send gate while A is held, then continues from A's closed turn
 *       (A's question and answer come before B's question in B's first model call);</li>
 *   <li>{@code refuse}: B throws {@link SessionBusyException} before any model call, and nothing of B
 *       is stored;</li>
 *   <li>{@code branch}: B completes while A is held, from the last closed turn, without A's running
 *       turn; A's follow-up ends with A's own turn, without B's;</li>
 *   <li>the log keeps every entry it had, the state its system message and summary.</li>
 * </ul>
 */
class ConcurrentRequestsTest extends ShopTestBase {

    static Stream<Arguments> cases() {
        return Arrays.stream(Strategy.values()).flatMap(strategy -> StoreKind.SHARED.stream()
                .flatMap(store -> Arrays.stream(Setting.values()).flatMap(setting -> Arrays.stream(Step.values())
                        .map(step -> Arguments.of(strategy, store, setting, step)))));
    }

    @ParameterizedTest(name = "{0} on {1}, {2}, B starts at {3}")
    @MethodSource("cases")
    void should_keep_each_request_to_its_own_turn_when_a_second_request_starts_at_any_step_of_a_tool_round(
            Strategy strategy, StoreKind kind, Setting setting, Step step) throws Exception {
        // given: the warm-up, then A held at the step
        open(kind);
        TwoRequests.Pair pair = TwoRequests.Pair.warmedUp(this, strategy, setting, step);
        Hold hold = pair.hold();
        Shop.Assistant assistant = pair.assistant();
        FutureTask<String> a = start("request A", () -> assistant.chat(SESSION, TwoRequests.A));
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        Throwable refused = null;
        try {
            hold.awaitReached();
            int heldAt = server.requestCount();

            // when: B starts while A is held
            Thread threadB = new Thread(b, "request B");
            threadB.start();
            switch (setting) {
                case BRANCH -> assertThat(b.get(10, TimeUnit.SECONDS)).as("B's answer, A still held").startsWith("Answer ");
                case REFUSE -> {
                    refused = catchThrowable(() -> b.get(10, TimeUnit.SECONDS));
                    assertThat(server.requestCount()).as("model calls made by the refused request").isEqualTo(heldAt);
                }
                case QUEUE -> {
                    TwoRequests.awaitQueued(threadB);
                    assertThat(b.isDone()).as("B done while A is held").isFalse();
                    assertThat(server.requestCount()).as("model calls B made while A is held").isEqualTo(heldAt);
                }
            }
        } finally {
            hold.release();
        }
        String answerA = a.get(10, TimeUnit.SECONDS);
        String answerB = setting == Setting.REFUSE ? null : b.get(10, TimeUnit.SECONDS);

        // then
        List<Request> requests = requestsFrom(pair.firstRequest());
        TwoRequests.assertEachRequestKeepsToItsOwnTurn(requests, pair.checks(tools), setting);
        List<Request> ofA = TwoRequests.of(requests, TwoRequests.A);
        List<Request> ofB = TwoRequests.of(requests, TwoRequests.B);
        switch (setting) {
            case QUEUE -> {
                List<String> firstOfB = ofB.get(0).history();
                assertThat(firstOfB).as("B continues from A's closed turn").contains("user: " + TwoRequests.A)
                        .contains("assistant: " + answerA);
                assertThat(firstOfB.indexOf("user: " + TwoRequests.A)).isLessThan(firstOfB.indexOf("user: " + TwoRequests.B));
                assertThat(answerB).startsWith("Answer ");
            }
            case REFUSE -> {
                assertThat(refused).isInstanceOf(ExecutionException.class).cause().isInstanceOf(SessionBusyException.class);
                assertThat(requests).as("requests carrying the refused question")
                        .noneMatch(r -> r.history().contains("user: " + TwoRequests.B));
                assertThat(log()).as("entries of the refused request")
                        .noneMatch(e -> PathAssertions.describe(e.message()).contains(TwoRequests.B));
            }
            case BRANCH -> {
                assertThat(ofB).as("B's requests, while A ran").allSatisfy(r -> assertThat(r.history())
                        .noneMatch(line -> line.contains(TwoRequests.A) || line.contains(TwoRequests.A_ITEM)));
                assertThat(ofA).as("A's requests").allSatisfy(r -> assertThat(r.history())
                        .noneMatch(line -> line.contains(TwoRequests.B) || line.contains(TwoRequests.B_ITEM)));
            }
        }
        assertKept(pair.before(), log());
        assertState(store, SESSION, pair.summary());
    }

    private static FutureTask<String> start(String name, java.util.concurrent.Callable<String> request) {
        FutureTask<String> task = new FutureTask<>(request);
        new Thread(task, name).start();
        return task;
    }
}
