package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

class ConversationsTest {

    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private final InMemorySessionStore store = InMemorySessionStore.create(Clock.fixed(T0, ZoneOffset.UTC));

    private void givenConversation(String session) {
        store.append(session, List.of(
                NewEntry.of(UserMessage.from("I live in Lisbon"), 5, Map.of("category", "input")),
                NewEntry.of(AiMessage.from(ToolExecutionRequest.builder().id("c1").name("weather")
                        .arguments("{\"city\":\"Lisbon\"}").build()), 9, Map.of("agent", "planner")),
                NewEntry.of(ToolExecutionResultMessage.from("c1", "weather", "sunny"), 4),
                NewEntry.of(AiMessage.from("It is sunny in Lisbon"), 7, Map.of("category", "output")),
                NewEntry.of(UserMessage.from("And tomorrow?")),
                NewEntry.of(AiMessage.from("Rain"), 3)));
        SessionState state = new SessionState(0, SystemMessage.from("Be brief"),
                new Summary("User lives in Lisbon", 2, 6, T0), Map.of("strategy", "window"));
        store.compareAndSetState(session, 0, state);
    }

    private static List<ChatMessage> messages(List<Entry> entries) {
        return entries.stream().map(Entry::message).toList();
    }

    @ParameterizedTest
    @EnumSource(Conversations.Format.class)
    void should_round_trip_messages_metadata_and_state_when_exported_and_imported(Conversations.Format format) {
        // given
        givenConversation("src");
        store.trim("src", 1);
        // when
        String document = Conversations.export(store, "src", format);
        List<Entry> imported = Conversations.importSession(store, "copy", document, format, Conversations.ImportMode.NEW_SESSION_ONLY);
        // then
        List<Entry> source = store.read("src", 0, 100);
        assertThat(messages(imported)).isEqualTo(messages(source));
        assertThat(imported).extracting(Entry::metadata).isEqualTo(source.stream().map(Entry::metadata).toList());
        assertThat(imported).extracting(Entry::tokenCount).containsExactly(9, 4, 7, -1, 3);
        assertThat(imported).extracting(Entry::index).containsExactly(0L, 1L, 2L, 3L, 4L);
        SessionState state = store.state("copy");
        assertThat(state.systemMessage()).contains(SystemMessage.from("Be brief"));
        assertThat(state.attributes()).containsEntry("strategy", "window");
        // the summary covered source indices < 2, i.e. the first imported entry (index 1 in the source)
        assertThat(state.summary().orElseThrow().coveredUntil()).isEqualTo(1);
        assertThat(document).contains(format == Conversations.Format.YAML ? "format: \"memory-pack-session\"" : "\"format\" : \"memory-pack-session\"");
    }

    @Test
    void should_refuse_then_replace_when_import_target_exists_and_replacement_is_confirmed() {
        // given
        givenConversation("src");
        store.append("target", List.of(NewEntry.of(UserMessage.from("old"))));
        String document = Conversations.export(store, "src", Conversations.Format.JSON);
        // when / then
        assertThatThrownBy(() -> Conversations.importSession(store, "target", document, Conversations.Format.JSON,
                Conversations.ImportMode.NEW_SESSION_ONLY)).isInstanceOf(IllegalStateException.class).hasMessageContaining("REPLACE_EXISTING");
        assertThat(messages(store.read("target", 0, 10))).containsExactly(UserMessage.from("old"));

        List<Entry> replaced = Conversations.importSession(store, "target", document, Conversations.Format.JSON,
                Conversations.ImportMode.REPLACE_EXISTING);
        assertThat(messages(replaced)).isEqualTo(messages(store.read("src", 0, 100)));
        assertThat(replaced.get(0).index()).isEqualTo(1); // indices continue: never reused
        assertThat(messages(store.read("target", 0, 100))).isEqualTo(messages(replaced));
    }

