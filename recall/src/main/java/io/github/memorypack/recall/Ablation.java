package io.github.memorypack.recall;

import java.util.ArrayList;
import java.util.List;

/**
 * TEMPORARY (issue 22's ablation): switches between the ranking choices of the multi-session rework
 * and those of the code before it, read from {@code recall.ablate.<name>} system properties when used, and a
 * trace of the last query's candidates for the benchmark's oracle analysis. Removed once the ranking is
 * rebuilt.
 */
final class Ablation {

    private Ablation() {
    }

    static String get(String name, String otherwise) {
        return System.getProperty("recall.ablate." + name, otherwise);
    }

    static double number(String name, double otherwise) {
        return Double.parseDouble(get(name, Double.toString(otherwise)));
    }

    static boolean on(String name, boolean otherwise) {
        return Boolean.parseBoolean(get(name, Boolean.toString(otherwise)));
    }

    /** One candidate turn of the last query: its scores and what became of it. */
    static final class Candidate {
        final long turn;
        final double lexical;
        final double coverage;
        final double semantic;
        final double fused;
        final boolean relevant;
        String fate = "beyond limit";

        Candidate(long turn, double lexical, double coverage, double semantic, double fused, boolean relevant) {
            this.turn = turn;
            this.lexical = lexical;
            this.coverage = coverage;
            this.semantic = semantic;
            this.fused = fused;
            this.relevant = relevant;
        }

        @Override
        public String toString() {
            return turn + " " + fate + String.format(" lex %.2f cov %.2f sem %.2f fused %.3f", lexical, coverage,
                    semantic, fused);
        }
    }

    /** The last query's candidates on this thread, when tracing (null otherwise). */
    static final ThreadLocal<List<Candidate>> TRACE = new ThreadLocal<>();

    static void startTrace() {
        TRACE.set(new ArrayList<>());
    }

    static List<Candidate> trace() {
        return TRACE.get();
    }
}
