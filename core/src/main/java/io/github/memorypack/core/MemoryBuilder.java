package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;

/**
 * The builder options every memory strategy shares; each strategy's {@code Builder} extends it and
 * adds its own. Values are checked in the strategy's {@code build()}.
 *
 * @param <B> the strategy's builder type, returned by every option for chaining
 */
public abstract class MemoryBuilder<B extends MemoryBuilder<B>> {

    /** What the options set; strategies read it in {@code build()}. */
    protected final MemorySettings settings = new MemorySettings();

    protected MemoryBuilder() {
    }

    /** This builder, as its strategy's type. */
    protected abstract B self();

    /** The memory id (the session id, validated in {@code build()}); default {@code "default"}. */
    public B id(Object id) {
        settings.id(id);
        return self();
    }

    /** The store holding the log; default a new {@link io.github.memorypack.core.InMemorySessionStore}. */
    public B store(SessionStore store) {
        settings.store(store);
        return self();
    }

    /**
     * Counts each message once, when it is added. Default: {@link Tokenizers#o200k()} when the memory
     * needs counts (a token limit, a context size, tool-result previews); otherwise no message is
     * tokenized unless a tokenizer is set here.
     */
    public B tokenizer(TokenCountEstimator tokenizer) {
        settings.tokenizer(tokenizer);
        return self();
    }

    /** Told when a view is over its limit; default {@link OverflowListener#logging()}. */
    public B overflowListener(OverflowListener listener) {
        settings.overflowListener(listener);
        return self();
    }

    /**
     * Shows tool results of more than {@code maxTokens} tokens as a short preview in every turn but
     * the newest ({@link ViewRules#DEFAULT_TOOL_RESULT_PREVIEW_TOKENS} is a good value); the log
     * keeps the full result. Off by default.
     */
    public B toolResultPreviews(int maxTokens) {
        settings.toolResultPreviews(maxTokens);
        return self();
    }

    /** Keeps images only in the newest {@code messages} messages; older ones become a short note. Off by default. */
    public B keepImagesInNewest(int messages) {
        settings.keepImagesInNewest(messages);
        return self();
    }
}
