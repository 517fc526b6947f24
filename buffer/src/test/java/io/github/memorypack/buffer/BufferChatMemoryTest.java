package io.github.memorypack.buffer;

import java.time.Instant;
import io.github.memorypack.testkit.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.RequestScope;
import io.github.memorypack.core.Tokenizers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BufferChatMemoryTest {

    private static final ToolExecutionRequest CALL = ToolExecutionRequest.builder().id("c1").name("search")
            .arguments("{}").build();

    private final InMemorySessionStore store = InMemorySessionStore.create();

    @Test
    void should_show_whole_conversation_with_system_message_first_when_prompt_was_added_late() {
        // given
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).build();
        memory.add(UserMessage.from("q0"));
        memory.add(AiMessage.from("a0"));
        memory.add(SystemMessage.from("sys"));
        memory.add(UserMessage.from("q1"));

        // when
        List<ChatMessage> view = memory.messages();

        // then
        assertThat(view).containsExactly(SystemMessage.from("sys"), UserMessage.from("q0"), AiMessage.from("a0"),
                UserMessage.from("q1"));
    }

    @Test
    void should_show_changed_system_message_only_when_prompt_changes() {
        // given
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).build();
        memory.add(SystemMessage.from("v1"));
        memory.add(UserMessage.from("q0"));

        // when
        memory.add(SystemMessage.from("v2"));

        // then
        assertThat(memory.messages()).containsExactly(SystemMessage.from("v2"), UserMessage.from("q0"));
        assertThat(store.read("s", 0, 10)).extracting(Entry::message).as("the change is in the log")
                .containsExactly(SystemMessage.from("v1"), UserMessage.from("q0"), SystemMessage.from("v2"));
        assertThat(store.getMessages("s")).as("the conversation, as a ChatMemoryStore holds it")
                .containsExactly(SystemMessage.from("v2"), UserMessage.from("q0"));
    }

    @Test
    void should_report_without_cutting_when_view_passes_context_size() {
        // given
        List<MemoryListener.Overflow> reports = new ArrayList<>();
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).contextTokens(20)
                .listener(MemoryListener.onOverflow(reports::add)).build();
        memory.add(UserMessage.from("short"));
        assertThat(memory.messages()).hasSize(1);
        assertThat(reports).isEmpty();

        // when
        memory.add(AiMessage.from("a much longer answer that goes on and on and on about many things"));
        List<ChatMessage> view = memory.messages();

        // then
        assertThat(view).hasSize(2);
        int tokens = Tokenizers.o200k().estimateTokenCountInMessages(view);
        assertThat(reports).containsExactly(new MemoryListener.Overflow("s", MemoryListener.Overflow.Unit.TOKENS, 20, tokens));
    }

    @Test
    void should_store_unknown_token_counts_when_nothing_needs_them() {
        // given
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).build();

        // when
        memory.add(UserMessage.from("hello"));

        // then
        assertThat(store.readLast("s", 1)).extracting(Entry::tokenCount).containsExactly(Entry.UNKNOWN_TOKENS);
    }

    @Test
    void should_repair_interrupted_call_and_drop_orphan_result_when_log_is_broken() {
        // given
        MutableClock clock = MutableClock.at(Instant.now());
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).clock(clock).build();
        memory.add(UserMessage.from("find tea"));
        memory.add(AiMessage.from(CALL));
        memory.add(UserMessage.from("still there?"));
        memory.add(ToolExecutionResultMessage.from("c9", "search", "orphan"));

        // when: the thread that made the call has moved on to a new question: the call will get no result
        List<ChatMessage> view = memory.messages();

        // then
        assertThat(view).containsExactly(UserMessage.from("find tea"), AiMessage.from(CALL),
                ToolExecutionResultMessage.from(CALL, "no result: the tool call was interrupted"), UserMessage.from("still there?"));
    }

    @Test
    void should_preview_large_old_tool_results_when_previews_are_on() {
        // given
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).toolResultPreviews(100).build();
        String page = "lorem ipsum ".repeat(400);
        memory.add(UserMessage.from("search"));
        memory.add(AiMessage.from(CALL));
        memory.add(ToolExecutionResultMessage.from(CALL, page));
        memory.add(AiMessage.from("found it"));
        memory.add(UserMessage.from("thanks"));

        // when
        List<ChatMessage> view = memory.messages();

        // then
        assertThat(((ToolExecutionResultMessage) view.get(2)).text()).contains("shortened to a preview")
                .hasSizeLessThan(600);
        assertThat(store.getMessages("s").get(2)).isEqualTo(ToolExecutionResultMessage.from(CALL, page));
    }

    @Test
    void should_store_turn_once_when_request_is_retried() {
        // given
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).build();

        // when
        for (int attempt = 0; attempt < 3; attempt++) {
            RequestScope.run("req-7", () -> {
                memory.add(UserMessage.from("hi"));
                memory.add(AiMessage.from("hello"));
            });
        }

        // then
        assertThat(memory.messages()).containsExactly(UserMessage.from("hi"), AiMessage.from("hello"));
    }

    @Test
    void should_supersede_the_shown_entries_when_set_and_start_over_keeping_the_log_when_cleared() {
        // given
        BufferChatMemory memory = BufferChatMemory.builder().id("s").chatMemoryStore(store).build();
        memory.add(UserMessage.from("q0"));

        // when
        memory.set(UserMessage.from("q1"), AiMessage.from("a1"));

        // then
        assertThat(memory.messages()).containsExactly(UserMessage.from("q1"), AiMessage.from("a1"));
        memory.clear();
        assertThat(memory.messages()).isEmpty();
        assertThat(store.read("s", 0, 100)).extracting(Entry::message).contains(UserMessage.from("q0"),
                UserMessage.from("q1"), AiMessage.from("a1"));
    }

    @Test
    void should_build_memories_sharing_one_default_store_when_used_as_provider() {
        // given
        ChatMemoryProvider provider = BufferChatMemory.builder().provider();

        // when
        ChatMemory first = provider.get("u1");
        first.add(UserMessage.from("remember me"));
        ChatMemory again = provider.get("u1");

        // then
        assertThat(again.messages()).containsExactly(UserMessage.from("remember me"));
        assertThat(provider.get("u2").messages()).isEmpty();
    }

    @Test
    void should_reject_bad_options_when_building() {
        assertThatThrownBy(() -> BufferChatMemory.builder().contextTokens(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BufferChatMemory.builder().id(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BufferChatMemory.builder().build().set(List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_reject_null_settings_at_the_setter_when_building() {
        BufferChatMemory.Builder builder = BufferChatMemory.builder();
        assertThatThrownBy(() -> builder.chatMemoryStore(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chatMemoryStore");
        assertThatThrownBy(() -> builder.tokenizer(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.listener(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.retention(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.clock(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.tokenAccounting(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
