package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random operation sequences (user, AI, tool calls, tool results in any order or never, orphan
 * results, system prompt changes) through a window of a random kind and size; after every
 * operation the view must keep every rule and the store must still hold every message.
 */
class WindowPropertiesTest {

    private static final List<SystemMessage> PROMPTS = List.of(SystemMessage.from("Be brief."),
            SystemMessage.from("Be thorough."), SystemMessage.from("Answer in French."));

    /**
     * A sample the property once failed on: a token window leaves room for the next question,
     * estimated from the last questions of the log; retention trimmed the longest of them, so the
     * trimmed session estimated less room and showed an older turn than the untrimmed one. The third:
     * retention trimmed after a view that left no room (the caller's own turn was running), and the
     * next new request's view estimated from the questions it had trimmed.
     */
    @Example
    void should_keep_what_the_question_room_was_estimated_from_when_retention_trims() {
        should_keep_every_view_rule_when_operations_are_random(List.of(0, 0, 0, 0, 5, 90, 0, 0, 8, 212),
                MemoryListener.Overflow.Unit.TOKENS, 2, false);
        should_keep_every_view_rule_when_operations_are_random(
                List.of(18, 2, 2, 2, 2, 0, 0, 2, 2, 2, 3, 20, 87, 188, 38, 446), MemoryListener.Overflow.Unit.TOKENS, 8,
                false);
        should_keep_every_view_rule_when_operations_are_random(List.of(0, 0, 66, 3, 0, 0, 4, 4, 71, 14),
                MemoryListener.Overflow.Unit.TOKENS, 1, false);
    }

    @Property(tries = 200)
    void should_keep_every_view_rule_when_operations_are_random(
            @ForAll @Size(max = 50) List<@IntRange(min = 0, max = 599) Integer> ops,
            @ForAll MemoryListener.Overflow.Unit unit, @ForAll @IntRange(min = 1, max = 12) int size,
            @ForAll boolean chunked) {
        // given: a sliding window, or one that evicts in chunks (drops to 60% once it would pass the limit)
        int limit = unit == MemoryListener.Overflow.Unit.TOKENS ? 30 + size * 25 : size;
        ViewLimit viewLimit = chunked ? ViewLimit.of(unit, limit).chunked((int) Math.floor(limit * 0.6))
                : ViewLimit.of(unit, limit);
        InMemorySessionStore store = InMemorySessionStore.create();
        InMemorySessionStore trimmedStore = InMemorySessionStore.create();
        List<MemoryListener.Overflow> overflows = new ArrayList<>();
        MemoryStrategy window = TestStrategies.window(unit, limit, chunked);
        ChatMemory memory = MemoryOptions.builder().chatMemoryStore(store)
                .listener(MemoryListener.onOverflow(overflows::add)).build().memory(window, "s");
        ChatMemory trimmed = MemoryOptions.builder()
                .chatMemoryStore(trimmedStore).retention(Retention.keepLast(1)).listener(MemoryListener.NONE).build()
                .memory(window, "s");
        ChatMemory other = MemoryOptions.builder().chatMemoryStore(store)
                .listener(MemoryListener.NONE).build().memory(window, "s");
        Model model = new Model();

        for (int op : ops) {
            // when: another instance (another request, another process) writes some of the messages,
            // and some turns add several messages before the next read
            ChatMessage message = model.next(op);
            int param = op / 6;
            (param % 2 == 0 ? memory : other).add(message);
            trimmed.add(message);
            if (param % 3 == 0) {
                continue;
            }
            overflows.clear();
            List<ChatMessage> view = memory.messages();

            // then
            List<ChatMessage> fresh = freshRender(store, viewLimit, model);
            assertThat(view).as("an extended view equals a fresh render of the whole log").isEqualTo(fresh);
            assertThat(other.messages()).isEqualTo(fresh);
            assertRules(view, model, unit, limit, overflows, true);
            if (!chunked) { // a chunked window's start depends on when it was read, so two stores' windows can differ
                assertTrimmedViewIsSuffix(trimmed.messages(), view, model.system != null);
            } else {
                assertRules(trimmed.messages(), model, unit, limit, new ArrayList<>(), false);
            }
            assertThat(store.read("s", 0, Integer.MAX_VALUE)).extracting(Entry::message).as("eviction never deletes")
                    .isEqualTo(model.log);
        }
    }

