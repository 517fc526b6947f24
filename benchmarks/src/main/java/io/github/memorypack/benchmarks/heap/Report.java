package io.github.memorypack.benchmarks.heap;

import java.util.Locale;
import java.util.Map;

/** The markdown table the benchmark prints: retained bytes per session, and ratios to LangChain4j's window. */
final class Report {

    static final String BASELINE = "lc4j-window";

    private Report() {
    }

    /** Heap retained per session at a checkpoint: growth since the warm-up, over the sessions since. */
    static double perSession(Map<Integer, Measure> measures, int sessions) {
        Measure base = measures.get(0);
        Measure at = measures.get(sessions);
        if (base == null || at == null) {
            return Double.NaN;
        }
        return (double) (at.heapUsed - base.heapUsed) / (sessions - HeapBenchmark.WARM_UP);
    }

    static String table(Map<String, Map<Integer, Measure>> results, Map<String, Double> seconds, int sessions) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%n%,d sessions, %d turns each, %d at a time; bytes retained per session"
                + " = (heap after full GC at the checkpoint - heap after %d warm-up sessions) / sessions since.%n%n",
                sessions, HeapBenchmark.TURNS, HeapBenchmark.ACTIVE, HeapBenchmark.WARM_UP));
        out.append("| variant | heap after warm-up MiB |");
        for (int checkpoint : HeapBenchmark.checkpoints(sessions)) {
            out.append(String.format(Locale.ROOT, " B/session at %,d |", checkpoint));
        }
        out.append(" heap at end MiB | ÷ ").append(BASELINE)
                .append(" | open files | file store sessions cached | views cached | s |\n|---|---:|");
        out.append("---:|".repeat(HeapBenchmark.checkpoints(sessions).size()));
        out.append("---:|---:|---:|---:|---:|---:|\n");
        double baseline = results.containsKey(BASELINE) ? perSession(results.get(BASELINE), sessions) : Double.NaN;
        for (Map.Entry<String, Map<Integer, Measure>> variant : results.entrySet()) {
            Map<Integer, Measure> measures = variant.getValue();
            Measure base = measures.get(0);
            Measure end = measures.get(sessions);
            out.append("| ").append(variant.getKey()).append(" | ")
                    .append(base == null ? "—" : mb(base.heapUsed)).append(" |");
            for (int checkpoint : HeapBenchmark.checkpoints(sessions)) {
                out.append(String.format(Locale.ROOT, " %,.0f |", perSession(measures, checkpoint)));
            }
            double mine = perSession(measures, sessions);
            out.append(' ').append(end == null ? "—" : mb(end.heapUsed)).append(" | ")
                    .append(Double.isNaN(baseline) ? "—" : String.format(Locale.ROOT, "%.3f", mine / baseline))
                    .append(" | ").append(end == null ? "—" : Long.toString(end.openFiles))
                    .append(" | ").append(end == null || end.storeSessions < 0 ? "—" : Integer.toString(end.storeSessions))
                    .append(" | ").append(end == null || end.views < 0 ? "—" : Integer.toString(end.views))
                    .append(String.format(Locale.ROOT, " | %.0f |%n", seconds.getOrDefault(variant.getKey(), Double.NaN)));
        }
        return out.toString();
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1_048_576.0);
    }
}
