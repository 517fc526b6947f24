package io.github.memorypack.integration;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.nio.file.Path;
import java.util.List;
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
