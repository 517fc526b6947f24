package io.github.memorypack.integration;

import static io.github.memorypack.integration.WindowCases.writes;
import static io.github.memorypack.integration.PathAssertions.assertKept;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

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
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.Conversations;
import io.github.memorypack.integration.CountingSessionStore.Operation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The {@link ChatMemory} contract as LangChain4j 1.19 states it and as DESIGN.md "Round trips" and
 * "Open turns" sharpen it, for every strategy, called directly (the way LangChain4j's paths call
 * it): {@code set(null)} and {@code set(empty)} fail with {@link IllegalArgumentException} as the
 * interface's Javadoc and default implementation say (LangChain4j's own windows throw
 * {@link NullPointerException} for null and accept an empty list: see the report); several messages
 * added together are one atomic append; {@code set} changes only what the view shows, atomically
 * with the state, and writes nothing when nothing changed; {@code clear()} starts over in every
 * view but keeps the earlier log under keep-all retention; an assistant greeting before the first
 * user message is shown by every view that reaches the start of the log.
 */
class ChatMemoryContractTest {

    private static final String SESSION = "contract-1";
    private static final ToolExecutionRequest STOCK = ToolExecutionRequest.builder().id("call_1").name("stock")
            .arguments("{\"item\":\"tea\"}").build();

    private final CountingSessionStore store = CountingSessionStore.of(InMemorySessionStore.create());

    private ChatMemory memory(Strategy strategy) {
        return strategy.provider(store).get(SESSION);
    }

