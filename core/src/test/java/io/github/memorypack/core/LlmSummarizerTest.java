package io.github.memorypack.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import io.github.memorypack.core.SummarizationException.Reason;
import java.util.List;
import org.junit.jupiter.api.Test;

class LlmSummarizerTest {

    private final ScriptedModel model = new ScriptedModel();

    private static ChatResponse reply(String text) {
        return ScriptedModel.reply(text);
    }

    private static java.util.function.Supplier<ChatResponse> throwing(RuntimeException e) {
        return () -> {
            throw e;
        };
    }

    private static final List<ChatMessage> TURN = List.of(
            UserMessage.from("My name is Ana and I live in Porto."),
            AiMessage.from("Nice to meet you, Ana."));

    @Test
    void should_send_instructions_previous_summary_and_transcript_when_summarizing() {
        // given
        model.then(() -> reply("Ana lives in Porto."));
        Summarizer summarizer = Summarizer.llmBuilder().chatModel(model).maxSummaryTokens(120).build();

        // when
        String summary = summarizer.summarize("The user likes tea.", TURN);

        // then
        assertThat(summary).isEqualTo("Ana lives in Porto.");
        assertThat(model.requests()).hasSize(1);
        ChatRequest sent = model.requests().get(0);
        List<ChatMessage> messages = sent.messages();
        assertThat(messages).hasSize(2);
        String instructions = ((SystemMessage) messages.get(0)).text();
        assertThat(instructions).contains("name", "fact", "number", "decision", "preference", "open question",
                "concise", "at most 120 tokens");
        String request = ((UserMessage) messages.get(1)).singleText();
        assertThat(request).contains("Previous summary:\nThe user likes tea.")
                .contains("User: My name is Ana and I live in Porto.")
                .contains("Assistant: Nice to meet you, Ana.");
        assertThat(sent.maxOutputTokens()).isEqualTo(120);
    }

    @Test
    void should_include_tool_calls_and_results_compactly_when_folding_a_tool_turn() {
        // given
        model.then(() -> reply("Weather in Porto was 18C."));
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("c1").name("weather")
                .arguments("{\"city\":\"Porto\"}").build();
        String longResult = "sunny ".repeat(200);

        // when
        Summarizer.llm(model).summarize("", List.of(UserMessage.from("Weather?"),
                AiMessage.from(List.of(call)), ToolExecutionResultMessage.from(call, longResult),
                AiMessage.from("It is sunny.")));

        // then
        assertThat(model.requests()).hasSize(1);
        ChatRequest sent = model.requests().get(0);
        String request = ((UserMessage) sent.messages().get(1)).singleText();
        assertThat(request).contains("Previous summary:\n(none yet)")
                .contains("Assistant called tool: weather({\"city\":\"Porto\"})")
                .contains("Tool weather returned: sunny sunny")
                .doesNotContain(longResult.strip());
        assertThat(request.length()).isLessThan(longResult.length());
    }

    @Test
    void should_retry_and_succeed_when_first_attempts_fail() {
        // given
        model.then(throwing(new TimeoutException("read timed out")))
                .then(() -> reply("   "))
                .then(() -> reply("Ana lives in Porto."));

        // when
        String summary = Summarizer.llm(model).summarize("", TURN);

        // then
        assertThat(summary).isEqualTo("Ana lives in Porto.");
        assertThat(model.requests()).hasSize(3);
    }

