package io.github.memorypack.window;

import io.github.memorypack.core.MemoryListener.Overflow.Unit;
import io.github.memorypack.core.MemoryStrategy;
import java.util.function.Function;

/**
 * The window's strategy: a ceiling of messages, turns or tokens (fixed or per memory id), sliding or
 * in chunks. It never reads the turns, so a window view reads only the tail of the log.
 */
final class WindowStrategy implements MemoryStrategy {

    private final Unit unit;
    private final Function<Object, Integer> limit;
    private final double lowWatermark;
    // the plan of a fixed limit, made once; null for a limit per memory id
    private final Plan fixedPlan;
    // the plan for the last limit value: the same object while the limit stays the same
    private volatile Cached last;

    private record Cached(int value, Plan plan) {
    }

    /** A limit that is the same for every memory id ({@code maxMessages(int)} and the like). */
    record Fixed(int value) implements Function<Object, Integer> {
        @Override
        public Integer apply(Object memoryId) {
            return value;
        }
    }

    WindowStrategy(Unit unit, Function<Object, Integer> limit, double lowWatermark) {
        this.unit = unit;
        this.limit = limit;
        this.lowWatermark = lowWatermark;
        // checked by the builder's setter: a fixed limit is asked nothing at each read
        this.fixedPlan = limit instanceof Fixed ? planFor(((Fixed) limit).value()) : null;
    }

    /** The limit's builder name, for errors. */
    static String name(Unit unit) {
        return unit == Unit.MESSAGES ? "maxMessages" : unit == Unit.TURNS ? "maxTurns" : "maxTokens";
    }

    /** Checks the limit for {@code memoryId}, as LangChain4j does when a memory is built. */
    void check(Object memoryId) {
        MemoryStrategy.limit(limit, memoryId, name(unit));
    }

    @Override
    public String name() {
        return "window";
    }

    @Override
    public boolean countsTokens() {
        return unit == Unit.TOKENS;
    }

    @Override
    public Plan plan(Session session) {
        if (fixedPlan != null) {
            return fixedPlan;
        }
        int value = MemoryStrategy.limit(limit, session.memoryId(), name(unit));
        Cached cached = last;
        if (cached == null || cached.value != value) {
            cached = new Cached(value, planFor(value));
            last = cached;
        }
        return cached.plan;
    }

    private Plan planFor(int value) {
        Plan plan = unit == Unit.MESSAGES ? Plan.showAll().maxMessages(value)
                : unit == Unit.TURNS ? Plan.showAll().maxTurns(value) : Plan.showAll().maxTokens(value);
        return lowWatermark < 1 ? plan.chunked(lowWatermark) : plan;
    }

    @Override
    public String toString() {
        return "window{" + unit + '}';
    }
}