    /**
     * A bounded retention trims only below what the view shows, but a later view can reach further
     * back (a late tool result or a shorter system message makes an old turn fit again): then the
     * trimmed memory shows fewer old turns. It never shows anything else, and never loses the
     * newest turn.
     */
    private static void assertTrimmedViewIsSuffix(List<ChatMessage> trimmed, List<ChatMessage> full, boolean system) {
        int pinned = system ? 1 : 0;
        assertThat(trimmed.subList(0, pinned)).isEqualTo(full.subList(0, pinned));
        List<ChatMessage> fullConversation = full.subList(pinned, full.size());
        List<ChatMessage> trimmedConversation = trimmed.subList(pinned, trimmed.size());
        assertThat(trimmedConversation.size()).isLessThanOrEqualTo(fullConversation.size());
        assertThat(trimmedConversation).as("a bounded retention only shortens the view from the old end")
                .isEqualTo(fullConversation.subList(fullConversation.size() - trimmedConversation.size(),
                        fullConversation.size()));
        if (!fullConversation.isEmpty()) {
            assertThat(trimmedConversation).isNotEmpty();
        }
    }

    private static void assertRules(List<ChatMessage> view, Model model, MemoryListener.Overflow.Unit unit, int limit,
                                    List<MemoryListener.Overflow> overflows, boolean checkOverflowReports) {
        int start = 0;
        if (model.system != null) {
            assertThat(view.get(0)).as("system first").isEqualTo(model.system);
            start = 1;
        }
        List<ChatMessage> conversation = view.subList(start, view.size());
        assertThat(conversation).as("no other system message").noneMatch(m -> m instanceof SystemMessage);
        if (!conversation.isEmpty()) {
            if (!(conversation.get(0) instanceof UserMessage)) {
                // only the greeting before the first user message may come first, and only from the log's start
                assertThat(model.beforeFirstUser(conversation.get(0))).as("only a greeting may precede a user message").isTrue();
            }
        }
        if (model.lastUser != null) {
            assertThat(conversation).as("newest turn kept").contains(model.lastUser);
        }
        assertThat(new HashSet<>(view)).as("no message twice").hasSize(view.size());
        assertToolBlocks(conversation);
        assertLogOrder(conversation, model.log);

        int measured;
        switch (unit) {
            case MESSAGES:
                measured = view.size();
                break;
            case TURNS:
                measured = (int) conversation.stream().filter(m -> m instanceof UserMessage).count();
                break;
            default:
                measured = Tokenizers.o200k().estimateTokenCountInMessages(view);
                break;
        }
        if (measured > limit) {
            if (checkOverflowReports) {
                assertThat(overflows).as("overflow reported")
                        .containsExactly(new MemoryListener.Overflow("s", unit, limit, measured));
            }
            // over the limit only with what can never be cut: the newest turn and open turns (requests in progress)
            List<List<ChatMessage>> turns = turnsOf(conversation);
            for (List<ChatMessage> turn : turns.subList(0, turns.size() - 1)) {
                assertThat(model.closed(turn.get(0))).as("only open turns besides the newest when over: %s", turn)
                        .isFalse();
            }
        } else if (checkOverflowReports) {
            assertThat(overflows).isEmpty();
        }
    }

    /** The view's turns: each user message with what follows it up to the next one. */
    private static List<List<ChatMessage>> turnsOf(List<ChatMessage> conversation) {
        List<List<ChatMessage>> turns = new ArrayList<>();
        for (ChatMessage message : conversation) {
            if (message instanceof UserMessage || turns.isEmpty()) {
                turns.add(new ArrayList<>());
            }
            turns.get(turns.size() - 1).add(message);
        }
        return turns;
    }

    /** Every AI message with tool requests is followed by exactly its results, and results appear nowhere else. */
    private static void assertToolBlocks(List<ChatMessage> conversation) {
        int i = 0;
        while (i < conversation.size()) {
            ChatMessage message = conversation.get(i);
            assertThat(message).as("result outside its block").isNotInstanceOf(ToolExecutionResultMessage.class);
            i++;
            if (message instanceof AiMessage && ((AiMessage) message).hasToolExecutionRequests()) {
                Set<String> requested = new HashSet<>();
                ((AiMessage) message).toolExecutionRequests().forEach(r -> requested.add(r.id()));
                Set<String> answered = new HashSet<>();
                while (i < conversation.size() && conversation.get(i) instanceof ToolExecutionResultMessage) {
                    assertThat(answered.add(((ToolExecutionResultMessage) conversation.get(i)).id())).isTrue();
                    i++;
                }
                assertThat(answered).as("exactly its results").isEqualTo(requested);
            }
        }
    }

