package io.github.memorypack.spring;

import io.github.memorypack.core.Tokenizers;
import java.time.Duration;
import org.springframework.validation.Errors;

/**
 * The checks of {@link MemoryPackProperties#validate}: each rejection names the {@code memory-pack.*}
 * property and carries its fix, for {@link MemoryPackFailureAnalyzer}.
 */
final class PropertiesCheck {

    /** The error code of every rejection. */
    static final String INVALID = "memory-pack.invalid";

    private PropertiesCheck() {
    }

    /** Records in {@code errors} every value of {@code p} the memory builders and stores would reject later. */
    static void validate(MemoryPackProperties p, Errors errors) {
        MemoryPackProperties.Window window = p.getWindow();
        MemoryPackProperties.SummaryBuffer summaryBuffer = p.getSummaryBuffer();
        MemoryPackProperties.Summarizer summarizer = p.getSummarizer();
        MemoryPackProperties.Redis redis = p.getStore().getRedis();
        atLeast(errors, "contextTokens", p.getContextTokens(), 1, "no ceiling");
        atLeast(errors, "viewCacheSize", p.getViewCacheSize(), 0, "the shared cache");
        atLeast(errors, "window.maxMessages", window.getMaxMessages(), 1, "20 messages when no window limit is set");
        atLeast(errors, "window.maxTurns", window.getMaxTurns(), 1, "20 messages when no window limit is set");
        atLeast(errors, "window.maxTokens", window.getMaxTokens(), 1, "20 messages when no window limit is set");
        atLeast(errors, "summary.foldEveryTurns", p.getSummary().getFoldEveryTurns(), 1, "a fold after every turn");
        atLeast(errors, "summaryBuffer.maxBufferTokens", summaryBuffer.getMaxBufferTokens(), 1, "2000");
        atLeast(errors, "summaryBuffer.lowWatermark", summaryBuffer.getLowWatermark(), 0, "half of max-buffer-tokens");
        atLeast(errors, "summarizer.maxSummaryTokens", summarizer.getMaxSummaryTokens(), 1, "the summarizer's own cap");
        Duration timeout = summarizer.getTimeout();
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            reject(errors, "summarizer.timeout", "must be positive, was " + timeout,
                    "Set memory-pack.summarizer.timeout to a positive duration such as 60s (the default).");
        }
        Duration maxWait = p.getConcurrentSends().getMaxWait();
        if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
            reject(errors, "concurrentSends.maxWait", "must be positive, was " + maxWait,
                    "Set memory-pack.concurrent-sends.max-wait to a positive duration such as 30s (the default).");
        }
        if (redis.getTtl() != null && redis.getTtl().toMillis() < 1) {
            reject(errors, "store.redis.ttl", "must be at least 1ms, was " + redis.getTtl(),
                    "Set memory-pack.store.redis.ttl to a positive duration such as 30d, or remove it so that"
                            + " sessions never expire.");
        }
        if (redis.getRetryDuration() != null && redis.getRetryDuration().isNegative()) {
            reject(errors, "store.redis.retryDuration", "must be zero or more, was " + redis.getRetryDuration(),
                    "Set memory-pack.store.redis.retry-duration to a duration such as 10s (the default), or 0s to"
                            + " fail at once.");
        }
        if (p.getTokenizerModel() != null) {
            try {
                Tokenizers.forModel(p.getTokenizerModel());
            } catch (IllegalArgumentException e) {
                reject(errors, "tokenizerModel", "is no OpenAI model family whose encoding is known (was '"
                        + p.getTokenizerModel() + "')", "Remove memory-pack.tokenizer-model to count with o200k_base"
                        + " (a sound estimate for other providers' models too), or name a model of the encoding wanted"
                        + " (gpt-4o or gpt-4o-mini for o200k_base, gpt-4 or gpt-3.5-turbo for cl100k_base).");
            }
        }
        if (p.getStrategy() == MemoryPackProperties.Strategy.WINDOW) {
            int limits = (window.getMaxMessages() != null ? 1 : 0) + (window.getMaxTurns() != null ? 1 : 0)
                    + (window.getMaxTokens() != null ? 1 : 0);
            if (limits > 1) {
                reject(errors, window.getMaxTurns() != null ? "window.maxTurns" : "window.maxTokens",
                        "is one of " + limits + " window limits set", "Set only one of memory-pack.window.max-messages,"
                                + " memory-pack.window.max-turns and memory-pack.window.max-tokens.");
            }
            if (p.getContextTokens() != null) {
                reject(errors, "contextTokens", "does not apply to memory-pack.strategy=window",
                        "Remove memory-pack.context-tokens, and bound the window's request with"
                                + " memory-pack.window.max-tokens instead.");
            }
        }
        Integer lowWatermark = summaryBuffer.getLowWatermark();
        int maxBufferTokens = summaryBuffer.getMaxBufferTokens();
        if (p.getStrategy() == MemoryPackProperties.Strategy.SUMMARY_BUFFER && lowWatermark != null
                && lowWatermark >= maxBufferTokens) {
            reject(errors, "summaryBuffer.lowWatermark", "must be below memory-pack.summary-buffer.max-buffer-tokens ("
                    + maxBufferTokens + ")", "Set memory-pack.summary-buffer.low-watermark below "
                    + maxBufferTokens + ", or remove it for half of max-buffer-tokens.");
        }
        MemoryPackProperties.Store store = p.getStore();
        if (store.getType() == MemoryPackProperties.StoreType.FILE && store.getFile().getDirectory() == null) {
            reject(errors, "store.file.directory", "is required with memory-pack.store.type=file",
                    "Set memory-pack.store.file.directory to the folder the sessions are kept in (it is created if"
                            + " missing).");
        }
    }

    private static void atLeast(Errors errors, String field, Integer value, int min, String unset) {
        if (value != null && value < min) {
            reject(errors, field, "must be at least " + min + ", was " + value, "Set " + property(field)
                    + " to " + min + " or more, or remove it for the default (" + unset + ").");
        }
    }

    /**
     * Rejects {@code field} with a message that starts with the property's name; the fix goes along as
     * the error's only argument, for {@link MemoryPackFailureAnalyzer}.
     */
    static void reject(Errors errors, String field, String problem, String fix) {
        errors.rejectValue(field, INVALID, new Object[] {fix}, property(field) + " " + problem);
    }

    /** {@code summaryBuffer.maxBufferTokens} → {@code memory-pack.summary-buffer.max-buffer-tokens}. */
    static String property(String field) {
        return "memory-pack." + field.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }
}
