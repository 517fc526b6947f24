package io.github.memorypack.integration;

import io.github.memorypack.core.MemoryListener;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The summary strategies when the summarizer does not help: folds that keep failing must not let
 * requests grow past a hard ceiling ({@code contextTokens}: the oldest closed turns are cut), and a
 * summarizer that hangs must not block the user's turn past its timeout
 * ({@code summarizerTimeout}). Both options are issue 9 deliverables that do not exist yet; they
 * are set through {@link PlannedOptions}, so these tests fail with "has no … yet" until they do.
 */
class SummaryCeilingTest extends ShopTestBase {

    private static final int CONTEXT_TOKENS = 600;
    private static final int TURNS = 300;

    private final CountDownLatch never = new CountDownLatch(1);

    @AfterEach
    void releaseHungSummarizer() {
        never.countDown();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"SUMMARY", "SUMMARY_BUFFER"})
    void should_keep_every_request_within_context_tokens_when_the_summarizer_fails_for_300_turns(Strategy strategy) {
        // given: a summarizer that always throws, and the size of every request as the model receives it
        open(StoreKind.IN_MEMORY);
        AtomicInteger failures = new AtomicInteger();
        Summarizer failing = (previous, messages) -> {
            throw new IllegalStateException("summarizer model unavailable");
        };
        ChatMemoryProvider memories = provider(strategy, failing, MemoryListener.onSummaryFailure(failure -> failures.incrementAndGet()),
                "contextTokens", int.class, CONTEXT_TOKENS);
        List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());
        ChatModelListener sizer = new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                sizes.add(Tokenizers.o200k().estimateTokenCountInMessages(context.chatRequest().messages()));
            }
        };
        OpenAiChatModel model = OpenAiChatModel.builder().baseUrl(server.baseUrl()).apiKey("test-key")
                .modelName("gpt-4o-mini").maxRetries(0).listeners(List.of(sizer)).build();
        Shop.Assistant assistant = AiServices.builder(Shop.Assistant.class).chatModel(model)
                .chatMemoryProvider(memories).build();

        // when
        for (int turn = 1; turn <= TURNS; turn++) {
            assistant.chat(SESSION, "Turn " + turn + ": my budget for the trip to Lisbon is " + (1_000 + turn)
                    + " euros, and I travel with " + (turn % 4 + 1) + " friends.");
        }

        // then
        assertThat(failures.get()).as("precondition: folds failed").isPositive();
        assertThat(sizes).as("requests").hasSize(TURNS);
        assertThat(Collections.max(sizes)).as("largest request, in tokens").isLessThanOrEqualTo(CONTEXT_TOKENS);
        assertThat(log()).as("the log keeps every message: system message, then question and answer per turn")
                .hasSize(1 + 2 * TURNS);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"SUMMARY", "SUMMARY_BUFFER"})
    void should_return_within_the_timeout_and_keep_the_history_when_the_summarizer_hangs(Strategy strategy)
            throws Exception {
        // given
        open(StoreKind.IN_MEMORY);
        CountDownLatch called = new CountDownLatch(1);
        Summarizer hanging = (previous, messages) -> {
            called.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "never returned in time";
        };
        ChatMemoryProvider memories = provider(strategy, hanging, MemoryListener.logging(),
                "summarizerTimeout", Duration.class, Duration.ofMillis(200));
        Shop.Assistant assistant = Shop.assistant(server, memories, tools).build();

        // when: the warm-up ends turns, which fold inline
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> Shop.warmUp(assistant, SESSION),
                "the turns waited for the hung summarizer");

        // then
        assertThat(called.getCount()).as("precondition: a fold called the summarizer").isZero();
        assertThat(store.state(SESSION).summary()).as("no summary from the hung fold").isEmpty();
        assertThat(PathAssertions.userTexts(assistant.getChatMemory(SESSION).messages())).as("the view")
                .containsExactlyElementsOf(Shop.WARM_UP);
        assertThat(log()).as("system message and the three turns").hasSize(1 + 4 + 4 + 2);
    }

    /** The strategy's provider with {@code option(value)} set: an option issue 9 asks for (see {@link PlannedOptions}). */
    private ChatMemoryProvider provider(Strategy strategy, Summarizer summarizer, MemoryListener listener,
                                        String option, Class<?> type, Object value) {
        if (strategy == Strategy.SUMMARY) {
            SummaryChatMemory.Builder builder = SummaryChatMemory.builder().chatMemoryStore(store).summarizer(summarizer)
                    .listener(listener);
            return PlannedOptions.set(builder, option, type, value).provider();
        }
        SummaryBufferChatMemory.Builder builder = SummaryBufferChatMemory.builder().chatMemoryStore(store).summarizer(summarizer)
                .listener(listener).maxBufferTokens(Strategy.SUMMARY_BUFFER_LIMIT);
        return PlannedOptions.set(builder, option, type, value).provider();
    }
}
