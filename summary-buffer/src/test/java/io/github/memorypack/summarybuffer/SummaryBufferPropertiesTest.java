package io.github.memorypack.summarybuffer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.SummaryMessage;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Random conversations (plain and tool turns of random size, a summarizer that fails at random)
 * against a simple model of what must hold: the summaries that landed cover exactly the oldest
 * messages, the view shows exactly the rest, and the view rules hold after every turn.
 */
class SummaryBufferPropertiesTest {

    private static final SystemMessage SYSTEM = SystemMessage.from("You are terse.");

    /** One scripted turn: its size in words, whether it calls a tool, whether the next summarizer call fails. */
    record Step(int words, boolean tool, boolean summarizerFails) {
    }

    @Provide
    Arbitrary<List<Step>> conversations() {
        Arbitrary<Step> step = Combinators.combine(Arbitraries.integers().between(1, 120), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 3).map(n -> n == 0)).as(Step::new);
        return step.list().ofMinSize(1).ofMaxSize(40);
    }

    @Property(tries = 60)
    void should_cover_each_message_once_and_keep_view_rules_when_conversation_is_random(
            @ForAll("conversations") List<Step> steps, @ForAll @IntRange(min = 60, max = 600) int maxTokens) {
        SessionStore store = InMemorySessionStore.create();
        List<List<ChatMessage>> folds = new ArrayList<>(); // messages of each summary that landed, in order
        boolean[] failNext = {false};
        Summarizer summarizer = (previous, messages) -> {
            if (failNext[0]) {
                failNext[0] = false;
                throw new IllegalStateException("scripted failure");
            }
            folds.add(List.copyOf(messages));
            return "summary " + folds.size();
        };
        SummaryBufferChatMemory memory = SummaryBufferChatMemory.builder().id("p").chatMemoryStore(store).summarizer(summarizer)
                .maxBufferTokens(maxTokens).listener(MemoryListener.NONE).build();
        List<ChatMessage> added = new ArrayList<>();

        int n = 0;
        for (Step step : steps) {
            n++;
            failNext[0] = step.summarizerFails();
            List<ChatMessage> turn = new ArrayList<>();
            turn.add(UserMessage.from("q" + n + " " + "word ".repeat(step.words())));
            if (step.tool()) {
                ToolExecutionRequest call = ToolExecutionRequest.builder().id("t" + n).name("lookup").arguments("{}").build();
                turn.add(AiMessage.from(List.of(call)));
                turn.add(ToolExecutionResultMessage.from(call, "result " + n));
            }
            turn.add(AiMessage.from("a" + n + " " + "fact ".repeat(step.words() / 2 + 1)));
            memory.add(SYSTEM);
            turn.forEach(memory::add);
            added.addAll(turn);

            List<ChatMessage> view = memory.messages();
            // system first; the summary (if any) right after it
            assertThat(view.get(0)).isEqualTo(SYSTEM);
            int verbatimFrom = 1;
            if (!folds.isEmpty()) {
                assertThat(view.get(1)).isEqualTo(
                        SummaryMessage.of("summary " + folds.size()));
                verbatimFrom = 2;
            }
            // the folds that landed plus the verbatim part are every message, each once, in order
            List<ChatMessage> covered = new ArrayList<>();
            folds.forEach(covered::addAll);
            List<ChatMessage> verbatim = view.subList(verbatimFrom, view.size());
            List<ChatMessage> all = new ArrayList<>(covered);
            all.addAll(verbatim);
            assertThat(all).isEqualTo(added);
            // whole turns: each fold and the verbatim part start with a user message
            folds.forEach(f -> assertThat(f.get(0)).isInstanceOf(UserMessage.class));
            assertThat(verbatim.get(0)).isInstanceOf(UserMessage.class);
            // tool pairs: every tool request is followed by its result
            for (int i = 0; i < verbatim.size(); i++) {
                if (verbatim.get(i) instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
                    assertThat(verbatim.get(i + 1)).isInstanceOf(ToolExecutionResultMessage.class);
                }
            }
        }
    }
}
