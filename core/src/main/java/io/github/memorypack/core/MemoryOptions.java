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
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private final SessionStore store;
    private final TokenCountEstimator tokenizer;
    private final List<MemoryListener> listeners;
    private final MemoryListener listener;
    private final Retention retention;
    private final int toolResultPreviewTokens;
    private final int keepImagesInNewest;
    private final Clock clock;
    private final Duration openTurnTimeout;
    private final ViewCache viewCache;
    private final SummaryMessage.Placement placement;
    private final TokenAccounting accounting;
    private final boolean calibrate;
    private final ConcurrentSends concurrentSends;
    private final Summarizer summarizer;
    private final Integer maxSummaryTokens;
    private final Duration summarizerTimeout;
    private final Executor foldExecutor;
    // made once and shared by every memory of these options (a provider's memories share them)
    private volatile ViewRules rules;
    private volatile SessionMemory.Shared shared;

    private MemoryOptions(Builder b) {
        this.store = b.store;
        this.tokenizer = b.tokenizer;
        this.listeners = List.copyOf(b.listeners);
        this.listener = listeners.isEmpty() ? MemoryListener.logging() : combined(listeners);
        this.retention = b.retention;
        this.toolResultPreviewTokens = b.toolResultPreviewTokens;
        this.keepImagesInNewest = b.keepImagesInNewest;
        this.clock = b.clock;
        this.openTurnTimeout = b.openTurnTimeout;
        this.viewCache = b.viewCache;
        this.placement = b.placement;
        this.accounting = b.accounting;
        this.calibrate = b.calibrate;
        this.concurrentSends = b.concurrentSends;
        this.summarizer = b.summarizer;
        this.maxSummaryTokens = b.maxSummaryTokens;
        this.summarizerTimeout = b.summarizerTimeout;
        this.foldExecutor = b.foldExecutor;
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
     * The store set with {@link Builder#chatMemoryStore}, if any.
     *
     * @return the store, if one was set
     */
    public Optional<SessionStore> store() {
        return Optional.ofNullable(store);
    }

    /**
     * The tokenizer set with {@link Builder#tokenizer}, if any.
     *
     * @return the tokenizer, if one was set
     */
    public Optional<TokenCountEstimator> tokenizer() {
        return Optional.ofNullable(tokenizer);
    }

    /**
     * The summarizer set with {@link Builder#summarizer}, if any.
     *
     * @return the summarizer, if one was set
     */
    public Optional<Summarizer> summarizer() {
        return Optional.ofNullable(summarizer);
    }

    /**
     * The clock.
     *
     * @return the clock
     */
    public Clock clock() {
        return clock;
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
        checked(strategy);
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
        checked(strategy);
        MemoryOptions resolved = withStore();
        return memoryId -> resolved.engine(strategy, Checks.notNull(memoryId, "memoryId"));
    }

    /**
     * These options with {@code store} as their store: what a memory builder's {@code chatMemoryStore}
     * does with the options given to it. A {@link SessionStore} is used as it is, any other
     * LangChain4j store runs through {@link SessionStore#of(ChatMemoryStore)}.
     *
     * @param store the store
     * @return options with that store (these options, when they have that store already)
     * @throws IllegalArgumentException if {@code store} is null
     * @throws IllegalStateException    if these options have a different store: set it in one place
     */
    public MemoryOptions withChatMemoryStore(ChatMemoryStore store) {
        Checks.notNull(store, "chatMemoryStore");
        if (this.store == store) {
            return this;
        }
        if (this.store != null) {
            throw new IllegalStateException("the store is set twice, with chatMemoryStore(" + store + ") and in options("
                    + this.store + "): set it in one place");
        }
        return toBuilder().chatMemoryStore(store).build();
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

    private static void checked(MemoryStrategy strategy) {
        Checks.notNull(strategy, "strategy");
        String name = strategy.name();
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("the strategy's name must not be blank: " + strategy);
        }
    }

    /** These options, or with a new in-memory store when none is set. */
    private MemoryOptions withStore() {
        return store != null ? this : toBuilder().chatMemoryStore(InMemorySessionStore.create()).build();
    }

    /** The engine of one memory; these options have a store. */
    MemoryEngine engine(MemoryStrategy strategy, Object memoryId) {
        ViewRules rules = rules();
        boolean counts = tokenizer != null || strategy.countsTokens() || rules.previews();
        TokenCountEstimator counter = counts ? rules.tokenizer() : null;
        SessionMemory.Shared s = shared;
        if (s == null || !s.matches(rules, counter, strategy.name())) {
            s = new SessionMemory.Shared(this, rules, counter, strategy.name());
            shared = s;
        }
        SessionMemory memory = new SessionMemory(memoryId, s);
        return new MemoryEngine(memory, strategy, summarizer == null ? null : new Folds(memory, this, strategy));
    }

    /**
     * The view rules for these options, counting with the tokenizer set (or the rules' default):
     * one instance for these options, so a provider's memories share it.
     */
    ViewRules rules() {
        ViewRules r = rules;
        if (r == null) {
            r = new ViewRules(tokenizer, toolResultPreviewTokens, keepImagesInNewest, placement);
            rules = r;
        }
        return r;
    }

    SessionStore sessionStore() {
        return store;
    }

    /** The listeners added, as one that never throws; {@link MemoryListener#logging()} when none was added. */
    MemoryListener listener() {
        return listener;
    }

    Retention retention() {
        return retention;
    }

    Duration openTurnTimeout() {
        return openTurnTimeout;
    }

    ViewCache viewCache() {
        return viewCache;
    }

    /** The ledger, or {@code null}. */
    TokenAccounting accounting() {
        return accounting;
    }

    boolean calibrates() {
        return calibrate;
    }

    ConcurrentSends concurrentSends() {
        return concurrentSends;
    }

    /**
     * The summary cap set, else the summarizer's own (the LLM one, the extractive one), else
     * {@value #DEFAULT_MAX_SUMMARY_TOKENS}.
     */
    int maxSummaryTokens() {
        if (maxSummaryTokens != null) {
            return maxSummaryTokens;
        }
        if (summarizer instanceof LlmSummarizer llm) {
            return llm.maxSummaryTokens();
        }
        if (summarizer instanceof ExtractiveSummarizer extractive) {
            return extractive.maxSummaryTokens();
        }
        return DEFAULT_MAX_SUMMARY_TOKENS;
    }

    Summarizer summarizerOrNull() {
        return summarizer;
    }

    Duration summarizerTimeout() {
        return summarizerTimeout;
    }

    /** The executor folds run on, or {@code null} to fold inside {@code add()}. */
    Executor foldExecutor() {
        return foldExecutor;
    }

    /** Calls every listener, catching what one throws so a memory's caller never sees it. */
    static MemoryListener combined(List<MemoryListener> listeners) {
        List<MemoryListener> all = List.copyOf(listeners);
        Logger log = LoggerFactory.getLogger(MemoryListener.class);
        return new MemoryListener() {
            private void each(Consumer<MemoryListener> call) {
                for (MemoryListener listener : all) {
                    try {
                        call.accept(listener);
                    } catch (RuntimeException e) {
                        log.warn("memory listener {} threw; ignored", listener, e);
                    }
                }
            }

            @Override
            public void onView(ViewShown view) {
                each(l -> l.onView(view));
            }

            @Override
            public void onOverflow(Overflow overflow) {
                each(l -> l.onOverflow(overflow));
            }

            @Override
            public void onFold(Fold fold) {
                each(l -> l.onFold(fold));
            }

            @Override
            public void onSummaryFailure(MemoryListener.SummaryFailure failure) {
                each(l -> l.onSummaryFailure(failure));
            }

            @Override
            public void onFoldSkipped(String sessionId, String strategy) {
                each(l -> l.onFoldSkipped(sessionId, strategy));
            }
        };
    }

    /**
     * The options set, for logs.
     *
     * @return a short description
     */
    @Override
    public String toString() {
        return "MemoryOptions{store=" + store + ", tokenizer=" + tokenizer + ", listeners=" + listeners.size()
                + ", retention=" + retention + ", concurrentSends=" + concurrentSends
                + (summarizer == null ? "" : ", summarizer=" + summarizer) + '}';
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
         * runs through {@link SessionStore#of(ChatMemoryStore)}. Default: a new {@link InMemorySessionStore}
         * for each memory, one for all memories of a provider.
         *
         * @param store the store
         * @return this builder
         * @throws IllegalArgumentException if {@code store} is null
         */
        public Builder chatMemoryStore(ChatMemoryStore store) {
            this.store = SessionStore.of(Checks.notNull(store, "chatMemoryStore"));
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
