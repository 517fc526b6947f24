package io.github.memorypack.core;

import java.util.List;
import java.util.function.Function;

/**
 * The summary's strategy: show every turn the summary does not cover (under an optional ceiling on
 * the whole request), and fold all closed turns but the newest once at least {@code foldEveryTurns}
 * of them wait. The newest turn stays verbatim: the model sees the last exchange word for word, and
 * LangChain4j's output guardrails can still take the last answer back.
 */
final class SummaryStrategy implements MemoryStrategy {

    private final int foldEveryTurns;
    private final Ceiling ceiling;

    SummaryStrategy(int foldEveryTurns, Function<Object, Integer> contextTokens) {
        this.foldEveryTurns = foldEveryTurns;
        this.ceiling = new Ceiling(contextTokens);
    }

    void check(Object memoryId) {
        ceiling.check(memoryId);
    }

    @Override
    public String name() {
        return "summary";
    }

    @Override
    public boolean countsTokens() {
        return true; // folds add up stored counts
    }

    @Override
    public Plan plan(Session session) {
        return ceiling.plan(session.memoryId());
    }

    @Override
    public int turnsToFold(Session session) {
        List<Turn> turns = session.turns();
        int opening = !turns.isEmpty() && turns.get(0).opening() ? 1 : 0;
        int fold = 0;
        for (int i = opening; i < turns.size() - 1 && turns.get(i).closed(); i++) {
            fold++;
        }
        return fold >= foldEveryTurns ? fold + opening : 0;
    }

    /** An optional ceiling in tokens on the whole request, fixed or per memory id. */
    static final class Ceiling {
        private final Function<Object, Integer> contextTokens;
        private volatile Cached last;

        private record Cached(int value, Plan plan) {
        }

        Ceiling(Function<Object, Integer> contextTokens) {
            this.contextTokens = contextTokens;
        }

        void check(Object memoryId) {
            if (contextTokens != null) {
                MemoryStrategy.limit(contextTokens, memoryId, "contextTokens");
            }
        }

        Plan plan(Object memoryId) {
            if (contextTokens == null) {
                return Plan.showAll();
            }
            int value = MemoryStrategy.limit(contextTokens, memoryId, "contextTokens");
            Cached cached = last;
            if (cached == null || cached.value != value) {
                cached = new Cached(value, Plan.showAll().maxTokens(value));
                last = cached;
            }
            return cached.plan;
        }
    }
}
