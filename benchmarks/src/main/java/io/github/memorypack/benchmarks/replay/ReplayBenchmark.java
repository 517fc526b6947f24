package io.github.memorypack.benchmarks.replay;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.replay.Conversation;
import io.github.memorypack.replay.Replay;
import io.github.memorypack.replay.Strategy;
import io.github.memorypack.core.TokenAccounting;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Replays the project's scripted conversation (the samples' {@link Conversation#builtIn()}: 322
 * turns, facts planted in the first five and asked about in the last two) through buffer, window
 * (20 messages and {@code maxTokens} tokens), summary and summary-buffer with the samples'
 * {@link Replay} driver on the in-memory store, and checks the two targets for
 * summary-buffer. The samples' comparison shows the same figures with a chart; this one adds the
 * token window and the targets.
 *
 * <p>Deterministic: scripted replies, the offline {@link Summarizer#extractive(int)} (cap 500 tokens),
 * o200k token counts. It measures tokens, not time.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests -Preplay package          # maxTokens 2,000
 * mvn -B -q -pl benchmarks -am -DskipTests -Preplay package -Dreplay.maxTokens=4000
 * </pre>
 */
public final class ReplayBenchmark {

    /** The budget the target is stated for. */
    public static final int DEFAULT_MAX_TOKENS = 2_000;
    /** Cap of every summary in the replay. */
    public static final int SUMMARY_CAP = 500;
    /** What a cached input token costs, as a share of an uncached one (Anthropic, newest OpenAI models). */
    public static final double CACHED_PRICE = 0.1;

    private static final TokenCountEstimator TOKENIZER = Tokenizers.o200k();

    private ReplayBenchmark() {
    }

    public static void main(String[] args) {
        int maxTokens = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_MAX_TOKENS;
        Conversation conversation = Conversation.builtIn();
        System.out.println(table(run(conversation, maxTokens), conversation.turns().size(), maxTokens));
    }

    /** Replays {@code conversation} through every strategy; summary-buffer and the token window use {@code maxTokens}. */
    public static List<Replay.Result> run(Conversation conversation, int maxTokens) {
        Strategy.Limits limits = new Strategy.Limits(Strategy.Limits.DEFAULT.windowMessages(), maxTokens, SUMMARY_CAP);
        List<Replay.Result> results = new ArrayList<>();
        for (Strategy strategy : Strategy.values()) {
            results.add(replay(strategy.describe(limits), conversation, (store, accounting) -> strategy.create(
                    Replay.SESSION, store, limits, TOKENIZER, Summarizer.extractive(SUMMARY_CAP), accounting),
                    store -> strategy.augmentation(store, TOKENIZER)));
        }
        return results;
    }

    private static Replay.Result replay(String name, Conversation conversation,
                                        BiFunction<SessionStore, TokenAccounting, ChatMemory> memories,
                                        Function<SessionStore, Replay.Augmentation> augmentations) {
        SessionStore store = InMemorySessionStore.create();
        return Replay.run(name, conversation, () -> store, memories, augmentations, TOKENIZER, null,
                Replay.Progress.none());
    }

    private static Replay.Result result(List<Replay.Result> results, Strategy strategy, int maxTokens) {
        String name = strategy.describe(new Strategy.Limits(Strategy.Limits.DEFAULT.windowMessages(), maxTokens,
                SUMMARY_CAP));
        return results.stream().filter(r -> r.strategy().equals(name)).findFirst().orElseThrow();
    }

    /** The results as a plain-text table, with the issues' targets checked. */
    public static String table(List<Replay.Result> results, int turns, int maxTokens) {
        Replay.Result buffer = results.get(0);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Replay: %d turns, o200k tokens, summary cap %d, maxTokens %d%n%n",
                turns, SUMMARY_CAP, maxTokens));
        out.append(String.format(Locale.ROOT, "%-32s %9s %7s %11s %8s %6s %11s %11s %6s %7s %11s%n", "strategy",
                "mean/req", "max", "total", "% buffer", "calls", "summ. in", "summ. out", "facts", "cached",
                "effective"));
        for (Replay.Result r : results) {
            out.append(String.format(Locale.ROOT, "%-32s %9.0f %7d %11d %7.1f%% %6d %11d %11d %4d/%d %6.1f%% %11.0f%n",
                    r.strategy(), r.meanTokens(), r.maxTokens(), r.totalTokens(),
                    100.0 * r.totalTokens() / buffer.totalTokens(), r.summarizerCalls(),
                    r.report().summarizerInputTokens(), r.report().summarizerOutputTokens(), r.factsFound(),
                    r.factsTotal(), 100 * r.cachedShare(), r.effectiveTokens(CACHED_PRICE)));
        }
        Replay.Result sliding = result(results, Strategy.WINDOW_TOKENS, maxTokens);
        Replay.Result chunked = result(results, Strategy.WINDOW_CHUNKED, maxTokens);
        Replay.Result summaryBuffer = result(results, Strategy.SUMMARY_BUFFER, maxTokens);
        out.append(String.format(Locale.ROOT, "%nprompt caches (cached tokens at %.2f of the price):%n", CACHED_PRICE));
        out.append(String.format(Locale.ROOT, "  chunked window: cached-prefix share %.1f%% (target >= 70%%): %s%n",
                100 * chunked.cachedShare(), chunked.cachedShare() >= 0.7 ? "met" : "NOT met"));
        double costRatio = chunked.effectiveTokens(CACHED_PRICE) / sliding.effectiveTokens(CACHED_PRICE);
        out.append(String.format(Locale.ROOT, "  chunked window: effective cost %.1f%% of the sliding window's"
                + " (target <= 50%%): %s%n", 100 * costRatio, costRatio <= 0.5 ? "met" : "NOT met"));
        double rawRatio = (double) chunked.totalTokens() / sliding.totalTokens();
        out.append(String.format(Locale.ROOT, "  chunked window: raw tokens %.1f%% of the sliding window's"
                + " (target <= 120%%): %s%n", 100 * rawRatio, rawRatio <= 1.2 ? "met" : "NOT met"));
        out.append(String.format(Locale.ROOT, "  summary-buffer: cached-prefix share %.1f%% (target >= 60%%): %s%n",
                100 * summaryBuffer.cachedShare(), summaryBuffer.cachedShare() >= 0.6 ? "met" : "NOT met"));
        out.append(String.format(Locale.ROOT, "  summary-buffer: effective cost %.0f vs the sliding window's %.0f"
                        + " (target below): %s%n", summaryBuffer.effectiveTokens(CACHED_PRICE),
                sliding.effectiveTokens(CACHED_PRICE),
                summaryBuffer.effectiveTokens(CACHED_PRICE) < sliding.effectiveTokens(CACHED_PRICE) ? "met" : "NOT met"));
        long saved = buffer.totalTokens() - summaryBuffer.totalTokens();
        out.append(String.format(Locale.ROOT, "%nsummary-buffer sends %.1f%% of the buffer's tokens (target < 20%%): %s%n",
                100.0 * summaryBuffer.totalTokens() / buffer.totalTokens(),
                summaryBuffer.totalTokens() * 5 < buffer.totalTokens() ? "met" : "NOT met"));
        out.append(String.format(Locale.ROOT,
                "summarizer tokens are %.1f%% of what summary-buffer saves (target < 25%%): %s%n",
                100.0 * summaryBuffer.summarizerTokens() / saved, summaryBuffer.summarizerTokens() * 4 < saved ? "met" : "NOT met"));
        return out.toString();
    }
}
