package io.github.memorypack.samples;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.file.FileSessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.replay.Strategy;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@link TravelAssistant} through {@code AiServices}, with a {@code @MemoryId} per traveller, the
 * {@link TravelTools} tool, and each Memory Pack strategy plugged in through
 * {@code chatMemoryProvider} — the only line that changes between strategies.
 *
 * <p>{@link #main} needs a real model: {@code OPENAI_API_KEY} (see {@link OpenAiSettings}). It
 * talks to two travellers with every strategy on a file store under the folder given as the first
 * argument (default {@code target/aiservices-sessions}).
 */
public final class AiServicesExample {

    private AiServicesExample() {
    }

    /**
     * The assistant on {@code chatModel}, remembering each traveller with {@code strategy} on
     * {@code store}.
     */
    public static TravelAssistant assistant(ChatModel chatModel, Strategy strategy, SessionStore store,
                                            TokenCountEstimator tokenizer, Summarizer summarizer,
                                            TokenAccounting accounting) {
        return AiServices.builder(TravelAssistant.class)
                .chatModel(chatModel)
                .chatMemoryProvider(strategy.provider(store, Strategy.Limits.DEFAULT, tokenizer, summarizer, accounting))
                .tools(new TravelTools())
                .build();
    }

    public static void main(String[] args) {
        Optional<OpenAiSettings> openAi = OpenAiSettings.from(System.getenv());
        if (openAi.isEmpty()) {
            System.out.println("The AiServices example needs a model: set OPENAI_API_KEY (and optionally "
                    + "OPENAI_BASE_URL, OPENAI_MODEL). Its test runs it against a local OpenAI-compatible server.");
            return;
        }
        OpenAiSettings settings = openAi.get();
        System.out.println("Using " + settings.describe());
        Path folder = Path.of(args.length > 0 ? args[0] : "target/aiservices-sessions");
        for (Strategy strategy : Strategy.memories()) {
            SessionStore store = FileSessionStore.of(folder.resolve(strategy.label()));
            TravelAssistant assistant = assistant(settings.chatModel(), strategy, store, settings.tokenizer(),
                    OpenAiSettings.summarizer(openAi, Strategy.Limits.DEFAULT.summaryTokens(), settings.tokenizer()),
                    TokenAccounting.create());
            System.out.println("== " + strategy.label());
            System.out.println("ana:   " + assistant.chat("ana", "Hi, I'm Ana. I have 1200 euros for 3 weeks."));
            System.out.println("bruno: " + assistant.chat("bruno", "Hi, I'm Bruno, 900 euros for 10 days."));
            System.out.println("ana:   " + assistant.chat("ana", "What is my daily budget?"));
        }
    }
}
