package io.github.memorypack.integration;

import dev.langchain4j.memory.chat.ChatMemoryProvider;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.ConcurrentSends;
import io.github.memorypack.core.MemoryOptions;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.memorymd.MemoryMdChatMemory;
import io.github.memorypack.samples.TaskBriefStrategy;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.window.WindowChatMemory;

/**
 * The memories under test, each configured as a user would for a small conversation: limits small
 * enough that the shop conversation of {@link Shop} is cut or folded next to its tool calls, and the
 * offline {@link Summarizer#extractive(int) extractive summarizer} folding inline, so every run is the same.
 */
enum Strategy {

    BUFFER("buffer", false, true) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return BufferChatMemory.builder().chatMemoryStore(store).concurrentSends(sends).provider();
        }
    },
    WINDOW_MESSAGES("window, " + Strategy.WINDOW_MESSAGES_LIMIT + " messages", false, false) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return WindowChatMemory.builder().chatMemoryStore(store).maxMessages(WINDOW_MESSAGES_LIMIT)
                    .concurrentSends(sends).provider();
        }
    },
    WINDOW_TOKENS("window, " + Strategy.WINDOW_TOKENS_LIMIT + " tokens", false, false) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return WindowChatMemory.builder().chatMemoryStore(store).maxTokens(WINDOW_TOKENS_LIMIT)
                    .concurrentSends(sends).provider();
        }
    },
    SUMMARY("summary, folds every turn", true, false) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return SummaryChatMemory.builder().chatMemoryStore(store).summarizer(Summarizer.extractive())
                    .concurrentSends(sends).provider();
        }
    },
    SUMMARY_BUFFER("summary-buffer, " + Strategy.SUMMARY_BUFFER_LIMIT + " tokens", true, false) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return SummaryBufferChatMemory.builder().chatMemoryStore(store).summarizer(Summarizer.extractive())
                    .maxBufferTokens(SUMMARY_BUFFER_LIMIT).concurrentSends(sends).provider();
        }
    },
    MEMORY_MD("memory-md", false, true) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return id -> MemoryMdChatMemory.builder().id(id).chatMemoryStore(store).concurrentSends(sends).build();
        }
    },
    /** A third party's strategy (the samples' {@link TaskBriefStrategy}, public SPI only) through the same suites. */
    TASK_BRIEF("own strategy: the first turn + " + Strategy.WINDOW_MESSAGES_LIMIT + " messages", false, false) {
        @Override
        ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends) {
            return MemoryOptions.builder().chatMemoryStore(store).concurrentSends(sends).build()
                    .provider(new TaskBriefStrategy(1, WINDOW_MESSAGES_LIMIT));
        }
    };

    /**
     * At the first request of the turn after the warm-up: system message, the coffee tool turn, the
     * introduction and the new question; the tea tool turn is cut (turns of 4, 4 and 2 messages).
     */
    static final int WINDOW_MESSAGES_LIMIT = 8;
    /** The same cut in tokens (o200k: tool turns of about 45 tokens, the introduction 21, the system message 10). */
    static final int WINDOW_TOKENS_LIMIT = 100;
    /** Folds the tea tool turn during the warm-up (at the coffee turn: 90 tokens unsummarized), more turns later. */
    static final int SUMMARY_BUFFER_LIMIT = 80;

    private final String label;
    private final boolean summarizes;
    private final boolean showsEverything;

    Strategy(String label, boolean summarizes, boolean showsEverything) {
        this.label = label;
        this.summarizes = summarizes;
        this.showsEverything = showsEverything;
    }

    /** One memory per memory id, all on {@code store}, as {@code AiServices.chatMemoryProvider(…)} takes it. */
    ChatMemoryProvider provider(SessionStore store) {
        return provider(store, ConcurrentSends.queue());
    }

    /** {@link #provider(SessionStore)} with a setting for two requests at once on one session. */
    abstract ChatMemoryProvider provider(SessionStore store, ConcurrentSends sends);

    /** True if every message stays in the view verbatim (nothing is cut or folded). */
    boolean showsEverything() {
        return showsEverything;
    }

    /** True if the memory folds a turn into the summary as soon as it ends (so the newest turn too). */
    boolean foldsNewestTurn() {
        return this == SUMMARY;
    }

    /** True if the memory keeps a summary in the session state. */
    boolean summarizes() {
        return summarizes;
    }

    @Override
    public String toString() {
        return label;
    }
}
