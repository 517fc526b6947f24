package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.time.Clock;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * What every memory builder shares, written once: the memory id, the store and the
 * {@link MemoryOptions} (tokenizer, listeners, retention, accounting, cost rules, concurrent sends,
 * open-turn timeout, view cache, clock). Each memory's {@code Builder} (window, buffer, summary,
 * summary-buffer, MEMORY.md) extends it and adds only its own limits; a builder of your own for a
 * {@link MemoryStrategy} can do the same. Every setter checks its value at once and returns the
 * builder; every option has a default. Not thread-safe, like any builder.
 *
 * @param <B> the concrete builder, returned by every setter
 */
@Experimental
public abstract class MemoryBuilder<B extends MemoryBuilder<B>> {

    private Object id = MemoryOptions.DEFAULT_ID;
    private ChatMemoryStore store;
    private MemoryOptions options = MemoryOptions.defaults();

    /** A builder with every option at its default. */
    protected MemoryBuilder() {
    }

    /**
     * The memory id: any non-null object (see {@link SessionIds}); default {@code "default"}.
     *
     * @param id the memory id: any non-null object
     * @return this builder
     * @throws IllegalArgumentException if {@code id} is null
     */
    public B id(Object id) {
        Checks.notNull(id, "id");
        SessionIds.of(id); // any non-null id maps to a session id; checked here so build() cannot fail on it
        this.id = id;
        return self();
    }

    /**
     * The store: a {@link SessionStore} is used as it is, any other LangChain4j {@link ChatMemoryStore}
     * runs through {@link MemoryOptions#sessionStore(ChatMemoryStore)}. Default: a new {@link InMemorySessionStore}.
     *
     * @param store the store
     * @return this builder
     * @throws IllegalArgumentException if {@code store} is null
     */
    public B chatMemoryStore(ChatMemoryStore store) {
        this.store = Checks.notNull(store, "chatMemoryStore");
        return self();
    }

    /**
     * The options this memory shares with other memories (store, tokenizer, listeners, retention,
     * accounting, cost rules, concurrent sends, summaries, ...): replaces the shared options set on
     * this builder before; the shared setters after it change them. A store set both here and with
     * {@link #chatMemoryStore} fails {@code build()}.
     *
     * @param options the options
     * @return this builder
     * @throws IllegalArgumentException if {@code options} is null
     */
    public B options(MemoryOptions options) {
        this.options = Checks.notNull(options, "options");
        return self();
    }

    /**
     * Counts each message once, when it is added; default {@link Tokenizers#o200k()} where counts are
     * needed.
     *
     * @param tokenizer the token counter
     * @return this builder
     */
    public B tokenizer(TokenCountEstimator tokenizer) {
        return change(b -> b.tokenizer(tokenizer));
    }

    /**
     * Adds a listener told about views, overflows and folds (see {@link MemoryListener}). Default:
     * {@link MemoryListener#logging()}, used only while no listener is added.
     *
     * @param listener the listener
     * @return this builder
     */
    public B listener(MemoryListener listener) {
        return change(b -> b.listener(listener));
    }

    /**
     * What may be trimmed from the log for good; default {@link Retention#keepAll()}.
     *
     * @param retention the retention policy
     * @return this builder
     */
    public B retention(Retention retention) {
        return change(b -> b.retention(retention));
    }

    /**
     * Records this memory's requests and folds in {@code accounting} (see {@link TokenAccounting}):
     * the memory binds its session for the ledger's listener each time it computes a view.
     *
     * @param accounting the ledger
     * @return this builder
     */
    public B tokenAccounting(TokenAccounting accounting) {
        return change(b -> b.tokenAccounting(accounting));
    }

    /**
     * {@link #tokenAccounting} and calibration: every token limit of this memory is applied to our
     * estimate multiplied by the session's {@link TokenAccounting#calibrationFactor} (reported /
     * estimated), so a tokenizer that undercounts what the provider bills does not overrun a budget.
     *
     * @param accounting the ledger
     * @return this builder
     */
    public B calibrateWith(TokenAccounting accounting) {
        return change(b -> b.calibrateWith(accounting));
    }

    /**
     * Shows tool results of more than {@code maxTokens} tokens as a short preview in every closed
     * turn (one the model has answered); the log keeps the full result. Off by default.
     *
     * @param maxTokens the largest tool result shown in full, in tokens (at least 1)
     * @return this builder
     * @throws IllegalArgumentException if {@code maxTokens < 1}
     */
    public B toolResultPreviews(int maxTokens) {
        return change(b -> b.toolResultPreviews(maxTokens));
    }

    /**
     * Keeps images only in the newest {@code messages} messages and in open turns; older ones
     * become a short note. Off by default.
     *
     * @param messages how many of the newest messages keep their images (at least 0)
     * @return this builder
     * @throws IllegalArgumentException if {@code messages < 0}
     */
    public B keepImagesInNewest(int messages) {
        return change(b -> b.keepImagesInNewest(messages));
    }

    /**
     * What happens when a request starts on a session while another request's turn in it still
     * runs: {@link ConcurrentSends#queue()} (the default: wait up to
     * {@link ConcurrentSends#DEFAULT_MAX_WAIT} for it to close, then continue from it),
     * {@link ConcurrentSends#refuse()} ({@link SessionBusyException} before any model call) or
     * {@link ConcurrentSends#branch()} (run beside it from the last closed turn). Under every
     * setting no request's view holds another request's running turn.
     *
     * @param concurrentSends the setting
     * @return this builder
     * @throws IllegalArgumentException if {@code concurrentSends} is null
     */
    public B concurrentSends(ConcurrentSends concurrentSends) {
        return change(b -> b.concurrentSends(concurrentSends));
    }

    /**
     * After this long without a new message, an open turn (a request that never got its answer)
     * is taken as abandoned: it may be cut, and a tool call in it without a result is repaired.
     * Default 10 minutes.
     *
     * @param timeout the age, positive
     * @return this builder
     */
    public B openTurnTimeout(Duration timeout) {
        return change(b -> b.openTurnTimeout(timeout));
    }

    /**
     * How many views (one per session) this builder's memories keep in memory to extend the
     * next one cheaply; 0 keeps none. Default: a cache of {@value MemoryOptions#DEFAULT_VIEW_CACHE_SIZE}
     * shared by every memory that sets none.
     *
     * @param views how many views to cache, at least 0
     * @return this builder
     */
    public B viewCacheSize(int views) {
        return change(b -> b.viewCacheSize(views));
    }

    /**
     * The clock for open-turn ages; default the system UTC clock.
     *
     * @param clock the clock
     * @return this builder
     */
    public B clock(Clock clock) {
        return change(b -> b.clock(clock));
    }

    /**
     * Changes the shared options, for a builder's own setters of options that live in
     * {@link MemoryOptions} (the summarizer settings, say).
     *
     * @param change applied to a copy of the options set so far
     * @return this builder
     */
    protected final B change(UnaryOperator<MemoryOptions.Builder> change) {
        options = change.apply(options.toBuilder()).build();
        return self();
    }

    /**
     * The memory id set ({@code "default"} if none).
     *
     * @return the memory id
     */
    protected final Object memoryId() {
        return id;
    }

    /**
     * The options to build with: the shared options, with the store set by {@link #chatMemoryStore},
     * if one was.
     *
     * @return the options
     * @throws IllegalStateException if a store was set both in the options and with {@link #chatMemoryStore}
     */
    protected final MemoryOptions resolvedOptions() {
        return store == null ? options : options.withChatMemoryStore(store);
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
