package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.output.TokenUsage;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-session token ledger for every memory: our prompt-token estimates next to the
 * provider-reported usage, the summarizer's calls and tokens, and a calibration factor that
 * token-limited views apply when calibration is on ({@code calibrateWith} on a memory's builder).
 *
 * <p>Ways to record:
 * <ul>
 *   <li>Through {@link #listener(TokenCountEstimator)} on the chat model. A {@code ChatModelListener}
 *       is not told the memory id, so each request is charged to the memory id of the request that
 *       {@link RequestScope#aiServiceListeners()} follow (registered on {@code AiServices}: this
 *       works for blocking, streaming and async calls alike), or else to the session a memory
 *       configured with this ledger bound on the calling thread when it computed its view (blocking
 *       calls only). A request that neither identifies is counted in {@link #unattributedRequests()}
 *       and a warning is logged once. Do not put this listener on the summarizer's model: memories
 *       record summarizer calls themselves.</li>
 *   <li>Explicitly: {@link #recordRequest} after each chat call.</li>
 * </ul>
 *
 * <p><b>Calibration.</b> The {@linkplain #calibrationFactor factor} is an exponentially weighted
 * mean of reported / estimated prompt tokens per session: each request's ratio weighs as much as
 * all the requests {@code calibrationHalfLife} requests older ({@value #DEFAULT_HALF_LIFE} by
 * default); every ratio and the mean are kept within the bounds ({@value #DEFAULT_MIN_FACTOR} to
 * {@value #DEFAULT_MAX_FACTOR} by default), so one odd response cannot swing a budget. 1.0 until a
 * request with reported usage is recorded. Sessions are kept until {@link #forget}. Thread-safe.
 *
 * <p>{@link Experimental}: the calibration method, its defaults and the {@link Report} may still
 * change, and attribution through {@link RequestScope#aiServiceListeners()} rests on LangChain4j's
 * observability API, itself experimental.
 */
@Experimental
public final class TokenAccounting {

    /** Requests after which a ratio weighs half as much as a new one, by default. */
    public static final int DEFAULT_HALF_LIFE = 10;
    /** Lowest calibration factor, by default. */
    public static final double DEFAULT_MIN_FACTOR = 0.5;
    /** Highest calibration factor, by default. */
    public static final double DEFAULT_MAX_FACTOR = 2.0;

    private static final Logger LOG = LoggerFactory.getLogger(TokenAccounting.class);
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    private static final String SESSION_KEY = TokenAccounting.class.getName() + ".session";
    private static final String ESTIMATE_KEY = TokenAccounting.class.getName() + ".estimate";

    private final double alpha;
    private final double minFactor;
    private final double maxFactor;
    private final ConcurrentMap<String, Ledger> ledgers = new ConcurrentHashMap<>();
    private final ThreadLocal<String> bound = new ThreadLocal<>();
    private final AtomicLong unattributed = new AtomicLong();

    private TokenAccounting(Builder builder) {
        this.alpha = 1 - Math.pow(0.5, 1.0 / builder.halfLife);
        this.minFactor = builder.minFactor;
        this.maxFactor = builder.maxFactor;
    }

    /**
     * A ledger with the default half-life and bounds.
     *
     * @return a ledger with the default half-life and bounds
     */
    public static TokenAccounting create() {
        return builder().build();
    }

    /**
     * A builder for a ledger with another half-life or other bounds.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Records one chat request of a session.
     *
     * @param memoryId              the memory id (any object, as in {@link SessionIds#of})
     * @param estimatedPromptTokens our estimate of its prompt tokens
     * @param reported              the provider's usage, or {@code null}; its input count, when
     *                              present, feeds the calibration factor
     */
    public void recordRequest(Object memoryId, int estimatedPromptTokens, TokenUsage reported) {
        requested(SessionIds.of(memoryId), estimatedPromptTokens, reported);
    }

    /** {@link #recordRequest} by session id: the listener calls this (its session id is mapped already). */
    void requested(String sessionId, int estimatedPromptTokens, TokenUsage reported) {
        ledger(sessionId).request(estimatedPromptTokens, reported, alpha, minFactor, maxFactor);
    }

    /**
     * Records a successful summarizer call: estimated tokens sent to it and returned by it.
     *
     * @param memoryId the memory id: any non-null object
     * @param inputTokens estimated tokens sent to the summarizer
     * @param outputTokens estimated tokens it returned
     */
    public void recordSummarization(Object memoryId, int inputTokens, int outputTokens) {
        summarized(SessionIds.of(memoryId), inputTokens, outputTokens);
    }

    /** {@link #recordSummarization} by session id: memories call this (their id is mapped already). */
    void summarized(String sessionId, int inputTokens, int outputTokens) {
        ledger(sessionId).summarization(inputTokens, outputTokens);
    }

    /**
     * Records a summarizer call that produced no usable summary.
     *
     * @param memoryId the memory id: any non-null object
     */
    public void recordSummarizationFailure(Object memoryId) {
        summaryFailed(SessionIds.of(memoryId));
    }

    /** {@link #recordSummarizationFailure} by session id: memories call this. */
    void summaryFailed(String sessionId) {
        ledger(sessionId).failure();
    }

    /**
     * Reported / estimated prompt tokens of the session, weighted to recent requests; 1.0 without data.
     *
     * @param memoryId the memory id: any non-null object
     * @return the factor, within the calibration bounds
     */
    public double calibrationFactor(Object memoryId) {
        return factor(SessionIds.of(memoryId));
    }

    /** {@link #calibrationFactor} by session id: memories call this (their id is mapped already). */
    double factor(String sessionId) {
        Ledger ledger = ledgers.get(sessionId);
        return ledger == null ? 1.0 : ledger.factor();
    }

    /**
     * The session's figures so far (all zero for a session never recorded).
     *
     * @param memoryId the memory id: any non-null object
     * @return the session's figures so far (all zero for a session never recorded)
     */
    public Report report(Object memoryId) {
        String id = SessionIds.of(memoryId);
        Ledger ledger = ledgers.get(id);
        return ledger == null ? new Ledger().report(id) : ledger.report(id);
    }

    /**
     * The figures of every session, added up per strategy ({@code buffer}, {@code window},
     * {@code summary}, {@code summary-buffer}, {@code memory-md}; {@code unknown} for sessions only
     * recorded explicitly), sorted by strategy. A report's session id is the strategy and its
     * calibration factor is the mean over its sessions.
     *
     * @return the figures per strategy, sorted by strategy
     */
    public Map<String, Report> reportsByStrategy() {
        Map<String, Report> totals = new TreeMap<>();
        Map<String, Integer> sessions = new TreeMap<>();
        for (Map.Entry<String, Ledger> e : ledgers.entrySet()) {
            Report r = e.getValue().report(e.getKey());
            String strategy = e.getValue().strategy();
            Report sum = totals.get(strategy);
            totals.put(strategy, sum == null ? r.withSession(strategy) : sum.plus(r));
            sessions.merge(strategy, 1, Integer::sum);
        }
        totals.replaceAll((strategy, sum) -> sum.withFactor(sum.calibrationFactor() / sessions.get(strategy)));
        return totals;
    }

    /**
     * Requests the {@link #listener} saw but could not charge to a session (no request followed by
     * {@link RequestScope#aiServiceListeners()}, no memory bound on that thread).
     *
     * @return the number of such requests since this ledger was created
     */
    public long unattributedRequests() {
        return unattributed.get();
    }

    /**
     * Drops a session's figures.
     *
     * @param memoryId the memory id: any non-null object
     */
    public void forget(Object memoryId) {
        ledgers.remove(SessionIds.of(memoryId));
    }

    /** Charges the next request made on this thread through {@link #listener} to the session; memories call this. */
    void bind(String sessionId, String strategy) {
        bound.set(sessionId);
        ledger(sessionId).strategy(strategy);
    }

    /**
     * A listener for the chat model that records every request it can charge to a session (see the
     * class description): the estimate is the {@code tokenizer}'s count of the request's messages,
     * the reported usage is the response's. Failed requests are counted with no reported usage.
     *
     * @param tokenizer counts each request's messages for the estimate
     * @return a new listener
     */
    public ChatModelListener listener(TokenCountEstimator tokenizer) {
        Objects.requireNonNull(tokenizer, "tokenizer");
        return new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                Object memoryId = RequestScope.currentMemoryId();
                String session = memoryId != null ? SessionIds.of(memoryId) : bound.get();
                bound.remove();
                if (session == null) {
                    unattributed.incrementAndGet();
                    if (WARNED.compareAndSet(false, true)) {
                        LOG.warn("A chat request was not charged to any session: register"
                                + " RequestScope.aiServiceListeners() on AiServices (needed for streaming and async"
                                + " calls) or set tokenAccounting(...) on the memory. (Logged once; see"
                                + " TokenAccounting.unattributedRequests().)");
                    }
                    return;
                }
                context.attributes().put(SESSION_KEY, session);
                context.attributes().put(ESTIMATE_KEY, tokenizer.estimateTokenCountInMessages(context.chatRequest().messages()));
            }

            @Override
            public void onResponse(ChatModelResponseContext context) {
                Object session = context.attributes().get(SESSION_KEY);
                if (session != null) {
                    requested((String) session, (Integer) context.attributes().get(ESTIMATE_KEY),
                            context.chatResponse().tokenUsage());
                }
            }

            @Override
            public void onError(ChatModelErrorContext context) {
                Object session = context.attributes().get(SESSION_KEY);
                if (session != null) {
                    requested((String) session, (Integer) context.attributes().get(ESTIMATE_KEY), null);
                }
            }
        };
    }

    private Ledger ledger(String sessionId) {
        return ledgers.computeIfAbsent(sessionId, id -> new Ledger());
    }

    @Override
    public String toString() {
        return "TokenAccounting{sessions=" + ledgers.size() + ", halfLife=" + Math.log(0.5) / Math.log(1 - alpha)
                + ", bounds=[" + minFactor + ", " + maxFactor + "]}";
    }

    /**
     * What one session (or one strategy, in {@link #reportsByStrategy()}) has cost so far. Estimated
     * figures come from our tokenizer; reported ones from the provider's usage, for the requests that
     * had it.
     *
     * @param sessionId              the session (or the strategy)
     * @param requests               chat requests recorded
     * @param estimatedPromptTokens  our estimate of the prompt tokens of all recorded requests
     * @param reportedRequests       requests whose provider usage was reported
     * @param reportedPromptTokens   provider-reported input tokens of those requests
     * @param reportedOutputTokens   provider-reported output tokens of those requests
     * @param summarizerCalls        successful summarizer calls
     * @param summarizerFailures     summarizer calls that produced no usable summary
     * @param summarizerInputTokens  estimated tokens sent to the summarizer (previous summary + folded
     *                               messages)
     * @param summarizerOutputTokens estimated tokens of the summaries it returned
     * @param calibrationFactor      reported / estimated prompt tokens, weighted to recent requests; 1.0
     *                               without data
     */
    public record Report(String sessionId, long requests, long estimatedPromptTokens, long reportedRequests,
                         long reportedPromptTokens, long reportedOutputTokens, long summarizerCalls,
                         long summarizerFailures, long summarizerInputTokens, long summarizerOutputTokens,
                         double calibrationFactor) {

        /**
         * Chat prompt tokens plus summarizer input and output tokens, all estimated.
         *
         * @return the sum
         */
        public long estimatedTotalTokens() {
            return estimatedPromptTokens + summarizerInputTokens + summarizerOutputTokens;
        }

        Report plus(Report o) {
            return new Report(sessionId, requests + o.requests, estimatedPromptTokens + o.estimatedPromptTokens,
                    reportedRequests + o.reportedRequests, reportedPromptTokens + o.reportedPromptTokens,
                    reportedOutputTokens + o.reportedOutputTokens, summarizerCalls + o.summarizerCalls,
                    summarizerFailures + o.summarizerFailures, summarizerInputTokens + o.summarizerInputTokens,
                    summarizerOutputTokens + o.summarizerOutputTokens, calibrationFactor + o.calibrationFactor);
        }

        Report withSession(String id) {
            return new Report(id, requests, estimatedPromptTokens, reportedRequests, reportedPromptTokens,
                    reportedOutputTokens, summarizerCalls, summarizerFailures, summarizerInputTokens,
                    summarizerOutputTokens, calibrationFactor);
        }

        Report withFactor(double factor) {
            return new Report(sessionId, requests, estimatedPromptTokens, reportedRequests, reportedPromptTokens,
                    reportedOutputTokens, summarizerCalls, summarizerFailures, summarizerInputTokens,
                    summarizerOutputTokens, factor);
        }
    }

    /** Builds a {@link TokenAccounting}. */
    public static final class Builder {

        private int halfLife = DEFAULT_HALF_LIFE;
        private double minFactor = DEFAULT_MIN_FACTOR;
        private double maxFactor = DEFAULT_MAX_FACTOR;

        private Builder() {
        }

        /**
         * After how many requests a ratio weighs half as much as a new one (default {@value
         * #DEFAULT_HALF_LIFE}).
         *
         * @param requests the half-life, in requests (at least 1)
         * @return this builder
         * @throws IllegalArgumentException if {@code requests < 1}
         */
        public Builder calibrationHalfLife(int requests) {
            this.halfLife = Checks.atLeast(requests, 1, "calibrationHalfLife");
            return this;
        }

        /**
         * The range every ratio and the factor are kept in (default {@value #DEFAULT_MIN_FACTOR} to
         * {@value #DEFAULT_MAX_FACTOR}).
         *
         * @param min the lowest factor
         * @param max the highest factor
         * @return this builder
         * @throws IllegalArgumentException unless {@code 0 < min <= 1 <= max}
         */
        public Builder calibrationBounds(double min, double max) {
            if (!(min > 0 && min <= 1 && max >= 1)) {
                throw new IllegalArgumentException("calibration bounds must satisfy 0 < min <= 1 <= max, were " + min
                        + " and " + max);
            }
            this.minFactor = min;
            this.maxFactor = max;
            return this;
        }

        /**
         * The ledger.
         *
         * @return the ledger
         */
        public TokenAccounting build() {
            return new TokenAccounting(this);
        }
    }

    private static final class Ledger {

        private String strategy = "unknown";
        private double factor = Double.NaN;
        private long requests;
        private long estimatedPromptTokens;
        private long reportedRequests;
        private long reportedPromptTokens;
        private long reportedOutputTokens;
        private long summarizerCalls;
        private long summarizerFailures;
        private long summarizerInputTokens;
        private long summarizerOutputTokens;

        synchronized void strategy(String strategy) {
            this.strategy = strategy;
        }

        synchronized String strategy() {
            return strategy;
        }

        synchronized void request(int estimated, TokenUsage reported, double alpha, double min, double max) {
            requests++;
            estimatedPromptTokens += estimated;
            if (reported == null) {
                return;
            }
            reportedRequests++;
            Integer input = reported.inputTokenCount();
            Integer output = reported.outputTokenCount();
            reportedPromptTokens += input == null ? 0 : input;
            reportedOutputTokens += output == null ? 0 : output;
            if (input != null && input > 0 && estimated > 0) {
                double ratio = Math.max(min, Math.min(max, (double) input / estimated));
                factor = Double.isNaN(factor) ? ratio : factor + alpha * (ratio - factor);
            }
        }

        synchronized void summarization(int input, int output) {
            summarizerCalls++;
            summarizerInputTokens += input;
            summarizerOutputTokens += output;
        }

        synchronized void failure() {
            summarizerFailures++;
        }

        synchronized double factor() {
            return Double.isNaN(factor) ? 1.0 : factor;
        }

        synchronized Report report(String sessionId) {
            return new Report(sessionId, requests, estimatedPromptTokens, reportedRequests, reportedPromptTokens,
                    reportedOutputTokens, summarizerCalls, summarizerFailures, summarizerInputTokens,
                    summarizerOutputTokens, factor());
        }
    }
}
