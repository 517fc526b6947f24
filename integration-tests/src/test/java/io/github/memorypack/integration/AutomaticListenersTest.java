package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.data.message.CustomMessage;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionBusyException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Core registers {@link RequestScope#aiServiceListeners()} on every {@code AiServices} built (LangChain4j
 * loads {@link RequestScope.ListenersFactory} through {@code ServiceLoader}), so an application that never
 * registers them gets what they give: a failed request ends its turn at once. This module's other tests
 * turn it off (its pom) so that their "without the listeners" cells stay without; here it is on.
 */
class AutomaticListenersTest extends ShopTestBase {

    @AfterEach
    void offAgain() {
        System.setProperty(RequestScope.ListenersFactory.PROPERTY, "false");
    }

    @Test
    void should_let_the_next_request_in_at_once_after_a_failed_one_when_the_application_registers_no_listeners()
            throws Exception {
        // given: the automatic registration on; an AiServices built without registerListeners
        System.clearProperty(RequestScope.ListenersFactory.PROPERTY);
        Shop.Assistant assistant = failingOnce(false);

        // when/then
        assertNextRequestGoesIn(assistant);
    }

    @Test
    void should_let_the_next_request_in_at_once_when_the_application_registers_the_listeners_as_well()
            throws Exception {
        // given: on, and the application registers them too (the README's line): each event reaches them once
        System.clearProperty(RequestScope.ListenersFactory.PROPERTY);
        Shop.Assistant assistant = failingOnce(true);

        // when/then
        assertNextRequestGoesIn(assistant);
        assertThat(log()).as("end records of A's turn").filteredOn(e -> e.message() instanceof CustomMessage custom
                && "end".equals(custom.attributes().get("memory-pack-record"))).hasSize(1);
    }

    @Test
    void should_keep_a_failed_request_running_when_the_automatic_registration_is_off() throws Exception {
        // given: off (the property), no listeners registered
        Shop.Assistant assistant = failingOnce(false);
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        assertThat(catchThrowable(() -> a.get(10, TimeUnit.SECONDS))).as("A failed").isNotNull();

        // when
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        new Thread(b, "request B").start();

        // then: A's turn still runs (it ends after openTurnTimeout), so refuse() refuses B
        assertThat(catchThrowable(() -> b.get(10, TimeUnit.SECONDS))).cause().isInstanceOf(SessionBusyException.class);
    }

    /** An assistant on the in-memory store under refuse(), whose model fails A's question once. */
    private Shop.Assistant failingOnce(boolean registerListeners) {
        open(StoreKind.IN_MEMORY);
        AtomicBoolean down = new AtomicBoolean(true);
        Shop.Brain brain = new Shop.Brain();
        server.answerWith(request -> {
            if (request.lastLine().equals("user: " + TwoRequests.A) && down.getAndSet(false)) {
                throw new IllegalStateException("the model is down");
            }
            return brain.apply(request);
        });
        var builder = Shop.assistant(server, Strategy.BUFFER.provider(store, ConcurrentSends.refuse()), tools);
        if (registerListeners) {
            builder.registerListeners(RequestScope.aiServiceListeners());
        }
        return builder.build();
    }

    /** A fails; B, on another thread, is let in at once under refuse() (A's turn ended with its failure). */
    private void assertNextRequestGoesIn(Shop.Assistant assistant) throws Exception {
        FutureTask<String> a = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.A));
        new Thread(a, "request A").start();
        assertThat(catchThrowable(() -> a.get(10, TimeUnit.SECONDS))).as("A failed").isNotNull();
        FutureTask<String> b = new FutureTask<>(() -> assistant.chat(SESSION, TwoRequests.B));
        new Thread(b, "request B").start();
        assertThat(b.get(10, TimeUnit.SECONDS)).startsWith("Answer ");
        assertThat(TwoRequests.of(server.requests(), TwoRequests.B).get(0).history())
                .as("B's first request: A's question (it never got an answer), then B's")
                .containsSubsequence("user: " + TwoRequests.A, "user: " + TwoRequests.B);
    }
}
