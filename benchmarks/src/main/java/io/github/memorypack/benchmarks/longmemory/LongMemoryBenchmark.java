package io.github.memorypack.benchmarks.longmemory;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.rag.AugmentationRequest;
import dev.langchain4j.rag.RetrievalAugmentor;
import dev.langchain4j.rag.query.Metadata;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.recall.RecallContentRetriever;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.replay.Replay;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The long-memory benchmark: replays generated {@link LongMemoryConversation}s (three, asked for 320, 500
 * and 700 turns, which end on whole sittings at 317, 497 and 697) through buffer, the window sliding and
 * with chunked eviction (default low watermark) at 20 messages, at 80 messages (this benchmark's short
 * messages make a 20-message request about 520 tokens, below the 1,024 from which OpenAI caches
 * anything; 80 messages is about the 2,000-token window's size) and at 2,000 tokens, summary and summary-buffer (2,000 tokens) — the summaries by the
 * offline extractive summarizer ({@link Summarizer#extractive(int)}), cap 500 tokens — each without
 * and with recall (a {@link RecallContentRetriever} with an 800-token budget, used through its
 * {@code augmentor()} exactly as {@code AiServices} uses it), and reports per strategy the prompt
 * tokens per request (mean, and as a share of the buffer's), the cached-prefix share and the
 * effective input cost (the samples' {@link Replay#cachedTokens} and {@link Replay#effectiveTokens},
 * the accounting of the comparison demo), how many requests changed their prefix before the previous
 * request's newest message, and, over every question, the share whose fact-bearing turn (the newest
 * statement of the fact) is in the request, and the share whose answer text is. Then it checks issue
 * 15's prompt-cache targets against the sliding window with the same upper limit. Tokens are o200k
 * estimates; nothing is timed here (see {@link RecallLatency}).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests -Plongmemory package
 * </pre>
 *
 * <p>Then runs {@link RecallLatency} ({@code -Dlongmemory.latency=false} skips it).
 * {@code -Dlongmemory.only=<strategy name prefix>} runs the buffer and the strategies whose name
 * starts so; {@code -Dlongmemory.recall=false} runs them without recall only;
 * {@code -Dlongmemory.cachedPrice=0.25} prices cached tokens at 0.25 (default 0.1; 0.5 and 0.25 are
 * OpenAI's older factors); {@code -Dlongmemory.debug=true} prints each question whose fact turn was
 * not in the request.
 */
public final class LongMemoryBenchmark {

    /** The conversations: seed and length. */
    static final long[][] CONVERSATIONS = {{1, 320}, {2, 500}, {3, 700}};
    static final int WINDOW_MESSAGES = 20;
    /** A message window whose requests are long enough to be cached at all (about 2,000 tokens here). */
    static final int WINDOW_MESSAGES_LARGE = 80;
    /** The token windows' limit: summary-buffer's verbatim budget, and the comparison demo's. */
    static final int WINDOW_TOKENS = 2_000;
    static final int SUMMARY_BUFFER_TOKENS = 2_000;
    static final int SUMMARY_CAP = 500;
    static final int RECALL_TOKENS = RecallContentRetriever.DEFAULT_MAX_TOKENS;
    static final String SESSION = "user";

    /** Strategy names, as the table shows them; a recall variant adds {@link #WITH_RECALL}. */
    static final String BUFFER = "buffer";
    static final String WINDOW_MESSAGES_SLIDING = "window (" + WINDOW_MESSAGES + " messages, sliding)";
    static final String WINDOW_MESSAGES_CHUNKED = "window (" + WINDOW_MESSAGES + " messages, chunked)";
    static final String WINDOW_LARGE_SLIDING = "window (" + WINDOW_MESSAGES_LARGE + " messages, sliding)";
    static final String WINDOW_LARGE_CHUNKED = "window (" + WINDOW_MESSAGES_LARGE + " messages, chunked)";
    static final String WINDOW_TOKENS_SLIDING = "window (" + WINDOW_TOKENS + " tokens, sliding)";
    static final String WINDOW_TOKENS_CHUNKED = "window (" + WINDOW_TOKENS + " tokens, chunked)";
    static final String SUMMARY_BUFFER = "summary-buffer (" + SUMMARY_BUFFER_TOKENS + ")";
    static final String WITH_RECALL = " + recall";

    private static final TokenCountEstimator TOKENIZER = Tokenizers.o200k();

    private LongMemoryBenchmark() {
    }

    /** A strategy under test. */
    record Strategy(String name, Function<SessionStore, ChatMemory> memory) {
    }

    static List<Strategy> strategies() {
        return List.of(
                new Strategy(BUFFER, store -> BufferChatMemory.builder().id(SESSION).chatMemoryStore(store).build()),
                new Strategy(WINDOW_MESSAGES_SLIDING, store -> window(store).maxMessages(WINDOW_MESSAGES).build()),
                new Strategy(WINDOW_MESSAGES_CHUNKED, store -> window(store).maxMessages(WINDOW_MESSAGES)
                        .chunkedEviction().build()),
                new Strategy(WINDOW_LARGE_SLIDING, store -> window(store).maxMessages(WINDOW_MESSAGES_LARGE).build()),
                new Strategy(WINDOW_LARGE_CHUNKED, store -> window(store).maxMessages(WINDOW_MESSAGES_LARGE)
                        .chunkedEviction().build()),
                new Strategy(WINDOW_TOKENS_SLIDING, store -> window(store).maxTokens(WINDOW_TOKENS, TOKENIZER).build()),
                new Strategy(WINDOW_TOKENS_CHUNKED, store -> window(store).maxTokens(WINDOW_TOKENS, TOKENIZER)
                        .chunkedEviction().build()),
                new Strategy("summary (cap " + SUMMARY_CAP + ")", store -> SummaryChatMemory.builder().id(SESSION)
                        .chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(summarizer()).build()),
                new Strategy(SUMMARY_BUFFER, store -> SummaryBufferChatMemory.builder()
                        .id(SESSION).chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(summarizer())
                        .maxBufferTokens(SUMMARY_BUFFER_TOKENS).build()));
    }

    private static WindowChatMemory.Builder window(SessionStore store) {
        return WindowChatMemory.builder().id(SESSION).chatMemoryStore(store);
    }

    private static Summarizer summarizer() {
        return Summarizer.extractive(SUMMARY_CAP);
    }

    /**
     * What one strategy cost and kept over one conversation.
     *
     * @param cached       prompt tokens a provider's prompt cache would serve ({@link Replay#cachedTokens})
     * @param prefixBreaks requests whose prefix differs from the previous request's before that
     *                     request's newest message (an eviction, a fold: what a prompt cache loses)
     */
    record Result(String strategy, boolean recall, long requests, long tokens, long cached, int prefixBreaks,
                  int questions, int turnFound, int answerFound, int changedQuestions, int changedFound) {

        Result plus(Result other) {
            return new Result(strategy, recall, requests + other.requests, tokens + other.tokens,
                    cached + other.cached, prefixBreaks + other.prefixBreaks,
                    questions + other.questions, turnFound + other.turnFound, answerFound + other.answerFound,
                    changedQuestions + other.changedQuestions, changedFound + other.changedFound);
        }

        double meanTokens() {
            return (double) tokens / requests;
        }

        double cachedShare() {
            return tokens == 0 ? 0 : (double) cached / tokens;
        }

        double effectiveTokens(double cachedPriceFactor) {
            return Replay.effectiveTokens(tokens, cached, cachedPriceFactor);
        }
    }

    /** What cached input tokens cost, as a share of uncached ones: {@code -Dlongmemory.cachedPrice}. */
    static double cachedPrice() {
        double price = Double.parseDouble(System.getProperty("longmemory.cachedPrice",
                Double.toString(Replay.DEFAULT_CACHED_PRICE_FACTOR)));
        if (!(price > 0 && price <= 1)) {
            throw new IllegalArgumentException("longmemory.cachedPrice must be > 0 and <= 1 (0.1, 0.25, 0.5...), was "
                    + price);
        }
        return price;
    }

    public static void main(String[] args) throws Exception {
        List<LongMemoryConversation> conversations = new ArrayList<>();
        for (long[] c : CONVERSATIONS) {
            conversations.add(LongMemoryConversation.generate(c[0], (int) c[1]));
        }
        double cachedPrice = cachedPrice();
        StringBuilder out = new StringBuilder();
        out.append("Long-memory benchmark: o200k tokens, offline extractive summarizer (cap ").append(SUMMARY_CAP)
                .append("), recall budget ").append(RECALL_TOKENS).append(" tokens, min score ")
                .append(RecallContentRetriever.DEFAULT_MIN_SCORE).append(", cached tokens priced at ")
                .append(cachedPrice).append('\n');
        for (LongMemoryConversation conversation : conversations) {
            out.append("  ").append(conversation).append('\n');
        }
        out.append('\n');
        Map<String, Result> totals = new java.util.LinkedHashMap<>();
        String only = System.getProperty("longmemory.only", "");
        boolean[] recalls = "false".equals(System.getProperty("longmemory.recall")) ? new boolean[] {false}
                : new boolean[] {false, true};
        for (Strategy strategy : strategies()) {
            if (!strategy.name().startsWith(only) && !strategy.name().equals(BUFFER)) {
                continue;
            }
            for (boolean recall : recalls) {
                Result total = null;
                for (LongMemoryConversation conversation : conversations) {
                    Result result = replay(strategy, recall ? LongMemoryBenchmark::recall : null, conversation);
                    total = total == null ? result : total.plus(result);
                }
                totals.put(strategy.name() + (recall ? WITH_RECALL : ""), total);
                System.err.printf(Locale.ROOT, "done: %s%s%n", strategy.name(), recall ? WITH_RECALL : "");
            }
        }
        out.append(table(totals, cachedPrice));
        System.out.println(out);
        if (!"false".equals(System.getProperty("longmemory.latency"))) {
            // in this JVM: the model's native tokenizer library can be loaded by one class loader only
            RecallLatency.main(args);
        }
    }

    static String table(Map<String, Result> totals, double cachedPrice) {
        Result buffer = totals.values().iterator().next();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "| %-48s | %9s | %8s | %6s | %8s | %12s | %8s | %12s | %12s | %15s |%n",
                "strategy", "mean tok", "% buffer", "cached", "breaks", "effective", "eff. % b", "fact turn in",
                "answer in", "changed: newest"));
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Result> row : totals.entrySet()) {
            Result r = row.getValue();
            out.append(String.format(Locale.ROOT,
                    "| %-48s | %,9.0f | %7.1f%% | %5.1f%% | %,8d | %,12.0f | %7.1f%% | %11.1f%% | %11.1f%% | %14.1f%% |%n",
                    row.getKey(), r.meanTokens(), 100.0 * r.tokens() / buffer.tokens(), 100 * r.cachedShare(),
                    r.prefixBreaks(), r.effectiveTokens(cachedPrice),
                    100 * r.effectiveTokens(cachedPrice) / buffer.effectiveTokens(cachedPrice),
                    100.0 * r.turnFound() / r.questions(), 100.0 * r.answerFound() / r.questions(),
                    100.0 * r.changedFound() / Math.max(1, r.changedQuestions())));
        }
        out.append(String.format(Locale.ROOT, "%nmean tok: prompt tokens per request; cached: the share of them a"
                + " prompt cache serves (prefix shared with the previous request, whole %d-token blocks from %,d on);"
                + " breaks: requests whose prefix changed before the previous request's newest message;"
                + " effective: uncached + %.2f x cached tokens, in total.%n", Replay.CACHE_BLOCK, Replay.CACHE_MINIMUM,
                cachedPrice));
        out.append(cacheTargets(totals, cachedPrice));
        Result target = totals.get(SUMMARY_BUFFER + WITH_RECALL);
        if (target != null) {
            double share = 100.0 * target.turnFound() / target.questions();
            double cost = 100.0 * target.tokens() / buffer.tokens();
            out.append(String.format(Locale.ROOT,
                    "%nsummary-buffer(%d) + recall(%d): fact turn in %.1f%% of requests (target >= 90%%), "
                            + "%.1f%% of the buffer's tokens (target <= 20%%): %s%n", SUMMARY_BUFFER_TOKENS,
                    RECALL_TOKENS, share, cost, share >= 90 && cost <= 20 ? "met" : "NOT met"));
        }
        return out.toString();
    }

    /**
     * Issue 15's targets, each against the sliding window with the same upper limit in this run, for
     * every pair that ran (with recall too, pairing recall variants).
     */
    static String cacheTargets(Map<String, Result> totals, double cachedPrice) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "%nprompt-cache targets (cached tokens at %.2f of the price), against the sliding window with the"
                        + " same upper limit:%n", cachedPrice));
        for (String recall : new String[] {"", WITH_RECALL}) {
            for (String[] pair : new String[][] {{WINDOW_MESSAGES_CHUNKED, WINDOW_MESSAGES_SLIDING},
                {WINDOW_LARGE_CHUNKED, WINDOW_LARGE_SLIDING}, {WINDOW_TOKENS_CHUNKED, WINDOW_TOKENS_SLIDING}}) {
                Result chunked = totals.get(pair[0] + recall);
                Result sliding = totals.get(pair[1] + recall);
                if (chunked == null || sliding == null) {
                    continue;
                }
                double cost = chunked.effectiveTokens(cachedPrice) / sliding.effectiveTokens(cachedPrice);
                double raw = (double) chunked.tokens() / sliding.tokens();
                out.append(String.format(Locale.ROOT, "  %s: cached-prefix share %.1f%% (target >= 70%%): %s;"
                                + " effective cost %.1f%% of the sliding window's (target <= 50%%): %s;"
                                + " raw tokens %.1f%% of it (target <= 120%%): %s%n", pair[0] + recall,
                        100 * chunked.cachedShare(), met(chunked.cachedShare() >= 0.7), 100 * cost, met(cost <= 0.5),
                        100 * raw, met(raw <= 1.2)));
            }
            Result summaryBuffer = totals.get(SUMMARY_BUFFER + recall);
            for (String window : new String[] {WINDOW_TOKENS_SLIDING, WINDOW_MESSAGES_SLIDING}) {
                Result sliding = totals.get(window + recall);
                if (summaryBuffer == null || sliding == null) {
                    continue;
                }
                double cost = summaryBuffer.effectiveTokens(cachedPrice) / sliding.effectiveTokens(cachedPrice);
                out.append(String.format(Locale.ROOT, "  %s: cached-prefix share %.1f%% (target >= 60%%): %s;"
                                + " effective cost %.1f%% of that of %s (target < 100%%): %s%n",
                        SUMMARY_BUFFER + recall, 100 * summaryBuffer.cachedShare(),
                        met(summaryBuffer.cachedShare() >= 0.6), 100 * cost, window + recall, met(cost < 1)));
            }
        }
        return out.toString();
    }

    private static String met(boolean met) {
        return met ? "met" : "NOT met";
    }

    /** Recall as this benchmark runs it: the default set-up, or hybrid() with {@code -Dlongmemory.hybrid=true}. */
    static RecallContentRetriever recall(SessionStore store) {
        RecallContentRetriever.Builder builder = RecallContentRetriever.builder().store(store).maxTokens(RECALL_TOKENS);
        if (Boolean.getBoolean("longmemory.hybrid")) {
            builder.hybrid(); // -Dlongmemory.hybrid=true: recall with hybrid() instead of its (lexical) default
        }
        return builder.build();
    }

    /** Replays a conversation through one memory as AiServices drives it, with recall built by {@code recalls} or without ({@code null}). */
    static Result replay(Strategy strategy, Function<SessionStore, RecallContentRetriever> recalls,
                         LongMemoryConversation conversation) {
        boolean withRecall = recalls != null;
        MutableClock clock = MutableClock.at(Instant.parse("2026-01-05T09:00:00Z"));
        SessionStore store = InMemorySessionStore.create(clock);
        ChatMemory memory = strategy.memory().apply(store);
        RecallContentRetriever recall = withRecall ? recalls.apply(store) : null;
        RetrievalAugmentor augmentor = recall == null ? null : recall.augmentor();
        InvocationContext context = InvocationContext.builder().chatMemoryId(SESSION).build();
        TokenCache tokens = new TokenCache();
        memory.add(SystemMessage.from(LongMemoryConversation.SYSTEM));
        long requests = 0;
        long total = 0;
        long cached = 0;
        int prefixBreaks = 0;
        List<ChatMessage> previous = List.of();
        int questions = 0;
        int turnFound = 0;
        int answerFound = 0;
        int changedQuestions = 0;
        int changedFound = 0;
        int lastSitting = 0;
        Instant sittingStart = clock.instant();
        int inSitting = 0;
        for (LongMemoryConversation.Turn turn : conversation.turns()) {
            if (turn.sitting() != lastSitting) {
                lastSitting = turn.sitting();
                sittingStart = sittingStart.plus(Duration.ofDays(3));
                inSitting = 0;
            }
            clock.set(sittingStart.plus(Duration.ofMinutes((long) LongMemoryConversation.MINUTES_PER_TURN * inSitting++)));
            List<ChatMessage> view = memory.messages();
            UserMessage user = UserMessage.from(turn.user());
            UserMessage sent = user;
            if (augmentor != null) {
                Metadata metadata = Metadata.builder().chatMessage(user).chatMemory(view).invocationContext(context).build();
                sent = (UserMessage) augmentor.augment(new AugmentationRequest(user, metadata)).chatMessage();
            }
            List<ChatMessage> request = new ArrayList<>(view);
            request.add(sent);
            requests++;
            total += tokens.count(request);
            cached += Replay.cachedTokens(previous, request, tokens::count);
            prefixBreaks += requests > 1 && !startsWith(request, previous.subList(0, previous.size() - 1)) ? 1 : 0;
            previous = request;
            if (turn.probe() != null) {
                String text = text(request);
                questions++;
                boolean found = text.contains(turn.probe().factTurn());
                if (!found && Boolean.getBoolean("longmemory.debug")) {
                    System.err.println("not in request: " + turn.user() + " | fact turn: " + turn.probe().factTurn()
                            + (sent == user ? "" : "\n  recalled: " + sent.singleText().substring(turn.user().length())
                                    .replace("\n", "\n    ")));
                }
                turnFound += found ? 1 : 0;
                answerFound += text.toLowerCase(Locale.ROOT).contains(turn.probe().answer().toLowerCase(Locale.ROOT)) ? 1 : 0;
                if (turn.probe().changed()) {
                    changedQuestions++;
                    changedFound += found ? 1 : 0;
                }
            }
            memory.add(user);
            memory.add(AiMessage.from(turn.assistant()));
        }
        if (recall != null) {
            recall.close();
        }
        return new Result(strategy.name(), withRecall, requests, total, cached, prefixBreaks, questions, turnFound,
                answerFound, changedQuestions, changedFound);
    }

    private static boolean startsWith(List<ChatMessage> request, List<ChatMessage> prefix) {
        return request.size() >= prefix.size() && request.subList(0, prefix.size()).equals(prefix);
    }

    static String text(List<ChatMessage> messages) {
        StringBuilder text = new StringBuilder();
        for (ChatMessage message : messages) {
            if (message instanceof SystemMessage) {
                text.append(((SystemMessage) message).text());
            } else if (message instanceof UserMessage) {
                for (dev.langchain4j.data.message.Content content : ((UserMessage) message).contents()) {
                    if (content instanceof TextContent) {
                        text.append(((TextContent) content).text());
                    }
                }
            } else if (message instanceof AiMessage && ((AiMessage) message).text() != null) {
                text.append(((AiMessage) message).text());
            }
            text.append('\n');
        }
        return text.toString();
    }

    /** Counts each distinct message once: a buffer's requests repeat thousands of messages. */
    static final class TokenCache {
        private final Map<ChatMessage, Integer> counts = new HashMap<>();

        long count(List<ChatMessage> messages) {
            long tokens = TOKENIZER.estimateTokenCountInMessages(List.of());
            for (ChatMessage message : messages) {
                tokens += count(message);
            }
            if (counts.size() > 200_000) {
                counts.clear();
            }
            return tokens;
        }

        int count(ChatMessage message) {
            return counts.computeIfAbsent(message, TOKENIZER::estimateTokenCountInMessage);
        }
    }
}
