package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;

/**
 * Makes the engine of each memory of one {@link MemoryOptions}: a {@link SessionMemory} over the
 * options' store, the strategy, and the folds when a summarizer is set. The view rules and the
 * engine's shared parts are made once and shared by every memory of these options (a provider's
 * memories share them).
 */
final class Engines {

    private final TokenCountEstimator tokenizer;
    private final int toolResultPreviewTokens;
    private final int keepImagesInNewest;
    private final SummaryMessage.Placement placement;
    private volatile ViewRules rules;
    private volatile SessionMemory.Shared shared;

    Engines(TokenCountEstimator tokenizer, int toolResultPreviewTokens, int keepImagesInNewest,
            SummaryMessage.Placement placement) {
        this.tokenizer = tokenizer;
        this.toolResultPreviewTokens = toolResultPreviewTokens;
        this.keepImagesInNewest = keepImagesInNewest;
        this.placement = placement;
    }

    /** Checks a strategy handed to {@link MemoryOptions#memory} or {@link MemoryOptions#provider}. */
    static void check(MemoryStrategy strategy) {
        Checks.notNull(strategy, "strategy");
        String name = strategy.name();
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("the strategy's name must not be blank: " + strategy);
        }
    }

    /** The engine of one memory; {@code options} (whose engines these are) have a store. */
    MemoryEngine engine(MemoryOptions options, MemoryStrategy strategy, Object memoryId) {
        ViewRules rules = rules();
        boolean counts = tokenizer != null || strategy.countsTokens() || rules.previews();
        TokenCountEstimator counter = counts ? rules.tokenizer() : null;
        SessionMemory.Shared s = shared;
        if (s == null || !s.matches(rules, counter, strategy.name())) {
            s = new SessionMemory.Shared(options, rules, counter, strategy.name());
            shared = s;
        }
        SessionMemory memory = new SessionMemory(memoryId, s);
        Folds folds = options.summarizerOrNull() == null ? null : new Folds(memory, options, strategy);
        return new MemoryEngine(memory, strategy, folds);
    }

    /**
     * The view rules of these options, counting with the tokenizer set (or the rules' default):
     * one instance for all their memories.
     */
    private ViewRules rules() {
        ViewRules r = rules;
        if (r == null) {
            r = new ViewRules(tokenizer, toolResultPreviewTokens, keepImagesInNewest, placement);
            rules = r;
        }
        return r;
    }
}
