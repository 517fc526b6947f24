package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.store.memory.chat.InMemoryChatMemoryStore;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summary;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every shop test sets up: a local OpenAI server answered by {@link Shop.Brain}, the shop's
 * tools, and one store per test (opened by {@link #open}, closed after the test).
 */
abstract class ShopTestBase {

    static final String SESSION = "shop-1";

    @TempDir
    Path dir;

    OpenAiTestServer server;
    Shop.Tools tools;
    SessionStore store;

    @BeforeEach
    void startServer() throws Exception {
        server = new OpenAiTestServer();
        server.answerWith(new Shop.Brain());
        tools = new Shop.Tools();
    }

    @AfterEach
    void stopServerAndStore() throws Exception {
        tools.release.countDown(); // never leave a held tool call waiting
        server.close();
        if (store != null) {
            StoreKind.close(store);
        }
    }

    /** Opens this test's store. */
    SessionStore open(StoreKind kind) {
        store = kind.open(dir);
        return store;
    }

    /** A LangChain4j assistant on {@code strategy} over this test's store. */
    Shop.Assistant assistant(Strategy strategy) {
        return Shop.assistant(server, strategy.provider(store), tools).build();
    }

    /** Opens this test's store and runs the warm-up on a new assistant: the state every path starts from. */
    Shop.Assistant warmedUp(Strategy strategy, StoreKind kind) {
        open(kind);
        Shop.Assistant assistant = assistant(strategy);
        Shop.warmUp(assistant, SESSION);
        return assistant;
    }

    /** The session as it is now, before the path under test. */
    Baseline baseline() {
        return new Baseline(log(), store.state(SESSION).summary(), server.requestCount() + 1);
    }

    /** The session before a path: its whole log, its summary, and the number of the path's first request. */
    record Baseline(List<Entry> log, Optional<Summary> summary, int firstRequest) {
    }

    /**
     * Asserts that the buffer sends, request by request, what LangChain4j's own
     * {@code MessageWindowChatMemory} (large enough to keep everything) sends in {@code conversation}.
     */
    void assertBufferSendsWhatLangChain4jSends(Consumer<Shop.Assistant> conversation) throws Exception {
        List<List<String>> reference;
        try (OpenAiTestServer referenceServer = new OpenAiTestServer()) {
            referenceServer.answerWith(new Shop.Brain());
            InMemoryChatMemoryStore referenceStore = new InMemoryChatMemoryStore();
            conversation.accept(Shop.assistant(referenceServer, id -> MessageWindowChatMemory.builder().id(id)
                    .maxMessages(1_000).chatMemoryStore(referenceStore).build(), new Shop.Tools()).build());
            reference = referenceServer.requests().stream().map(Request::history).toList();
        }
        open(StoreKind.IN_MEMORY);
        conversation.accept(assistant(Strategy.BUFFER));
        assertThat(server.requests().stream().map(Request::history).toList()).isEqualTo(reference);
    }

    /** The requests the server received from number {@code first} on (1-based). */
    List<Request> requestsFrom(int first) {
        List<Request> all = server.requests();
        return all.subList(Math.min(first - 1, all.size()), all.size());
    }

    /** The session's whole log. */
    List<Entry> log() {
        return PathAssertions.log(store, SESSION);
    }
}
