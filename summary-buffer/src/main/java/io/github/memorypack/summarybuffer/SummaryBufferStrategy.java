package io.github.memorypack.summarybuffer;

import io.github.memorypack.core.MemoryStrategy;
import java.util.List;
import java.util.function.Function;

/**
 * The summary-buffer's strategy: show every turn the summary does not cover (under an optional
 * ceiling on the whole request); once those turns pass {@code maxBufferTokens}, fold the oldest
 * closed ones until the rest is at or under the low watermark. The newest turn is never folded.
 */
final class SummaryBufferStrategy implements MemoryStrategy {

    private final Function<Object, Integer> maxTokens;
    private final Function<Object, Integer> lowWatermark;
    private final Function<Object, Integer> contextTokens;

    SummaryBufferStrategy(Function<Object, Integer> maxTokens, Function<Object, Integer> lowWatermark,
                          Function<Object, Integer> contextTokens) {
        this.maxTokens = maxTokens;
        this.lowWatermark = lowWatermark;
        this.contextTokens = contextTokens;
    }

    /** Checks the per-id limits, as LangChain4j checks limits when a memory is built. */
    void check(Object memoryId) {
        limits(memoryId);
        if (contextTokens != null) {
            MemoryStrategy.limit(contextTokens, memoryId, "contextTokens");
        }
    }

    @Override
    public String name() {
        return "summary-buffer";
    }

    @Override
    public boolean countsTokens() {
        return true;
    }

    @Override
    public Plan plan(Session session) {
        return contextTokens == null ? Plan.showAll()
                : Plan.showAll().maxTokens(MemoryStrategy.limit(contextTokens, session.memoryId(), "contextTokens"));
    }

    @Override
    public int turnsToFold(Session session) {
        int[] limits = limits(session.memoryId());
        List<Turn> turns = session.turns();
        int opening = !turns.isEmpty() && turns.get(0).opening() ? 1 : 0;
        long remaining = 0;
        for (int i = opening; i < turns.size(); i++) {
            remaining += turns.get(i).tokens();
        }
        if (remaining <= limits[0]) {
            return 0;
        }
        int fold = 0;
        // never the newest turn; the engine folds only a closed prefix that ends cleanly
        for (int i = opening; i < turns.size() - 1 && remaining > limits[1]; i++) {
            remaining -= turns.get(i).tokens();
            fold = i + 1;
        }
        return fold;
    }

    private int[] limits(Object id) {
        int max = MemoryStrategy.limit(maxTokens, id, "maxBufferTokens");
        Integer low = lowWatermark == null ? Integer.valueOf(max / 2) : lowWatermark.apply(id);
        if (low == null || low < 0 || low >= max) {
            throw new IllegalArgumentException("lowWatermark must be >= 0 and < maxBufferTokens (" + max + "), was " + low
                    + " for memory id " + id);
        }
        return new int[] {max, low};
    }
}
