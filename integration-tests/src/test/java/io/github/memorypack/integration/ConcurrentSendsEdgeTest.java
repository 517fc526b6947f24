package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionBusyException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ends of a queue: a wait that runs out, and a first request that fails. Through the real
 * {@code AiServices} on the in-memory and file stores.
 */
class ConcurrentSendsEdgeTest extends ShopTestBase {

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = StoreKind.class, names = {"IN_MEMORY", "FILE"})
    void should_refuse_the_second_request_before_any_model_call_when_its_queue_wait_runs_out(StoreKind kind)
            throws Exception {
        // given: A held in its tool call; a queue that waits 200 ms
        open(kind);
        Shop.Assistant assistant = Shop.assistant(server, Strategy.BUFFER.provider(store,
                ConcurrentSends.queue(Duration.ofMillis(200))), tools).build();
        tools.heldItem = TwoRequests.A_ITEM;
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        assertThat(tools.held.await(10, TimeUnit.SECONDS)).isTrue();
        int heldAt = server.requestCount();

        // when
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        new Thread(b, "request B").start();
        Throwable refused = catchThrowable(() -> b.get(10, TimeUnit.SECONDS));
        int afterRefusal = server.requestCount(); // read while A is still held: A's follow-up call comes after release
        tools.release.countDown();

        // then
        assertThat(refused).isInstanceOf(ExecutionException.class).cause().isInstanceOf(SessionBusyException.class)
                .hasMessageContaining("queue(PT0.2S)");
        assertThat(afterRefusal).as("model calls of the refused request").isEqualTo(heldAt);
        assertThat(a.get(10, TimeUnit.SECONDS)).startsWith("Answer ");
        assertThat(log()).noneMatch(e -> PathAssertions.describe(e.message()).contains(TwoRequests.B));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = StoreKind.class, names = {"IN_MEMORY", "FILE"})
    void should_let_the_next_request_in_at_once_when_the_first_fails_with_the_listeners_registered(StoreKind kind)
            throws Exception {
        // given: the model fails A's request; the listeners follow the requests
        open(kind);
        AtomicBoolean down = modelDownForA();
        Shop.Assistant assistant = Shop.assistant(server, Strategy.BUFFER.provider(store,
                ConcurrentSends.queue(Duration.ofSeconds(5))), tools).registerListeners(RequestScope.aiServiceListeners())
                .build();
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        assertThat(catchThrowable(() -> a.get(10, TimeUnit.SECONDS))).as("A failed").isNotNull();
        down.set(false);

        // when: B on another thread (another HTTP request of the server)
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        Thread threadB = new Thread(b, "request B");
        long started = System.nanoTime();
        threadB.start();

        // then: B did not wait for A's turn, which the listeners ended in the log
        assertThat(b.get(10, TimeUnit.SECONDS)).startsWith("Answer ");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("B's whole request").isLessThan(Duration.ofSeconds(5));
        assertThat(log()).as("the end of A's turn in the log").anyMatch(e -> e.message() instanceof CustomMessage custom
                && "end".equals(custom.attributes().get("memory-pack-record")));
        assertThat(TwoRequests.of(server.requests(), TwoRequests.B).get(0).history())
                .as("B's first request: A's question (it never got an answer), then B's")
                .containsSubsequence("user: " + TwoRequests.A, "user: " + TwoRequests.B);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = StoreKind.class, names = {"IN_MEMORY", "FILE"})
    void should_let_the_next_request_in_at_once_when_the_conversation_is_cleared_after_a_failed_request(StoreKind kind)
            throws Exception {
        // given: the model fails A's request, and no listeners tell the memory, so A's turn stays open
        open(kind);
        AtomicBoolean down = modelDownForA();
        ChatMemoryProvider provider = Strategy.BUFFER.provider(store, ConcurrentSends.refuse());
        Shop.Assistant assistant = Shop.assistant(server, provider, tools).build();
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        assertThat(catchThrowable(() -> a.get(10, TimeUnit.SECONDS))).as("A failed").isNotNull();
        down.set(false);
        FutureTask<String> early = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        new Thread(early, "request B, before the clear").start();
        assertThat(catchThrowable(() -> early.get(10, TimeUnit.SECONDS))).as("B while A's turn is open")
                .cause().isInstanceOf(SessionBusyException.class);

        // when: the user starts the conversation over (another memory of the same provider's kind)
        Strategy.BUFFER.provider(store, ConcurrentSends.refuse()).get(SESSION).clear();
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        new Thread(b, "request B").start();

        // then: the clear ended A's turn: B goes in at once and sees nothing from before the clear
        assertThat(b.get(10, TimeUnit.SECONDS)).startsWith("Answer ");
        assertThat(TwoRequests.of(server.requests(), TwoRequests.B).get(0).history())
                .as("B's first request after the clear").doesNotContain("user: " + TwoRequests.A)
                .contains("user: " + TwoRequests.B);
        assertThat(provider.get(SESSION).messages()).as("the view after B")
                .noneMatch(m -> PathAssertions.describe(m).contains(TwoRequests.A));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = StoreKind.class, names = {"IN_MEMORY", "FILE"})
    void should_keep_the_clearing_request_running_when_it_clears_the_conversation_itself(StoreKind kind)
            throws Exception {
        // given: A's tool starts the conversation over, then waits
        open(kind);
        ChatMemoryProvider provider = Strategy.BUFFER.provider(store, ConcurrentSends.refuse());
        Shop.Assistant assistant = Shop.assistant(server, provider, tools).build();
        tools.heldItem = TwoRequests.A_ITEM;
        tools.onHeld = () -> provider.get(SESSION).clear();
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        assertThat(tools.held.await(10, TimeUnit.SECONDS)).isTrue();

        // when: B comes while A's tool runs
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        new Thread(b, "request B").start();
        Throwable refused = catchThrowable(() -> b.get(10, TimeUnit.SECONDS));
        tools.release.countDown();

        // then: A's own turn still ran after its clear, so B was refused, and A got its answer
        assertThat(refused).as("B while A runs after its own clear").isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(SessionBusyException.class);
        assertThat(a.get(10, TimeUnit.SECONDS)).startsWith("Answer ");
        assertThat(log()).noneMatch(e -> PathAssertions.describe(e.message()).contains(TwoRequests.B));
    }

    /** The server fails A's model calls while the flag it returns is set (set at first); else the shop answers. */
    private AtomicBoolean modelDownForA() {
        AtomicBoolean down = new AtomicBoolean(true);
        Shop.Brain brain = new Shop.Brain();
        server.answerWith(request -> {
            if (down.get() && request.lastLine().equals("user: " + TwoRequests.A)) {
                throw new IllegalStateException("the model is down");
            }
            return brain.apply(request);
        });
        return down;
    }
}
