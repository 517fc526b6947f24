package io.github.memorypack.summarybuffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Summary;
import io.github.memorypack.testkit.SampleMessages.RecordingSummarizer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConcurrentFoldTest {

    private static final int THREADS = 8;
    private static final int TURNS_PER_THREAD = 25;
    private static final SystemMessage SYSTEM = SystemMessage.from("You are a helpful assistant.");

    @Test
    void should_cover_every_message_exactly_once_when_8_threads_add_turns_while_background_folds_run() throws Exception {
        // given: one session, each thread with its own memory instance (as separate app nodes would be)
        SessionStore store = InMemorySessionStore.create();
        RecordingSummarizer recording = new RecordingSummarizer();
        AtomicInteger active = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        // the summarizer is slow, so folds overlap with writes; a fold covers only turns no open turn
        // reaches back past (interleaved turns stay whole), so how many folds run depends on timing
        AtomicInteger foldsDuringWrites = new AtomicInteger();
        AtomicInteger writing = new AtomicInteger(THREADS);
        Summarizer summarizer = (previous, messages) -> {
            mostAtOnce.accumulateAndGet(active.incrementAndGet(), Math::max);
            try {
                if (writing.get() > 0) {
                    foldsDuringWrites.incrementAndGet();
                }
                Thread.sleep(2);
                return recording.summarize(previous, messages);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                active.decrementAndGet();
            }
        };
        List<MemoryListener.SummaryFailure> failures = Collections.synchronizedList(new ArrayList<>());
        ExecutorService folds = Executors.newFixedThreadPool(3);
        ExecutorService writers = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();

        // when
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            done.add(writers.submit(() -> {
                SummaryBufferChatMemory memory = SummaryBufferChatMemory.builder().id("shared").chatMemoryStore(store)
                        .summarizer(summarizer).maxBufferTokens(150).executor(folds).listener(MemoryListener.onSummaryFailure(failures::add)).build();
                start.await();
                for (int i = 0; i < TURNS_PER_THREAD; i++) {
                    memory.add(SYSTEM);
                    memory.add(UserMessage.from("question " + thread + "-" + i + " about the plan for the trip"));
                    memory.messages();
                    memory.add(AiMessage.from("answer " + thread + "-" + i + " with a few details on the plan"));
                }
                writing.decrementAndGet();
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        writers.shutdown();
        // one more turn once every concurrent turn is closed: now a fold can take everything but it
        SummaryBufferChatMemory last = SummaryBufferChatMemory.builder().id("shared").chatMemoryStore(store)
                .summarizer(summarizer).maxBufferTokens(150).executor(folds).listener(MemoryListener.onSummaryFailure(failures::add)).build();
        last.add(UserMessage.from("question last about the plan for the trip"));
        last.add(AiMessage.from("answer last with a few details on the plan"));
        folds.shutdown();
        assertThat(folds.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

        // then: the chain of stored summaries covers exactly the log before coveredUntil, in order
        Summary summary = store.state("shared").summary().orElseThrow();
        List<RecordingSummarizer.Call> calls = recording.calls();
        Map<String, RecordingSummarizer.Call> byOutput = new HashMap<>();
        for (int n = 0; n < calls.size(); n++) {
            byOutput.put("summary " + (n + 1) + " of " + calls.get(n).messages().size() + " more messages", calls.get(n));
        }
        List<List<ChatMessage>> chain = new ArrayList<>();
        String text = summary.text();
        while (!text.isEmpty()) {
            RecordingSummarizer.Call call = byOutput.get(text);
            assertThat(call).as("summary %s was written by a recorded call", text).isNotNull();
            chain.add(0, call.messages());
            text = call.previousSummary();
        }
        List<ChatMessage> summarized = new ArrayList<>();
        chain.forEach(summarized::addAll);

        List<ChatMessage> logBefore = new ArrayList<>();
        List<ChatMessage> logAfter = new ArrayList<>();
        for (Entry entry : store.read("shared", 0, Integer.MAX_VALUE)) {
            if (!(entry.message() instanceof SystemMessage)) {
                (entry.index() < summary.coveredUntil() ? logBefore : logAfter).add(entry.message());
            }
        }
        assertThat(summarized).containsExactlyInAnyOrderElementsOf(logBefore); // in turn order: interleaved turns stay whole

        // and every other message is verbatim in the view, in log order
        SummaryBufferChatMemory reader = SummaryBufferChatMemory.builder().id("shared").chatMemoryStore(store)
                .summarizer(summarizer).maxBufferTokens(150).build();
        List<ChatMessage> view = reader.messages();
        assertThat(view.subList(0, 2)).extracting(m -> m.getClass().getSimpleName())
                .containsExactly("SystemMessage", "SummaryMessage");
        assertThat(view.subList(2, view.size())).containsExactlyInAnyOrderElementsOf(logAfter);

        // and together they are every message added, none lost, none twice
        List<ChatMessage> all = new ArrayList<>(summarized);
        all.addAll(view.subList(2, view.size()));
        assertThat(all).hasSize(THREADS * TURNS_PER_THREAD * 2 + 2).doesNotHaveDuplicates();
        assertThat(calls.size()).as("folds ran").isPositive();
        assertThat(failures).isEmpty();
        assertThat(mostAtOnce.get()).as("folds of one session running at once").isEqualTo(1);
    }
}
