package io.github.memorypack.spring;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import io.github.memorypack.core.BufferChatMemory;
import io.github.memorypack.core.MemoryListener;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.SummaryBufferChatMemory;
import io.github.memorypack.core.SummaryChatMemory;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.WindowChatMemory;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;

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
        Integer cache = properties.getViewCacheSize();
        MemoryPackProperties.Summarizer summarizing = properties.getSummarizer();
        return switch (properties.getStrategy()) {
            case BUFFER -> {
                BufferChatMemory.Builder b = BufferChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer);
                all.forEach(b::listener);
                ifSet(contextTokens, b::contextTokens);
                ifSet(cache, b::viewCacheSize);
                yield b.provider();
            }
            case WINDOW -> {
                MemoryPackProperties.Window window = properties.getWindow();
                WindowChatMemory.Builder b = WindowChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer);
                all.forEach(b::listener);
                ifSet(cache, b::viewCacheSize);
                ifSet(window.getMaxMessages(), b::maxMessages);
                ifSet(window.getMaxTurns(), b::maxTurns);
                ifSet(window.getMaxTokens(), b::maxTokens);
                if (window.getMaxMessages() == null && window.getMaxTurns() == null && window.getMaxTokens() == null) {
                    b.maxMessages(DEFAULT_WINDOW_MESSAGES);
                }
                yield b.provider();
            }
            case SUMMARY -> {
                SummaryChatMemory.Builder b = SummaryChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer)
                        .summarizer(summarizer(properties, beans, tokenizer)).summarizerTimeout(summarizing.getTimeout());
                all.forEach(b::listener);
                ifSet(cache, b::viewCacheSize);
                ifSet(contextTokens, b::contextTokens);
                ifSet(summarizing.getMaxSummaryTokens(), b::maxSummaryTokens);
                ifSet(properties.getSummary().getFoldEveryTurns(), b::foldEveryTurns);
                yield b.provider();
            }
            case SUMMARY_BUFFER -> {
                MemoryPackProperties.SummaryBuffer buffer = properties.getSummaryBuffer();
                SummaryBufferChatMemory.Builder b = SummaryBufferChatMemory.builder().chatMemoryStore(store)
                        .tokenizer(tokenizer).summarizer(summarizer(properties, beans, tokenizer))
                        .summarizerTimeout(summarizing.getTimeout()).maxBufferTokens(buffer.getMaxBufferTokens());
                all.forEach(b::listener);
                ifSet(cache, b::viewCacheSize);
                ifSet(contextTokens, b::contextTokens);
                ifSet(summarizing.getMaxSummaryTokens(), b::maxSummaryTokens);
                ifSet(buffer.getLowWatermark(), b::lowWatermark);
                yield b.provider();
            }
        };
    }

    /**
     * The application's single (or primary) {@link Summarizer} bean; else the extractive summarizer, or the LLM one ({@link Summarizer#llmBuilder()}) on the named {@link ChatModel} bean, or on
     * the application's only (or primary) one.
     *
     * @throws IllegalStateException if a model is needed and none (or no unique one) is there, or a
     *                               Summarizer bean and the summarizer properties both choose one
     */
    static Summarizer summarizer(MemoryPackProperties properties, ListableBeanFactory beans,
                                 TokenCountEstimator tokenizer) {
        MemoryPackProperties.Summarizer settings = properties.getSummarizer();
        Integer cap = settings.getMaxSummaryTokens();
        Summarizer own = beans.getBeanProvider(Summarizer.class).getIfUnique();
        if (own != null) {
            if (settings.isExtractive() || (settings.getModel() != null && !settings.getModel().isBlank())) {
                throw new IllegalStateException("the application defines a Summarizer bean, and memory-pack.summarizer."
                        + (settings.isExtractive() ? "extractive=true" : "model=" + settings.getModel())
                        + " chooses another summarizer: remove one of them");
            }
            return own;
        }
        if (settings.isExtractive()) {
            return cap == null ? Summarizer.extractive() : Summarizer.extractive(cap);
        }
        ChatModel model;
        if (settings.getModel() != null && !settings.getModel().isBlank()) {
            try {
                model = beans.getBean(settings.getModel(), ChatModel.class);
            } catch (NoSuchBeanDefinitionException | BeanNotOfRequiredTypeException e) {
                throw new IllegalStateException("memory-pack.summarizer.model=" + settings.getModel()
                        + " names no ChatModel bean; the ChatModel beans are "
                        + java.util.Arrays.toString(beans.getBeanNamesForType(ChatModel.class)), e);
            }
        } else {
            model = beans.getBeanProvider(ChatModel.class).getIfUnique();
            if (model == null) {
                throw new IllegalStateException("memory-pack.strategy=" + properties.getStrategy().name()
                        .toLowerCase(java.util.Locale.ROOT).replace('_', '-') + " needs a summarizer, and there is no"
                        + " single ChatModel bean (found " + beans.getBeanNamesForType(ChatModel.class).length
                        + "): set memory-pack.summarizer.model to a ChatModel bean name, or"
                        + " memory-pack.summarizer.extractive=true to summarize offline");
            }
        }
        Summarizer.LlmBuilder builder = Summarizer.llmBuilder().chatModel(model).tokenizer(tokenizer);
        ifSet(cap, builder::maxSummaryTokens);
        return builder.build();
    }

    private static void ifSet(Integer value, Consumer<Integer> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
