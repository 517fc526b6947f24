package io.github.memorypack.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The metrics of a memory inside real AiServices, with the real OpenAI client against a local server. */
class AiServicesMetricsTest {

    interface Assistant {
        String chat(@MemoryId String user, @UserMessage String message);
    }

    @Test
    void should_record_one_view_per_request_and_time_the_store_when_ai_services_chats() throws Exception {
        try (OpenAiTestServer server = new OpenAiTestServer()) {
            // given
            server.answerWith(request -> OpenAiTestServer.Reply.text("Noted, answer " + request.number() + "."));
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            MemoryPackMetrics metrics = MemoryPackMetrics.of(registry);
            SessionStore store = metrics.instrument(InMemorySessionStore.create());
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(server.model())
                    .chatMemoryProvider(SummaryBufferChatMemory.builder().chatMemoryStore(store)
                            .summarizer(Summarizer.extractive()).maxBufferTokens(2_000).listener(metrics).provider())
                    .build();

            // when
            for (int i = 1; i <= 3; i++) {
                assistant.chat("ada", "Message " + i + " from Ada in Lyon.");
            }
            assistant.chat("bob", "Hello from Bob.");

            // then: AiServices reads the memory once per request, before it adds the user message:
            // views of 0, 2 and 4 messages for ada, 0 for bob
            assertThat(server.requestCount()).isEqualTo(4);
            DistributionSummary views = registry.get(MemoryPackMetrics.VIEW_MESSAGES)
                    .tag("strategy", "summary-buffer").summary();
            assertThat(views.count()).isEqualTo(4);
            assertThat(views.totalAmount()).isEqualTo(0 + 2 + 4 + 0);
            assertThat(views.max()).isEqualTo(4);
            DistributionSummary tokens = registry.get(MemoryPackMetrics.VIEW_TOKENS)
                    .tag("strategy", "summary-buffer").summary();
            assertThat(tokens.count()).isEqualTo(4);
            assertThat(tokens.max()).isGreaterThan(Tokenizers.TOKENS_PER_REPLY);
            // every turn appended the user message and the answer
            assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS)
                    .tags("backend", "in-memory", "operation", "append", "outcome", "success").timer().count())
                    .isEqualTo(8);
            assertThat(registry.find(MemoryPackMetrics.STORE_ERRORS).counters()).isEmpty();
        }
    }
}
