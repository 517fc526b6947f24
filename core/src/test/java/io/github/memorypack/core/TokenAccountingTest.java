package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenAccountingTest {

    /** A real ChatModel (LangChain4j's default chat() drives the listeners) reporting fixed usage. */
    private static ChatModel modelReporting(int input, List<ChatModelListener> listeners) {
        return new ChatModel() {
            @Override
            public ChatResponse doChat(ChatRequest request) {
                return ChatResponse.builder().aiMessage(AiMessage.from("hi"))
                        .tokenUsage(new TokenUsage(input, 7)).build();
            }

            @Override
            public List<ChatModelListener> listeners() {
                return listeners;
            }
        };
    }

    @Test
    void should_record_estimate_next_to_reported_usage_when_request_is_bound_to_session() {
        // given
        TokenAccounting accounting = TokenAccounting.create();
        ChatModel model = modelReporting(30, List.of(accounting.listener(Tokenizers.o200k())));
        List<dev.langchain4j.data.message.ChatMessage> messages = List.of(UserMessage.from("hello there"));
        int estimate = Tokenizers.o200k().estimateTokenCountInMessages(messages);

        // when
        accounting.bind("s1");
        model.chat(messages);
        model.chat(messages); // not bound: not charged to anyone

        // then
        TokenReport report = accounting.report("s1");
        assertThat(report.requests()).isEqualTo(1);
        assertThat(report.estimatedPromptTokens()).isEqualTo(estimate);
        assertThat(report.reportedPromptTokens()).isEqualTo(30);
        assertThat(report.reportedOutputTokens()).isEqualTo(7);
        assertThat(report.calibrationFactor()).isCloseTo(30.0 / estimate, within(1e-9));
        assertThat(accounting.report("s2").requests()).isZero();
    }

    @Test
    void should_average_ratio_over_window_when_calibrating() {
        // given
        TokenAccounting accounting = TokenAccounting.create(2);

        // when
        accounting.recordRequest("s", 100, new TokenUsage(300, 1));
        accounting.recordRequest("s", 100, new TokenUsage(110, 1));
        accounting.recordRequest("s", 100, new TokenUsage(130, 1));
        accounting.recordRequest("s", 100, null);

        // then
        assertThat(accounting.calibrationFactor("s")).isCloseTo(1.2, within(1e-9));
        assertThat(accounting.calibrationFactor("other")).isEqualTo(1.0);
        TokenReport report = accounting.report("s");
        assertThat(report.requests()).isEqualTo(4);
        assertThat(report.reportedRequests()).isEqualTo(3);
        assertThat(report.estimatedPromptTokens()).isEqualTo(400);
        assertThat(report.reportedPromptTokens()).isEqualTo(540);
    }

    @Test
    void should_report_summarizer_calls_and_tokens_when_recorded() {
        // given
        TokenAccounting accounting = TokenAccounting.create();

        // when
        accounting.recordSummarization("s", 900, 120);
        accounting.recordSummarization("s", 800, 130);
        accounting.recordSummarizationFailure("s");
        accounting.recordRequest("s", 50, null);

        // then
        TokenReport report = accounting.report("s");
        assertThat(report.summarizerCalls()).isEqualTo(2);
        assertThat(report.summarizerFailures()).isEqualTo(1);
        assertThat(report.summarizerInputTokens()).isEqualTo(1700);
        assertThat(report.summarizerOutputTokens()).isEqualTo(250);
        assertThat(report.estimatedTotalTokens()).isEqualTo(2000);
        accounting.forget("s");
        assertThat(accounting.report("s").summarizerCalls()).isZero();
    }
}
