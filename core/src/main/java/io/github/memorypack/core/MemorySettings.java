package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;
import java.util.Objects;
import java.util.function.Function;

/**
 * The options every memory builder shares (id, store, tokenizer, overflow listener, retention and
 * the cost rules), so each strategy's builder only adds its own. Mutable, like the builders that
 * hold it; {@link #copy()} snapshots it for a provider.
 */
public final class MemorySettings {

    /** The memory id used when none is set, as in LangChain4j. */
    public static final String DEFAULT_ID = "default";

    private static final int UNSET = Integer.MIN_VALUE;

    private Object id = DEFAULT_ID;
    private SessionStore store;
    private TokenCountEstimator tokenizer;
    private OverflowListener overflowListener = OverflowListener.logging();
    private Retention retention = Retention.keepAll();
    private int toolResultPreviewTokens = UNSET;
    private int keepImagesInNewest = UNSET;

    public void id(Object id) {
        this.id = Objects.requireNonNull(id, "id");
    }

    public Object id() {
        return id;
    }

    public void store(SessionStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    /** The store; a new {@link InMemorySessionStore} is created (and kept) when none was set. */
    public SessionStore store() {
        if (store == null) {
            store = InMemorySessionStore.create();
        }
        return store;
    }

    public void tokenizer(TokenCountEstimator tokenizer) {
        this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    }

    /** The tokenizer set, or {@code null}. */
    public TokenCountEstimator tokenizer() {
        return tokenizer;
    }

    public void overflowListener(OverflowListener listener) {
        this.overflowListener = Objects.requireNonNull(listener, "overflowListener");
    }

    public OverflowListener overflowListener() {
        return overflowListener;
    }

    public void retention(Retention retention) {
        this.retention = Objects.requireNonNull(retention, "retention");
    }

    public Retention retention() {
        return retention;
    }

    /** Any value is taken here; {@link #validate()} rejects one below 1. */
    public void toolResultPreviews(int maxTokens) {
        this.toolResultPreviewTokens = maxTokens;
    }

    /** Any value is taken here; {@link #validate()} rejects one below 0. */
    public void keepImagesInNewest(int messages) {
        this.keepImagesInNewest = messages;
    }

    /**
     * Checks the values, as a strategy's {@code build()} must.
     *
     * @throws IllegalArgumentException for a value out of range
     */
    public void validate() {
        if (toolResultPreviewTokens != UNSET && toolResultPreviewTokens < 1) {
            throw new IllegalArgumentException("toolResultPreviews maxTokens must be >= 1, was " + toolResultPreviewTokens);
        }
        if (keepImagesInNewest != UNSET && keepImagesInNewest < 0) {
            throw new IllegalArgumentException("keepImagesInNewest must be >= 0, was " + keepImagesInNewest);
        }
    }

    /** The view rules for these settings, counting with the tokenizer set (or the rules' default). */
    public ViewRules rules() {
        ViewRules.Builder rules = ViewRules.builder().tokenizer(tokenizer);
        if (toolResultPreviewTokens != UNSET) {
            rules.toolResultPreviews(toolResultPreviewTokens);
        }
        if (keepImagesInNewest != UNSET) {
            rules.keepImagesInNewest(keepImagesInNewest);
        }
        return rules.build();
    }

    /**
     * The plumbing for one memory with these settings. Appends carry token counts when a tokenizer
     * was set, when the strategy needs them ({@code strategyCounts}) or when the rules do; otherwise
     * they carry {@link io.github.memorypack.core.Entry#UNKNOWN_TOKENS} and nothing is tokenized.
     */
    public SessionMemory sessionMemory(ViewRules rules, boolean strategyCounts) {
        boolean counts = tokenizer != null || strategyCounts || rules.needsTokenCounts(ViewLimit.none());
        return new SessionMemory(id, store(), counts ? rules.tokenizer() : null, retention, overflowListener);
    }

    /** A copy sharing the same store (resolving the default store first, so copies share it). */
    public MemorySettings copy() {
        MemorySettings copy = new MemorySettings();
        copy.id = id;
        copy.store = store();
        copy.tokenizer = tokenizer;
        copy.overflowListener = overflowListener;
        copy.retention = retention;
        copy.toolResultPreviewTokens = toolResultPreviewTokens;
        copy.keepImagesInNewest = keepImagesInNewest;
        return copy;
    }

    /** A {@link #copy()} for one memory id, as a provider builds it. */
    public MemorySettings forId(Object memoryId) {
        MemorySettings copy = copy();
        copy.id(memoryId);
        return copy;
    }

    /**
     * Applies a per-session limit and checks it.
     *
     * @throws IllegalArgumentException if it is null or below 1
     */
    public static int limit(Function<Object, Integer> limit, Object id, String name) {
        Integer value = limit.apply(id);
        if (value == null || value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value + " for memory id " + id);
        }
        return value;
    }
}
