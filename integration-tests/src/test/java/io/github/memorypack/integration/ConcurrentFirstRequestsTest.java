package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.SystemMessage;
import io.github.memorypack.core.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two requests open a new session at the same moment (a double click on a fresh chat): both add the
 * {@code @SystemMessage} before either has stored it. The change is stored once (a keyed append), in
 * 500 tries, on the in-memory, file, Redis and JDBC stores.
 */
class ConcurrentFirstRequestsTest extends ShopTestBase {

    private static final int TRIES = 500;

    static List<StoreKind> stores() {
        return StoreKind.SHARED;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stores")
    void should_store_the_system_message_once_when_two_first_requests_of_a_session_run_at_once(StoreKind kind)
            throws Exception {
        // given
        open(kind);
        Shop.Assistant assistant = Shop.assistant(server, Strategy.BUFFER.provider(store), tools).build();
        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<String> twice = new ArrayList<>();
        try {
            for (int t = 0; t < TRIES; t++) {
                String session = "fresh-" + t;
                CyclicBarrier start = new CyclicBarrier(2);

                // when
                List<Future<String>> answers = new ArrayList<>();
                for (String question : List.of("Hello!", "Hi there!")) {
                    answers.add(threads.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return assistant.chat(session, question);
                    }));
                }
                for (Future<String> answer : answers) {
                    answer.get(30, TimeUnit.SECONDS);
                }

                // then
                List<Entry> systems = store.read(session, 0, Integer.MAX_VALUE).stream()
                        .filter(e -> e.message() instanceof SystemMessage).toList();
                if (systems.size() != 1) {
                    twice.add(session + ": " + systems.size());
                }
                assertThat(store.getMessages(session)).as("the conversation of %s", session).hasSize(5)
                        .first().isEqualTo(SystemMessage.from(Shop.SYSTEM));
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(twice).as("sessions whose system message is not stored exactly once, of %d", TRIES).isEmpty();
    }
}
