package io.github.memorypack.integration;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.SummarizationException;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.SummaryMessage;
import io.github.memorypack.testkit.OpenAiTestServer;
import io.github.memorypack.testkit.OpenAiTestServer.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The LLM summarizer on the real {@code OpenAiChatModel}, whose answer is unusable: empty, cut off at
 * its output limit, content-filtered, or text that is a refusal or an error message rather than a
 * summary. The previous summary stays (in the state and in the view), every message stays, and the
 * listener is told why.
 */
class SummarizerAnswerTest {

    private static final String SUMMARY = "Ana lives in Porto and likes green tea.";

    /** An answer the summarizer's model gives on the second fold, and the reason it is refused for. */
    enum BadAnswer {
        EMPTY(Reply.text(""), SummarizationException.Reason.EMPTY),
        CUT_OFF(Reply.text("Ana lives in Porto and likes").withFinishReason("length"), SummarizationException.Reason.TOO_LONG),
        CONTENT_FILTERED(Reply.text("Ana").withFinishReason("content_filter"), SummarizationException.Reason.FILTERED),
        REFUSAL(Reply.text("I'm sorry, but I can't help with summarizing this conversation."),
                SummarizationException.Reason.NOT_A_SUMMARY),
        ERROR_TEXT(Reply.text("Error: rate limit exceeded, please retry in 20s"), SummarizationException.Reason.NOT_A_SUMMARY),
        TOOL_CALL(Reply.toolCalls(dev.langchain4j.agent.tool.ToolExecutionRequest.builder().id("call_x").name("search")
                .arguments("{}").build()), SummarizationException.Reason.NOT_A_SUMMARY);

        final Reply reply;
        final SummarizationException.Reason reason;

        BadAnswer(Reply reply, SummarizationException.Reason reason) {
            this.reply = reply;
            this.reason = reason;
        }
    }

    private OpenAiTestServer summarizerServer;
    private final SessionStore store = InMemorySessionStore.create();
    private final List<MemoryListener.SummaryFailure> failures = new ArrayList<>();

    @BeforeEach
    void startServer() throws Exception {
        summarizerServer = new OpenAiTestServer();
    }

    @AfterEach
    void stopServer() throws Exception {
        summarizerServer.close();
    }

    @ParameterizedTest(name = "summary, {0}")
    @EnumSource(BadAnswer.class)
    void should_keep_the_previous_summary_when_the_summarizer_answer_is_unusable(BadAnswer bad) {
        // given: one fold that worked
        Summarizer summarizer = Summarizer.llmBuilder().chatModel(summarizerServer.model()).maxAttempts(1).build();
        ChatMemory memory = SummaryChatMemory.builder().id("ana").chatMemoryStore(store).summarizer(summarizer)
                .listener(MemoryListener.onSummaryFailure(failures::add)).build();
        assertKeepsSummary(memory, bad);
    }

    @ParameterizedTest(name = "summary-buffer, {0}")
    @EnumSource(BadAnswer.class)
    void should_keep_the_previous_summary_of_a_summary_buffer_when_the_summarizer_answer_is_unusable(BadAnswer bad) {
        Summarizer summarizer = Summarizer.llmBuilder().chatModel(summarizerServer.model()).maxAttempts(1).build();
        ChatMemory memory = SummaryBufferChatMemory.builder().id("ana").chatMemoryStore(store).summarizer(summarizer)
                .maxBufferTokens(30).lowWatermark(0).listener(MemoryListener.onSummaryFailure(failures::add)).build();
        assertKeepsSummary(memory, bad);
    }

    private void assertKeepsSummary(ChatMemory memory, BadAnswer bad) {
        AtomicReference<Reply> next = new AtomicReference<>(Reply.text(SUMMARY));
        summarizerServer.answerWith(request -> next.get());
        turn(memory, "My name is Ana and I live in Porto.", "Nice to meet you, Ana.");
        turn(memory, "I like green tea.", "Noted: green tea.");
        assertThat(store.state("ana").summary()).as("the first summary").hasValueSatisfying(
                s -> assertThat(s.text()).isEqualTo(SUMMARY));
        int requests = summarizerServer.requestCount();

        // when: the next fold gets an unusable answer
        next.set(bad.reply);
        turn(memory, "Which tea goes with fish?", "Sencha.");
        turn(memory, "And with cake?", "Hojicha.");

        // then
        assertThat(summarizerServer.requestCount()).as("the summarizer was asked").isGreaterThan(requests);
        assertThat(store.state("ana").summary()).as("the summary in the state").hasValueSatisfying(
                s -> assertThat(s.text()).isEqualTo(SUMMARY));
        assertThat(memory.messages()).as("the view").anySatisfy(m -> assertThat(m).isInstanceOf(SummaryMessage.class)
                .satisfies(summary -> assertThat(((SummaryMessage) summary).summaryText()).isEqualTo(SUMMARY)));
        assertThat(memory.messages()).as("the view").contains(UserMessage.from("And with cake?"), AiMessage.from("Hojicha."));
        assertThat(failures).as("failures reported").isNotEmpty()
                .allSatisfy(failure -> assertThat(failure.reason()).isEqualTo(bad.reason));
        assertThat(store.read("ana", 0, 100)).as("every message is in the log").hasSize(8);
    }

    private static void turn(ChatMemory memory, String question, String answer) {
        memory.add(UserMessage.from(question));
        memory.add(AiMessage.from(answer));
    }
}
