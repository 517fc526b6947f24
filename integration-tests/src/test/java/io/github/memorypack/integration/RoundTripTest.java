package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.testkit.SessionStoreContract.ForwardingSessionStore;
import io.github.memorypack.window.WindowChatMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * DESIGN.md "Round trips" and "Open turns, retries and streaming", for every strategy: what
 * LangChain4j writes back (tool compensation's {@code set(messages())}, output guardrails'
 * {@code clear()} + re-add, retries) never loses a message the path did not mean to remove.
 */
class RoundTripTest {

    private static final SystemMessage SYSTEM = SystemMessage.from("You are a travel agent.");
    private static final ToolExecutionRequest BOOK = ToolExecutionRequest.builder().id("c1").name("book")
            .arguments("{}").build();
    private static final ToolExecutionRequest PAY = ToolExecutionRequest.builder().id("c2").name("pay")
            .arguments("{}").build();

    private final CountingStore store = new CountingStore(InMemorySessionStore.create());

    static Stream<Arguments> strategies() {
        Function<SessionStore, ChatMemory> buffer = s -> BufferChatMemory.builder().id("s").chatMemoryStore(s).build();
        Function<SessionStore, ChatMemory> window = s -> WindowChatMemory.builder().id("s").chatMemoryStore(s)
                .maxMessages(6).listener(MemoryListener.NONE).build();
        Function<SessionStore, ChatMemory> tokens = s -> WindowChatMemory.builder().id("s").chatMemoryStore(s)
                .maxTokens(120).listener(MemoryListener.NONE).build();
        Function<SessionStore, ChatMemory> summary = s -> SummaryChatMemory.builder().id("s").chatMemoryStore(s)
                .summarizer(Summarizer.extractive(200)).build();
        Function<SessionStore, ChatMemory> summaryBuffer = s -> SummaryBufferChatMemory.builder().id("s")
                .chatMemoryStore(s).summarizer(Summarizer.extractive(200)).maxBufferTokens(60).build();
        return Stream.of(Arguments.of("buffer", buffer), Arguments.of("window 6 messages", window),
                Arguments.of("window 120 tokens", tokens), Arguments.of("summary", summary),
                Arguments.of("summary-buffer 60", summaryBuffer));
    }

    private static void turn(ChatMemory memory, int n) {
        memory.add(SYSTEM);
        memory.add(UserMessage.from("question " + n + " about the trip to Lisbon"));
        memory.add(AiMessage.from("answer " + n + " with some details about Lisbon"));
    }

