package io.github.memorypack.buffer;

import io.github.memorypack.core.MemoryStrategy;
import java.util.function.Function;

/**
 * The buffer's strategy: show everything; with a context size, report each view bigger than it.
 * It never reads the turns, so a buffer view reads only the tail of the log.
 */
final class BufferStrategy implements MemoryStrategy {

    private final Function<Object, Integer> contextTokens;
    // the plan for the last context size: the same object while it stays the same
    private volatile Cached last;

    private record Cached(int value, Plan plan) {
    }

    BufferStrategy(Function<Object, Integer> contextTokens) {
        this.contextTokens = contextTokens;
    }

    /** Checks the context size for {@code memoryId}, as LangChain4j checks limits when a memory is built. */
    void check(Object memoryId) {
        if (contextTokens != null) {
            MemoryStrategy.limit(contextTokens, memoryId, "contextTokens");
        }
    }

    @Override
    public String name() {
        return "buffer";
    }

    @Override
    public boolean countsTokens() {
        return contextTokens != null;
    }

    @Override
    public Plan plan(Session session) {
        if (contextTokens == null) {
            return Plan.showAll();
        }
        int value = MemoryStrategy.limit(contextTokens, session.memoryId(), "contextTokens");
        Cached cached = last;
        if (cached == null || cached.value != value) {
            cached = new Cached(value, Plan.showAll().reportTokensOver(value));
            last = cached;
        }
        return cached.plan;
    }
}