    /** A short conversation with a tool turn; the summary strategies fold some of it. */
    private static void converse(ChatMemory memory) {
        memory.add(SystemMessage.from(Shop.SYSTEM));
        memory.add(UserMessage.from(Shop.ASK_TEA));
        memory.add(AiMessage.from(STOCK));
        memory.add(ToolExecutionResultMessage.from(STOCK, "tea: 12 packs"));
        memory.add(AiMessage.from("Yes, 12 packs of tea."));
        memory.add(UserMessage.from(Shop.INTRODUCE));
        memory.add(AiMessage.from("Nice to meet you, Bo from Porto."));
        memory.add(UserMessage.from("Which green tea do you recommend for the evening?"));
        memory.add(AiMessage.from("Try a Japanese hojicha: it is roasted and low in caffeine."));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_throw_illegal_argument_and_write_nothing_when_set_gets_null(Strategy strategy) {
        // given
        ChatMemory memory = memory(strategy);
        converse(memory);
        store.reset();

        // when / then
        assertThatThrownBy(() -> memory.set((Iterable<ChatMessage>) null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> memory.set((ChatMessage[]) null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(writes(store)).as("store writes").isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_throw_illegal_argument_and_write_nothing_when_set_gets_no_message(Strategy strategy) {
        // given
        ChatMemory memory = memory(strategy);
        converse(memory);
        List<ChatMessage> before = memory.messages();
        store.reset();

        // when / then
        assertThatThrownBy(() -> memory.set(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> memory.set()).isInstanceOf(IllegalArgumentException.class);
        assertThat(writes(store)).as("store writes").isZero();
        assertThat(memory.messages()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_append_once_when_several_messages_are_added_together(Strategy strategy) {
        // given
        ChatMemory memory = memory(strategy);
        List<ChatMessage> turn = List.of(UserMessage.from(Shop.ASK_TEA), AiMessage.from(STOCK),
                ToolExecutionResultMessage.from(STOCK, "tea: 12 packs"), AiMessage.from("Yes, 12 packs of tea."));

        // when
        memory.add(turn);

        // then
        assertThat(store.count(Operation.APPEND)).as("appends of add(Iterable)").isOne();
        if (!strategy.foldsNewestTurn()) {
            assertThat(memory.messages()).containsExactlyElementsOf(turn);
        }

        // and when
        store.reset();
        memory.add(UserMessage.from(Shop.INTRODUCE), AiMessage.from("Nice to meet you."));

        // then
        assertThat(store.count(Operation.APPEND)).as("appends of add(ChatMessage...)").isOne();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_do_nothing_when_add_gets_null_or_no_message(Strategy strategy) {
        // given
        ChatMemory memory = memory(strategy);

        // when
        memory.add((Iterable<ChatMessage>) null);
        memory.add((ChatMessage[]) null);
        memory.add();
        memory.add(List.of());

        // then
        assertThat(writes(store)).as("store writes").isZero();
        assertThat(memory.messages()).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_write_nothing_and_keep_the_state_when_set_gets_the_unchanged_view(Strategy strategy) {
        // given: what tool compensation does when nothing needs rolling back
        ChatMemory memory = memory(strategy);
        converse(memory);
        SessionState state = store.state(SESSION);
        List<ChatMessage> view = memory.messages();
        store.reset();

        // when
        memory.set(view);

        // then
        assertThat(writes(store)).as("store writes").isZero();
        assertThat(store.state(SESSION)).isEqualTo(state);
        assertThat(memory.messages()).isEqualTo(view);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, mode = EnumSource.Mode.EXCLUDE, names = "SUMMARY") // it shows no closed turn verbatim
    void should_keep_what_the_view_does_not_show_and_the_state_when_set_replaces_the_newest_answer(Strategy strategy) {
        // given
        ChatMemory memory = memory(strategy);
        converse(memory);
        memory.add(UserMessage.from("One more question: do you sell cups?"));
        memory.add(AiMessage.from("No cups, sorry."));
        List<Entry> before = PathAssertions.log(store, SESSION);
        SessionState state = store.state(SESSION);
        List<ChatMessage> view = new ArrayList<>(memory.messages());
        int last = view.size() - 1;
        assertThat(view.get(last)).as("precondition: the view ends with the newest answer")
                .isEqualTo(AiMessage.from("No cups, sorry."));
        view.set(last, AiMessage.from("Yes: cups come in three sizes."));

        // when
        memory.set(view);

        // then
        List<Entry> after = PathAssertions.log(store, SESSION);
        assertKept(before, after, entry -> entry.message().equals(AiMessage.from("No cups, sorry.")));
        assertThat(store.state(SESSION).systemMessage()).isEqualTo(state.systemMessage());
        assertThat(store.state(SESSION).summary()).isEqualTo(state.summary());
        assertThat(memory.messages()).isEqualTo(view);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_change_messages_and_system_message_together_or_not_at_all_when_a_store_write_fails(Strategy strategy) {
        // given
        FlakyStore flaky = new FlakyStore(InMemorySessionStore.create());
        ChatMemoryProvider memories = strategy.provider(flaky);
        ChatMemory memory = memories.get(SESSION);
        memory.add(SystemMessage.from("You are a tea shop assistant."));
        memory.add(UserMessage.from("Hi"));
        memory.add(AiMessage.from("Hello!"));
        List<ChatMessage> before = memory.messages();
        List<ChatMessage> replacement = List.of(SystemMessage.from("You are a coffee shop assistant."),
                UserMessage.from("Hi"), AiMessage.from("Hello! Coffee?"));

        // when: the second store write of set() fails
        flaky.failWrite(2);
        Throwable failure = catchThrowable(() -> memory.set(replacement));

        // then: the memory shows the old conversation or the new one, never a mix
        List<ChatMessage> now = memories.get(SESSION).messages();
        if (failure == null) {
            assertThat(now).as("set() succeeded: the new conversation").isEqualTo(replacement);
        } else {
            assertThat(now).as("set() failed (%s): the old conversation", failure.getMessage()).isEqualTo(before);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_throw_and_leave_view_and_state_as_they_were_when_set_cannot_write_the_state(Strategy strategy) {
        // given: a conversation, then a store whose state writes fail
        FlakyStore flaky = new FlakyStore(InMemorySessionStore.create());
        ChatMemoryProvider memories = strategy.provider(flaky);
        ChatMemory memory = memories.get(SESSION);
        converse(memory);
        List<ChatMessage> view = memory.messages();
        SessionState state = flaky.state(SESSION);
        List<ChatMessage> conversation = flaky.getMessages(SESSION);
        flaky.failStateWrites();
        List<ChatMessage> replacement = List.of(SystemMessage.from("You are a coffee shop assistant."),
                UserMessage.from("Hi"), AiMessage.from("Hello! Coffee?"));

        // when
        Throwable failure = catchThrowable(() -> memory.set(replacement));

        // then: a typed failure, and nothing changed for any reader
        assertThat(failure).isInstanceOf(StoreException.class);
        assertThat(memory.messages()).as("the view").isEqualTo(view);
        assertThat(memories.get(SESSION).messages()).as("a new memory's view").isEqualTo(view);
        assertThat(flaky.state(SESSION)).as("the state").isEqualTo(state);
        assertThat(flaky.getMessages(SESSION)).as("the conversation").isEqualTo(conversation);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_throw_and_leave_view_and_state_as_they_were_when_clear_cannot_write_the_state(Strategy strategy) {
        // given: a conversation, then a store whose next state write fails (the clear record's append goes through)
        FlakyStore flaky = new FlakyStore(InMemorySessionStore.create());
        ChatMemoryProvider memories = strategy.provider(flaky);
        ChatMemory memory = memories.get(SESSION);
        converse(memory);
        List<ChatMessage> view = memory.messages();
        SessionState state = flaky.state(SESSION);
        List<ChatMessage> conversation = flaky.getMessages(SESSION);
        flaky.failWrite(2);

        // when
        Throwable failure = catchThrowable(memory::clear);

        // then: a typed failure, and nothing changed for any reader
        assertThat(failure).isInstanceOf(StoreException.class);
        assertThat(memory.messages()).as("the view").isEqualTo(view);
        assertThat(memories.get(SESSION).messages()).as("a new memory's view").isEqualTo(view);
        assertThat(flaky.state(SESSION)).as("the state").isEqualTo(state);
        assertThat(flaky.getMessages(SESSION)).as("the conversation").isEqualTo(conversation);

        // and the memory stays usable: the next request (AiServices adds the system message every time) sees it
        memory.add(SystemMessage.from(Shop.SYSTEM));
        memory.add(UserMessage.from("Do you sell oolong?"));
        memory.add(AiMessage.from("Yes, two kinds."));
        List<ChatMessage> next = memory.messages();
        assertThat(next.get(0)).as("the system message after the failed clear()").isEqualTo(SystemMessage.from(Shop.SYSTEM));
        assertThat(next.subList(next.size() - 2, next.size()))
                .containsExactly(UserMessage.from("Do you sell oolong?"), AiMessage.from("Yes, two kinds."));
        // and a clear() that can write goes through
        memory.clear();
        memory.add(SystemMessage.from(Shop.SYSTEM));
        memory.add(UserMessage.from("Hello again."));
        assertThat(memories.get(SESSION).messages())
                .containsExactly(SystemMessage.from(Shop.SYSTEM), UserMessage.from("Hello again."));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_show_an_assistant_greeting_before_the_first_user_message_when_the_view_reaches_the_start(
            Strategy strategy) {
        // given: the application greets first, as many chat front ends do
        ChatMemory memory = memory(strategy);
        AiMessage greeting = AiMessage.from("Welcome to the tea shop! How can I help?");
        memory.add(SystemMessage.from(Shop.SYSTEM));
        memory.add(greeting);
        memory.add(UserMessage.from(Shop.ASK_TEA));

        // when
        List<ChatMessage> view = memory.messages();

        // then: as LangChain4j's own memories show it, with the system message pinned first
        assertThat(view).containsExactly(SystemMessage.from(Shop.SYSTEM), greeting, UserMessage.from(Shop.ASK_TEA));
    }

    @Test
    void should_start_at_a_user_message_when_a_window_cut_falls_after_the_greeting() {
        // given
        ChatMemory memory = memory(Strategy.WINDOW_MESSAGES);
        memory.add(AiMessage.from("Welcome to the tea shop! How can I help?"));
        converse(memory);

        // when
        List<ChatMessage> view = memory.messages();

        // then: a cut in the middle of the log snaps to a user message
        assertThat(view.get(0)).isEqualTo(SystemMessage.from(Shop.SYSTEM));
        assertThat(view.get(1)).isInstanceOf(UserMessage.class);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Strategy.class)
    void should_keep_the_earlier_log_exportable_but_never_show_it_again_when_cleared(Strategy strategy) {
        // given
        ChatMemory memory = memory(strategy);
        converse(memory);
        List<Entry> before = PathAssertions.log(store, SESSION);

        // when
        memory.clear();

        // then: the conversation starts over in every view, also of a memory built later
        assertThat(memory.messages()).as("view after clear()").isEmpty();
        ChatMemory later = memory(strategy);
        assertThat(later.messages()).as("view of a new memory on the session").isEmpty();
        later.add(UserMessage.from("Hello again."));
        assertThat(later.messages()).containsExactly(UserMessage.from("Hello again."));
        // and, with keep-all retention, the earlier log is archived, not deleted
        assertKept(before, PathAssertions.log(store, SESSION));
        assertThat(Conversations.export(store, SESSION, Conversations.Format.JSON)).as("export")
                .contains(Shop.ASK_TEA, Shop.INTRODUCE);
    }
}