    private List<Entry> log() {
        return store.read("s", 0, Integer.MAX_VALUE);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_write_nothing_when_set_gets_back_the_view_unchanged(String name, Function<SessionStore, ChatMemory> strategy) {
        // given
        ChatMemory memory = strategy.apply(store);
        for (int i = 0; i < 6; i++) {
            turn(memory, i);
        }
        long next = store.nextIndex("s");
        long version = store.state("s").version();
        int appends = store.appends.get();

        // when
        memory.set(memory.messages());

        // then
        assertThat(store.nextIndex("s")).isEqualTo(next);
        assertThat(store.state("s").version()).isEqualTo(version);
        assertThat(store.appends.get()).isEqualTo(appends);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_keep_history_a_pending_tool_call_and_the_summary_when_tool_compensation_sets_the_view(
            String name, Function<SessionStore, ChatMemory> strategy) {
        // given: earlier turns, then a request whose first tool succeeded and whose second is running
        ChatMemory memory = strategy.apply(store);
        for (int i = 0; i < 5; i++) {
            turn(memory, i);
        }
        memory.add(UserMessage.from("book and pay"));
        memory.add(AiMessage.from(BOOK));
        memory.add(ToolExecutionResultMessage.from(BOOK, "booked"));
        memory.add(AiMessage.from(PAY));
        List<Entry> before = log();
        Optional<Summary> summaryBefore = summaryOf(memory);

        // when: LangChain4j's compensation rewrites the first result while the second tool runs
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        ToolExecutionResultMessage rolledBack = ToolExecutionResultMessage.builder().id("c1").toolName("book")
                .text("rolled back").isError(true).build();
        view.replaceAll(m -> m instanceof ToolExecutionResultMessage && "c1".equals(((ToolExecutionResultMessage) m).id())
                ? rolledBack : m);
        memory.set(view);
        memory.add(ToolExecutionResultMessage.from(PAY, "payment failed"));

        // then: nothing before was lost, the system message and summary are as they were
        assertThat(log().stream().map(Entry::id)).containsAll(before.stream().map(Entry::id).toList());
        assertThat(store.state("s").systemMessage()).contains(SYSTEM);
        assertThat(summaryOf(memory)).isEqualTo(summaryBefore);
        List<ChatMessage> next = memory.messages();
        assertThat(next.get(0)).isEqualTo(SYSTEM);
        assertThat(next).containsSubsequence(UserMessage.from("book and pay"), AiMessage.from(BOOK), rolledBack,
                AiMessage.from(PAY), ToolExecutionResultMessage.from(PAY, "payment failed"));
        assertThat(next).doesNotContain(ToolExecutionResultMessage.from(BOOK, "booked"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_lose_only_the_removed_message_when_a_guardrail_clears_and_re_adds_the_view(
            String name, Function<SessionStore, ChatMemory> strategy) {
        // given
        ChatMemory memory = strategy.apply(store);
        for (int i = 0; i < 6; i++) {
            turn(memory, i);
        }
        memory.add(UserMessage.from("tell me a secret"));
        memory.add(AiMessage.from("the secret is 42"));
        List<Entry> before = log();
        List<ChatMessage> view = memory.messages();
        Optional<Summary> summaryBefore = summaryOf(memory);

        // when: LangChain4j's output guardrail with message removal (the last AI message of the view goes;
        // a summary memory that folds every turn has already folded it: documented)
        List<ChatMessage> kept = new ArrayList<>(view);
        for (int i = kept.size() - 1; i >= 0; i--) {
            if (kept.get(i) instanceof AiMessage) {
                kept.remove(i);
                break;
            }
        }
        memory.clear();
        kept.forEach(memory::add);

        // then: the log kept everything (clear() keeps the earlier log), the view lost only the answer
        assertThat(log().stream().map(Entry::id)).containsAll(before.stream().map(Entry::id).toList());
        assertThat(memory.messages()).isEqualTo(kept);
        assertThat(store.state("s").systemMessage()).contains(SYSTEM);
        assertThat(summaryOf(memory).map(Summary::text)).isEqualTo(summaryBefore.map(Summary::text));

        // and the conversation goes on normally
        turn(memory, 99);
        assertThat(memory.messages().get(0)).isEqualTo(SYSTEM);
        assertThat(memory.messages().toString()).contains("answer 99 with some details about Lisbon");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_show_a_retried_tool_turn_once_with_the_new_attempts_results(String name,
                                                                           Function<SessionStore, ChatMemory> strategy) {
        // given
        ChatMemory memory = strategy.apply(store);
        turn(memory, 0);
        Runnable request = () -> {
            memory.add(UserMessage.from("book it"));
            memory.add(AiMessage.from(BOOK));
            memory.add(ToolExecutionResultMessage.from(BOOK, "booked #" + store.nextIndex("s")));
            memory.add(AiMessage.from("done"));
        };
        RequestScope.run("req-7", request);
        String firstResult = "booked #5";

        // when: the client retries; inside the retry the memory hides the first attempt at once
        List<ChatMessage> seenAtRetryStart = new ArrayList<>();
        RequestScope.run("req-7", () -> {
            seenAtRetryStart.addAll(memory.messages());
            request.run();
        });

        // then: the turn shows once, with the second attempt's result; both attempts stay in the log
        assertThat(seenAtRetryStart).doesNotContain(UserMessage.from("book it"), ToolExecutionResultMessage.from(BOOK, firstResult));
        List<ChatMessage> view = memory.messages();
        assertThat(view.stream().filter(UserMessage.from("book it")::equals).count()).isLessThanOrEqualTo(1);
        assertThat(view).doesNotContain(ToolExecutionResultMessage.from(BOOK, firstResult));
        assertThat(log()).hasSize(3 + 4 + 4);
        assertThat(log()).extracting(Entry::message).contains(ToolExecutionResultMessage.from(BOOK, firstResult),
                ToolExecutionResultMessage.from(BOOK, "booked #9"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_append_a_batch_once_and_show_a_greeting_when_the_log_starts_with_one(
            String name, Function<SessionStore, ChatMemory> strategy) {
        // given
        ChatMemory memory = strategy.apply(store);

        // when
        memory.add(List.of(AiMessage.from("Hi! I am your travel agent."), UserMessage.from("hello"),
                AiMessage.from("how can I help?")));

        // then: one append; the greeting is shown (a summary memory that folds every turn summarizes it)
        assertThat(store.appends.get()).isEqualTo(1);
        if (!(memory instanceof SummaryChatMemory)) {
            assertThat(memory.messages()).startsWith(AiMessage.from("Hi! I am your travel agent."));
        } else {
            // the newest turn stays verbatim: the greeting folds with it once the next turn closes
            assertThat(memory.messages()).startsWith(AiMessage.from("Hi! I am your travel agent."));
            turn(memory, 1);
            assertThat(((SummaryChatMemory) memory).summary().orElseThrow().text()).contains("travel agent");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void should_reject_null_and_empty_set_as_langchain4j_does(String name, Function<SessionStore, ChatMemory> strategy) {
        ChatMemory memory = strategy.apply(store);
        assertThatThrownBy(() -> memory.set((Iterable<ChatMessage>) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> memory.set(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.appends.get()).isZero();
    }

    @Test
    void should_keep_every_request_below_the_ceiling_when_the_summarizer_always_fails() {
        // given
        SummaryBufferChatMemory memory = SummaryBufferChatMemory.builder().id("s").chatMemoryStore(store)
                .summarizer((previous, messages) -> {
                    throw new IllegalStateException("model down");
                }).maxBufferTokens(200).contextTokens(600).listener(MemoryListener.NONE)
                .listener(MemoryListener.NONE).build();

        // when / then
        for (int i = 0; i < 300; i++) {
            turn(memory, i);
            assertThat(Tokenizers.o200k().estimateTokenCountInMessages(memory.messages())).isLessThanOrEqualTo(600);
        }
        assertThat(log()).hasSize(1 + 600);
    }

    @Test
    void should_return_from_add_within_the_timeout_when_the_summarizer_hangs() {
        // given
        SummaryChatMemory memory = SummaryChatMemory.builder().id("s").chatMemoryStore(store)
                .summarizer((previous, messages) -> {
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "never";
                }).summarizerTimeout(Duration.ofMillis(300)).listener(MemoryListener.NONE).build();

        // when
        long start = System.nanoTime();
        turn(memory, 1);
        long millis = (System.nanoTime() - start) / 1_000_000;

        // then
        assertThat(millis).isLessThan(5_000);
        assertThat(memory.messages()).contains(UserMessage.from("question 1 about the trip to Lisbon"),
                AiMessage.from("answer 1 with some details about Lisbon"));
    }

    private static Optional<Summary> summaryOf(ChatMemory memory) {
        if (memory instanceof SummaryChatMemory) {
            return ((SummaryChatMemory) memory).summary();
        }
        if (memory instanceof SummaryBufferChatMemory) {
            return ((SummaryBufferChatMemory) memory).summary();
        }
        return Optional.empty();
    }

    /** A store that counts appends. */
    static final class CountingStore extends ForwardingSessionStore {
        final AtomicInteger appends = new AtomicInteger();

        CountingStore(SessionStore delegate) {
            super(delegate);
        }

        @Override
        public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
            appends.incrementAndGet();
            return delegate.append(sessionId, entries, idempotencyKey);
        }
    }
}
