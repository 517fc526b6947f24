package io.github.memorypack.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.core.file.FileSessionStore;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryPackMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MemoryPackMetrics metrics = MemoryPackMetrics.of(registry);

    private static void turn(ChatMemory memory, int i) {
        memory.messages(); // what AiServices reads before each request
        memory.add(UserMessage.from("Question " + i + ": my name is Ada and I live in Lyon, what about trains?"));
        memory.add(AiMessage.from("Answer " + i + ": trains from Lyon leave every hour, Ada, and cost 40 euros."));
    }

    @Test
    void should_record_every_view_with_its_tokens_and_messages_when_a_memory_is_read() {
        // given
        ChatMemory memory = BufferChatMemory.builder().id("ada").tokenizer(Tokenizers.o200k()).listener(metrics)
                .build();
        turn(memory, 1);
        turn(memory, 2);

        // when
        List<ChatMessage> view = memory.messages();

        // then: three views (one per turn, one now) of 0, 2 and 4 messages
        DistributionSummary messages = registry.get(MemoryPackMetrics.VIEW_MESSAGES).tag("strategy", "buffer").summary();
        assertThat(messages.count()).isEqualTo(3);
        assertThat(messages.totalAmount()).isEqualTo(0 + 2 + 4);
        assertThat(messages.getId().getBaseUnit()).isEqualTo("messages");
        DistributionSummary tokens = registry.get(MemoryPackMetrics.VIEW_TOKENS).tag("strategy", "buffer").summary();
        assertThat(tokens.count()).isEqualTo(3);
        assertThat(tokens.getId().getBaseUnit()).isEqualTo("tokens");
        // the last sample is the request's size: every message with its framing, plus the reply's priming
        long expected = Tokenizers.TOKENS_PER_REPLY
                + view.stream().mapToLong(Tokenizers.o200k()::estimateTokenCountInMessage).sum();
        assertThat(tokens.max()).isEqualTo(expected);
    }

    @Test
    void should_time_folds_and_count_summarizer_calls_when_summary_buffer_folds() {
        // given: a budget a few turns fill, the offline summarizer
        ChatMemory memory = SummaryBufferChatMemory.builder().id("ada").summarizer(Summarizer.extractive())
                .maxBufferTokens(120).listener(metrics).build();

        // when
        for (int i = 0; i < 12; i++) {
            turn(memory, i);
        }

        // then
        Timer folds = registry.get(MemoryPackMetrics.FOLDS).tag("strategy", "summary-buffer").timer();
        assertThat(folds.count()).isPositive().isLessThan(12); // it folds, but not every turn
        assertThat(registry.get(MemoryPackMetrics.SUMMARIZER_CALLS).tag("outcome", "success").counter().count())
                .isEqualTo(folds.count());
        DistributionSummary in = registry.get(MemoryPackMetrics.SUMMARIZER_TOKENS)
                .tags("strategy", "summary-buffer", "direction", "input").summary();
        DistributionSummary out = registry.get(MemoryPackMetrics.SUMMARIZER_TOKENS)
                .tags("strategy", "summary-buffer", "direction", "output").summary();
        assertThat(in.count()).isEqualTo(folds.count());
        assertThat(out.count()).isEqualTo(folds.count());
        assertThat(in.totalAmount()).isPositive();
        assertThat(registry.find(MemoryPackMetrics.FOLD_FAILURES).counters()).isEmpty();
    }

    @Test
    void should_count_failures_by_reason_and_skipped_folds_when_the_summarizer_keeps_failing() {
        // given: a summarizer that always throws, so every turn tries (and then backs off)
        AtomicInteger calls = new AtomicInteger();
        Summarizer failing = (previous, messages) -> {
            calls.incrementAndGet();
            throw new IllegalStateException("model down");
        };
        ChatMemory memory = SummaryChatMemory.builder().id("ada").summarizer(failing).listener(metrics).build();

        // when
        for (int i = 0; i < 6; i++) {
            turn(memory, i);
        }

        // then: turns 2 to 6 end with something to fold (the newest turn is never folded); after k
        // failures in a row 2^(k-1) - 1 turns are skipped: calls at turns 2, 3 and 5, skips at 4 and 6
        assertThat(calls.get()).isEqualTo(3);
        assertThat(registry.get(MemoryPackMetrics.SUMMARIZER_CALLS).tag("outcome", "failure").counter().count())
                .isEqualTo(calls.get());
        assertThat(registry.get(MemoryPackMetrics.FOLD_FAILURES).tag("reason", "failed").counter().count())
                .isEqualTo(calls.get());
        assertThat(registry.get(MemoryPackMetrics.FOLDS_SKIPPED).tag("strategy", "summary").counter().count())
                .isEqualTo(2);
        assertThat(registry.get(MemoryPackMetrics.SUMMARIZER_CALLS).tag("outcome", "success").counter().count())
                .isZero();
    }

    @Test
    void should_count_an_overflow_by_unit_when_the_newest_turn_alone_is_over_the_limit() {
        // given
        ChatMemory memory = WindowChatMemory.builder().id("ada").maxTokens(10, Tokenizers.o200k()).listener(metrics)
                .build();
        memory.add(UserMessage.from("A question that is far longer than ten tokens, so the window cannot hold it."));

        // when
        memory.messages();

        // then
        assertThat(registry.get(MemoryPackMetrics.OVERFLOWS).tag("unit", "tokens").counter().count()).isEqualTo(1);
    }

    @Test
    void should_time_each_store_operation_by_backend_when_a_file_store_is_instrumented(@TempDir Path dir) {
        // given
        SessionStore store = metrics.instrument(FileSessionStore.of(dir));
        ChatMemory memory = WindowChatMemory.builder().id("ada").chatMemoryStore(store).maxMessages(10).build();

        // when
        turn(memory, 1);
        store.sessions();

        // then
        assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS)
                .tags("backend", "file", "operation", "append", "outcome", "success").timer().count()).isEqualTo(2);
        assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS)
                .tags("backend", "file", "operation", "sessions", "outcome", "success").timer().count()).isEqualTo(1);
        assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS).tag("backend", "file").timers())
                .extracting(t -> t.getId().getTag("operation")).contains("append", "sessions");
        assertThat(store.getMessages("ada")).hasSize(2);
    }

    @Test
    void should_offer_the_delegates_derived_data_folder_when_a_store_is_instrumented(@TempDir Path dir) {
        // given
        FileSessionStore files = FileSessionStore.of(dir);

        // when
        SessionStore store = metrics.instrument(files);

        // then
        assertThat(store.derivedDataDirectory("recall-index")).isEqualTo(files.derivedDataDirectory("recall-index"))
                .contains(files.directory().resolve("recall-index"));
        assertThat(metrics.instrument(InMemorySessionStore.create()).derivedDataDirectory("recall-index")).isEmpty();
    }

    @Test
    void should_count_an_error_and_rethrow_it_when_a_store_operation_throws() {
        // given
        SessionStore store = metrics.instrument(InMemorySessionStore.create());

        // when / then: the delegate's own exception comes through unchanged
        assertThatThrownBy(() -> store.append("../escape", List.of(NewEntry.of(UserMessage.from("hi")))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(registry.get(MemoryPackMetrics.STORE_ERRORS)
                .tags("backend", "in-memory", "operation", "append", "exception", "IllegalArgumentException").counter()
                .count()).isEqualTo(1);
        assertThat(registry.get(MemoryPackMetrics.STORE_OPERATIONS)
                .tags("backend", "in-memory", "operation", "append", "outcome", "error").timer().count()).isEqualTo(1);
    }

    @Test
    void should_name_backends_in_kebab_case_when_given_store_classes(@TempDir Path dir) {
        assertThat(MemoryPackMetrics.backendOf(InMemorySessionStore.create())).isEqualTo("in-memory");
        assertThat(MemoryPackMetrics.backendOf(FileSessionStore.of(dir))).isEqualTo("file");
        assertThat(metrics.instrument(InMemorySessionStore.create(), "custom")).isNotNull();
        registry.getMeters().stream().map(Meter::getId).forEach(id -> assertThat(id.getName()).startsWith("memorypack."));
    }

    @Test
    void should_reject_a_missing_registry_or_store_when_given_null() {
        assertThatThrownBy(() -> MemoryPackMetrics.of(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> metrics.instrument(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> metrics.instrument(InMemorySessionStore.create(), " "))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_time_each_call_once_under_the_store_backend_when_an_instrumented_store_is_instrumented_again() {
        // given: a store timed by the application (as this README shows), then again by the Spring Boot
        // starter, which times whatever store bean the memories run on
        SessionStore once = metrics.instrument(InMemorySessionStore.create());
        SessionStore twice = MemoryPackMetrics.of(registry).instrument(once);

        // when
        twice.nextIndex("ada");

        // then: one sample, tagged with the real backend (not "timed")
        assertThat(registry.find(MemoryPackMetrics.STORE_OPERATIONS).timers())
                .singleElement().satisfies(timer -> {
                    assertThat(timer.getId().getTag("backend")).isEqualTo("in-memory");
                    assertThat(timer.count()).isEqualTo(1);
                });
    }
}
