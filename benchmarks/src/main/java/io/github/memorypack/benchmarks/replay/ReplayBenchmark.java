package io.github.memorypack.benchmarks.replay;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.samples.Conversation;
import io.github.memorypack.samples.Replay;
import io.github.memorypack.samples.Strategy;
import io.github.memorypack.core.ExtractiveSummarizer;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.core.WindowChatMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * Replays the project's scripted conversation (the samples' {@link Conversation#builtIn()}: 322
 * turns, facts planted in the first five and asked about in the last two) through buffer, window
 * (20 messages and {@code maxTokens} tokens), summary and summary-buffer with the samples'
 * {@link Replay} driver on the in-memory store, and checks the two targets for
 * summary-buffer. The samples' comparison shows the same figures with a chart; this one adds the
 * token window and the targets.
 *
 * <p>Deterministic: scripted replies, the offline {@link ExtractiveSummarizer} (cap 500 tokens),
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
                    Replay.SESSION, store, limits, TOKENIZER,
                    ExtractiveSummarizer.builder().maxSummaryTokens(SUMMARY_CAP).build(), accounting)));
            if (strategy == Strategy.WINDOW) {
                results.add(replay("window (" + maxTokens + " tokens)", conversation, (store, accounting) ->
                        WindowChatMemory.builder().id(Replay.SESSION).chatMemoryStore(store).maxTokens(maxTokens).build()));
            }
        }
        return results;
    }

    private static Replay.Result replay(String name, Conversation conversation,
                                        BiFunction<SessionStore, TokenAccounting, ChatMemory> memories) {
        SessionStore store = InMemorySessionStore.create();
        return Replay.run(name, conversation, () -> store, memories, TOKENIZER, null, Replay.Progress.none());
    }

    /** The results as a plain-text table, with the two targets checked. */
    public static String table(List<Replay.Result> results, int turns, int maxTokens) {
        Replay.Result buffer = results.get(0);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Replay: %d turns, o200k tokens, summary cap %d, maxTokens %d%n%n",
                turns, SUMMARY_CAP, maxTokens));
        out.append(String.format(Locale.ROOT, "%-28s %9s %7s %11s %8s %6s %11s %11s %6s%n", "strategy", "mean/req",
                "max", "total", "% buffer", "calls", "summ. in", "summ. out", "facts"));
        for (Replay.Result r : results) {
            out.append(String.format(Locale.ROOT, "%-28s %9.0f %7d %11d %7.1f%% %6d %11d %11d %4d/%d%n", r.strategy(),
                    r.meanTokens(), r.maxTokens(), r.totalTokens(), 100.0 * r.totalTokens() / buffer.totalTokens(),
                    r.summarizerCalls(), r.report().summarizerInputTokens(), r.report().summarizerOutputTokens(),
                    r.factsFound(), r.factsTotal()));
        }
        Replay.Result summaryBuffer = results.get(results.size() - 1);
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
