package io.github.memorypack.replay;

import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.buffer.BufferChatMemory;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.Summarizer;
import io.github.memorypack.summary.SummaryChatMemory;
import io.github.memorypack.core.TokenAccounting;
import io.github.memorypack.summarybuffer.SummaryBufferChatMemory;
import io.github.memorypack.window.WindowChatMemory;
import io.github.memorypack.recall.RecallContentRetriever;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The memory strategies the samples compare, built the same way everywhere: one session id,
 * one store, one tokenizer, and for the summarizing ones one summarizer and one token ledger.
 */
public enum Strategy {
    /** Every message, always. */
    BUFFER("buffer"),
    /** The last {@link Limits#windowMessages()} messages, cut at whole turns. */
    WINDOW("window"),
    /** The last {@link Limits#maxTokens()} tokens, sliding (LangChain4j's eviction). */
    WINDOW_TOKENS("window-tokens"),
    /** The last {@link Limits#maxTokens()} tokens, evicted in chunks for prompt caches. */
    WINDOW_CHUNKED("window-chunked"),
    /** A running summary, folded after every turn, plus the turn not yet folded. */
    SUMMARY("summary"),
    /** Recent turns verbatim up to {@link Limits#maxTokens()}, older ones folded into a summary. */
    SUMMARY_BUFFER("summary-buffer"),
    /** {@link #WINDOW} plus recall: older turns relevant to the question are appended to it. */
    WINDOW_RECALL("window+recall"),
    /** {@link #SUMMARY_BUFFER} plus recall: older turns relevant to the question are appended to it. */
    SUMMARY_BUFFER_RECALL("summary-buffer+recall");

    /** Tokens recall may add to a request (the recall module's default). */
    public static final int RECALL_TOKENS = RecallContentRetriever.DEFAULT_MAX_TOKENS;

    private final String label;

    Strategy(String label) {
        this.label = label;
    }

    /** The name used in options, tables and charts. */
    public String label() {
        return label;
    }

    /** Whether it calls a summarizer. */
    public boolean summarizes() {
        return memory() == SUMMARY || memory() == SUMMARY_BUFFER;
    }

    /** Whether requests also carry recalled turns ({@code memory-pack-recall}). */
    public boolean recalls() {
        return this == WINDOW_RECALL || this == SUMMARY_BUFFER_RECALL;
    }

    /** The memory strategy: itself, or the one a recall variant adds recall to. */
    public Strategy memory() {
        return switch (this) {
            case WINDOW_RECALL -> WINDOW;
            case SUMMARY_BUFFER_RECALL -> SUMMARY_BUFFER;
            default -> this;
        };
    }

    /** The strategies that are memories alone (no recall): what a chat can be switched between. */
    public static List<Strategy> memories() {
        return Arrays.stream(values()).filter(s -> !s.recalls()).toList();
    }

    /**
     * What augments this strategy's requests on {@code store}: for a recall variant, recall's
     * augmentor with its defaults (lexical: BM25 over the session, no model; at most
     * {@value #RECALL_TOKENS} tokens; closing it commits and closes the indexes); for the others, nothing.
     */
    public Replay.Augmentation augmentation(SessionStore store, TokenCountEstimator tokenizer) {
        if (!recalls()) {
            return Replay.Augmentation.none();
        }
        RecallContentRetriever recall = RecallContentRetriever.builder().store(store).tokenizer(tokenizer)
                .maxTokens(RECALL_TOKENS).build();
        return Replay.Augmentation.of(recall.augmentor(), recall::close);
    }

