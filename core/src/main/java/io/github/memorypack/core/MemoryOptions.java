package io.github.memorypack.core;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * What every Memory Pack memory shares, whatever its strategy: the store, the tokenizer, the
 * listeners, retention, token accounting and calibration, the cost rules (tool-result previews,
 * image notes), the open-turn timeout, the view cache, the clock, what happens when two requests run
 * at once, and how summaries are written and shown. Immutable and thread-safe: build it once and
 * give it to as many memory builders ({@code WindowChatMemory.builder().options(options)}) or
 * {@linkplain #provider strategies} as share it. Every option has a default.
 *
 * <p>{@link #memory} and {@link #provider} turn a {@link MemoryStrategy} into a LangChain4j
 * {@link ChatMemory}: the strategy decides how much of the session to show, the options and the
 * engine everything else.
 *
 * <pre>{@code
 * MemoryOptions options = MemoryOptions.builder()
 *         .chatMemoryStore(store).listener(MemoryListener.logging()).calibrateWith(accounting).build();
 * ChatMemoryProvider memories = WindowChatMemory.builder().options(options).maxMessages(20).provider();
 * }</pre>
 */
@Experimental
public final class MemoryOptions {

    /** The memory id a builder uses when none is set, as in LangChain4j. */
    public static final String DEFAULT_ID = "default";
    /** After this long without a new message an open turn is taken as abandoned, unless set otherwise. */
    public static final Duration DEFAULT_OPEN_TURN_TIMEOUT = Duration.ofMinutes(10);
    /** Views kept per set of options unless {@link Builder#viewCacheSize} says otherwise (one cache for all such options). */
    public static final int DEFAULT_VIEW_CACHE_SIZE = ViewCache.DEFAULT_CAPACITY;
    /** How long one summarizer call may take unless set otherwise. */
    public static final Duration DEFAULT_SUMMARIZER_TIMEOUT = Duration.ofSeconds(60);
    /** Summary cap when neither the options nor the summarizer set one. */
    public static final int DEFAULT_MAX_SUMMARY_TOKENS = 1_000;

    /** Shared by every memory whose options set no view cache of their own, so the total stays bounded. */
    private static final ViewCache SHARED_VIEWS = new ViewCache(ViewCache.DEFAULT_CAPACITY);
    private static final MemoryOptions DEFAULTS = new Builder().build();

    // a copy of the builder's settings, never handed out (toBuilder gives a copy of it)
    private final Builder settings;
    private final MemoryListener listener;
    // makes every memory's engine, sharing what a provider's memories share
    private final Engines engines;

    private MemoryOptions(Builder b) {
        this.settings = b.copy();
        List<MemoryListener> listeners = settings.listeners;
        this.listener = listeners.isEmpty() ? MemoryListener.logging() : Listeners.combined(listeners);
        this.engines = new Engines(settings.tokenizer, settings.toolResultPreviewTokens, settings.keepImagesInNewest,
                settings.placement);
    }

    /**
     * The options with every default: a new in-memory store per memory (one per provider), the
     * logging listener, keep-all retention, no cost rules, summaries as their own system message.
     *
     * @return the default options
     */
    public static MemoryOptions defaults() {
        return DEFAULTS;
    }

    /**
     * A builder; every option has a default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these options, to change some of them.
     *
     * @return a new builder with these options
     */
    public Builder toBuilder() {
        return settings.copy();
    }

    /**
     * The store set with {@link Builder#chatMemoryStore}, if any.
     *
     * @return the store, if one was set
     */
    public Optional<SessionStore> store() {
        return Optional.ofNullable(settings.store);
    }

    /**
     * The tokenizer set with {@link Builder#tokenizer}, if any.
     *
     * @return the tokenizer, if one was set
     */
    public Optional<TokenCountEstimator> tokenizer() {
        return Optional.ofNullable(settings.tokenizer);
    }

    /**
     * The summarizer set with {@link Builder#summarizer}, if any.
     *
     * @return the summarizer, if one was set
     */
    public Optional<Summarizer> summarizer() {
        return Optional.ofNullable(settings.summarizer);
    }

    /**
     * The clock.
     *
     * @return the clock
     */
    public Clock clock() {
        return settings.clock;
    }

    /**
     * A memory for {@code memoryId} that shows what {@code strategy} plans, with these options: a
     * LangChain4j {@link ChatMemory} whose {@code add} appends (one atomic append per call),
     * {@code messages()} is the strategy's view under the rules {@link MemoryStrategy} lists,
     * {@code set} and {@code clear} are LangChain4j's round trips applied without loss, and which
     * folds into the summary after each closed turn when a {@link Builder#summarizer} is set.
     * Without a store set, the memory gets a new {@link InMemorySessionStore} of its own.
     *
     * @param strategy the strategy
     * @param memoryId the memory id: any non-null object (see {@link SessionIds})
     * @return a new memory
     * @throws IllegalArgumentException if {@code strategy} or {@code memoryId} is null, or the
     *                                  strategy's name is blank
     */
    public ChatMemory memory(MemoryStrategy strategy, Object memoryId) {
        Engines.check(strategy);
        Checks.notNull(memoryId, "memoryId");
        return withStore().engine(strategy, memoryId);
    }

    /**
     * A provider for {@code AiServices.chatMemoryProvider(…)}: one {@link #memory} per memory id, all
     * with these options and one store (without a store set, one new {@link InMemorySessionStore}
     * for all of them, made here).
     *
     * @param strategy the strategy
     * @return the provider
     * @throws IllegalArgumentException if {@code strategy} is null or its name is blank
     */
    public ChatMemoryProvider provider(MemoryStrategy strategy) {
        Engines.check(strategy);
        MemoryOptions resolved = withStore();
        return memoryId -> resolved.engine(strategy, Checks.notNull(memoryId, "memoryId"));
    }

    /**
     * These options with {@code store} as their store: what a memory builder's {@code chatMemoryStore}
     * does with the options given to it. A {@link SessionStore} is used as it is, any other
     * LangChain4j store runs through {@link #sessionStore(ChatMemoryStore)}.
     *
     * @param store the store
     * @return options with that store (these options, when they have that store already)
     * @throws IllegalArgumentException if {@code store} is null
     * @throws IllegalStateException    if these options have a different store: set it in one place
     */
    public MemoryOptions withChatMemoryStore(ChatMemoryStore store) {
        Checks.notNull(store, "chatMemoryStore");
        if (settings.store == store) {
            return this;
        }
        if (settings.store != null) {
            throw new IllegalStateException("the store is set twice, with chatMemoryStore(" + store + ") and in options("
                    + settings.store + "): set it in one place");
        }
        return toBuilder().chatMemoryStore(store).build();
    }

    /**
     * A session store over any LangChain4j {@link ChatMemoryStore}: {@code store} itself when it is
     * already a {@link SessionStore}, otherwise an adapter (timestamps from the system UTC clock) that
     * keeps the log and its bookkeeping in one hidden record among the messages that store holds.
     * {@link Builder#chatMemoryStore} and the memories' builders do this themselves; call it to use
     * such a store directly. The adapter keeps the {@link SessionStore} rules within what a plain
     * {@code ChatMemoryStore} allows: every write rewrites the session's whole list; appends are
     * atomic only among the callers of one adapter instance (two processes, or two adapters over one
     * store, can overwrite each other); {@link SessionStore#sessions()} knows only the sessions the
     * instance has seen; a list changed behind its back so that messages and record no longer match
     * makes it throw {@link StoreException}. Use a native backend (file, Redis, JDBC) when these matter.
     *
     * @param store the store to run on
     * @return {@code store} itself if it is a {@code SessionStore}, else a new adapter over it
     * @throws IllegalArgumentException if {@code store} is null
     */
    public static SessionStore sessionStore(ChatMemoryStore store) {
        return sessionStore(store, Clock.systemUTC());
    }

    /**
     * {@link #sessionStore(ChatMemoryStore)} with the adapter's entry timestamps taken from {@code clock}.
     *
     * @param store the store to run on
     * @param clock where the adapter's entry timestamps come from (unused when {@code store} is a
     *              {@code SessionStore}, which has its own)
     * @return {@code store} itself if it is a {@code SessionStore}, else a new adapter over it
     * @throws IllegalArgumentException if {@code store} or {@code clock} is null
     */
    public static SessionStore sessionStore(ChatMemoryStore store, Clock clock) {
        if (store == null || clock == null) {
            throw new IllegalArgumentException("store and clock must not be null");
        }
        return store instanceof SessionStore sessionStore ? sessionStore : ChatMemoryStoreAdapter.of(store, clock);
    }

    /**
     * The summary a view of {@code memory} shows now, if any: none before the first fold, and none
     * once the conversation was cleared after it.
     *
     * @param memory a memory made by {@link #memory} or {@link #provider}
     * @return the summary, if any
     * @throws IllegalArgumentException if {@code memory} was not made by {@code MemoryOptions}
     */
    public static Optional<Summary> summaryOf(ChatMemory memory) {
        if (!(memory instanceof MemoryEngine)) {
            throw new IllegalArgumentException("not a memory made by MemoryOptions: " + memory);
        }
        return MemoryEngine.summaryOf(memory);
    }

    /** The engine of one memory; these options have a store. */
    MemoryEngine engine(MemoryStrategy strategy, Object memoryId) {
        return engines.engine(this, strategy, memoryId);
    }

    /** These options, or with a new in-memory store when none is set. */
    private MemoryOptions withStore() {
        return settings.store != null ? this : toBuilder().chatMemoryStore(InMemorySessionStore.create()).build();
    }

    SessionStore sessionStore() {
        return settings.store;
    }

    /** The listeners added, as one that never throws; {@link MemoryListener#logging()} when none was added. */
    MemoryListener listener() {
        return listener;
    }

    Retention retention() {
        return settings.retention;
    }

    Duration openTurnTimeout() {
        return settings.openTurnTimeout;
    }

    ViewCache viewCache() {
        return settings.viewCache;
    }

    /** The ledger, or {@code null}. */
    TokenAccounting accounting() {
        return settings.accounting;
    }

    boolean calibrates() {
        return settings.calibrate;
    }

    ConcurrentSends concurrentSends() {
        return settings.concurrentSends;
    }

    /** The summary cap set with {@link Builder#maxSummaryTokens}, or {@code null} (see {@link Folds}). */
    Integer maxSummaryTokens() {
        return settings.maxSummaryTokens;
    }

    Summarizer summarizerOrNull() {
        return settings.summarizer;
    }

    Duration summarizerTimeout() {
        return settings.summarizerTimeout;
    }

    /** The executor folds run on, or {@code null} to fold inside {@code add()}. */
    Executor foldExecutor() {
        return settings.foldExecutor;
    }

    /**
     * The options set, for logs.
     *
     * @return a short description
     */
    @Override
    public String toString() {
        Builder s = settings;
        return "MemoryOptions{store=" + s.store + ", tokenizer=" + s.tokenizer + ", listeners=" + s.listeners.size()
                + ", retention=" + s.retention + ", concurrentSends=" + s.concurrentSends
                + (s.summarizer == null ? "" : ", summarizer=" + s.summarizer) + '}';
    }

    /** Builds {@link MemoryOptions}; every option has a default, and every setter checks its value at once. */
    public static final class Builder {

        private SessionStore store;
        private TokenCountEstimator tokenizer;
        private final List<MemoryListener> listeners = new ArrayList<>();
        private Retention retention = Retention.keepAll();
        private int toolResultPreviewTokens;
        private int keepImagesInNewest = -1;
        private Clock clock = Clock.systemUTC();
        private Duration openTurnTimeout = DEFAULT_OPEN_TURN_TIMEOUT;
        private ViewCache viewCache = SHARED_VIEWS;
        private SummaryMessage.Placement placement = SummaryMessage.Placement.SYSTEM_MESSAGE;
        private TokenAccounting accounting;
        private boolean calibrate;
        private ConcurrentSends concurrentSends = ConcurrentSends.queue();
        private Summarizer summarizer;
        private Integer maxSummaryTokens;
        private Duration summarizerTimeout = DEFAULT_SUMMARIZER_TIMEOUT;
        private Executor foldExecutor;

        private Builder() {
        }

        /**
         * The store: a {@link SessionStore} is used as it is, any other LangChain4j {@link ChatMemoryStore}
         * runs through {@link #sessionStore(ChatMemoryStore)}. Default: a new {@link InMemorySessionStore}
         * for each memory, one for all memories of a provider.
         *
         * @param store the store
         * @return this builder
         * @throws IllegalArgumentException if {@code store} is null
         */
        public Builder chatMemoryStore(ChatMemoryStore store) {
            this.store = sessionStore(Checks.notNull(store, "chatMemoryStore"));
            return this;
        }

        /**
         * Counts each message once, when it is added; default {@link Tokenizers#o200k()} where a
         * strategy or a cost rule needs counts.
         *
         * @param tokenizer the token counter
         * @return this builder
         * @throws IllegalArgumentException if {@code tokenizer} is null
         */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            this.tokenizer = Checks.notNull(tokenizer, "tokenizer");
            return this;
        }

        /**
         * Adds a listener told about views, overflows and folds (see {@link MemoryListener}); a
         * listener that throws is logged and ignored. Default: {@link MemoryListener#logging()}, used
         * only while no listener is added.
         *
         * @param listener the listener
         * @return this builder
         * @throws IllegalArgumentException if {@code listener} is null
         */
        public Builder listener(MemoryListener listener) {
            listeners.add(Checks.notNull(listener, "listener"));
            return this;
        }

        /**
         * What may be trimmed from the log for good; default {@link Retention#keepAll()}.
         *
         * @param retention the retention policy
         * @return this builder
         * @throws IllegalArgumentException if {@code retention} is null
         */
        public Builder retention(Retention retention) {
            this.retention = Checks.notNull(retention, "retention");
            return this;
        }

        /**
         * Records the memories' requests and folds in {@code accounting} (see {@link TokenAccounting}):
         * a memory binds its session for the ledger's listener each time it computes a view.
         *
         * @param accounting the ledger
         * @return this builder
         * @throws IllegalArgumentException if {@code accounting} is null
         */
        public Builder tokenAccounting(TokenAccounting accounting) {
            this.accounting = Checks.notNull(accounting, "tokenAccounting");
            return this;
        }

        /**
         * {@link #tokenAccounting} and calibration: every token limit of a memory (a ceiling, a fold
         * threshold) is applied to the estimate multiplied by the session's
         * {@link TokenAccounting#calibrationFactor} (reported / estimated), so a tokenizer that
         * undercounts what the provider bills does not overrun a budget.
         *
         * @param accounting the ledger
         * @return this builder
         * @throws IllegalArgumentException if {@code accounting} is null
         */
        public Builder calibrateWith(TokenAccounting accounting) {
            tokenAccounting(accounting);
            this.calibrate = true;
            return this;
        }

        /**
         * Shows tool results of more than {@code maxTokens} tokens as a short preview in every closed
         * turn (one the model has answered); the log keeps the full result. Off by default.
         *
         * @param maxTokens the largest tool result shown in full, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code maxTokens < 1}
         */
        public Builder toolResultPreviews(int maxTokens) {
            this.toolResultPreviewTokens = Checks.atLeast(maxTokens, 1, "toolResultPreviews maxTokens");
            return this;
        }

        /**
         * Keeps images only in the newest {@code messages} messages and in open turns; older ones
         * become a short note. Off by default.
         *
         * @param messages how many of the newest messages keep their images (at least 0)
         * @return this builder
         * @throws IllegalArgumentException if {@code messages < 0}
         */
        public Builder keepImagesInNewest(int messages) {
            this.keepImagesInNewest = Checks.atLeast(messages, 0, "keepImagesInNewest");
            return this;
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
        public Builder concurrentSends(ConcurrentSends concurrentSends) {
            this.concurrentSends = Checks.notNull(concurrentSends, "concurrentSends");
            return this;
        }

        /**
         * After this long without a new message, an open turn (a request that never got its answer)
         * is taken as abandoned: it may be cut or folded, and a tool call in it without a result is
         * repaired. Default {@link #DEFAULT_OPEN_TURN_TIMEOUT 10 minutes}.
         *
         * @param timeout the age, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is null, zero or negative
         */
        public Builder openTurnTimeout(Duration timeout) {
            this.openTurnTimeout = Checks.positive(timeout, "openTurnTimeout");
            return this;
        }

        /**
         * How many views (one per session) the memories of these options keep in memory to extend the
         * next one cheaply; 0 keeps none. Default: a cache of {@value #DEFAULT_VIEW_CACHE_SIZE} shared
         * by every memory whose options set none.
         *
         * @param views how many views to cache, at least 0
         * @return this builder
         * @throws IllegalArgumentException if {@code views < 0}
         */
        public Builder viewCacheSize(int views) {
            this.viewCache = new ViewCache(Checks.atLeast(views, 0, "viewCacheSize"));
            return this;
        }

        /**
         * The clock for open-turn ages and summary timestamps; default the system UTC clock.
         *
         * @param clock the clock
         * @return this builder
         * @throws IllegalArgumentException if {@code clock} is null
         */
        public Builder clock(Clock clock) {
            this.clock = Checks.notNull(clock, "clock");
            return this;
        }

        /**
         * Writes the summaries of a strategy that folds ({@link MemoryStrategy#turnsToFold}); without
         * one, no memory folds. None by default (the summary memories' builders require one).
         *
         * @param summarizer the summarizer
         * @return this builder
         * @throws IllegalArgumentException if {@code summarizer} is null
         */
        public Builder summarizer(Summarizer summarizer) {
            this.summarizer = Checks.notNull(summarizer, "summarizer");
            return this;
        }

        /**
         * Longest summary accepted, in tokens; a longer one is rejected as a failure. Default: the
         * summarizer's own cap for {@link Summarizer#llm} and {@link Summarizer#extractive()}, else
         * {@value #DEFAULT_MAX_SUMMARY_TOKENS}.
         *
         * @param maxSummaryTokens the cap on the summary, in tokens (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code maxSummaryTokens < 1}
         */
        public Builder maxSummaryTokens(int maxSummaryTokens) {
            this.maxSummaryTokens = Checks.atLeast(maxSummaryTokens, 1, "maxSummaryTokens");
            return this;
        }

        /**
         * How long one summarizer call may take before the fold fails (reported as
         * {@link SummarizationException.Reason#TIMED_OUT}; nothing changes). Bounds how long an
         * inline fold keeps {@code add()} waiting. Default 60 seconds.
         *
         * @param timeout the longest one summarizer call may take, positive
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is null, zero or negative
         */
        public Builder summarizerTimeout(Duration timeout) {
            this.summarizerTimeout = Checks.positive(timeout, "summarizerTimeout");
            return this;
        }

        /**
         * Folds on this executor instead of inside {@code add()}: the turn never waits for the
         * summarizer, and until the new summary is stored the view is the old one plus every
         * unfolded turn. Default: inline.
         *
         * @param executor runs the folds
         * @return this builder
         * @throws IllegalArgumentException if {@code executor} is null
         */
        public Builder foldExecutor(Executor executor) {
            this.foldExecutor = Checks.notNull(executor, "foldExecutor");
            return this;
        }

        /**
         * Where the summary goes in a request; default {@link SummaryMessage.Placement#SYSTEM_MESSAGE}.
         *
         * @param placement where the summary goes
         * @return this builder
         * @throws IllegalArgumentException if {@code placement} is null
         */
        public Builder summaryPlacement(SummaryMessage.Placement placement) {
            this.placement = Checks.notNull(placement, "summaryPlacement");
            return this;
        }

        /** A copy of these settings. */
        private Builder copy() {
            Builder b = new Builder();
            b.store = store;
            b.tokenizer = tokenizer;
            b.listeners.addAll(listeners);
            b.retention = retention;
            b.toolResultPreviewTokens = toolResultPreviewTokens;
            b.keepImagesInNewest = keepImagesInNewest;
            b.clock = clock;
            b.openTurnTimeout = openTurnTimeout;
            b.viewCache = viewCache;
            b.placement = placement;
            b.accounting = accounting;
            b.calibrate = calibrate;
            b.concurrentSends = concurrentSends;
            b.summarizer = summarizer;
            b.maxSummaryTokens = maxSummaryTokens;
            b.summarizerTimeout = summarizerTimeout;
            b.foldExecutor = foldExecutor;
            return b;
        }

        /**
         * The options.
         *
         * @return immutable options with these settings
         */
        public MemoryOptions build() {
            return new MemoryOptions(this);
        }
    }
}
