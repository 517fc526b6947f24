package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ViewRulesTest {

    private static final SystemMessage SYSTEM = SystemMessage.from("You are helpful.");
    private static final ToolExecutionRequest CALL_1 = call("c1", "weather");
    private static final ToolExecutionRequest CALL_2 = call("c2", "time");

    private final InMemorySessionStore store = InMemorySessionStore.create();
    private final ViewRules rules = ViewRules.defaults();

    @Test
    void should_pin_state_system_message_first_and_hide_system_records_when_log_has_them() {
        // given
        List<Entry> log = log(SystemMessage.from("old prompt"), UserMessage.from("hi"), AiMessage.from("hello"),
                SystemMessage.from("You are helpful."));

        // when
        View view = rules.render(stateWith(SYSTEM), log, ViewLimit.none());

        // then
        assertThat(view.messages()).containsExactly(SYSTEM, UserMessage.from("hi"), AiMessage.from("hello"));
    }

    @Test
    void should_render_summary_after_system_message_and_skip_covered_entries_when_state_has_summary() {
        // given
        List<Entry> log = log(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1"), AiMessage.from("a1"));
        Summary summary = new Summary("The user asked q0.", 2, Entry.UNKNOWN_TOKENS, Instant.EPOCH);

        // when
        View view = rules.render(stateWith(SYSTEM).withSummary(summary), log, ViewLimit.none());

        // then
        assertThat(view.messages()).containsExactly(SYSTEM,
                SummaryMessage.of("The user asked q0."),
                UserMessage.from("q1"), AiMessage.from("a1"));
        assertThat(view.needsOlderEntries()).isFalse();
    }

    @Test
    void should_show_the_greeting_when_the_view_reaches_the_start_and_start_with_a_user_message_otherwise() {
        // given
        List<Entry> log = log(AiMessage.from("Hi, I am your assistant."), UserMessage.from("hi"), AiMessage.from("hello"),
                UserMessage.from("more"), AiMessage.from("sure"));

        // when
        View all = rules.render(SessionState.EMPTY, log, ViewLimit.none());
        View cut = rules.render(SessionState.EMPTY, log, ViewLimit.messages(3));

        // then
        assertThat(all.messages()).containsExactly(AiMessage.from("Hi, I am your assistant."), UserMessage.from("hi"),
                AiMessage.from("hello"), UserMessage.from("more"), AiMessage.from("sure"));
        assertThat(all.firstIndex()).isEqualTo(0);
        assertThat(cut.messages()).containsExactly(UserMessage.from("more"), AiMessage.from("sure"));
    }

    @Test
    void should_place_results_right_after_their_request_when_a_concurrent_turn_landed_in_between() {
        // given: request A's tool call, then request B's user message, then A's result
        List<Entry> log = log(UserMessage.from("A?"), AiMessage.from(CALL_1), UserMessage.from("B?"),
                ToolExecutionResultMessage.from(CALL_1, "sunny"), AiMessage.from("A: sunny"));

        // when
        View view = rules.render(SessionState.EMPTY, log, ViewLimit.none());

        // then
        assertThat(view.messages()).containsExactly(UserMessage.from("A?"), AiMessage.from(CALL_1),
                ToolExecutionResultMessage.from(CALL_1, "sunny"), UserMessage.from("B?"), AiMessage.from("A: sunny"));
    }

    @Test
    void should_drop_orphan_result_when_no_request_matches_it() {
        // given
        List<Entry> log = log(UserMessage.from("hi"), ToolExecutionResultMessage.from(CALL_2, "12:00"),
                AiMessage.from("hello"));

        // when
        View view = rules.render(SessionState.EMPTY, log, ViewLimit.none());

        // then
        assertThat(view.messages()).containsExactly(UserMessage.from("hi"), AiMessage.from("hello"));
    }

    @Test
    void should_repair_dangling_call_with_synthetic_result_when_later_messages_follow() {
        // given: the process died while the tool ran; the user asked again
        List<Entry> log = log(UserMessage.from("weather?"), AiMessage.from(CALL_1), UserMessage.from("hello?"));

        // when: while the turn is fresh the call may still run (another request); once abandoned it is repaired
        View fresh = rules.render(SessionState.EMPTY, log, ViewLimit.none());
        View view = rules.render(SessionState.EMPTY, log, true, ViewLimit.none(), new Dialogue.Context(
                log.get(log.size() - 1).timestamp().plus(java.time.Duration.ofMinutes(11)),
                MemoryOptions.DEFAULT_OPEN_TURN_TIMEOUT, null, null));

        // then
        assertThat(fresh.messages()).containsExactly(UserMessage.from("weather?"), UserMessage.from("hello?"));
        assertThat(view.messages()).containsExactly(UserMessage.from("weather?"), AiMessage.from(CALL_1),
                ToolExecutionResultMessage.from(CALL_1, Dialogue.INTERRUPTED_TOOL_RESULT), UserMessage.from("hello?"));
    }

    @Test
    void should_leave_out_call_when_it_is_last_and_may_still_be_running() {
        // given: two calls, one answered so far
        List<Entry> log = log(UserMessage.from("weather and time?"), AiMessage.from(List.of(CALL_1, CALL_2)),
                ToolExecutionResultMessage.from(CALL_1, "sunny"));

        // when
        View view = rules.render(SessionState.EMPTY, log, ViewLimit.none());

        // then
        assertThat(view.messages()).containsExactly(UserMessage.from("weather and time?"));
    }

    @Test
    void should_match_results_by_tool_name_when_provider_gives_no_ids() {
        // given
        ToolExecutionRequest noId = ToolExecutionRequest.builder().name("time").arguments("{}").build();
        List<Entry> log = log(UserMessage.from("time?"), AiMessage.from(noId),
                ToolExecutionResultMessage.from(null, "time", "12:00"), AiMessage.from("noon"));

        // when
        View view = rules.render(SessionState.EMPTY, log, ViewLimit.none());

        // then
        assertThat(view.messages()).hasSize(4);
        assertThat(view.messages().get(2)).isEqualTo(ToolExecutionResultMessage.from(null, "time", "12:00"));
    }

    @Test
    void should_cut_between_turns_and_count_system_message_when_limit_is_in_messages() {
        // given
        List<Entry> log = log(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1"), AiMessage.from("a1"));

        // when
        View view = rules.render(stateWith(SYSTEM), log, ViewLimit.messages(4));

        // then
        assertThat(view.messages()).containsExactly(SYSTEM, UserMessage.from("q1"), AiMessage.from("a1"));
        assertThat(view.size()).isEqualTo(3);
        assertThat(view.needsOlderEntries()).isFalse();
        assertThat(view.firstIndex()).isEqualTo(2);
    }

    @Test
    void should_ask_for_older_entries_when_every_given_turn_fits() {
        // given: a tail read that starts inside a turn
        List<Entry> log = log(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1"), AiMessage.from("a1"))
                .subList(1, 4);

        // when
        View view = rules.render(SessionState.EMPTY, log, false, ViewLimit.messages(10),
                new Dialogue.Context(log.get(2).timestamp(), MemoryOptions.DEFAULT_OPEN_TURN_TIMEOUT, null, null));

        // then
        assertThat(view.needsOlderEntries()).isTrue();
    }

    @Test
    void should_keep_newest_turn_and_report_over_limit_when_it_alone_is_too_big() {
        // given
        List<Entry> log = log(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("weather?"),
                AiMessage.from(CALL_1), ToolExecutionResultMessage.from(CALL_1, "sunny"), AiMessage.from("sunny"));

        // when
        View view = rules.render(stateWith(SYSTEM), log, ViewLimit.messages(3));

        // then
        assertThat(view.messages()).hasSize(5).startsWith(SYSTEM, UserMessage.from("weather?"));
        assertThat(view.overLimit()).isTrue();
        assertThat(view.overflow("s")).contains(new MemoryListener.Overflow("s", MemoryListener.Overflow.Unit.MESSAGES, 3, 5));
    }

    @Test
    void should_count_request_tokens_like_the_estimator_when_limit_is_in_tokens() {
        // given: entries carry their counts
        List<ChatMessage> messages = List.of(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1"),
                AiMessage.from("a1"));
        List<Entry> log = counted(messages);
        int everything = Tokenizers.o200k().estimateTokenCountInMessages(
                List.of(SYSTEM, messages.get(0), messages.get(1), messages.get(2), messages.get(3)));
        int lastTurn = Tokenizers.o200k().estimateTokenCountInMessages(List.of(SYSTEM, messages.get(2), messages.get(3)));

        // when
        View all = rules.render(stateWith(SYSTEM), log, ViewLimit.tokens(everything));
        View cut = rules.render(stateWith(SYSTEM), log, ViewLimit.tokens(everything - 1));

        // then
        assertThat(all.size()).isEqualTo(everything);
        assertThat(all.messages()).hasSize(5);
        assertThat(cut.size()).isEqualTo(lastTurn);
        assertThat(cut.messages()).containsExactly(SYSTEM, messages.get(2), messages.get(3));
    }

    @Test
    void should_limit_turns_when_limit_is_in_turns() {
        // given
        List<Entry> log = log(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1"),
                AiMessage.from(CALL_1), ToolExecutionResultMessage.from(CALL_1, "x"), AiMessage.from("a1"),
                UserMessage.from("q2"));

        // when
        View view = rules.render(stateWith(SYSTEM), log, ViewLimit.turns(2));

        // then
        assertThat(view.turns()).isEqualTo(2);
        assertThat(view.messages()).hasSize(6).element(1).isEqualTo(UserMessage.from("q1"));
    }

    @Test
    void should_show_preview_of_large_tool_result_in_older_turns_only_when_previews_are_on() {
        // given
        ViewRules previews = new ViewRules(null, 50, -1, SummaryMessage.Placement.SYSTEM_MESSAGE);
        String big = "row ".repeat(500);
        ToolExecutionResultMessage result = ToolExecutionResultMessage.from(CALL_1, big);
        // the newest turn is still open: the model has not answered q1 yet
        List<Entry> log = counted(List.of(UserMessage.from("q0"), AiMessage.from(CALL_1), result, AiMessage.from("a0"),
                UserMessage.from("q1"), AiMessage.from(CALL_1), result));

        // when
        View view = previews.render(SessionState.EMPTY, log, ViewLimit.none());

        // then
        ToolExecutionResultMessage older = (ToolExecutionResultMessage) view.messages().get(2);
        assertThat(older.id()).isEqualTo("c1");
        assertThat(older.text()).startsWith(big.substring(0, CostRules.TOOL_RESULT_PREVIEW_CHARS))
                .contains("shortened to a preview").hasSizeLessThan(big.length());
        assertThat(view.messages().get(6)).isEqualTo(result);
        assertThat(store.getMessages("s")).contains(result);
    }

    @Test
    void should_replace_images_outside_newest_messages_when_image_rule_is_on() {
        // given
        ViewRules images = new ViewRules(null, 0, 2, SummaryMessage.Placement.SYSTEM_MESSAGE);
        ImageContent image = ImageContent.from("https://example.com/cat.png");
        UserMessage withImage = UserMessage.from(TextContent.from("look"), image);
        List<Entry> log = log(withImage, AiMessage.from("a cat"), withImage, AiMessage.from("the same cat"));

        // when
        View view = images.render(SessionState.EMPTY, log, ViewLimit.none());

        // then
        assertThat(view.messages().get(0))
                .isEqualTo(UserMessage.from(TextContent.from("look"), TextContent.from(CostRules.IMAGE_NOTE)));
        assertThat(view.messages().get(2)).isEqualTo(withImage);
    }

    @Test
    void should_count_pinned_messages_and_reply_priming_when_view_has_no_turns() {
        // when
        View view = rules.render(stateWith(SYSTEM), List.of(), ViewLimit.tokens(1_000));

        // then
        assertThat(view.messages()).containsExactly(SYSTEM);
        assertThat(view.size()).isEqualTo(Tokenizers.o200k().estimateTokenCountInMessages(List.of(SYSTEM)));
        assertThat(view.firstIndex()).isEqualTo(-1);
    }

    @Test
    void should_extend_view_exactly_like_a_fresh_render_when_plain_messages_are_appended() {
        // given
        List<Entry> first = counted(List.of(UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1")));
        SessionState state = stateWith(SYSTEM);
        for (ViewLimit limit : List.of(ViewLimit.messages(4), ViewLimit.turns(2), ViewLimit.tokens(40), ViewLimit.none())) {
            View previous = rules.render(state, first, limit);
            List<Entry> appended = counted(List.of(AiMessage.from("a1"), UserMessage.from("q2"), AiMessage.from("a2")));
            List<Entry> all = new ArrayList<>(first);
            all.addAll(appended);

            // when
            View extended = rules.extend(previous, state, appended, limit, null).orElseThrow();

            // then
            View fresh = rules.render(state, all, limit);
            assertThat(extended.messages()).as(limit.toString()).isEqualTo(fresh.messages());
            assertThat(extended.size()).isEqualTo(fresh.size());
            assertThat(extended.firstIndex()).isEqualTo(fresh.firstIndex());
            assertThat(extended.lastIndex()).isEqualTo(appended.get(2).index());
            first = all;
        }
    }

    @Test
    void should_keep_every_extended_view_unchanged_when_views_are_extended_again_in_any_order() {
        // given: a view, extended along two different logs, and one of them a hundred times more
        SessionState state = stateWith(SYSTEM);
        for (ViewLimit limit : List.of(ViewLimit.messages(5), ViewLimit.turns(3), ViewLimit.tokens(60), ViewLimit.none())) {
            List<Entry> base = entries(0, UserMessage.from("q0"), AiMessage.from("a0"), UserMessage.from("q1"));
            View previous = rules.render(state, base, limit);
            List<Entry> logA = new ArrayList<>(base);
            List<Entry> logB = new ArrayList<>(base);
            List<Entry> appendedA = entries(3, AiMessage.from("a1"), UserMessage.from("q2"));
            List<Entry> appendedB = entries(3, AiMessage.from("b1"), UserMessage.from("r2"), AiMessage.from("b2"));
            logA.addAll(appendedA);
            logB.addAll(appendedB);

            // when
            View a = rules.extend(previous, state, appendedA, limit, null).orElseThrow();
            View b = rules.extend(previous, state, appendedB, limit, null).orElseThrow();
            List<List<ChatMessage>> seen = new ArrayList<>();
            List<View> views = new ArrayList<>();
            View next = a;
            for (int i = 0; i < 100; i++) {
                List<Entry> appended = entries(logA.size(), AiMessage.from("a" + (i + 2)), UserMessage.from("q" + (i + 3)));
                logA.addAll(appended);
                next = rules.extend(next, state, appended, limit, null).orElseThrow();
                assertThat(next.messages()).as(limit + " after " + i).isEqualTo(rules.render(state, logA, limit).messages());
                views.add(next);
                seen.add(new ArrayList<>(next.messages()));
            }

            // then
            assertThat(previous.messages()).isEqualTo(rules.render(state, base, limit).messages());
            assertThat(a.messages()).isEqualTo(rules.render(state, logA.subList(0, 5), limit).messages());
            assertThat(b.messages()).isEqualTo(rules.render(state, logB, limit).messages());
            assertThat(b.size()).isEqualTo(rules.render(state, logB, limit).size());
            for (int i = 0; i < views.size(); i++) {
                assertThat(views.get(i).messages()).isEqualTo(seen.get(i));
            }
        }
    }

    @Test
    void should_refuse_to_extend_when_a_tool_call_or_a_new_state_or_a_call_in_flight_is_involved() {
        // given
        List<Entry> log = log(UserMessage.from("q0"));
        View previous = rules.render(SessionState.EMPTY, log, ViewLimit.messages(10));
        List<Entry> callRunning = new ArrayList<>(log);
        callRunning.addAll(log(AiMessage.from(CALL_1)));
        View inFlight = rules.render(SessionState.EMPTY, callRunning, ViewLimit.messages(10));

        // then
        assertThat(rules.extend(previous, SessionState.EMPTY, log(AiMessage.from(CALL_2)), ViewLimit.messages(10), null))
                .isEmpty();
        assertThat(rules.extend(previous, stateWith(SYSTEM), log(AiMessage.from("a")), ViewLimit.messages(10), null))
                .isEmpty();
        assertThat(rules.extend(previous, SessionState.EMPTY, log(AiMessage.from("a")), ViewLimit.messages(9), null))
                .isEmpty();
        assertThat(inFlight.turns()).isEqualTo(1);
        assertThat(inFlight.extendable()).isFalse();
    }

    private static SessionState stateWith(SystemMessage system) {
        return new SessionState(1, system, null, Map.of());
    }

    private List<Entry> log(ChatMessage... messages) {
        List<NewEntry> entries = new ArrayList<>();
        for (ChatMessage message : messages) {
            entries.add(NewEntry.of(message));
        }
        return store.append("s", entries);
    }

    /** Entries from {@code firstIndex} on with token counts, built directly: two logs may share a prefix. */
    private static List<Entry> entries(int firstIndex, ChatMessage... messages) {
        List<Entry> entries = new ArrayList<>();
        for (ChatMessage message : messages) {
            int index = firstIndex + entries.size();
            entries.add(new Entry(index, "e" + index + "-" + message.hashCode(), Instant.EPOCH,
                    Tokenizers.o200k().estimateTokenCountInMessage(message), message, null, null));
        }
        return entries;
    }

    private List<Entry> counted(List<ChatMessage> messages) {
        List<NewEntry> entries = new ArrayList<>();
        for (ChatMessage message : messages) {
            entries.add(NewEntry.of(message, Tokenizers.o200k().estimateTokenCountInMessage(message)));
        }
        return store.append("s", entries);
    }

    private static ToolExecutionRequest call(String id, String name) {
        return ToolExecutionRequest.builder().id(id).name(name).arguments("{}").build();
    }
}