    @Test
    void should_reject_document_when_it_is_not_an_export() {
        assertThatThrownBy(() -> Conversations.importSession(store, "x", "{\"format\":\"other\"}", Conversations.Format.JSON,
                Conversations.ImportMode.NEW_SESSION_ONLY)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Conversations.importSession(store, "x", "a: [", Conversations.Format.YAML,
                Conversations.ImportMode.NEW_SESSION_ONLY)).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.sessions()).isEmpty();
    }

    @Test
    void should_copy_first_turns_and_leave_source_untouched_when_forked_at_a_turn() {
        // given
        givenConversation("main");
        List<Entry> before = store.read("main", 0, 100);
        SessionState stateBefore = store.state("main");
        // when
        List<Entry> fork = Conversations.forkAtTurn(store, "main", 1, "branch");
        store.append("branch", List.of(NewEntry.of(UserMessage.from("What about Porto?"))));
        // then
        assertThat(messages(fork)).isEqualTo(messages(before.subList(0, 4)));
        assertThat(store.read("main", 0, 100)).isEqualTo(before);
        assertThat(store.state("main")).isEqualTo(stateBefore);
        assertThat(store.state("branch").summary()).isPresent();
        assertThat(store.read("branch", 0, 100)).hasSize(5);
        assertThatThrownBy(() -> Conversations.forkAtTurn(store, "main", 1, "branch"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void should_drop_summary_when_fork_point_is_inside_the_summarized_range() {
        givenConversation("main");
        Conversations.forkAtTurn(store, "main", 0, "empty-branch");
        assertThat(store.read("empty-branch", 0, 10)).isEmpty();
        assertThat(store.state("empty-branch").summary()).isEmpty();
        assertThat(store.state("empty-branch").systemMessage()).contains(SystemMessage.from("Be brief"));
    }

    @Test
    void should_find_every_match_ignoring_case_when_searching_the_full_log() {
        givenConversation("s");
        List<Entry> found = Conversations.search(store, "s", "LISBON");
        assertThat(found).extracting(Entry::index).containsExactly(0L, 1L, 3L);
        assertThat(Conversations.search(store, "s", "sunny")).extracting(Entry::index).containsExactly(2L, 3L);
    }

    @Test
    void should_count_messages_and_tokens_by_role_when_counts_are_stored_or_estimated() {
        givenConversation("s");
        Map<ChatMessageType, Conversations.RoleCount> stored = Conversations.countByRole(store, "s");
        assertThat(stored.get(ChatMessageType.USER)).isEqualTo(new Conversations.RoleCount(2, 5, 1));
        assertThat(stored.get(ChatMessageType.AI)).isEqualTo(new Conversations.RoleCount(3, 19, 0));
        assertThat(stored.get(ChatMessageType.TOOL_EXECUTION_RESULT)).isEqualTo(new Conversations.RoleCount(1, 4, 0));

        Map<ChatMessageType, Conversations.RoleCount> estimated = Conversations.countByRole(store, "s", Tokenizers.o200k());
        long expected = 5 + Tokenizers.o200k().estimateTokenCountInMessage(UserMessage.from("And tomorrow?"));
        assertThat(estimated.get(ChatMessageType.USER)).isEqualTo(new Conversations.RoleCount(2, expected, 0));
    }

    @Test
    void should_render_timestamp_role_and_content_when_history_is_requested_as_text() {
        givenConversation("s");
        String text = Conversations.historyAsText(store, "s");
        assertThat(text.split("\n")).startsWith(
                "[2026-11-29T10:00:00Z] User: I live in Lisbon",
                "[2026-11-29T10:00:00Z] Assistant: [tool call weather({\"city\":\"Lisbon\"})]",
                "[2026-11-29T10:00:00Z] Tool: [weather] sunny");
        assertThat(text).endsWith("[2026-11-29T10:00:00Z] Assistant: Rain");
    }

    @Test
    void should_give_the_conversation_every_memory_shows_when_log_holds_clear_set_and_retries() {
        // given: a turn, clear(), a retried request, and a set() that replaces the last answer
        ChatMemory memory = MemoryOptions.builder().chatMemoryStore(store).build().memory(TestStrategies.BUFFER, "s");
        memory.add(UserMessage.from("forgotten"));
        memory.add(AiMessage.from("gone"));
        memory.clear();
        memory.add(SystemMessage.from("Be brief"));
        RequestScope.run("r1", () -> memory.add(UserMessage.from("first try")));
        RequestScope.run("r1", () -> {
            memory.add(UserMessage.from("first try"));
            memory.add(AiMessage.from("draft"));
        });
        memory.set(List.of(SystemMessage.from("Be brief"), UserMessage.from("first try"), AiMessage.from("final")));

        // when
        List<Entry> current = Conversations.current(store, "s");

        // then
        assertThat(messages(current)).containsExactly(SystemMessage.from("Be brief"), UserMessage.from("first try"),
                AiMessage.from("final"));
        assertThat(messages(current)).isNotEqualTo(messages(store.read("s", 0, 100)));
        assertThat(Conversations.search(store, "s", "forgotten")).hasSize(1); // the log keeps it
    }
}