    @Test
    void should_throw_typed_failure_and_never_return_error_text_when_every_attempt_fails() {
        // given
        model.then(throwing(new TimeoutException("Error: upstream timeout")));
        Summarizer summarizer = Summarizer.llmBuilder().chatModel(model).maxAttempts(2).build();

        // when / then
        assertThatThrownBy(() -> summarizer.summarize("", TURN))
                .isInstanceOfSatisfying(SummarizationException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.FAILED);
                    assertThat(e.attempts()).isEqualTo(2);
                    assertThat(e.getCause()).isInstanceOf(TimeoutException.class);
                });
        assertThat(model.requests()).hasSize(2);
    }

    @Test
    void should_fail_with_empty_when_model_returns_blank() {
        // given
        model.then(() -> reply(""));

        // when / then
        assertThatThrownBy(() -> Summarizer.llm(model).summarize("", TURN))
                .isInstanceOfSatisfying(SummarizationException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.EMPTY));
    }

    @Test
    void should_fail_with_too_long_when_summary_exceeds_cap_or_model_hits_length_limit() {
        // given
        Summarizer summarizer = Summarizer.llmBuilder().chatModel(model).maxSummaryTokens(10).maxAttempts(2).build();
        model.then(() -> reply("word ".repeat(50)))
                .then(() -> ChatResponse.builder().aiMessage(AiMessage.from("Ana lives"))
                        .finishReason(FinishReason.LENGTH).build());

        // when / then
        assertThatThrownBy(() -> summarizer.summarize("", TURN))
                .isInstanceOfSatisfying(SummarizationException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.TOO_LONG);
                    assertThat(e.getMessage()).contains("output limit");
                });
    }

    @Test
    void should_not_retry_when_error_is_non_retriable() {
        // given
        model.then(throwing(new AuthenticationException("bad key")));

        // when / then
        assertThatThrownBy(() -> Summarizer.llm(model).summarize("", TURN))
                .isInstanceOfSatisfying(SummarizationException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(model.requests()).hasSize(1);
    }

    @Test
    void should_reject_bad_settings_when_building() {
        assertThatThrownBy(() -> Summarizer.llmBuilder().build()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Summarizer.llmBuilder().chatModel(model).maxAttempts(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Summarizer.llmBuilder().chatModel(model).maxSummaryTokens(0).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Summarizer.llmBuilder().chatModel(model).userPrompt("Summarize {{summary}}").build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_use_custom_prompts_when_configured() {
        // given
        model.then(() -> reply("ok summary"));
        Summarizer summarizer = Summarizer.llmBuilder().chatModel(model)
                .systemPrompt("Resume en español, máximo {{maxTokens}} tokens.")
                .userPrompt("Antes: {{summary}}\nNuevo: {{messages}}").limitModelOutput(false).build();

        // when
        summarizer.summarize("{{messages}} literally", TURN);

        // then
        assertThat(model.requests()).hasSize(1);
        ChatRequest sent = model.requests().get(0);
        assertThat(((SystemMessage) sent.messages().get(0)).text()).isEqualTo("Resume en español, máximo 500 tokens.");
        assertThat(((UserMessage) sent.messages().get(1)).singleText())
                .startsWith("Antes: {{messages}} literally\nNuevo: User: My name is Ana");
        assertThat(sent.maxOutputTokens()).isNull();
    }

    @Test
    void should_accept_a_summary_when_it_only_mentions_sorry_or_errors_in_passing() {
        // given: summaries that talk about apologies and errors without being one
        List<String> summaries = List.of("The user said sorry for the late reply and asked about Porto.",
                "Errors in the booking were fixed; Ana confirmed the new date.",
                "- User: I'm sorry? (asked Ana, puzzled)\n- Assistant explained the tea blend.");
        for (String text : summaries) {
            model.then(() -> reply(text));
        }

        // when / then
        for (String text : summaries) {
            assertThat(Summarizer.llmBuilder().chatModel(model).maxAttempts(1).build().summarize("", TURN))
                    .isEqualTo(text);
        }
    }

    @Test
    void should_refuse_an_answer_when_it_opens_as_a_refusal_or_an_error() {
        // given
        for (String text : List.of("I'm sorry, I can't do that.", "As an AI language model, I cannot summarize.",
                "Error: upstream timeout", "{\"error\": {\"code\": 429}}", "<!DOCTYPE html><html>502</html>",
                "**I cannot** help with that.")) {
            model.then(() -> reply(text));

            // when / then
            assertThatThrownBy(() -> Summarizer.llmBuilder().chatModel(model).maxAttempts(1).build().summarize("", TURN))
                    .as(text).isInstanceOfSatisfying(SummarizationException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_SUMMARY));
        }
    }
}
