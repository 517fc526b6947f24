package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertKept;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.service.memory.ChatMemoryAccess;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Conversations;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What an application does to a session's memory through {@link ChatMemoryAccess}, next to the
 * assistant: evict the memory instance (LangChain4j drops it from its cache without calling any
 * memory method; the next request builds a new one from the provider), clear the conversation,
 * greet the user before the first question.
 */
class MemoryAccessTest extends ShopTestBase {

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_the_same_conversation_from_a_new_memory_when_the_memory_is_evicted(Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        List<Entry> before = log();
        List<String> view = assistant.getChatMemory(SESSION).messages().stream().map(PathAssertions::describe).toList();

        // when
        boolean evicted = assistant.evictChatMemory(SESSION);
        assistant.chat(SESSION, "Thanks.");

        // then: the new memory shows what the evicted one showed, then the new question
        assertThat(evicted).isTrue();
        List<String> request = server.requests().get(server.requestCount() - 1).history();
        assertThat(request).hasSize(view.size() + 1).endsWith("user: Thanks.");
        assertThat(request.get(0)).isEqualTo(Shop.SYSTEM_LINE);
        assertKept(before, log());
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_start_over_and_keep_the_earlier_log_exportable_when_the_application_clears_the_memory(
            Strategy strategy, StoreKind kind) {
        // given
        Shop.Assistant assistant = warmedUp(strategy, kind);
        List<Entry> before = log();

        // when
        assistant.getChatMemory(SESSION).clear();
        assistant.chat(SESSION, "Hello again.");
        assistant.evictChatMemory(SESSION);
        assistant.chat(SESSION, "Do you remember me?");

        // then: no earlier message and no summary in either request, also from a new memory
        List<Request> requests = server.requests();
        assertThat(requests.get(requests.size() - 2).history()).containsExactly(Shop.SYSTEM_LINE, "user: Hello again.");
        List<String> last = requests.get(requests.size() - 1).history();
        assertThat(last.get(0)).isEqualTo(Shop.SYSTEM_LINE);
        assertThat(last.get(last.size() - 1)).isEqualTo("user: Do you remember me?");
        assertThat(String.join("\n", last.subList(1, last.size()))).as("request after clear() and eviction: nothing from before clear(), "
                + "verbatim or summarized").doesNotContain("tea", "coffee", "Porto", "Bo");
        // and the earlier log is archived, not deleted (keep-all retention)
        assertKept(before, log());
        assertThat(Conversations.export(store, SESSION, Conversations.Format.JSON)).contains(Shop.ASK_TEA, Shop.INTRODUCE);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_the_greeting_before_the_first_question_when_the_application_greets_first(
            Strategy strategy, StoreKind kind) {
        // given: the application writes a greeting into the session before the user says anything
        open(kind);
        strategy.provider(store).get(SESSION).add(AiMessage.from("Welcome to the tea shop! How can I help?"));
        Shop.Assistant assistant = assistant(strategy);

        // when
        assistant.chat(SESSION, Shop.INTRODUCE);

        // then: as LangChain4j's own memory sends it, system message first
        assertThat(server.requests().get(0).history()).containsExactly(Shop.SYSTEM_LINE,
                "assistant: Welcome to the tea shop! How can I help?", "user: " + Shop.INTRODUCE);
    }
}
