package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.memorymd.MemoryMdSessionStore;
import io.github.memorypack.redis.RedisSessionStore;
import io.github.memorypack.testkit.OpenAiTestServer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Any object works as a {@code @MemoryId} through the real {@code AiServices} on every store: each
 * id keeps its own conversation, finds it again after the store is reopened, and is listed back as
 * it was given by the store's {@code memoryIds()}.
 */
class AnyMemoryIdTest {

    interface Assistant {
        String chat(@MemoryId Object user, @UserMessage String message);
    }

    record Chat(String tenant, long chat) {
    }

    /** Plain, encoded and hashed session ids, ids that look like paths or patterns, non-strings. */
    private static final List<Object> IDS = List.of("plain-id", "alice@example.com", "tenant:42/chat-7", "Zo\u00eb",
            "user 1", "x".repeat(300), 42L, new Chat("t1", 7), "../etc/passwd", "a*b?[c]", "~YWxpY2U");

    enum Backend {
        IN_MEMORY(false), FILE(true), REDIS(true), MEMORY_MD(true);

        final boolean persistent;

        Backend(boolean persistent) {
            this.persistent = persistent;
        }
    }

    @TempDir
    Path dir;
    private final String redisPrefix = "ids:" + UUID.randomUUID() + ":";
    private SessionStore inMemory;
    private OpenAiTestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new OpenAiTestServer();
        server.answerWith(request -> OpenAiTestServer.Reply.text("noted " + request.number()));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private SessionStore open(Backend backend) {
        return switch (backend) {
            case IN_MEMORY -> inMemory == null ? inMemory = InMemorySessionStore.create() : inMemory;
            case FILE -> FileSessionStore.of(dir.resolve("file"));
            case REDIS -> RedisSessionStore.builder().uri(TestRedis.uri()).keyPrefix(redisPrefix).build();
            case MEMORY_MD -> MemoryMdSessionStore.builder().directory(dir.resolve("md"))
                    .durability(MemoryMdSessionStore.Durability.OS_BUFFERED).build();
        };
    }

    private Assistant assistant(Function<SessionStore, ChatMemoryProvider> memories, SessionStore store) {
        return AiServices.builder(Assistant.class).chatModel(server.model()).chatMemoryProvider(memories.apply(store))
                .build();
    }

    private static String said(Object id) {
        return "I am " + IDS.indexOf(id);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void should_keep_every_memory_id_apart_across_reopen_and_list_it_back_when_used_through_ai_services(
            Backend backend) throws Exception {
        Function<SessionStore, ChatMemoryProvider> window = store -> WindowChatMemory.builder().chatMemoryStore(store)
                .maxMessages(20).provider();
        Function<SessionStore, ChatMemoryProvider> summaryBuffer = store -> SummaryBufferChatMemory.builder()
                .chatMemoryStore(store).summarizer(Summarizer.extractive()).maxBufferTokens(2_000).provider();
        for (Function<SessionStore, ChatMemoryProvider> memories : List.of(window, summaryBuffer)) {
            // given: every id introduces itself
            SessionStore store = open(backend);
            Assistant assistant = assistant(memories, store);
            for (Object id : IDS) {
                assistant.chat(id, said(id));
                server.takeHistory();
            }

            // when / then: each id's next request holds its own words and no other id's
            for (Object id : IDS) {
                assistant.chat(id, "Who am I?");
                assertThat(server.takeHistory()).as("id %s", id).contains("user: " + said(id))
                        .noneMatch(line -> line.startsWith("user: I am ") && !line.equals("user: " + said(id)));
            }

            // and after the store is reopened, with new memory objects
            if (backend.persistent) {
                StoreKind.close(store);
                store = open(backend);
                assistant = assistant(memories, store);
                for (Object id : IDS) {
                    assistant.chat(id, "Still me?");
                    assertThat(server.takeHistory()).as("id %s after reopen", id).contains("user: " + said(id),
                            "user: Who am I?");
                }
            }

            // the store lists every id back as the application gave it (its text), sorted
            SessionStore listed = store;
            assertThat(listed.memoryIds()).containsExactlyElementsOf(IDS.stream().map(String::valueOf).sorted().toList());
            assertThat(new HashSet<>(listed.sessions())).hasSize(IDS.size());

            // the next strategy starts from empty sessions
            for (String session : listed.sessions()) {
                listed.delete(session);
            }
            StoreKind.close(listed);
        }
    }
}
