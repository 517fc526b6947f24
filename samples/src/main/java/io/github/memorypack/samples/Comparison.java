package io.github.memorypack.samples;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.ChatModel;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.replay.Conversation;
import io.github.memorypack.replay.Replay;
import io.github.memorypack.replay.Strategy;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The main demo: replays a long multi-sitting conversation through every {@link Strategy} (buffer,
 * the windows, summary, summary-buffer, and two of them with recall) on the same store type, and
 * shows what each sends to the model and what each still knows at the end.
 *
 * <p>Prints a table per strategy (requests; prompt tokens per request: mean, p95, max; total; the
 * summarizer's calls and tokens; the probe facts still in the request at the end) and writes, into
 * the output folder, {@value ComparisonReport#TABLE_FILE} (the table), {@value ComparisonReport#CHART_FILE}
 * (tokens per request, one line per strategy) and {@value ComparisonReport#HTML_FILE} (both).
 *
 * <p>Offline by default: the script's answers, the extractive summarizer, o200k token estimates —
 * the same numbers on every run. With {@code OPENAI_API_KEY} set (see {@link OpenAiSettings}) a real
 * model answers and summarizes, the provider's token counts are reported next to the estimates, and
 * the output says so ({@code offline=true} keeps it offline anyway).
 *
 * <p>The strategies are replayed side by side, as many at once as there are cores (offline; one at a
 * time with a real model, whose rate limits would otherwise decide): each on its own store, with its
 * own summarizer and token ledger, so the figures are the same as one at a time (tested).
 *
 * <p>Options as {@code key=value} arguments ({@code mvn ... exec:java -Dexec.args="turns=100 store=memory"})
 * or system properties {@code -Dcomparison.<key>=value}; arguments win. See {@link Options}.
 */
public final class Comparison {

    private Comparison() {
    }

    /**
     * What to compare and where to write it.
     *
     * @param strategies   {@code strategies=window,summary-buffer,...} ({@link Strategy} labels; default all, in declaration order)
     * @param limits       {@code window=20 maxTokens=2000 summaryTokens=500}
     * @param conversation {@code conversation=<file>} (default the built-in script)
     * @param maxTurns     {@code turns=N}: only the first N turns plus the probes (default all, {@code 0})
     * @param store        {@code store=file|memory-md|memory} (default file)
     * @param out          {@code out=<folder>} (default {@code memorypack.comparison.out}, else {@code target/comparison})
     * @param offline      {@code offline=true}: ignore {@code OPENAI_API_KEY}
     * @param cachedPrice  {@code cachedPrice=0.1}: what a cached prompt token costs, as a share of an uncached one
     * @param threads      {@code threads=N}: strategies replayed at once ({@code 0}, the default: one per core
     *                     offline, one with a real model)
     */
    public record Options(List<Strategy> strategies, Strategy.Limits limits, Path conversation, int maxTurns,
                          StoreKind store, Path out, boolean offline, double cachedPrice, int threads) {

        static final List<String> KEYS = List.of("strategies", "window", "maxTokens", "summaryTokens", "conversation",
                "turns", "store", "out", "offline", "cachedPrice", "threads");

        public Options {
            strategies = List.copyOf(strategies);
            if (strategies.isEmpty()) {
                throw new IllegalArgumentException("no strategy to compare");
            }
            if (maxTurns < 0) {
                throw new IllegalArgumentException("turns must be >= 0 (0 = all), was " + maxTurns);
            }
            if (threads < 0) {
                throw new IllegalArgumentException("threads must be >= 0 (0 = one per core), was " + threads);
            }
            if (!(cachedPrice > 0 && cachedPrice <= 1)) {
                throw new IllegalArgumentException("cachedPrice must be > 0 and <= 1 (0.1, 0.25, 0.5...), was "
                        + cachedPrice);
            }
        }

        /**
         * Parses {@code key=value} arguments (a leading {@code --} is allowed) over system properties
         * {@code comparison.<key>} over the defaults.
         *
         * @throws IllegalArgumentException for an unknown key or a bad value
         */
        public static Options parse(String[] args, Map<String, String> systemProperties) {
            Map<String, String> values = new java.util.HashMap<>();
            systemProperties.forEach((k, v) -> {
                if (k.startsWith("comparison.")) {
                    values.put(k.substring("comparison.".length()), v);
                }
            });
            for (String arg : args) {
                String plain = arg.startsWith("--") ? arg.substring(2) : arg;
                int eq = plain.indexOf('=');
                values.put(eq < 0 ? plain : plain.substring(0, eq), eq < 0 ? "true" : plain.substring(eq + 1));
            }
            for (String key : values.keySet()) {
                if (!KEYS.contains(key)) {
                    throw new IllegalArgumentException("unknown option '" + key + "', expected one of " + KEYS);
                }
            }
            Strategy.Limits defaults = Strategy.Limits.DEFAULT;
            String out = values.getOrDefault("out",
                    systemProperties.getOrDefault("memorypack.comparison.out", "target/comparison"));
            return new Options(
                    Strategy.list(values.getOrDefault("strategies", Strategy.labels())),
                    new Strategy.Limits(number(values, "window", defaults.windowMessages()),
                            number(values, "maxTokens", defaults.maxTokens()),
                            number(values, "summaryTokens", defaults.summaryTokens())),
                    values.containsKey("conversation") ? Path.of(values.get("conversation")) : null,
                    number(values, "turns", 0),
                    StoreKind.of(values.getOrDefault("store", StoreKind.FILE.label())),
                    Path.of(out),
                    Boolean.parseBoolean(values.getOrDefault("offline", "false")),
                    decimal(values, "cachedPrice", Replay.DEFAULT_CACHED_PRICE_FACTOR),
                    number(values, "threads", 0));
        }

        private static double decimal(Map<String, String> values, String key, double fallback) {
            String value = values.get(key);
            if (value == null) {
                return fallback;
            }
            try {
                return Double.parseDouble(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a number, was '" + value + "'", e);
            }
        }

        private static int number(Map<String, String> values, String key, int fallback) {
            String value = values.get(key);
            if (value == null) {
                return fallback;
            }
            try {
                return Integer.parseInt(value.trim().replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(key + " must be a whole number, was '" + value + "'", e);
            }
        }
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        Options options;
        try {
            options = Options.parse(args, propertiesOf(System.getProperties()));
        } catch (IllegalArgumentException e) {
            System.err.println("comparison: " + e.getMessage());
            System.exit(2);
            return;
        }
        run(options, System.getenv(), System.out);
    }

    private static Map<String, String> propertiesOf(java.util.Properties properties) {
        Map<String, String> map = new java.util.HashMap<>();
        properties.stringPropertyNames().forEach(name -> map.put(name, properties.getProperty(name)));
        return map;
    }

    /** Runs the comparison, prints progress and the table to {@code console}, and writes the report files. */
    public static ComparisonReport run(Options options, Map<String, String> environment, PrintStream console) {
        Conversation conversation = options.conversation() == null ? Conversation.builtIn()
                : Conversation.load(options.conversation());
        if (options.maxTurns() > 0) {
            conversation = conversation.firstTurns(options.maxTurns());
        }
        Optional<OpenAiSettings> openAi = options.offline() ? Optional.empty() : OpenAiSettings.from(environment);
        TokenCountEstimator tokenizer = openAi.map(OpenAiSettings::tokenizer).orElseGet(Tokenizers::o200k);
        ChatModel model = openAi.map(OpenAiSettings::chatModel).orElse(null);
        String mode = openAi.map(s -> "ONLINE: " + s.describe() + "; provider-reported input tokens shown too")
                .orElse("OFFLINE: scripted answers, extractive summarizer, o200k estimates (deterministic; "
                        + "set OPENAI_API_KEY for a real model)");
        int turns = conversation.turns().size();
        console.printf(Locale.ROOT, "Memory Pack token-usage comparison%n  %s%n  conversation: %s, %d turns in %d sittings, "
                        + "%d probe facts%n  store: %s (reopened at every sitting)%n  output: %s%n%n", mode,
                conversation.name(), turns, conversation.sittings().size(), conversation.facts().size(),
                options.store().label(), options.out().toAbsolutePath());

        Path stores = options.out().resolve("stores");
        deleteRecursively(stores);
        int threads = Math.min(options.strategies().size(), options.threads() > 0 ? options.threads()
                : model == null ? Runtime.getRuntime().availableProcessors() : 1);
        console.printf(Locale.ROOT, "Replaying %d strateg%s, %d at a time:%n", options.strategies().size(),
                options.strategies().size() == 1 ? "y" : "ies", threads);
        List<Replay.Result> results = new ArrayList<>();
        ExecutorService replays = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Replay.Result>> running = new ArrayList<>();
            for (Strategy strategy : options.strategies()) {
                Conversation script = conversation;
                running.add(replays.submit(() -> replay(strategy, script, options, stores, openAi, tokenizer, model,
                        console)));
            }
            for (Future<Replay.Result> replay : running) {
                results.add(resultOf(replay));
            }
        } finally {
            replays.shutdownNow();
        }
        ComparisonReport report = ComparisonReport.write(options.out(), mode, conversation, options.store(), results,
                options.cachedPrice());
        console.println();
        console.println(report.table());
        console.printf("Wrote %s%n      %s%n      %s%n      %s%n", report.tableFile().toAbsolutePath(),
                report.chartFile().toAbsolutePath(), report.costChartFile().toAbsolutePath(),
                report.htmlFile().toAbsolutePath());
        return report;
    }

    /** One strategy's replay, on a store folder of its own, with its own summarizer and ledger. */
    private static Replay.Result replay(Strategy strategy, Conversation conversation, Options options, Path stores,
                                        Optional<OpenAiSettings> openAi, TokenCountEstimator tokenizer, ChatModel model,
                                        PrintStream console) {
        Supplier<SessionStore> opener = options.store().opener(stores.resolve(strategy.label()));
        Summarizer summarizer = OpenAiSettings.summarizer(openAi, options.limits().summaryTokens(), tokenizer);
        long started = System.nanoTime();
        Replay.Result result = Replay.run(strategy.describe(options.limits()), conversation, opener,
                (store, accounting) -> strategy.create(Replay.SESSION, store, options.limits(), tokenizer,
                        summarizer, accounting),
                store -> strategy.augmentation(store, tokenizer), tokenizer, model, Replay.Progress.none());
        console.printf(Locale.ROOT, "  %-48s %d/%d turns in %.1f s%n", result.strategy(), result.requests(),
                conversation.turns().size(), (System.nanoTime() - started) / 1e9);
        return result;
    }

    /** What a replay returned, or what it threw (unwrapped). */
    private static Replay.Result resultOf(Future<Replay.Result> replay) {
        try {
            return replay.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the strategies were replayed", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static void deleteRecursively(Path folder) {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + folder, e);
        }
    }
}
