package io.github.memorypack.spring;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.window.WindowChatMemory;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ListableBeanFactory;

/** Builds the provider of {@code memory-pack.strategy} from the properties. */
final class MemoryProviders {

    /** The window's limit when none is set, as LangChain4j's and Spring AI's examples use. */
    static final int DEFAULT_WINDOW_MESSAGES = 20;

    private MemoryProviders() {
    }

    static ChatMemoryProvider create(MemoryPackProperties properties, SessionStore store,
                                     List<MemoryListener> listeners, ListableBeanFactory beans) {
        TokenCountEstimator tokenizer = properties.getTokenizerModel() == null ? Tokenizers.o200k()
                : Tokenizers.forModel(properties.getTokenizerModel());
        // the listener beans, and the default warning log too (a builder given listeners calls only those)
        List<MemoryListener> all = new java.util.ArrayList<>();
        all.add(MemoryListener.logging());
        all.addAll(listeners);
        Integer contextTokens = properties.getContextTokens();
        // what every strategy shares, built once: the store, the tokenizer, the listeners, the cache, concurrent sends
        MemoryOptions.Builder shared = MemoryOptions.builder().chatMemoryStore(store).tokenizer(tokenizer)
                .concurrentSends(properties.getConcurrentSends().setting());
        all.forEach(shared::listener);
        ifSet(properties.getViewCacheSize(), shared::viewCacheSize);
        return switch (properties.getStrategy()) {
            case BUFFER -> {
                BufferChatMemory.Builder b = BufferChatMemory.builder().options(shared.build());
                ifSet(contextTokens, b::contextTokens);
                yield b.provider();
            }
            case WINDOW -> {
                MemoryPackProperties.Window window = properties.getWindow();
                WindowChatMemory.Builder b = WindowChatMemory.builder().options(shared.build());
                ifSet(window.getMaxMessages(), b::maxMessages);
                ifSet(window.getMaxTurns(), b::maxTurns);
                ifSet(window.getMaxTokens(), b::maxTokens);
                if (window.getMaxMessages() == null && window.getMaxTurns() == null && window.getMaxTokens() == null) {
                    b.maxMessages(DEFAULT_WINDOW_MESSAGES);
                }
                yield b.provider();
            }
            case SUMMARY -> {
                SummaryChatMemory.Builder b = SummaryChatMemory.builder()
                        .options(summarizing(shared, properties, beans, tokenizer).build());
                ifSet(contextTokens, b::contextTokens);
                ifSet(properties.getSummary().getFoldEveryTurns(), b::foldEveryTurns);
                yield b.provider();
            }
            case SUMMARY_BUFFER -> {
                MemoryPackProperties.SummaryBuffer buffer = properties.getSummaryBuffer();
                SummaryBufferChatMemory.Builder b = SummaryBufferChatMemory.builder()
                        .options(summarizing(shared, properties, beans, tokenizer).build())
                        .maxBufferTokens(buffer.getMaxBufferTokens());
                ifSet(contextTokens, b::contextTokens);
                ifSet(buffer.getLowWatermark(), b::lowWatermark);
                yield b.provider();
            }
        };
    }

    /** {@code shared} with the summarizer of the properties, its timeout and its cap. */
    private static MemoryOptions.Builder summarizing(MemoryOptions.Builder shared, MemoryPackProperties properties,
                                                     ListableBeanFactory beans, TokenCountEstimator tokenizer) {
        MemoryPackProperties.Summarizer summarizing = properties.getSummarizer();
        shared.summarizer(summarizer(properties, beans, tokenizer)).summarizerTimeout(summarizing.getTimeout());
        ifSet(summarizing.getMaxSummaryTokens(), shared::maxSummaryTokens);
        return shared;
    }

    /**
     * The application's single (or primary) {@link Summarizer} bean; else the extractive summarizer, or
     * the LLM one ({@link Summarizer#llmBuilder()}) on the named {@link ChatModel} bean, or on the
     * application's only (or primary) one.
     *
     * @throws MemoryPackConfigurationException if a model is needed and none (or no unique one) is there,
     *                                          the named bean is no ChatModel, or a Summarizer bean and the
     *                                          summarizer properties both choose one
     */
    static Summarizer summarizer(MemoryPackProperties properties, ListableBeanFactory beans,
                                 TokenCountEstimator tokenizer) {
        MemoryPackProperties.Summarizer settings = properties.getSummarizer();
        Integer cap = settings.getMaxSummaryTokens();
        String named = settings.getModel() == null || settings.getModel().isBlank() ? null : settings.getModel();
        Summarizer own = beans.getBeanProvider(Summarizer.class).getIfUnique();
        if (own != null) {
            if (settings.isExtractive() || named != null) {
                throw new MemoryPackConfigurationException(settings.isExtractive() ? "memory-pack.summarizer.extractive"
                        : "memory-pack.summarizer.model", settings.isExtractive() ? "true" : named,
                        "chooses a summarizer, and the application defines its own Summarizer bean as well",
                        "Remove the property to summarize with the Summarizer bean, or remove the bean.");
            }
            return own;
        }
        if (settings.isExtractive()) {
            return cap == null ? Summarizer.extractive() : Summarizer.extractive(cap);
        }
        List<String> models = List.of(beans.getBeanNamesForType(ChatModel.class));
        ChatModel model;
        if (named != null) {
            if (!models.contains(named)) {
                throw new MemoryPackConfigurationException("memory-pack.summarizer.model", named,
                        (beans.containsBean(named) ? "names a bean that is not a ChatModel" : "names no bean")
                                + "; the ChatModel beans are " + quoted(models),
                        "Set memory-pack.summarizer.model to the name of the ChatModel bean that writes the summaries"
                                + didYouMean(named, models) + ", remove it to use the application's only (or @Primary)"
                                + " ChatModel, or set memory-pack.summarizer.extractive=true to summarize offline.");
            }
            model = beans.getBean(named, ChatModel.class);
        } else {
            model = beans.getBeanProvider(ChatModel.class).getIfUnique();
            if (model == null) {
                throw new MemoryPackConfigurationException("memory-pack.strategy",
                        properties.getStrategy().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        "needs a summarizer, and there is no single ChatModel bean to write the summaries ("
                                + (models.isEmpty() ? "there is none" : "there are " + quoted(models)
                                + ", none @Primary") + ")",
                        "Set memory-pack.summarizer.model to the name of a ChatModel bean"
                                + (models.isEmpty() ? "" : " (one of " + quoted(models) + ")")
                                + ", set memory-pack.summarizer.extractive=true to summarize offline, or define a"
                                + " Summarizer bean.");
            }
        }
        Summarizer.LlmBuilder builder = Summarizer.llmBuilder().chatModel(model).tokenizer(tokenizer);
        ifSet(cap, builder::maxSummaryTokens);
        return builder.build();
    }

    private static String quoted(List<String> names) {
        return names.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", "));
    }

    /** The bean names differ from what was typed only in case: say which one was meant. */
    private static String didYouMean(String named, List<String> names) {
        return names.stream().filter(n -> n.equalsIgnoreCase(named)).findFirst()
                .map(n -> " (bean names are case-sensitive: did you mean '" + n + "'?)").orElse("");
    }

    private static void ifSet(Integer value, Consumer<Integer> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
