package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summary;
import io.github.memorypack.testkit.OpenAiTestServer.Request;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** What must hold after any LangChain4j path, checked through the store and the requests the server saw. */
final class PathAssertions {

    private PathAssertions() {
    }

    /**
     * Every entry of the session's log, oldest first. Under keep-all retention this is where an
     * entry stays after any LangChain4j path: {@code clear()} archives the earlier log without
     * removing it from the session (DESIGN.md "Round trips"), so the only place that may need
     * adapting if archived entries move elsewhere is here.
     */
    static List<Entry> log(SessionStore store, String session) {
        return store.read(session, 0, Integer.MAX_VALUE);
    }

    /** Every entry of {@code before} (by id) is still in {@code after}, except those {@code removable} accepts. */
    static void assertKept(List<Entry> before, List<Entry> after, Predicate<Entry> removable) {
        Set<String> now = after.stream().map(Entry::id).collect(Collectors.toSet());
        List<String> lost = new ArrayList<>();
        for (Entry entry : before) {
            if (!now.contains(entry.id()) && !removable.test(entry)) {
                lost.add("#" + entry.index() + " " + describe(entry.message()));
            }
        }
        assertThat(lost).as("entries the LangChain4j path did not mean to remove but are gone from the log"
                + " (log now: %s)", describeAll(after)).isEmpty();
    }

    /** {@link #assertKept(List, List, Predicate)} with nothing removable. */
    static void assertKept(List<Entry> before, List<Entry> after) {
        assertKept(before, after, entry -> false);
    }

    /**
     * The messages appended after {@code before} (by id), oldest first, without the memory's own
     * records (the clear and set records that say what views show, DESIGN.md "Round trips").
     */
    static List<ChatMessage> added(List<Entry> before, List<Entry> after) {
        Set<String> old = before.stream().map(Entry::id).collect(Collectors.toSet());
        return after.stream().filter(e -> !old.contains(e.id())).map(Entry::message)
                .filter(m -> !(m instanceof dev.langchain4j.data.message.CustomMessage custom
                        && custom.attributes().containsKey("memory-pack-record")))
                .toList();
    }

    /** The state holds the application's system message, and a summary when {@code summaryBefore} had one. */
    static void assertState(SessionStore store, String session, Optional<Summary> summaryBefore) {
        SessionState state = store.state(session);
        assertThat(state.systemMessage()).as("the application's system message in the state")
                .contains(SystemMessage.from(Shop.SYSTEM));
        if (summaryBefore.isPresent()) {
            assertThat(state.summary()).as("the summary in the state (it was %s)", summaryBefore.get()).isPresent();
            assertThat(state.summary().get().coveredUntil()).as("what the summary covers")
                    .isGreaterThanOrEqualTo(summaryBefore.get().coveredUntil());
        }
    }

    /**
     * Every assistant message with tool calls is followed right away by exactly one result for each
     * of its calls, and every tool result follows its call: what OpenAI requires of a request.
     */
    static void assertToolCallsAnswered(Request request) {
        List<String> history = request.history();
        for (int i = 0; i < history.size(); i++) {
            String line = history.get(i);
            if (line.startsWith("assistant: tool_calls[")) {
                Set<String> calls = callIds(line);
                Set<String> answered = new LinkedHashSet<>();
                int j = i + 1;
                while (j < history.size() && history.get(j).startsWith("tool ")) {
                    answered.add(resultId(history.get(j)));
                    j++;
                }
                assertThat(answered).as("results right after %s in %s", line, request).isEqualTo(calls);
                i = j - 1;
            } else if (line.startsWith("tool ")) {
                throw new AssertionError("tool result without its call: " + line + " in " + request);
            }
        }
    }

    /** {@link #assertToolCallsAnswered} for every request. */
    static void assertToolCallsAnswered(List<Request> requests) {
        requests.forEach(PathAssertions::assertToolCallsAnswered);
    }

    /** The call ids of an {@code "assistant: tool_calls[id name args, …]"} line. */
    static Set<String> callIds(String line) {
        Set<String> ids = new HashSet<>();
        String inner = line.substring("assistant: tool_calls[".length(), line.length() - 1);
        for (String call : inner.split(", (?=call_)")) {
            ids.add(call.substring(0, call.indexOf(' ')));
        }
        return ids;
    }

    private static String resultId(String line) {
        return line.substring("tool ".length(), line.indexOf(':'));
    }

    /** How many lines of {@code history} are exactly {@code line}. */
    static long count(List<String> history, String line) {
        return history.stream().filter(line::equals).count();
    }

    /**
     * The view shows {@code question} verbatim once; a memory that folds the newest turn as soon as
     * it ends ({@link Strategy#foldsNewestTurn()}) shows it at most once.
     */
    static void assertShownOnce(Strategy strategy, List<ChatMessage> view, String question) {
        long shown = userTexts(view).stream().filter(question::equals).count();
        if (strategy.foldsNewestTurn()) {
            assertThat(shown).as("\"%s\" in the view %s", question, view).isLessThanOrEqualTo(1);
        } else {
            assertThat(shown).as("\"%s\" in the view %s", question, view).isOne();
        }
    }

    /** The user messages among {@code messages}, as text. */
    static List<String> userTexts(List<ChatMessage> messages) {
        return messages.stream().filter(UserMessage.class::isInstance).map(m -> ((UserMessage) m).singleText())
                .toList();
    }

    static String describe(ChatMessage message) {
        if (message instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
            return "AI tool_calls" + ai.toolExecutionRequests().stream().map(r -> r.id() + " " + r.name()).toList();
        }
        if (message instanceof ToolExecutionResultMessage result) {
            return "TOOL " + result.id() + ": " + result.text();
        }
        if (message instanceof AiMessage ai) {
            return "AI: " + ai.text();
        }
        if (message instanceof UserMessage user) {
            return "USER: " + (user.hasSingleText() ? user.singleText() : user.contents());
        }
        if (message instanceof SystemMessage system) {
            return "SYSTEM: " + system.text();
        }
        return message.toString();
    }

    static List<String> describeAll(List<Entry> entries) {
        return entries.stream().map(e -> "#" + e.index() + " " + describe(e.message())).toList();
    }
}
