package io.github.memorypack.samples;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Summarizer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How the samples reach a real OpenAI-compatible model, read from the environment:
 * {@code OPENAI_API_KEY} (required to use one at all), {@code OPENAI_BASE_URL} (optional, for any
 * OpenAI-compatible server), {@code OPENAI_MODEL} (chat model, default {@value #DEFAULT_MODEL})
 * and {@code OPENAI_SUMMARY_MODEL} (summarizer model, default the chat model).
 *
 * @param apiKey       the key
 * @param baseUrl      the server, or {@code null} for OpenAI's
 * @param modelName        the chat model name
 * @param summaryModelName the summarizer's model name
 */
public record OpenAiSettings(String apiKey, String baseUrl, String modelName, String summaryModelName) {

    /** Chat model used when {@code OPENAI_MODEL} is not set. */
    public static final String DEFAULT_MODEL = "gpt-4o-mini";

    /** The settings when {@code OPENAI_API_KEY} is set and not blank. */
    public static Optional<OpenAiSettings> from(Map<String, String> environment) {
        String key = environment.get("OPENAI_API_KEY");
        if (key == null || key.isBlank()) {
            return Optional.empty();
        }
        String model = valueOr(environment, "OPENAI_MODEL", DEFAULT_MODEL);
        return Optional.of(new OpenAiSettings(key, valueOr(environment, "OPENAI_BASE_URL", null), model,
                valueOr(environment, "OPENAI_SUMMARY_MODEL", model)));
    }

    private static String valueOr(Map<String, String> environment, String name, String fallback) {
        String value = environment.get(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** The chat model. */
    public ChatModel chatModel() {
        return model(modelName);
    }

    /** The model the summarizer uses. */
    public ChatModel summaryModel() {
        return model(summaryModelName);
    }

    private ChatModel model(String name) {
        return OpenAiChatModel.builder().apiKey(apiKey).baseUrl(baseUrl).modelName(name)
                .temperature(0.0).timeout(Duration.ofSeconds(60)).maxRetries(2).build();
    }

    /** Token counts for the chat model's encoding. */
    public TokenCountEstimator tokenizer() {
        return Tokenizers.forModel(modelName);
    }

    /** One line saying what is used, without the key. */
    public String describe() {
        return "real model " + modelName + " (summaries by " + summaryModelName + ") at "
                + (baseUrl == null ? "api.openai.com" : baseUrl);
    }

    /**
     * The summarizer the samples use: {@link Summarizer#llmBuilder() the LLM one} on {@code settings}' summary model when
     * there are settings, otherwise the offline {@link Summarizer#extractiveBuilder() extractive one}; both capped at
     * {@code maxSummaryTokens}.
     */
    public static Summarizer summarizer(Optional<OpenAiSettings> settings, int maxSummaryTokens,
                                        TokenCountEstimator tokenizer) {
        return settings.<Summarizer>map(s -> Summarizer.llmBuilder().chatModel(s.summaryModel())
                        .maxSummaryTokens(maxSummaryTokens).tokenizer(tokenizer).build())
                .orElseGet(() -> Summarizer.extractiveBuilder().maxSummaryTokens(maxSummaryTokens).tokenizer(tokenizer)
                        .build());
    }
}
