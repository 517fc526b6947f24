package io.github.memorypack.core;

import java.util.List;

/**
 * Strategies for core's own tests, written against the public SPI as the strategy modules write
 * theirs: the engine's rules are tested through them without depending on those modules.
 */
final class TestStrategies {

    /** Shows everything, as the buffer does. */
    static final MemoryStrategy BUFFER = new MemoryStrategy() {
        @Override
        public String name() {
            return "buffer";
        }

        @Override
        public Plan plan(Session session) {
            return Plan.showAll();
        }
    };

    /** Folds every closed turn but the newest, as the summary does with {@code foldEveryTurns(1)}. */
    static final MemoryStrategy SUMMARY = new MemoryStrategy() {
        @Override
        public String name() {
            return "summary";
        }

        @Override
        public boolean countsTokens() {
            return true;
        }

        @Override
        public Plan plan(Session session) {
            return Plan.showAll();
        }

        @Override
        public int turnsToFold(Session session) {
            List<Turn> turns = session.turns();
            int fold = 0;
            while (fold < turns.size() - 1 && turns.get(fold).closed()) {
                fold++;
            }
            return fold;
        }
    };

    private TestStrategies() {
    }

    /** A window of {@code limit} messages, turns or tokens, sliding or chunked down to 0.6 of it. */
    static MemoryStrategy window(MemoryListener.Overflow.Unit unit, int limit, boolean chunked) {
        MemoryStrategy.Plan ceiling = unit == MemoryListener.Overflow.Unit.MESSAGES ? MemoryStrategy.Plan.showAll().maxMessages(limit)
                : unit == MemoryListener.Overflow.Unit.TURNS ? MemoryStrategy.Plan.showAll().maxTurns(limit)
                : MemoryStrategy.Plan.showAll().maxTokens(limit);
        MemoryStrategy.Plan plan = chunked ? ceiling.chunked(0.6) : ceiling;
        return new MemoryStrategy() {
            @Override
            public String name() {
                return "window";
            }

            @Override
            public boolean countsTokens() {
                return unit == MemoryListener.Overflow.Unit.TOKENS;
            }

            @Override
            public Plan plan(Session session) {
                return plan;
            }
        };
    }
}
