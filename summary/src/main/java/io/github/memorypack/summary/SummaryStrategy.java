package io.github.memorypack.summary;

import io.github.memorypack.core.MemoryStrategy;
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
    private final Function<Object, Integer> contextTokens;

    SummaryStrategy(int foldEveryTurns, Function<Object, Integer> contextTokens) {
        this.foldEveryTurns = foldEveryTurns;
        this.contextTokens = contextTokens;
    }

    void check(Object memoryId) {
        if (contextTokens != null) {
            MemoryStrategy.limit(contextTokens, memoryId, "contextTokens");
        }
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
        return contextTokens == null ? Plan.showAll()
                : Plan.showAll().maxTokens(MemoryStrategy.limit(contextTokens, session.memoryId(), "contextTokens"));
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
}
