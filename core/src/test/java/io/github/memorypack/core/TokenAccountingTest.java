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
        accounting.bind("s1", "test");
        model.chat(messages);
        model.chat(messages); // not bound: not charged to anyone

        // then
        TokenAccounting.Report report = accounting.report("s1");
        assertThat(report.requests()).isEqualTo(1);
        assertThat(report.estimatedPromptTokens()).isEqualTo(estimate);
        assertThat(report.reportedPromptTokens()).isEqualTo(30);
        assertThat(report.reportedOutputTokens()).isEqualTo(7);
        assertThat(report.calibrationFactor()).isEqualTo(TokenAccounting.DEFAULT_MAX_FACTOR); // 30 / 8, within the bounds
        assertThat(accounting.report("s2").requests()).isZero();
    }

    @Test
    void should_weight_recent_ratios_and_keep_the_factor_within_bounds_when_calibrating() {
        // given: a half-life of one request: each new ratio weighs as much as all earlier ones together
        TokenAccounting accounting = TokenAccounting.builder().calibrationHalfLife(1).calibrationBounds(0.5, 2.0).build();

        // when
        accounting.recordRequest("s", 100, new TokenUsage(300, 1)); // ratio 3.0, clamped to 2.0
        accounting.recordRequest("s", 100, new TokenUsage(110, 1)); // 2.0 + (1.1 - 2.0) / 2 = 1.55
        accounting.recordRequest("s", 100, new TokenUsage(130, 1)); // 1.55 + (1.3 - 1.55) / 2 = 1.425
        accounting.recordRequest("s", 100, null);                   // no reported usage: no change

        // then
        assertThat(accounting.calibrationFactor("s")).isCloseTo(1.425, within(1e-9));
        assertThat(accounting.calibrationFactor("other")).isEqualTo(1.0);
        TokenAccounting.Report report = accounting.report("s");
        assertThat(report.requests()).isEqualTo(4);
        assertThat(report.reportedRequests()).isEqualTo(3);
        assertThat(report.estimatedPromptTokens()).isEqualTo(400);
        assertThat(report.reportedPromptTokens()).isEqualTo(540);
    }

    @Test
    void should_converge_on_a_steady_ratio_with_the_default_half_life() {
        TokenAccounting accounting = TokenAccounting.create();
        for (int i = 0; i < 100; i++) {
            accounting.recordRequest("s", 1_000, new TokenUsage(1_200, 1));
        }
        assertThat(accounting.calibrationFactor("s")).isCloseTo(1.2, within(1e-9));
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
        TokenAccounting.Report report = accounting.report("s");
        assertThat(report.summarizerCalls()).isEqualTo(2);
        assertThat(report.summarizerFailures()).isEqualTo(1);
        assertThat(report.summarizerInputTokens()).isEqualTo(1700);
        assertThat(report.summarizerOutputTokens()).isEqualTo(250);
        assertThat(report.estimatedTotalTokens()).isEqualTo(2000);
        accounting.forget("s");
        assertThat(accounting.report("s").summarizerCalls()).isZero();
    }
}
