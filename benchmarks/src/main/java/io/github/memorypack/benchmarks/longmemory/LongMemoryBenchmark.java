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
import io.github.memorypack.core.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.recall.RecallContentRetriever;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.core.SummaryChatMemory;
import io.github.memorypack.core.SummaryBufferChatMemory;
import io.github.memorypack.testkit.MutableClock;
import io.github.memorypack.core.WindowChatMemory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The long-memory benchmark: replays generated {@link LongMemoryConversation}s (three, of 320, 500 and
 * 700 turns) through buffer, window (20 messages), summary and summary-buffer (2,000 tokens) — the
 * summaries by the offline {@link ExtractiveSummarizer}, cap 500 tokens — each without and with
 * recall (a {@link RecallContentRetriever} with an 800-token budget, used through its
 * {@code augmentor()} exactly as {@code AiServices} uses it), and reports per strategy the prompt
 * tokens per request (mean, and as a share of the buffer's) and, over every question, the share
 * whose fact-bearing turn (the newest statement of the fact) is in the request, and the share whose
 * answer text is. Tokens are o200k estimates; nothing is timed here (see {@link RecallLatency}).
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am -DskipTests -Plongmemory package
 * </pre>
 *
 * <p>Then runs {@link RecallLatency} ({@code -Dlongmemory.latency=false} skips it).
 * {@code -Dlongmemory.only=<strategy name prefix>} runs the buffer and that strategy only;
 * {@code -Dlongmemory.debug=true} prints each question whose fact turn was not in the request.
 */
public final class LongMemoryBenchmark {

    /** The conversations: seed and length. */
    static final long[][] CONVERSATIONS = {{1, 320}, {2, 500}, {3, 700}};
    static final int WINDOW_MESSAGES = 20;
    static final int SUMMARY_BUFFER_TOKENS = 2_000;
    static final int SUMMARY_CAP = 500;
    static final int RECALL_TOKENS = RecallContentRetriever.DEFAULT_MAX_TOKENS;
    static final String SESSION = "user";

    private static final TokenCountEstimator TOKENIZER = Tokenizers.o200k();

    private LongMemoryBenchmark() {
    }

    /** A strategy under test. */
    record Strategy(String name, Function<SessionStore, ChatMemory> memory) {
    }

    static List<Strategy> strategies() {
        return List.of(
                new Strategy("buffer", store -> BufferChatMemory.builder().id(SESSION).chatMemoryStore(store).build()),
                new Strategy("window (" + WINDOW_MESSAGES + " messages)", store -> WindowChatMemory.builder().id(SESSION)
                        .chatMemoryStore(store).maxMessages(WINDOW_MESSAGES).build()),
                new Strategy("summary (cap " + SUMMARY_CAP + ")", store -> SummaryChatMemory.builder().id(SESSION)
                        .chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(summarizer()).build()),
                new Strategy("summary-buffer (" + SUMMARY_BUFFER_TOKENS + ")", store -> SummaryBufferChatMemory.builder()
                        .id(SESSION).chatMemoryStore(store).tokenizer(TOKENIZER).summarizer(summarizer())
                        .maxBufferTokens(SUMMARY_BUFFER_TOKENS).build()));
    }

    private static Summarizer summarizer() {
        return Summarizer.extractive(SUMMARY_CAP);
    }

    /** What one strategy cost and kept over one conversation. */
    record Result(String strategy, boolean recall, long requests, long tokens, int questions, int turnFound,
                  int answerFound, int changedQuestions, int changedFound) {

        Result plus(Result other) {
            return new Result(strategy, recall, requests + other.requests, tokens + other.tokens,
                    questions + other.questions, turnFound + other.turnFound, answerFound + other.answerFound,
                    changedQuestions + other.changedQuestions, changedFound + other.changedFound);
        }

        double meanTokens() {
            return (double) tokens / requests;
        }
    }

    public static void main(String[] args) throws Exception {
        List<LongMemoryConversation> conversations = new ArrayList<>();
        for (long[] c : CONVERSATIONS) {
            conversations.add(LongMemoryConversation.generate(c[0], (int) c[1]));
        }
        StringBuilder out = new StringBuilder();
        out.append("Long-memory benchmark: o200k tokens, offline extractive summarizer (cap ").append(SUMMARY_CAP)
                .append("), recall budget ").append(RECALL_TOKENS).append(" tokens, min score ")
                .append(RecallContentRetriever.DEFAULT_MIN_SCORE).append('\n');
        for (LongMemoryConversation conversation : conversations) {
            out.append("  ").append(conversation).append('\n');
        }
        out.append('\n');
        Map<String, Result> totals = new java.util.LinkedHashMap<>();
        String only = System.getProperty("longmemory.only", "");
        for (Strategy strategy : strategies()) {
            if (!strategy.name().startsWith(only) && !strategy.name().equals("buffer")) {
                continue;
            }
            for (boolean recall : new boolean[] {false, true}) {
                Result total = null;
                for (LongMemoryConversation conversation : conversations) {
                    Result result = replay(strategy, recall, conversation);
                    total = total == null ? result : total.plus(result);
                }
                totals.put(strategy.name() + (recall ? " + recall" : ""), total);
                System.err.printf(Locale.ROOT, "done: %s%s%n", strategy.name(), recall ? " + recall" : "");
            }
        }
        out.append(table(totals));
        System.out.println(out);
        if (!"false".equals(System.getProperty("longmemory.latency"))) {
            // in this JVM: the model's native tokenizer library can be loaded by one class loader only
            RecallLatency.main(args);
        }
    }

    static String table(Map<String, Result> totals) {
        Result buffer = totals.values().iterator().next();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "| %-38s | %9s | %8s | %12s | %12s | %15s |%n", "strategy",
                "mean tok", "% buffer", "fact turn in", "answer in", "changed: newest"));
        out.append("|---|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, Result> row : totals.entrySet()) {
            Result r = row.getValue();
            out.append(String.format(Locale.ROOT, "| %-38s | %,9.0f | %7.1f%% | %11.1f%% | %11.1f%% | %14.1f%% |%n",
                    row.getKey(), r.meanTokens(), 100.0 * r.tokens() / buffer.tokens(),
                    100.0 * r.turnFound() / r.questions(), 100.0 * r.answerFound() / r.questions(),
                    100.0 * r.changedFound() / Math.max(1, r.changedQuestions())));
        }
        Result target = totals.get("summary-buffer (" + SUMMARY_BUFFER_TOKENS + ") + recall");
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

    /** Replays a conversation through one memory as AiServices drives it, with or without recall. */
    static Result replay(Strategy strategy, boolean withRecall, LongMemoryConversation conversation) {
        MutableClock clock = MutableClock.at(Instant.parse("2026-01-05T09:00:00Z"));
        SessionStore store = InMemorySessionStore.create(clock);
        ChatMemory memory = strategy.memory().apply(store);
        RecallContentRetriever recall = withRecall ? RecallContentRetriever.builder().store(store)
                .maxTokens(RECALL_TOKENS).build() : null;
        RetrievalAugmentor augmentor = recall == null ? null : recall.augmentor();
        InvocationContext context = InvocationContext.builder().chatMemoryId(SESSION).build();
        TokenCache tokens = new TokenCache();
        memory.add(SystemMessage.from(LongMemoryConversation.SYSTEM));
        long requests = 0;
        long total = 0;
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
            if (turn.probe() != null) {
                String text = text(request);
                questions++;
                boolean found = text.contains(turn.probe().factTurn());
                if (!found && Boolean.getBoolean("longmemory.debug")) {
                    System.err.println("not in request: " + turn.user() + " | fact turn: " + turn.probe().factTurn());
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
        return new Result(strategy.name(), withRecall, requests, total, questions, turnFound, answerFound,
                changedQuestions, changedFound);
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
                tokens += counts.computeIfAbsent(message, TOKENIZER::estimateTokenCountInMessage);
            }
            if (counts.size() > 200_000) {
                counts.clear();
            }
            return tokens;
        }
    }
}
