package io.github.memorypack.summarybuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.testkit.MutableClock.ManualExecutor;
import io.github.memorypack.testkit.SampleMessages.RecordingSummarizer;
import io.github.memorypack.testkit.SampleMessages.ScriptedFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SummaryBufferChatMemoryTest {

    static final SystemMessage SYSTEM = SystemMessage.from("You are a helpful travel agent.");
    static final TokenCountEstimator TOKENS = Tokenizers.o200k();

    private final SessionStore store = InMemorySessionStore.create();
    private final RecordingSummarizer summarizer = new RecordingSummarizer();
    private final List<MemoryListener.SummaryFailure> failures = new ArrayList<>();

    private SummaryBufferChatMemory.Builder memory(int maxTokens) {
        return SummaryBufferChatMemory.builder().id("s1").chatMemoryStore(store).summarizer(summarizer).maxBufferTokens(maxTokens)
                .listener(MemoryListener.onSummaryFailure(failures::add));
    }

    /** A scripted turn whose length varies with n (10 to 60 words per message). */
    static List<ChatMessage> turn(int n) {
        StringBuilder user = new StringBuilder("Turn " + n + ": ");
        for (int i = 0; i < 10 + (n * 7) % 30; i++) {
            user.append("plan").append(i % 5).append(' ');
        }
        StringBuilder ai = new StringBuilder("Reply " + n + ": ");
        for (int i = 0; i < 10 + (n * 13) % 50; i++) {
            ai.append("idea").append(i % 7).append(' ');
        }
        return List.of(UserMessage.from(user.toString().strip()), AiMessage.from(ai.toString().strip()));
    }

    static void add(SummaryBufferChatMemory memory, List<ChatMessage> turn) {
        memory.add(SYSTEM);
        turn.forEach(memory::add);
    }

    /** The verbatim part of a view: everything after the pinned system message and summary. */
    static List<ChatMessage> verbatim(List<ChatMessage> view) {
        return view.stream().filter(m -> !(m instanceof SystemMessage)).toList();
    }

    private static final Map<ChatMessage, Integer> COUNTED = new ConcurrentHashMap<>();

    /** Token count of messages as the memory counts them (memoized: the replay tests count views often). */
    static int tokens(List<ChatMessage> messages) {
        int sum = 0;
        for (ChatMessage message : messages) {
            sum += COUNTED.computeIfAbsent(message, TOKENS::estimateTokenCountInMessage);
        }
        return sum;
    }

    @Test
    void should_fold_oldest_turns_down_to_watermark_only_when_buffer_passes_max_tokens() {
        // given
        SummaryBufferChatMemory memory = memory(600).build();
        List<ChatMessage> added = new ArrayList<>();

        // when: turns are added until the first fold
        int n = 0;
        while (summarizer.calls().isEmpty()) {
            assertThat(tokens(verbatim(memory.messages()))).isLessThanOrEqualTo(600);
            List<ChatMessage> turn = turn(++n);
            added.addAll(turn);
            add(memory, turn);
        }

        // then: the fold happened on the first turn that pushed the buffer over 600 tokens
        assertThat(tokens(added)).isGreaterThan(600);
        assertThat(tokens(added.subList(0, added.size() - 2))).isLessThanOrEqualTo(600);
        List<ChatMessage> kept = verbatim(memory.messages());
        List<ChatMessage> folded = summarizer.calls().get(0).messages();
        // the summarizer got the oldest whole turns, the view keeps the rest: nothing overlaps or is lost
        List<ChatMessage> both = new ArrayList<>(folded);
        both.addAll(kept);
        assertThat(both).isEqualTo(added);
        assertThat(folded.size() % 2).isZero();
        assertThat(kept.get(0)).isInstanceOf(UserMessage.class);
        assertUnderWatermarkOrOnlyNewestTurn(kept, 300);
        // folding one turn fewer would have stayed over the watermark
        assertThat(tokens(added.subList(folded.size() - 2, added.size()))).isGreaterThan(300);
        assertThat(memory.messages().subList(0, 2)).containsExactly(SYSTEM,
                SummaryMessage.of("summary 1 of " + folded.size() + " more messages"));
    }

    /** A fold stops at the watermark, or earlier when only the newest turn (never folded) is left. */
    static void assertUnderWatermarkOrOnlyNewestTurn(List<ChatMessage> kept, int watermark) {
        boolean onlyNewest = kept.size() == 2 && kept.get(0) instanceof UserMessage;
        assertThat(onlyNewest || tokens(kept) <= watermark)
                .as("%d verbatim tokens in %d messages, watermark %d", tokens(kept), kept.size(), watermark).isTrue();
    }

    @Test
    void should_call_summarizer_at_most_once_per_gap_and_bound_view_when_replaying_300_turns() {
        // given
        int maxTokens = 2_000;
        int watermark = 1_000;
        int cap = 300;
        Summarizer extractive = Summarizer.extractiveBuilder().maxSummaryTokens(cap).build();
        int[] calls = {0};
        SummaryBufferChatMemory memory = SummaryBufferChatMemory.builder().id("s1").chatMemoryStore(store)
                .summarizer((previous, messages) -> {
                    calls[0]++;
                    return extractive.summarize(previous, messages);
                })
                .maxBufferTokens(maxTokens).lowWatermark(watermark).build();
        int conversationTokens = 0;
        int systemTokens = TOKENS.estimateTokenCountInMessage(SYSTEM);
        int headerTokens = TOKENS.estimateTokenCountInMessage(SystemMessage.from(SummaryMessage.HEADER + "\n\n"));

        for (int n = 1; n <= 300; n++) {
            // when
            List<ChatMessage> turn = turn(n);
            conversationTokens += tokens(turn);
            memory.add(SYSTEM);
            memory.add(turn.get(0));
            List<ChatMessage> view = memory.messages(); // what the next request sends, newest user message included
            memory.add(turn.get(1));

            // then: the view never exceeds maxTokens + summary cap + newest turn (+ system message and header)
            int bound = maxTokens + cap + tokens(turn) + systemTokens + headerTokens + Tokenizers.TOKENS_PER_REPLY;
            assertThat(tokens(view) + Tokenizers.TOKENS_PER_REPLY).isLessThanOrEqualTo(bound);
            assertThat(memory.summary().map(Summary::tokenCount).orElse(0)).isLessThanOrEqualTo(cap);
        }

        // then
        assertThat(calls[0]).isPositive()
                .isLessThanOrEqualTo((conversationTokens + (maxTokens - watermark) - 1) / (maxTokens - watermark));
    }

    @ParameterizedTest
    @EnumSource(ScriptedFailure.class)
    void should_lose_nothing_keep_view_valid_and_retry_next_fold_when_summarizer_fails(ScriptedFailure failure) {
        // given
        SummaryBufferChatMemory memory = memory(200).maxSummaryTokens(100).build();
        summarizer.then(failure.answer);
        List<ChatMessage> added = new ArrayList<>();
        int n = 0;

        // when: turns until the first (failing) fold
        while (failures.isEmpty()) {
            List<ChatMessage> turn = turn(++n);
            added.addAll(turn);
            add(memory, turn);
        }

        // then: no summary, every message still there, in order, starting with the system message
        assertThat(failures).singleElement().extracting(MemoryListener.SummaryFailure::reason).isEqualTo(failure.reason);
        assertThat(memory.summary()).isEmpty();
        List<ChatMessage> view = memory.messages();
        assertThat(view.get(0)).isEqualTo(SYSTEM);
        assertThat(view.subList(1, view.size())).isEqualTo(added);

        // when: the next finished turn retries
        List<ChatMessage> next = turn(++n);
        added.addAll(next);
        add(memory, next);

        // then
        assertThat(summarizer.calls()).hasSize(2);
        List<ChatMessage> folded = summarizer.calls().get(1).messages();
        List<ChatMessage> both = new ArrayList<>(folded);
        both.addAll(verbatim(memory.messages()));
        assertThat(both).isEqualTo(added);
        assertThat(memory.summary()).isPresent();
    }

    @Test
    void should_show_same_view_and_continue_from_stored_summary_when_reopened() {
        // given
        SummaryBufferChatMemory first = memory(250).build();
        for (int n = 1; n <= 30; n++) {
            add(first, turn(n));
        }
        List<ChatMessage> before = first.messages();
        int callsBefore = summarizer.calls().size();
        String storedSummary = first.summary().orElseThrow().text();

        // when
        SummaryBufferChatMemory reopened = memory(250).build();

        // then
        assertThat(reopened.messages()).isEqualTo(before);
        for (int n = 31; summarizer.calls().size() == callsBefore; n++) {
            add(reopened, turn(n));
        }
        assertThat(summarizer.calls().get(callsBefore).previousSummary()).isEqualTo(storedSummary);
    }

    @Test
    void should_keep_system_first_whole_turns_and_tool_pairs_when_folding_around_tool_calls() {
        // given
        SummaryBufferChatMemory memory = memory(200).build();
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("w1").name("weather")
                .arguments("{\"city\":\"Porto\"}").build();

        // when
        for (int n = 1; n <= 12; n++) {
            memory.add(SYSTEM);
            memory.add(UserMessage.from("Turn " + n + ": what is the weather in Porto today, and tomorrow?"));
            memory.add(AiMessage.from(List.of(call)));
            memory.add(ToolExecutionResultMessage.from(call, "Porto: 18C, light wind, sunny; tomorrow 20C."));
            memory.add(AiMessage.from("It is 18C and sunny in Porto; tomorrow 20C."));
        }

        // then
        assertThat(summarizer.calls()).isNotEmpty();
        for (var c : summarizer.calls()) {
            assertThat(c.messages().size() % 4).isZero();
            assertThat(c.messages().get(0)).isInstanceOf(UserMessage.class);
        }
        List<ChatMessage> view = memory.messages();
        assertThat(view.get(0)).isEqualTo(SYSTEM);
        assertThat(((SystemMessage) view.get(1)).text()).startsWith(SummaryMessage.HEADER);
        List<ChatMessage> rest = view.subList(2, view.size());
        assertThat(rest.get(0)).isInstanceOf(UserMessage.class);
        for (int i = 0; i < rest.size(); i++) {
            if (rest.get(i) instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                assertThat(rest.get(i + 1)).isInstanceOf(ToolExecutionResultMessage.class);
            }
        }
    }

    @Test
    void should_never_fold_newest_turn_when_it_alone_is_over_max_tokens() {
        // given
        SummaryBufferChatMemory memory = memory(100).build();
        add(memory, turn(1));
        UserMessage huge = UserMessage.from("Please read this: " + "lorem ipsum dolor ".repeat(100));

        // when
        memory.add(huge);
        memory.add(AiMessage.from("Read it."));

        // then: the older turn is folded, the newest is shown whole
        assertThat(summarizer.calls()).singleElement().extracting(c -> c.messages()).isEqualTo(turn(1));
        assertThat(verbatim(memory.messages())).containsExactly(huge, AiMessage.from("Read it."));
    }

    @Test
    void should_use_each_sessions_limit_when_max_tokens_is_per_session() {
        // given
        var provider = SummaryBufferChatMemory.builder().chatMemoryStore(store).summarizer(summarizer)
                .dynamicMaxBufferTokens(id -> id.equals("small") ? 150 : 100_000).provider();
        var small = (SummaryBufferChatMemory) provider.get("small");
        var large = (SummaryBufferChatMemory) provider.get("large");

        // when
        for (int n = 1; n <= 10; n++) {
            add(small, turn(n));
            add(large, turn(n));
        }

        // then
        assertThat(small.summary()).isPresent();
        assertThat(large.summary()).isEmpty();
        assertThat(verbatim(large.messages())).hasSize(20);
    }

    @Test
    void should_fold_earlier_when_calibration_says_estimates_are_low() {
        // given: four turns fit the budget by our estimate; the provider reports twice our estimate
        int fourTurns = 0;
        for (int n = 1; n <= 4; n++) {
            fourTurns += tokens(turn(n));
        }
        int maxTokens = fourTurns + 10;
        TokenAccounting accounting = TokenAccounting.create();
        accounting.recordRequest("s1", 100, new dev.langchain4j.model.output.TokenUsage(200, 10));
        SummaryBufferChatMemory calibrated = memory(maxTokens).calibrateWith(accounting).build();
        SummaryBufferChatMemory plain = SummaryBufferChatMemory.builder().id("s2").chatMemoryStore(store)
                .summarizer(new RecordingSummarizer()).maxBufferTokens(maxTokens).build();

        // when
        for (int n = 1; n <= 4; n++) {
            add(calibrated, turn(n));
            add(plain, turn(n));
        }

        // then
        assertThat(plain.summary()).isEmpty();
        assertThat(calibrated.summary()).isPresent();
        assertThat(accounting.report("s1").summarizerCalls()).isPositive();
    }

    @Test
    void should_not_wait_for_summarizer_and_show_full_buffer_until_fold_lands_when_in_background() {
        // given
        ManualExecutor executor = new ManualExecutor();
        SummaryBufferChatMemory memory = memory(200).executor(executor).build();
        List<ChatMessage> added = new ArrayList<>();

        // when
        for (int n = 1; n <= 8; n++) {
            added.addAll(turn(n));
            add(memory, turn(n));
        }

        // then: one fold queued, none run, old (no) summary + full buffer
        assertThat(executor.pending()).isEqualTo(1);
        assertThat(summarizer.calls()).isEmpty();
        assertThat(memory.messages().subList(1, memory.messages().size())).isEqualTo(added);

        // when
        executor.runAll();

        // then
        assertThat(summarizer.calls()).hasSize(1);
        assertUnderWatermarkOrOnlyNewestTurn(verbatim(memory.messages()), 100);
    }

    @Test
    void should_reject_bad_settings_when_building() {
        assertThatThrownBy(() -> SummaryBufferChatMemory.builder().summarizer(summarizer).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxBufferTokens");
        assertThatThrownBy(() -> SummaryBufferChatMemory.builder().maxBufferTokens(100).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("summarizer");
        assertThatThrownBy(() -> memory(0).build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> memory(100).lowWatermark(100).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("lowWatermark");
        assertThatThrownBy(() -> memory(100).lowWatermark(100).provider())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("lowWatermark");
        assertThatThrownBy(() -> memory(100).lowWatermark(-1).build()).isInstanceOf(IllegalArgumentException.class);
    }
}
