package io.github.memorypack.summary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.testkit.MutableClock.ManualExecutor;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.testkit.SampleMessages.RecordingSummarizer;
import io.github.memorypack.testkit.SampleMessages.ScriptedFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SummaryChatMemoryTest {

    private static final SystemMessage SYSTEM = SystemMessage.from("You are a travel agent.");
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

    private final SessionStore store = InMemorySessionStore.create();
    private final RecordingSummarizer summarizer = new RecordingSummarizer();
    private final List<MemoryListener.SummaryFailure> failures = new ArrayList<>();

    private SummaryChatMemory.Builder memory() {
        return SummaryChatMemory.builder().id("s1").chatMemoryStore(store).summarizer(summarizer).clock(CLOCK)
                .listener(MemoryListener.onSummaryFailure(failures::add));
    }

    private static void turn(SummaryChatMemory memory, int n) {
        memory.add(SYSTEM);
        memory.add(UserMessage.from("question " + n));
        memory.add(AiMessage.from("answer " + n));
    }

    private static SummaryMessage summaryMessage(String text) {
        return SummaryMessage.of(text);
    }

    @Test
    void should_fold_each_finished_turn_and_send_summarizer_previous_summary_and_turn_when_default() {
        // given
        SummaryChatMemory memory = memory().build();

        // when
        turn(memory, 1);
        turn(memory, 2);
        turn(memory, 3);

        // then: every turn but the newest is folded; the newest stays verbatim
        assertThat(summarizer.calls()).hasSize(2);
        assertThat(summarizer.calls().get(0).previousSummary()).isEmpty();
        assertThat(summarizer.calls().get(0).messages())
                .containsExactly(UserMessage.from("question 1"), AiMessage.from("answer 1"));
        assertThat(summarizer.calls().get(1).previousSummary()).isEqualTo("summary 1 of 2 more messages");
        assertThat(summarizer.calls().get(1).messages())
                .containsExactly(UserMessage.from("question 2"), AiMessage.from("answer 2"));
        assertThat(memory.messages()).containsExactly(SYSTEM, summaryMessage("summary 2 of 2 more messages"),
                UserMessage.from("question 3"), AiMessage.from("answer 3"));
        assertThat(memory.summary()).get().extracting(Summary::coveredUntil).isEqualTo(5L); // the system message is entry 0, once
    }

    @Test
    void should_show_unfinished_turn_after_summary_when_user_message_is_pending() {
        // given
        SummaryChatMemory memory = memory().build();
        turn(memory, 1);
        turn(memory, 2);

        // when
        memory.add(UserMessage.from("question 3"));

        // then
        assertThat(memory.messages()).containsExactly(SYSTEM, summaryMessage("summary 1 of 2 more messages"),
                UserMessage.from("question 2"), AiMessage.from("answer 2"), UserMessage.from("question 3"));
    }

    @Test
    void should_fold_only_every_n_turns_when_configured() {
        // given
        SummaryChatMemory memory = memory().foldEveryTurns(3).build();

        // when
        turn(memory, 1);
        turn(memory, 2);
        turn(memory, 3);

        // then
        assertThat(summarizer.calls()).isEmpty();
        assertThat(memory.messages()).hasSize(7);

        // when
        turn(memory, 4);

        // then
        assertThat(summarizer.calls()).hasSize(1);
        assertThat(summarizer.calls().get(0).messages()).hasSize(6);
        assertThat(memory.messages()).containsExactly(SYSTEM, summaryMessage("summary 1 of 6 more messages"),
                UserMessage.from("question 4"), AiMessage.from("answer 4"));
    }

    @Test
    void should_fold_tool_turn_whole_when_final_answer_arrives() {
        // given
        SummaryChatMemory memory = memory().build();
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("weather").arguments("{}").build();
        memory.add(UserMessage.from("weather in Porto?"));
        memory.add(AiMessage.from(List.of(call)));

        // when: the call is open, nothing folds and the pending call is not shown
        memory.add(ToolExecutionResultMessage.from(call, "18C"));

        // then
        assertThat(summarizer.calls()).isEmpty();
        assertThat(memory.messages()).containsExactly(UserMessage.from("weather in Porto?"),
                AiMessage.from(List.of(call)), ToolExecutionResultMessage.from(call, "18C"));

        // when: the turn closes (it stays verbatim while it is the newest) and the next one comes
        memory.add(AiMessage.from("It is 18C."));
        assertThat(summarizer.calls()).isEmpty();
        turn(memory, 2);

        // then
        assertThat(summarizer.calls()).singleElement().extracting(RecordingSummarizer.Call::messages)
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.LIST).hasSize(4);
    }

    @Test
    void should_fold_interrupted_tool_call_once_its_turn_is_abandoned_when_its_result_never_came() throws Exception {
        // given: a tool call whose result never came, while another request (another thread) goes on
        MutableClock clock = MutableClock.at(Instant.now());
        SummaryChatMemory memory = memory().clock(clock).concurrentSends(ConcurrentSends.branch()).build();
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c9").name("book").arguments("{}").build();
        memory.add(UserMessage.from("book the hotel"));
        memory.add(AiMessage.from(List.of(call)));
        onAnotherThread(() -> {
            memory.add(UserMessage.from("hello again"));
            memory.add(AiMessage.from("hi"));
        });
        onAnotherThread(() -> {
            memory.add(UserMessage.from("more"));
            memory.add(AiMessage.from("sure"));
        });

        // then: the open turn (its tool may still be running) blocks folding; its request sees its own turn
        // last (the call not shown yet), the other requests see their closed turns without it
        assertThat(summarizer.calls()).isEmpty();
        assertThat(memory.messages()).containsExactly(UserMessage.from("book the hotel"));
        List<List<ChatMessage>> elsewhere = new java.util.ArrayList<>();
        onAnotherThread(() -> elsewhere.add(memory.messages()));
        assertThat(elsewhere.get(0)).containsExactly(UserMessage.from("hello again"), AiMessage.from("hi"),
                UserMessage.from("more"), AiMessage.from("sure"));
        clock.advance(java.time.Duration.ofMinutes(11));
        assertThat(memory.messages()).startsWith(UserMessage.from("book the hotel"), AiMessage.from(List.of(call)),
                ToolExecutionResultMessage.from(call, "no result: the tool call was interrupted"));

        // when
        onAnotherThread(() -> {
            memory.add(UserMessage.from("still there?"));
            memory.add(AiMessage.from("yes"));
        });

        // then: the abandoned turn and everything after it but the newest fold together
        assertThat(summarizer.calls()).singleElement().satisfies(c -> assertThat(c.messages()).containsExactly(
                UserMessage.from("book the hotel"), AiMessage.from(List.of(call)), UserMessage.from("hello again"),
                AiMessage.from("hi"), UserMessage.from("more"), AiMessage.from("sure")));
        assertThat(memory.messages()).containsExactly(summaryMessage("summary 1 of 6 more messages"),
                UserMessage.from("still there?"), AiMessage.from("yes"));
    }

    @Test
    void should_repair_and_fold_a_tool_call_at_once_when_its_thread_has_moved_on_to_a_new_request() {
        // given: one thread asked, the tool call never got its result, and the same thread asks again
        SummaryChatMemory memory = memory().build();
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c9").name("book").arguments("{}").build();
        memory.add(UserMessage.from("book the hotel"));
        memory.add(AiMessage.from(List.of(call)));

        // when
        memory.add(UserMessage.from("hello again"));
        memory.add(AiMessage.from("hi"));

        // then: a thread runs one request at a time, so the earlier turn will get no answer
        assertThat(summarizer.calls()).singleElement().satisfies(c -> assertThat(c.messages()).containsExactly(
                UserMessage.from("book the hotel"), AiMessage.from(List.of(call))));
        assertThat(memory.messages()).containsExactly(summaryMessage("summary 1 of 2 more messages"),
                UserMessage.from("hello again"), AiMessage.from("hi"));
    }

    private static void onAnotherThread(Runnable work) throws InterruptedException {
        Thread thread = new Thread(work);
        thread.start();
        thread.join();
    }

    @ParameterizedTest
    @EnumSource(ScriptedFailure.class)
    void should_lose_nothing_report_and_retry_next_turn_when_summarizer_fails(ScriptedFailure failure) {
        // given
        SummaryChatMemory memory = memory().maxSummaryTokens(100).build();
        turn(memory, 1);
        turn(memory, 2);
        summarizer.then(failure.answer);

        // when
        turn(memory, 3);

        // then: summary and view unchanged apart from the new turn, failure reported
        assertThat(memory.messages()).containsExactly(SYSTEM, summaryMessage("summary 1 of 2 more messages"),
                UserMessage.from("question 2"), AiMessage.from("answer 2"), UserMessage.from("question 3"),
                AiMessage.from("answer 3"));
        assertThat(memory.summary()).get().extracting(Summary::coveredUntil).isEqualTo(3L);
        assertThat(failures).singleElement().satisfies(f -> {
            assertThat(f.reason()).isEqualTo(failure.reason);
            assertThat(f.sessionId()).isEqualTo("s1");
            assertThat(f.fromIndex()).isEqualTo(3);
            assertThat(f.toIndex()).isEqualTo(5);
            assertThat(f.consecutiveFailures()).isEqualTo(1);
        });

        // when: the next turn retries the whole unfolded range
        turn(memory, 4);

        // then
        assertThat(summarizer.calls()).hasSize(3);
        assertThat(summarizer.calls().get(2).messages()).containsExactly(UserMessage.from("question 2"),
                AiMessage.from("answer 2"), UserMessage.from("question 3"), AiMessage.from("answer 3"));
        assertThat(memory.messages()).containsExactly(SYSTEM, summaryMessage("summary 3 of 4 more messages"),
                UserMessage.from("question 4"), AiMessage.from("answer 4"));
    }

    @Test
    void should_back_off_exponentially_when_summarizer_keeps_failing() {
        // given
        SummaryChatMemory memory = memory().build();
        for (int i = 0; i < 20; i++) {
            summarizer.then(() -> {
                throw new IllegalStateException("down");
            });
        }

        // when
        for (int n = 1; n <= 16; n++) {
            turn(memory, n);
        }

        // then: attempts at turns 2, 3, 5 and 9 only (turn 1 has nothing to fold); every message still visible
        assertThat(summarizer.calls()).hasSize(4);
        assertThat(failures).extracting(MemoryListener.SummaryFailure::consecutiveFailures).containsExactly(1, 2, 3, 4);
        assertThat(memory.messages()).hasSize(1 + 16 * 2);
        assertThat(memory.summary()).isEmpty();
    }

    @Test
    void should_show_same_view_when_reopened_on_same_store() {
        // given
        SummaryChatMemory first = memory().foldEveryTurns(2).build();
        for (int n = 1; n <= 5; n++) {
            turn(first, n);
        }
        List<ChatMessage> before = first.messages();

        // when
        SummaryChatMemory reopened = memory().foldEveryTurns(2).build();

        // then
        assertThat(reopened.messages()).isEqualTo(before);
        assertThat(before).containsExactly(SYSTEM, summaryMessage("summary 2 of 4 more messages"),
                UserMessage.from("question 5"), AiMessage.from("answer 5"));

        // when: the reopened memory continues from the stored summary
        turn(reopened, 6);
        turn(reopened, 7);

        // then
        assertThat(summarizer.calls().get(2).previousSummary()).isEqualTo("summary 2 of 4 more messages");
        assertThat(summarizer.calls().get(2).messages()).hasSize(4);
    }

    @Test
    void should_return_before_summarizing_and_show_old_summary_plus_buffer_when_in_background() {
        // given
        ManualExecutor executor = new ManualExecutor();
        SummaryChatMemory memory = memory().executor(executor).build();

        // when
        turn(memory, 1);

        // then: the turn did not wait
        assertThat(summarizer.calls()).isEmpty();
        assertThat(executor.pending()).isEqualTo(1);
        assertThat(memory.messages()).containsExactly(SYSTEM, UserMessage.from("question 1"), AiMessage.from("answer 1"));

        // when: more turns finish while the first fold is queued, no second fold is queued
        turn(memory, 2);
        turn(memory, 3);
        assertThat(executor.pending()).isEqualTo(1);
        executor.runAll();

        // then
        assertThat(summarizer.calls()).singleElement().extracting(c -> c.messages().size()).isEqualTo(4);
        assertThat(memory.messages()).containsExactly(SYSTEM, summaryMessage("summary 1 of 4 more messages"),
                UserMessage.from("question 3"), AiMessage.from("answer 3"));
    }

    @Test
    void should_report_and_not_throw_when_executor_refuses_fold() {
        // given
        SummaryChatMemory memory = memory().executor(task -> {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }).build();

        // when
        turn(memory, 1);

        // then
        assertThat(failures).singleElement().satisfies(f -> {
            assertThat(f.cause()).isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
            assertThat(f.fromIndex()).isEqualTo(-1);
        });
        assertThat(memory.messages()).containsExactly(SYSTEM, UserMessage.from("question 1"), AiMessage.from("answer 1"));
    }

    @Test
    void should_report_store_failure_during_inline_fold_instead_of_failing_the_turn() {
        // given: a store whose range reads fail (the fold's read), everything else works
        boolean[] failReads = {false};
        SessionStore failing = (SessionStore) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SessionStore.class}, (proxy, method, args) -> {
                    if (failReads[0] && method.getName().equals("read")) {
                        throw new io.github.memorypack.core.StoreException("disk gone");
                    }
                    try {
                        return method.invoke(store, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        SummaryChatMemory memory = memory().chatMemoryStore(failing).build();
        memory.add(UserMessage.from("question 1"));
        failReads[0] = true;

        // when
        memory.add(AiMessage.from("answer 1"));

        // then: the answer is stored, the failure reported, no summary
        assertThat(failures).singleElement().extracting(MemoryListener.SummaryFailure::cause)
                .isInstanceOf(io.github.memorypack.core.StoreException.class);
        assertThat(store.getMessages("s1")).containsExactly(UserMessage.from("question 1"), AiMessage.from("answer 1"));
        assertThat(store.state("s1").summary()).isEmpty();
    }

    @Test
    void should_not_store_summary_when_set_replaced_log_while_summarizer_ran() {
        // given: the log is replaced (by another request) while the summarizer works on the old one
        SummaryChatMemory memory = memory().build();
        summarizer.then(() -> {
            memory.set(List.of(SYSTEM, UserMessage.from("fresh start"), AiMessage.from("welcome back")));
            return "summary of messages that are gone";
        });

        // when
        turn(memory, 1);
        turn(memory, 2);

        // then
        assertThat(summarizer.calls()).hasSize(1);
        assertThat(memory.summary()).isEmpty();
        assertThat(memory.messages()).containsExactly(SYSTEM, UserMessage.from("fresh start"),
                AiMessage.from("welcome back"));
    }

    @Test
    void should_keep_the_summary_when_set_leaves_the_summary_message_out() {
        // given
        SummaryChatMemory memory = memory().build();
        turn(memory, 1);
        turn(memory, 2);
        List<ChatMessage> before = memory.messages();

        // when: the summary covers messages the view never showed, so leaving it out deletes nothing
        memory.set(List.of(SYSTEM, UserMessage.from("fresh start")));

        // then
        assertThat(memory.summary()).isPresent();
        assertThat(memory.messages()).containsExactly(SYSTEM, before.get(1), UserMessage.from("fresh start"));
    }

    @Test
    void should_record_summarizer_calls_when_accounting_is_set() {
        // given
        TokenAccounting accounting = TokenAccounting.create();
        SummaryChatMemory memory = memory().tokenAccounting(accounting).build();

        // when
        turn(memory, 1);
        turn(memory, 2);
        turn(memory, 3);

        // then
        TokenAccounting.Report report = accounting.report("s1");
        assertThat(report.summarizerCalls()).isEqualTo(2);
        assertThat(report.summarizerInputTokens()).isGreaterThan(0);
        assertThat(report.summarizerOutputTokens()).isGreaterThan(0);
    }

    @Test
    void should_reject_bad_settings_when_building() {
        assertThatThrownBy(() -> SummaryChatMemory.builder().build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("summarizer");
        assertThatThrownBy(() -> memory().foldEveryTurns(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> memory().maxSummaryTokens(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> memory().id(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_give_each_memory_id_its_own_session_when_used_as_provider() {
        // given
        var provider = memory().provider();

        // when
        var a = (SummaryChatMemory) provider.get("a");
        var b = (SummaryChatMemory) provider.get("b");
        turn(a, 1);
        turn(a, 2);

        // then
        assertThat(a.summary()).isPresent();
        assertThat(b.summary()).isEmpty();
        assertThat(b.messages()).isEmpty();
    }

    @Test
    void should_reject_null_settings_at_the_setter_when_building() {
        assertThatThrownBy(() -> SummaryChatMemory.builder().summarizer(null))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