    /** The label with its limit, for tables: {@code window (20 messages)}. */
    public String describe(Limits limits) {
        return switch (this) {
            case BUFFER -> label;
            case WINDOW -> label + " (" + limits.windowMessages() + " messages)";
            case WINDOW_TOKENS -> label + " (" + limits.maxTokens() + ", sliding)";
            case WINDOW_CHUNKED -> label + " (" + limits.maxTokens() + ", chunked)";
            case SUMMARY -> label + " (cap " + limits.summaryTokens() + ")";
            case SUMMARY_BUFFER -> label + " (" + limits.maxTokens() + " tokens)";
            case WINDOW_RECALL, SUMMARY_BUFFER_RECALL -> memory().describe(limits).replace(memory().label, label)
                    .replace(")", ", recall " + RECALL_TOKENS + ")");
        };
    }

    /**
     * A memory of this strategy for {@code sessionId} on {@code store}: {@link #provider}'s memory for
     * that id.
     */
    public ChatMemory create(String sessionId, SessionStore store, Limits limits, TokenCountEstimator tokenizer,
                             Summarizer summarizer, TokenAccounting accounting) {
        return provider(store, limits, tokenizer, summarizer, accounting).get(sessionId);
    }

    /**
     * A provider for {@code AiServices.chatMemoryProvider(…)}: one memory of this strategy per
     * memory id, all on {@code store}.
     *
     * @param summarizer ignored by buffer and window
     * @param accounting where summarizer calls are recorded; ignored by buffer and window
     */
    public ChatMemoryProvider provider(SessionStore store, Limits limits, TokenCountEstimator tokenizer,
                                       Summarizer summarizer, TokenAccounting accounting) {
        return switch (memory()) {
            case BUFFER -> BufferChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer).provider();
            case WINDOW -> WindowChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer)
                    .maxMessages(limits.windowMessages()).provider();
            case WINDOW_TOKENS -> WindowChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer)
                    .maxTokens(limits.maxTokens()).provider();
            case WINDOW_CHUNKED -> WindowChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer)
                    .maxTokens(limits.maxTokens()).chunkedEviction().provider();
            case SUMMARY -> SummaryChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer)
                    .summarizer(summarizer).maxSummaryTokens(limits.summaryTokens()).tokenAccounting(accounting)
                    .provider();
            case SUMMARY_BUFFER -> SummaryBufferChatMemory.builder().chatMemoryStore(store).tokenizer(tokenizer)
                    .summarizer(summarizer).maxSummaryTokens(limits.summaryTokens()).maxBufferTokens(limits.maxTokens())
                    .tokenAccounting(accounting).provider();
            default -> throw new IllegalStateException("no memory for " + this);
        };
    }

    /**
     * The strategy with this label.
     *
     * @throws IllegalArgumentException for an unknown label, listing the known ones
     */
    public static Strategy of(String label) {
        String wanted = label.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(s -> s.label.equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown strategy '" + label + "', expected one of "
                        + labels()));
    }

    /** Strategies from a comma-separated list of labels, in the order given. */
    public static List<Strategy> list(String labels) {
        List<Strategy> strategies = Arrays.stream(labels.split(",")).filter(s -> !s.isBlank()).map(Strategy::of)
                .distinct().toList();
        if (strategies.isEmpty()) {
            throw new IllegalArgumentException("no strategy given, expected some of " + labels());
        }
        return strategies;
    }

    /** All labels, comma-separated. */
    public static String labels() {
        return String.join(",", Arrays.stream(values()).map(Strategy::label).toList());
    }

    /**
     * The limits of the strategies.
     *
     * @param windowMessages messages the window keeps
     * @param maxTokens      summary-buffer's verbatim budget, and the token windows' limit
     * @param summaryTokens  cap of every summary
     */
    public record Limits(int windowMessages, int maxTokens, int summaryTokens) {

        /** The samples' defaults: a 20-message window, 2,000 tokens for summary-buffer, 500-token summaries. */
        public static final Limits DEFAULT = new Limits(20, 2_000, 500);

        public Limits {
            requirePositive("windowMessages", windowMessages);
            requirePositive("maxTokens", maxTokens);
            requirePositive("summaryTokens", summaryTokens);
        }

        private static void requirePositive(String name, int value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be >= 1, was " + value);
            }
        }
    }
}
