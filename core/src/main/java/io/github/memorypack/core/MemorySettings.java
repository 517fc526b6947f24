package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.store.memory.chat.ChatMemoryStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.function.Function;

/**
 * The options every memory builder shares (id, store, tokenizer, listeners, retention, cost rules,
 * clock, open-turn timeout, view cache, concurrent sends), checked when they are set. Mutable, like the builders that
 * hold it; {@link #copy()} snapshots it for a provider.
 */
final class MemorySettings {

    /** The memory id used when none is set, as in LangChain4j. */
    static final String DEFAULT_ID = "default";
    /** After this long without a new message an open turn is taken as abandoned, unless set otherwise. */
    static final Duration DEFAULT_OPEN_TURN_TIMEOUT = Duration.ofMinutes(10);

    /** Shared by every memory that sets no view cache of its own, so the total stays bounded. */
    private static final ViewCache SHARED_VIEWS = new ViewCache(ViewCache.DEFAULT_CAPACITY);

    private static final int UNSET = Integer.MIN_VALUE;

    private Object id = DEFAULT_ID;
    private SessionStore store;
    private TokenCountEstimator tokenizer;
    private final List<MemoryListener> listeners = new ArrayList<>();
    private Retention retention = Retention.keepAll();
    private int toolResultPreviewTokens = UNSET;
    private int keepImagesInNewest = UNSET;
    private Clock clock = Clock.systemUTC();
    private Duration openTurnTimeout = DEFAULT_OPEN_TURN_TIMEOUT;
    private ViewCache viewCache = SHARED_VIEWS;
    private SummaryMessage.Placement placement = SummaryMessage.Placement.SYSTEM_MESSAGE;
    private TokenAccounting accounting;
    private boolean calibrate;
    private ConcurrentSends concurrentSends = ConcurrentSends.queue();
    // the rules and the shared part of a memory made from these settings, made once and kept by every
    // copy (a provider's memories share them); a new holder whenever an option changes
    private Derived derived = new Derived();

    private static final class Derived {
        volatile ViewRules rules;
        volatile SessionMemory.Shared shared;
    }

    private void changed() {
        derived = new Derived();
    }

    void id(Object id) {
        if (id == null) {
            throw new IllegalArgumentException("id must not be null");
        }
        SessionIds.of(id); // any non-null id maps to a session id; checked here so build() cannot fail on it
        this.id = id;
    }

    Object id() {
        return id;
    }

    void store(SessionStore store) {
        changed();
        this.store = notNull(store, "store");
    }

    /** A {@link SessionStore} is used as it is; any other {@link ChatMemoryStore} runs through the adapter. */
    void chatMemoryStore(ChatMemoryStore store) {
        changed();
        notNull(store, "chatMemoryStore");
        this.store = store instanceof SessionStore ? (SessionStore) store : ChatMemoryStoreAdapter.of(store);
    }

    /** The store; a new {@link InMemorySessionStore} is created (and kept) when none was set. */
    SessionStore store() {
        if (store == null) {
            store = InMemorySessionStore.create();
            changed();
        }
        return store;
    }

    void tokenizer(TokenCountEstimator tokenizer) {
        changed();
        this.tokenizer = notNull(tokenizer, "tokenizer");
    }

    TokenCountEstimator tokenizer() {
        return tokenizer;
    }

    void listener(MemoryListener listener) {
        changed();
        listeners.add(notNull(listener, "listener"));
    }

