package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Token counts as views use them: the estimator (the one set, or o200k by default), an entry's
 * stored count (counted once, at append; the estimator's only for an entry stored without one), what
 * a request costs besides its messages, and a bounded cache of the counts of pinned messages (system
 * messages and summaries, counted once each). Shared by every memory of a builder or provider, so the
 * cache keeps the {@value #PINNED_COUNTS} most recently used rather than one per session. Thread-safe.
 */
final class TokenCounts {

    /** How many counted system messages and summaries are kept (one per active session is enough). */
    static final int PINNED_COUNTS = 256;

    private volatile TokenCountEstimator tokenizer;
    private volatile int replyTokens = -1;
    private final Map<ChatMessage, Integer> pinnedCounts = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ChatMessage, Integer> eldest) {
            return size() > PINNED_COUNTS;
        }
    };

    /** Counts with {@code tokenizer}, or with o200k when it is null. */
    TokenCounts(TokenCountEstimator tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** The estimator used for token limits and for messages the rules rewrite. */
    TokenCountEstimator tokenizer() {
        TokenCountEstimator estimator = tokenizer;
        if (estimator == null) {
            estimator = Tokenizers.o200k();
            tokenizer = estimator;
        }
        return estimator;
    }

    /** The estimator as set (null: the default, not chosen yet). */
    TokenCountEstimator tokenizerSet() {
        return tokenizer;
    }

    /** Tokens a request costs besides its messages: what the estimator charges for no message at all. */
    int replyTokens() {
        int tokens = replyTokens;
        if (tokens < 0) {
            tokens = tokenizer().estimateTokenCountInMessages(List.of());
            replyTokens = tokens;
        }
        return tokens;
    }

    /** The stored count of an entry, or the tokenizer's when it has none. */
    int storedTokens(Entry entry) {
        return entry.hasTokenCount() ? entry.tokenCount() : tokenizer().estimateTokenCountInMessage(entry.message());
    }

    /** Tokens of the pinned messages and the reply priming. */
    long pinnedTokens(List<ChatMessage> pinned) {
        long size = replyTokens();
        for (ChatMessage message : pinned) {
            size += countCached(message);
        }
        return size;
    }

    /** The count of a pinned message, from the cache when it was counted before. */
    int countCached(ChatMessage message) {
        Integer count;
        synchronized (pinnedCounts) {
            count = pinnedCounts.get(message);
        }
        if (count == null) {
            count = tokenizer().estimateTokenCountInMessage(message);
            synchronized (pinnedCounts) {
                pinnedCounts.put(message, count);
            }
        }
        return count;
    }

    /** How many pinned-message counts are held (for tests). */
    int pinnedCountsHeld() {
        synchronized (pinnedCounts) {
            return pinnedCounts.size();
        }
    }
}
