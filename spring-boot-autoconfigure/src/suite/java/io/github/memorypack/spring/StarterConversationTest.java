package io.github.memorypack.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.micrometer.MemoryPackMetrics;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * One conversation through {@code AiServices} (the real OpenAI client against a local server) with
 * the auto-configured {@link ChatMemoryProvider}, in a context configured by properties only; each
 * subclass is one store type and strategy. Checks what the model received, what the store holds,
 * the meters and the health indicator.
 */
abstract class StarterConversationTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    interface NumberedAssistant {
        String chat(@MemoryId long user, @UserMessage String message);
    }

    interface UuidAssistant {
        String chat(@MemoryId UUID user, @UserMessage String message);
    }

    @Autowired
    ChatMemoryProvider provider;
    @Autowired
    SessionStore store;
    @Autowired
    MeterRegistry registry;
    @Autowired
    ApplicationContext context;

    @DynamicPropertySource
    static void openAi(DynamicPropertyRegistry properties) {
        properties.add("test.openai.base-url", () -> TestApplication.openAi().baseUrl());
    }

    private final String backend;
    private final String strategy;
    private final Class<? extends SessionStore> storeType;

    /**
     * @param backend   the {@code backend} tag of the store
     * @param strategy  the {@code strategy} tag of the memories
     * @param storeType the store class the properties select
     */
    StarterConversationTest(String backend, String strategy, Class<? extends SessionStore> storeType) {
        this.backend = backend;
        this.strategy = strategy;
        this.storeType = storeType;
    }

    /** Successful summarizer calls and folds before the conversation (other tests share the context). */
    double callsBefore;
    double foldsBefore;

    /** Checks of one subclass, after the conversation. */
    void thenAlso(String ana) {
    }

    @Test
    void should_carry_a_conversation_and_publish_meters_when_only_properties_are_set() {
        // given: session ids no earlier run used (Redis and PostgreSQL may be shared servers)
        OpenAiTestServer server = TestApplication.openAi();
        String ana = "ana-" + UUID.randomUUID();
        String bob = "bob-" + UUID.randomUUID();
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())
                .chatMemoryProvider(provider).build();
        callsBefore = Search.in(registry).name(MemoryPackMetrics.SUMMARIZER_CALLS).tag("outcome", "success").counters()
                .stream().mapToDouble(c -> c.count()).sum();
        foldsBefore = timerCount(Search.in(registry).name(MemoryPackMetrics.FOLDS));
        double views = count(Search.in(registry).name(MemoryPackMetrics.VIEW_MESSAGES).tag("strategy", strategy));
        double appends = timerCount(Search.in(registry).name(MemoryPackMetrics.STORE_OPERATIONS)
                .tags("backend", backend, "operation", "append", "outcome", "success"));

        // when
        assistant.chat(ana, "My name is Ana.");
        assistant.chat(ana, "I live in Lyon.");
        assistant.chat(ana, "Where do I live?");
        assistant.chat(bob, "Hi, I am Bob.");

        // then: the model saw the earlier turn, and nothing of the other session
        assertThat(store).isInstanceOf(storeType);
        assertThat(chatRequest(server, "user: Where do I live?")).contains("user: I live in Lyon.");
        assertThat(chatRequest(server, "user: Hi, I am Bob.")).noneMatch(line -> line.contains("Ana"))
                .noneMatch(line -> line.contains("Lyon"));
        assertThat(store.getMessages(ana)).hasSize(6);
        // AiServices reads the memory once per request; each turn is two appends (question, answer)
        assertThat(count(Search.in(registry).name(MemoryPackMetrics.VIEW_MESSAGES).tag("strategy", strategy)))
                .isEqualTo(views + 4);
        assertThat(count(Search.in(registry).name(MemoryPackMetrics.VIEW_TOKENS).tag("strategy", strategy)))
                .isPositive();
        assertThat(timerCount(Search.in(registry).name(MemoryPackMetrics.STORE_OPERATIONS)
                .tags("backend", backend, "operation", "append", "outcome", "success"))).isEqualTo(appends + 8);
        assertThat(Search.in(registry).name(MemoryPackMetrics.STORE_ERRORS).counters()).isEmpty();
        StarterHealth status = BootGeneration.health(context);
        assertThat(status.status()).isEqualTo("UP");
        assertThat(status.details()).containsEntry("store", storeType.getSimpleName());
        // /actuator/health shows it as the component the README names
        assertThat(BootGeneration.endpointStatus(context, "memoryPack")).isEqualTo("UP");
        thenAlso(ana);
    }

    @Test
    void should_keep_each_session_when_memory_ids_are_longs_and_uuids() {
        // given: two services on the one provider, with memory ids of other types than String
        OpenAiTestServer server = TestApplication.openAi();
        long number = System.nanoTime();
        UUID uuid = UUID.randomUUID();
        NumberedAssistant numbered = AiServices.builder(NumberedAssistant.class).chatModel(server.model())
                .chatMemoryProvider(provider).build();
        UuidAssistant uuids = AiServices.builder(UuidAssistant.class).chatModel(server.model())
                .chatMemoryProvider(provider).build();

        // when
        numbered.chat(number, "My number is " + number + ".");
        uuids.chat(uuid, "My uuid is " + uuid + ".");
        numbered.chat(number, "What is my number?");
        uuids.chat(uuid, "What is my uuid?");

        // then: each id kept its own turns, and the store lists both sessions under their ids
        assertThat(chatRequest(server, "user: What is my number?")).contains("user: My number is " + number + ".")
                .noneMatch(line -> line.contains(uuid.toString()));
        assertThat(chatRequest(server, "user: What is my uuid?")).contains("user: My uuid is " + uuid + ".")
                .noneMatch(line -> line.contains(Long.toString(number)));
        assertThat(store.getMessages(number)).hasSize(4);
        assertThat(store.getMessages(uuid)).hasSize(4);
        assertThat(store.sessions()).contains(Long.toString(number), uuid.toString());
    }

    /** The history of the (last) chat request whose last line is {@code lastLine}. */
    static List<String> chatRequest(OpenAiTestServer server, String lastLine) {
        List<OpenAiTestServer.Request> matching = server.requests().stream()
                .filter(r -> r.lastLine().equals(lastLine)).toList();
        assertThat(matching).as("requests ending with %s", lastLine).isNotEmpty();
        return matching.get(matching.size() - 1).history();
    }

    static double count(Search search) {
        return search.summaries().stream().mapToDouble(s -> s.count()).sum();
    }

    static double timerCount(Search search) {
        return search.timers().stream().mapToDouble(t -> t.count()).sum();
    }
}