    /** The listeners added, as one that never throws; {@link MemoryListener#logging()} when none was added. */
    MemoryListener listener() {
        return listeners.isEmpty() ? MemoryListener.logging() : combined(listeners);
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


    void retention(Retention retention) {
        changed();
        this.retention = notNull(retention, "retention");
    }

    Retention retention() {
        return retention;
    }

    void toolResultPreviews(int maxTokens) {
        changed();
        this.toolResultPreviewTokens = atLeast(maxTokens, 1, "toolResultPreviews maxTokens");
    }

    void keepImagesInNewest(int messages) {
        changed();
        this.keepImagesInNewest = atLeast(messages, 0, "keepImagesInNewest");
    }

    void clock(Clock clock) {
        changed();
        this.clock = notNull(clock, "clock");
    }

    Clock clock() {
        return clock;
    }

    void openTurnTimeout(Duration timeout) {
        changed();
        this.openTurnTimeout = positive(timeout, "openTurnTimeout");
    }

    Duration openTurnTimeout() {
        return openTurnTimeout;
    }

    void viewCacheSize(int views) {
        changed();
        this.viewCache = new ViewCache(atLeast(views, 0, "viewCacheSize"));
    }

    ViewCache viewCache() {
        return viewCache;
    }

    void tokenAccounting(TokenAccounting accounting) {
        changed();
        this.accounting = notNull(accounting, "tokenAccounting");
    }

    void calibrateWith(TokenAccounting accounting) {
        changed();
        tokenAccounting(accounting);
        this.calibrate = true;
    }

    /** The ledger, or {@code null}. */
    TokenAccounting accounting() {
        return accounting;
    }

    boolean calibrates() {
        return calibrate;
    }

    void concurrentSends(ConcurrentSends sends) {
        changed();
        this.concurrentSends = notNull(sends, "concurrentSends");
    }

    ConcurrentSends concurrentSends() {
        return concurrentSends;
    }

    void summaryPlacement(SummaryMessage.Placement placement) {
        changed();
        this.placement = notNull(placement, "summaryPlacement");
    }

    /**
     * The view rules for these settings, counting with the tokenizer set (or the rules' default): one
     * instance for these settings and their copies, so a provider's memories share it.
     */
    ViewRules rules() {
        Derived d = derived;
        ViewRules rules = d.rules;
        if (rules == null) {
            rules = new ViewRules(tokenizer, toolResultPreviewTokens == UNSET ? 0 : toolResultPreviewTokens,
                    keepImagesInNewest == UNSET ? -1 : keepImagesInNewest, placement);
            d.rules = rules;
        }
        return rules;
    }

    /**
     * The engine for one memory with these settings. Appends carry token counts when a tokenizer
     * was set, when the strategy needs them ({@code strategyCounts}) or when the rules do; otherwise
     * they carry {@link Entry#UNKNOWN_TOKENS} and nothing is tokenized.
     */
    SessionMemory sessionMemory(ViewRules rules, boolean strategyCounts, String strategy) {
        boolean counts = tokenizer != null || strategyCounts || rules.needsTokenCounts(ViewLimit.none());
        TokenCountEstimator counter = counts ? rules.tokenizer() : null;
        Derived d = derived;
        SessionMemory.Shared shared = d.shared;
        if (shared == null || !shared.matches(rules, counter, strategy)) {
            shared = new SessionMemory.Shared(this, rules, counter, strategy);
            d.shared = shared;
        }
        return new SessionMemory(id, shared);
    }

    /**
     * A copy sharing the same store (resolving the default store first, so copies share it), view
     * cache, rules and shared memory settings.
     */
    MemorySettings copy() {
        MemorySettings copy = new MemorySettings();
        copy.id = id;
        copy.store = store();
        copy.tokenizer = tokenizer;
        copy.listeners.addAll(listeners);
        copy.retention = retention;
        copy.toolResultPreviewTokens = toolResultPreviewTokens;
        copy.keepImagesInNewest = keepImagesInNewest;
        copy.clock = clock;
        copy.openTurnTimeout = openTurnTimeout;
        copy.viewCache = viewCache;
        copy.placement = placement;
        copy.accounting = accounting;
        copy.calibrate = calibrate;
        copy.concurrentSends = concurrentSends;
        copy.derived = derived;
        return copy;
    }

    /** A {@link #copy()} for one memory id, as a provider builds it. */
    MemorySettings forId(Object memoryId) {
        MemorySettings copy = copy();
        copy.id(memoryId);
        return copy;
    }

    /**
     * Applies a per-session limit and checks it.
     *
     * @throws IllegalArgumentException if it is null or below 1
     */
    static int limit(Function<Object, Integer> limit, Object id, String name) {
        Integer value = limit.apply(id);
        if (value == null || value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value + " for memory id " + id);
        }
        return value;
    }

    /**
     * Returns {@code value}.
     *
     * @throws IllegalArgumentException if it is null (a builder setting is checked at the setter)
     */
    static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    static int atLeast(int value, int min, String name) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    static Duration positive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }
}
