package io.github.memorypack.benchmarks.replay;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.InMemorySessionStore;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Tokenizers;
import io.github.memorypack.summary.ExtractiveSummarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.summary.TokenAccounting;
import io.github.memorypack.summary.TokenReport;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Replays the project's scripted conversation ({@code replay/conversation.txt}: 322 turns, facts
 * planted in the first five and asked about in the last two) through buffer, window, summary and
 * summary-buffer memories, exactly as {@code AiServices} drives a memory (add the system message,
 * read the view, send view + user message, add user message, add the reply), and prints per
 * strategy the prompt tokens sent per request (mean, max, total), the summarizer's calls and tokens
 * in and out, and how many planted facts the request at the first probe still carried.
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

    static final SystemMessage SYSTEM = SystemMessage.from(
            "You are a friendly travel planner. Keep the traveller's preferences and constraints in mind.");
    static final String PROBE = "Before we book anything";
    static final List<String> FACTS = List.of("Ana Ribeiro", "Porto", "1200 euros", "March 14", "vegetarian", "allergic to nuts");

    private static final TokenCountEstimator TOKENIZER = Tokenizers.o200k();

    /** One user message and the scripted reply. */
    public record Turn(String user, String assistant) {
    }

    /** What one strategy cost over the replay. */
    public record Result(String strategy, int requests, long totalTokens, int maxTokens, long summarizerCalls,
                         long summarizerInputTokens, long summarizerOutputTokens, int factsAtProbe) {

        public double meanTokens() {
            return requests == 0 ? 0 : (double) totalTokens / requests;
        }

        public long summarizerTokens() {
            return summarizerInputTokens + summarizerOutputTokens;
        }
    }

    private ReplayBenchmark() {
    }

    public static void main(String[] args) {
        int maxTokens = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_MAX_TOKENS;
        List<Turn> turns = conversation();
        List<Result> results = run(turns, maxTokens);
        System.out.println(table(results, turns.size(), maxTokens));
    }

    /** The scripted conversation, from the classpath. */
    public static List<Turn> conversation() {
        InputStream in = ReplayBenchmark.class.getResourceAsStream("/replay/conversation.txt");
        if (in == null) {
            throw new IllegalStateException("replay/conversation.txt is not on the classpath");
        }
        List<Turn> turns = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String user = null;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (line.startsWith("U: ")) {
                    user = line.substring(3);
                } else if (line.startsWith("A: ") && user != null) {
                    turns.add(new Turn(user, line.substring(3)));
                    user = null;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return turns;
    }

    /** Replays {@code turns} through every strategy; summary-buffer and token window use {@code maxTokens}. */
    public static List<Result> run(List<Turn> turns, int maxTokens) {
        List<Result> results = new ArrayList<>();
        results.add(replay("buffer", BufferChatMemory.builder().id("buffer").store(store()).build(), null, turns));
        results.add(replay("window (last 20 messages)",
                WindowChatMemory.builder().id("window-20").store(store()).maxMessages(20).build(), null, turns));
        results.add(replay("window (" + maxTokens + " tokens)",
                WindowChatMemory.builder().id("window-tokens").store(store()).maxTokens(maxTokens).build(), null, turns));
        TokenAccounting summaryAccounting = TokenAccounting.create();
        results.add(replay("summary (every turn)", SummaryChatMemory.builder().id("summary").store(store())
                .summarizer(summarizer()).tokenAccounting(summaryAccounting).build(), summaryAccounting, turns));
        TokenAccounting bufferAccounting = TokenAccounting.create();
        results.add(replay("summary-buffer (" + maxTokens + ")", SummaryBufferChatMemory.builder().id("summary-buffer")
                .store(store()).summarizer(summarizer()).maxTokens(maxTokens).tokenAccounting(bufferAccounting)
                .build(), bufferAccounting, turns));
        return results;
    }

    private static SessionStore store() {
        return InMemorySessionStore.create();
    }

    private static ExtractiveSummarizer summarizer() {
        return ExtractiveSummarizer.builder().maxSummaryTokens(SUMMARY_CAP).build();
    }

    /** Drives {@code memory} as AiServices does and measures every request. */
    static Result replay(String name, ChatMemory memory, TokenAccounting accounting, List<Turn> turns) {
        Map<ChatMessage, Integer> counted = new HashMap<>();
        long total = 0;
        int max = 0;
        int facts = -1;
        for (Turn turn : turns) {
            UserMessage user = UserMessage.from(turn.user());
            memory.add(SYSTEM);
            List<ChatMessage> request = new ArrayList<>(memory.messages());
            request.add(user);
            int tokens = Tokenizers.TOKENS_PER_REPLY;
            for (ChatMessage message : request) {
                tokens += counted.computeIfAbsent(message, TOKENIZER::estimateTokenCountInMessage);
            }
            total += tokens;
            max = Math.max(max, tokens);
            if (facts < 0 && turn.user().startsWith(PROBE)) {
                facts = factsIn(request);
            }
            memory.add(user);
            memory.add(AiMessage.from(turn.assistant()));
        }
        TokenReport report = accounting == null ? null : accounting.report(memory.id());
        return new Result(name, turns.size(), total, max, report == null ? 0 : report.summarizerCalls(),
                report == null ? 0 : report.summarizerInputTokens(), report == null ? 0 : report.summarizerOutputTokens(),
                Math.max(facts, 0));
    }

    private static int factsIn(List<ChatMessage> request) {
        StringBuilder text = new StringBuilder();
        for (ChatMessage message : request) {
            if (message instanceof SystemMessage system) {
                text.append(system.text()).append('\n');
            } else if (message instanceof UserMessage user) {
                user.contents().stream().filter(TextContent.class::isInstance)
                        .forEach(c -> text.append(((TextContent) c).text()).append('\n'));
            } else if (message instanceof AiMessage ai && ai.text() != null) {
                text.append(ai.text()).append('\n');
            }
        }
        int found = 0;
        for (String fact : FACTS) {
            if (text.indexOf(fact) >= 0) {
                found++;
            }
        }
        return found;
    }

    /** The results as a plain-text table, with the two targets checked. */
    public static String table(List<Result> results, int turns, int maxTokens) {
        Result buffer = results.get(0);
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Replay: %d turns, o200k tokens, summary cap %d, maxTokens %d%n%n",
                turns, SUMMARY_CAP, maxTokens));
        out.append(String.format(Locale.ROOT, "%-28s %9s %7s %11s %8s %6s %11s %11s %6s%n", "strategy", "mean/req",
                "max", "total", "% buffer", "calls", "summ. in", "summ. out", "facts"));
        for (Result r : results) {
            out.append(String.format(Locale.ROOT, "%-28s %9.0f %7d %11d %7.1f%% %6d %11d %11d %4d/%d%n", r.strategy(),
                    r.meanTokens(), r.maxTokens(), r.totalTokens(), 100.0 * r.totalTokens() / buffer.totalTokens(),
                    r.summarizerCalls(), r.summarizerInputTokens(), r.summarizerOutputTokens(), r.factsAtProbe(),
                    FACTS.size()));
        }
        Result summaryBuffer = results.get(results.size() - 1);
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
