package io.github.memorypack.integration;

import static io.github.memorypack.integration.PathAssertions.assertToolCallsAnswered;
import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.rag.content.Content;
import io.github.memorypack.core.Entry;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The RAG path with {@code storeRetrievedContentInChatMemory(false)}: LangChain4j 1.19 reads
 * {@code messages()} for the retriever's metadata, sends the augmented user message, stores the
 * original one, and on every tool round trip replaces the last user message of {@code messages()}
 * with the augmented one ({@code UserMessage.replaceLast}). The open turn's user message must be
 * in the view for that to work, and the augmentation must never reach the log.
 */
class RetrievalAugmentationTest extends ShopTestBase {

    private static final String FACTS = "Shop facts: matcha arrives on Mondays.";

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("io.github.memorypack.integration.Cases#strategiesAndStores")
    void should_send_the_augmented_question_in_every_round_and_store_the_original_when_retrieved_content_is_not_stored(
            Strategy strategy, StoreKind kind) {
        // given
        open(kind);
        Shop.Assistant assistant = Shop.assistant(server, strategy.provider(store), tools)
                .contentRetriever(query -> List.of(Content.from(FACTS))).storeRetrievedContentInChatMemory(false)
                .build();
        Shop.warmUp(assistant, SESSION);
        int firstRequest = server.requestCount() + 1;

        // when
        assistant.chat(SESSION, Shop.ASK_MATCHA);
        assistant.chat(SESSION, "Thanks.");

        // then
        List<Request> requests = requestsFrom(firstRequest);
        assertToolCallsAnswered(requests);
        assertThat(requests).as("question, after the tool, next turn").hasSize(3);
        for (Request request : requests.subList(0, 2)) {
            assertThat(request.history()).as("a request of the augmented turn")
                    .anySatisfy(line -> assertThat(line).startsWith("user: " + Shop.ASK_MATCHA).contains(FACTS));
        }
        assertThat(requests.get(1).history()).as("the follow-up").anySatisfy(line -> assertThat(line)
                .startsWith("tool ").contains("matcha: 12 packs"));
        assertThat(String.join("\n", requests.get(2).history().subList(0, requests.get(2).history().size() - 1)))
                .as("the next turn's history").doesNotContain(FACTS);
        assertThat(log()).extracting(Entry::message).as("the log").contains(UserMessage.from(Shop.ASK_MATCHA))
                .noneMatch(message -> message.toString().contains(FACTS));
    }
}
