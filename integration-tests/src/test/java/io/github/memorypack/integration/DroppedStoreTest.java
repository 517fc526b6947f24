package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.TokenStream;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Nothing of Memory Pack keeps a store reachable after the application has dropped it with its
 * memories, provider and service: not the JVM-wide view cache, not a request scope's per-thread state,
 * not a send gate — also after blocking requests with tools, a streamed request, a retried request and
 * a request whose model call failed (so its turn was left running). In-memory and file stores.
 */
class DroppedStoreTest {

    @TempDir
    Path dir;

    private OpenAiTestServer server;

    @BeforeEach
    void startServer() throws Exception {
        server = new OpenAiTestServer();
    }

    @AfterEach
    void stopServer() throws Exception {
        server.close();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @EnumSource(value = StoreKind.class, names = {"IN_MEMORY", "FILE"})
    void should_let_the_store_be_collected_when_the_application_drops_service_provider_memories_and_store(
            StoreKind kind) throws Exception {
        for (Strategy strategy : Strategy.values()) {
            // given: a store that served every kind of request
            WeakReference<SessionStore> store = useAndDrop(strategy, kind);

            // when
            for (int i = 0; i < 20 && store.get() != null; i++) {
                System.gc();
                List<byte[]> garbage = new ArrayList<>();
                for (int j = 0; j < 64; j++) {
                    garbage.add(new byte[64 * 1024]);
                }
                garbage.clear();
            }

            // then
            assertThat(store.get()).as("the %s store after %s, dropped", kind, strategy).isNull();
        }
    }

    /** Runs requests on a new store through a new service, and keeps only a weak reference to the store. */
    private WeakReference<SessionStore> useAndDrop(Strategy strategy, StoreKind kind) throws Exception {
        SessionStore store = kind.open(dir.resolve(strategy.name()));
        server.answerWith(new Shop.Brain());
        Shop.Tools tools = new Shop.Tools();
        Shop.Assistant assistant = Shop.assistant(server, strategy.provider(store), tools)
                .registerListeners(RequestScope.aiServiceListeners()).build();
        Shop.warmUp(assistant, "dropped");
        RequestScope.run("retried", () -> assistant.chat("dropped", Shop.ASK_MATCHA));
        RequestScope.run("retried", () -> assistant.chat("dropped", Shop.ASK_MATCHA));
        Shop.StreamingAssistant streaming = AiServices.builder(Shop.StreamingAssistant.class)
                .streamingChatModel(server.streamingModel()).chatMemoryProvider(strategy.provider(store)).tools(tools)
                .registerListeners(RequestScope.aiServiceListeners()).build();
        CompletableFuture<Object> done = new CompletableFuture<>();
        TokenStream stream = streaming.chat("streamed", Shop.ASK_TEA);
        stream.onCompleteResponse(done::complete).onError(done::completeExceptionally).start();
        done.get(10, TimeUnit.SECONDS);
        // a request whose model call fails: its turn is left open (no listeners on this service)
        server.answerWith(request -> {
            throw new IllegalStateException("the model is down");
        });
        Shop.Assistant bare = Shop.assistant(server, strategy.provider(store), tools).build();
        assertThat(catchThrowable(() -> bare.chat("failed", Shop.ASK_SENCHA))).isNotNull();
        StoreKind.close(store);
        return new WeakReference<>(store);
    }
}
