package io.github.memorypack.core;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import io.github.memorypack.core.SummarizationException.Reason;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The LLM {@link Summarizer} ({@link Summarizer#llm}, {@link Summarizer#llmBuilder()}): its
 * behaviour is documented on {@link Summarizer.LlmBuilder}. Thread-safe when the model is.
 */
final class LlmSummarizer implements Summarizer {

    static final String NO_SUMMARY = "(none yet)";

    private final ChatModel chatModel;
    private final String systemPrompt;
    private final String userPrompt;
    private final int maxSummaryTokens;
    private final int maxAttempts;
    private final TokenCountEstimator tokenizer;
    private final boolean limitModelOutput;

    LlmSummarizer(Summarizer.LlmBuilder builder) {
        this.chatModel = builder.chatModel;
        this.systemPrompt = builder.systemPrompt;
        this.userPrompt = builder.userPrompt;
        this.maxSummaryTokens = builder.maxSummaryTokens;
        this.maxAttempts = builder.maxAttempts;
        this.tokenizer = builder.tokenizer;
        this.limitModelOutput = builder.limitModelOutput;
    }

    /** The cap on summary tokens this summarizer enforces. */
    int maxSummaryTokens() {
        return maxSummaryTokens;
    }

    @Override
    public String summarize(String previousSummary, List<ChatMessage> messages) {
        Objects.requireNonNull(messages, "messages");
        ChatRequest.Builder request = ChatRequest.builder().messages(requestMessages(previousSummary, messages));
        if (limitModelOutput) {
            request.maxOutputTokens(maxSummaryTokens);
        }
        ChatRequest chatRequest = request.build();
        SummarizationException last = null;
        for (int attempt = 1; attempt <= maxAttempts; attempt++) {
            try {
                return attempt(chatRequest, attempt);
            } catch (SummarizationException e) {
                last = e;
            } catch (NonRetriableException e) {
                throw new SummarizationException(Reason.FAILED, attempt,
                        "summarizer model failed (not retried): " + e.getMessage(), e);
            } catch (RuntimeException e) {
                last = new SummarizationException(Reason.FAILED, attempt, "summarizer model failed: " + e.getMessage(), e);
            }
        }
        throw last;
    }

    /** The messages one attempt sends: instructions, then previous summary and transcript. */
    List<ChatMessage> requestMessages(String previousSummary, List<ChatMessage> messages) {
        String summary = previousSummary == null || previousSummary.isBlank() ? NO_SUMMARY : previousSummary.strip();
        String system = systemPrompt.replace("{{maxTokens}}", Integer.toString(maxSummaryTokens));
        // one pass, so a summary that happens to contain "{{messages}}" is never expanded
        String user = userPrompt.replace("{{messages}}", "\u0000").replace("{{summary}}", summary)
                .replace("\u0000", Transcript.render(messages));
        return List.of(SystemMessage.from(system), UserMessage.from(user));
    }

    private String attempt(ChatRequest request, int attempt) {
        ChatResponse response = chatModel.chat(request);
        AiMessage message = response == null ? null : response.aiMessage();
        String text = message == null ? null : message.text();
        FinishReason finish = response == null ? null : response.finishReason();
        if (finish == FinishReason.CONTENT_FILTER) {
            throw new SummarizationException(Reason.FILTERED, attempt, "the summarizer's answer was content-filtered");
        }
        if (finish == FinishReason.LENGTH) {
            throw new SummarizationException(Reason.TOO_LONG, attempt, "summarizer stopped at its output limit (cut off)");
        }
        if (message != null && message.hasToolExecutionRequests() || finish == FinishReason.TOOL_EXECUTION) {
            throw new SummarizationException(Reason.NOT_A_SUMMARY, attempt, "summarizer called tools instead of answering");
        }
        if (finish == FinishReason.OTHER) {
            throw new SummarizationException(Reason.NOT_A_SUMMARY, attempt, "summarizer's answer ended abnormally"
                    + " (finish reason OTHER)");
        }
        if (text == null || text.isBlank()) {
            throw new SummarizationException(Reason.EMPTY, attempt, "summarizer returned no text");
        }
        String summary = text.strip();
        String wrong = notASummary(summary);
        if (wrong != null) {
            throw new SummarizationException(Reason.NOT_A_SUMMARY, attempt, "summarizer's answer " + wrong);
        }
        int tokens = tokenizer.estimateTokenCountInText(summary);
        if (tokens > maxSummaryTokens) {
            throw new SummarizationException(Reason.TOO_LONG, attempt,
                    "summary has " + tokens + " tokens, cap is " + maxSummaryTokens);
        }
        return summary;
    }

    /**
     * Why {@code summary} is no summary, or null: it opens the way a refusal or an error message does
     * ({@link #NOT_A_SUMMARY_OPENINGS}, ignoring case, quotes and markdown emphasis), or it still holds
     * a placeholder of the prompt template (an echo of the request).
     */
    static String notASummary(String summary) {
        String opening = summary.replaceFirst("^[\\s\"'`*_#>\\-]+", "").toLowerCase(Locale.ROOT);
        for (String refusal : NOT_A_SUMMARY_OPENINGS) {
            if (opening.startsWith(refusal)) {
                return "reads as a refusal or an error (it opens with \"" + refusal + "\")";
            }
        }
        for (String placeholder : PLACEHOLDERS) {
            if (summary.contains(placeholder)) {
                return "echoes the request (it holds " + placeholder + ")";
            }
        }
        return null;
    }

    /** How a refusal or an error message opens (lower case); a summary does not open so. */
    static final List<String> NOT_A_SUMMARY_OPENINGS = List.of("i'm sorry", "i am sorry", "sorry,", "i apologize",
            "i can't", "i cannot", "i can not", "i'm unable", "i am unable", "i'm not able", "i am not able",
            "as an ai", "error:", "error code", "exception:", "exception in thread", "traceback (most recent call last)",
            "{\"error\"", "<!doctype", "<html");

    private static final List<String> PLACEHOLDERS = List.of("{{summary}}", "{{messages}}", "{{maxTokens}}");

    @Override
    public String toString() {
        return "LlmSummarizer{maxSummaryTokens=" + maxSummaryTokens + ", maxAttempts=" + maxAttempts + '}';
    }
}