    /** Messages other than tool results (which move next to their request) keep their log order. */
    private static void assertLogOrder(List<ChatMessage> conversation, List<ChatMessage> log) {
        int at = -1;
        for (ChatMessage message : conversation) {
            if (message instanceof ToolExecutionResultMessage) {
                continue;
            }
            int index = log.indexOf(message);
            assertThat(index).as("log order").isGreaterThan(at);
            at = index;
        }
    }

    /**
     * The view a fresh render of the whole log gives, as the memory computes it for its caller (this
     * thread, whose newest turn is its own): when that turn has its answer (a new request may read
     * next), a token window leaves room for the next question.
     */
    private static List<ChatMessage> freshRender(InMemorySessionStore store, ViewLimit limit, Model model) {
        List<Entry> log = store.read("s", 0, Integer.MAX_VALUE);
        java.time.Instant now = log.isEmpty() ? java.time.Instant.EPOCH : log.get(log.size() - 1).timestamp();
        boolean newRequest = model.lastUser == null || model.closed(model.lastUser);
        String ownTurn = null;
        for (Entry entry : log) {
            if (entry.message() instanceof UserMessage) {
                ownTurn = newRequest ? null : EntryTags.turn(entry); // the thread's newest turn is its own
            }
        }
        Dialogue.Context context = new Dialogue.Context(now, MemoryOptions.DEFAULT_OPEN_TURN_TIMEOUT, null, null,
                ownTurn, true, newRequest, -1, null);
        return ViewRules.defaults().render(store.state("s"), log, true, limit, context).messages();
    }

    /** Turns random numbers into a plausible, sometimes broken, conversation; remembers what was stored. */
    private static final class Model {
        final List<ChatMessage> log = new ArrayList<>();
        final List<ToolExecutionRequest> pending = new ArrayList<>();
        SystemMessage system;
        UserMessage lastUser;
        int counter;

        /** True if the turn of this user message ends, in the log, with an AI message without tool calls. */
        boolean closed(ChatMessage user) {
            int at = log.indexOf(user);
            ChatMessage last = null;
            for (int i = at + 1; i < log.size() && !(log.get(i) instanceof UserMessage); i++) {
                ChatMessage m = log.get(i);
                if (!(m instanceof ToolExecutionResultMessage) && !(m instanceof SystemMessage)) {
                    last = m;
                }
            }
            return last instanceof AiMessage && !((AiMessage) last).hasToolExecutionRequests();
        }

        boolean beforeFirstUser(ChatMessage message) {
            for (ChatMessage m : log) {
                if (m instanceof UserMessage) {
                    return false;
                }
                if (m.equals(message)) {
                    return true;
                }
            }
            return false;
        }

        ChatMessage next(int op) {
            int kind = op % 6;
            int param = op / 6;
            counter++;
            ChatMessage message;
            switch (kind) {
                case 0:
                case 1:
                    lastUser = UserMessage.from("user " + counter + " " + "word ".repeat(param % 20));
                    message = lastUser;
                    break;
                case 2:
                    message = AiMessage.from("ai " + counter + " " + "word ".repeat(param % 20));
                    break;
                case 3: {
                    List<ToolExecutionRequest> requests = new ArrayList<>();
                    for (int r = 0; r <= param % 3; r++) {
                        ToolExecutionRequest request = ToolExecutionRequest.builder().id("t" + counter + "-" + r)
                                .name("tool").arguments("{\"n\":" + r + "}").build();
                        requests.add(request);
                        pending.add(request);
                    }
                    message = AiMessage.from(requests);
                    break;
                }
                case 4:
                    if (pending.isEmpty() || param % 7 == 0) {
                        message = ToolExecutionResultMessage.from("orphan" + counter, "tool", "lost " + counter);
                    } else {
                        ToolExecutionRequest request = pending.remove(param % pending.size());
                        message = ToolExecutionResultMessage.from(request, "result " + counter);
                    }
                    break;
                default: {
                    SystemMessage prompt = PROMPTS.get(param % PROMPTS.size());
                    if (!prompt.equals(system)) {
                        log.add(prompt);
                    }
                    system = prompt;
                    return prompt;
                }
            }
            log.add(message);
            return message;
        }
    }

    static {
        // the properties rely on the documented interrupted-call text being distinct from any generated text
        assertThat(Dialogue.INTERRUPTED_TOOL_RESULT).doesNotContain("result ");
    }
}
