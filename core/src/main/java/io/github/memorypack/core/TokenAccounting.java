package io.github.memorypack.core;

import dev.langchain4j.model.TokenCountEstimator;
import dev.langchain4j.model.chat.listener.ChatModelErrorContext;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.listener.ChatModelRequestContext;
import dev.langchain4j.model.chat.listener.ChatModelResponseContext;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Per-session token ledger: our prompt-token estimates next to the provider-reported usage, the
 * summarizer's calls and tokens, and a calibration factor that budget decisions can apply to
 * estimates.
 *
 * <p>Ways to record:
 * <ul>
 *   <li>Explicitly: {@link #recordRequest} after each chat call, with the estimate and
 *       {@code ChatResponse.tokenUsage()} (or {@code null} when the provider reported none).</li>
 *   <li>Through {@link #listener(TokenCountEstimator)} on the chat model. A {@code ChatModelListener}
 *       is not told the memory id, so the memory binds it: memories configured with this ledger
 *       call {@link #bind} in {@code messages()}, and the next request <em>on the same thread</em>
 *       is charged to that session (AiServices reads the memory and calls the model on one thread).
 *       Requests with no binding are not recorded. Do not put this listener on the summarizer's
 *       model: memories record summarizer calls themselves ({@link #recordSummarization}).</li>
 * </ul>
 *
 * <p>The {@linkplain #calibrationFactor calibration factor} is the mean of reported / estimated
 * prompt tokens over the last {@code calibrationWindow} requests that had both; 1.0 until there is
 * one. Sessions are kept until {@link #forget}. Thread-safe.
 */
public final class TokenAccounting {

    /** Default number of recent requests the calibration factor averages over. */
    public static final int DEFAULT_CALIBRATION_WINDOW = 20;

    private static final String SESSION_KEY = TokenAccounting.class.getName() + ".session";
    private static final String ESTIMATE_KEY = TokenAccounting.class.getName() + ".estimate";

    private final int calibrationWindow;
    private final ConcurrentMap<String, Ledger> ledgers = new ConcurrentHashMap<>();
    private final ThreadLocal<String> bound = new ThreadLocal<>();

    private TokenAccounting(int calibrationWindow) {
        this.calibrationWindow = calibrationWindow;
    }

    /** A ledger averaging calibration over {@value #DEFAULT_CALIBRATION_WINDOW} requests. */
    public static TokenAccounting create() {
        return create(DEFAULT_CALIBRATION_WINDOW);
    }

    /** @throws IllegalArgumentException if {@code calibrationWindow < 1} */
    public static TokenAccounting create(int calibrationWindow) {
        if (calibrationWindow < 1) {
            throw new IllegalArgumentException("calibrationWindow must be >= 1, was " + calibrationWindow);
        }
        return new TokenAccounting(calibrationWindow);
    }

    /**
     * Records one chat request.
     *
     * @param estimatedPromptTokens our estimate of its prompt tokens
     * @param reported              the provider's usage, or {@code null}; its input count, when
     *                              present, feeds the calibration factor
     */
    public void recordRequest(Object sessionId, int estimatedPromptTokens, TokenUsage reported) {
        ledger(sessionId).request(estimatedPromptTokens, reported);
    }

    /** Records a successful summarizer call: estimated tokens sent to it and returned by it. */
    public void recordSummarization(Object sessionId, int inputTokens, int outputTokens) {
        ledger(sessionId).summarization(inputTokens, outputTokens);
    }

    /** Records a summarizer call that produced no usable summary. */
    public void recordSummarizationFailure(Object sessionId) {
        ledger(sessionId).failure();
    }

    /** Mean of reported / estimated prompt tokens over the recent window; 1.0 without data. */
    public double calibrationFactor(Object sessionId) {
        Ledger ledger = ledgers.get(SessionIds.of(sessionId));
        return ledger == null ? 1.0 : ledger.factor();
    }

    /** The session's figures so far (all zero for a session never recorded). */
    public TokenReport report(Object sessionId) {
        String id = SessionIds.of(sessionId);
        Ledger ledger = ledgers.get(id);
        return ledger == null ? new Ledger(calibrationWindow).report(id) : ledger.report(id);
    }

    /** Drops a session's figures. */
    public void forget(Object sessionId) {
        ledgers.remove(SessionIds.of(sessionId));
    }

    /** Charges the next request made on this thread through {@link #listener} to {@code sessionId}. */
    public void bind(Object sessionId) {
        bound.set(SessionIds.of(sessionId));
    }

    /**
     * A listener for the chat model that records every bound request: the estimate is the
     * {@code tokenizer}'s count of the request's messages, the reported usage is the response's.
     * Failed requests are counted with no reported usage.
     */
    public ChatModelListener listener(TokenCountEstimator tokenizer) {
        Objects.requireNonNull(tokenizer, "tokenizer");
        return new ChatModelListener() {
            @Override
            public void onRequest(ChatModelRequestContext context) {
                String session = bound.get();
                bound.remove();
                if (session != null) {
                    context.attributes().put(SESSION_KEY, session);
                    context.attributes().put(ESTIMATE_KEY,
                            tokenizer.estimateTokenCountInMessages(context.chatRequest().messages()));
                }
            }

            @Override
            public void onResponse(ChatModelResponseContext context) {
                Object session = context.attributes().get(SESSION_KEY);
                if (session != null) {
                    recordRequest(session, (Integer) context.attributes().get(ESTIMATE_KEY),
                            context.chatResponse().tokenUsage());
                }
            }

            @Override
            public void onError(ChatModelErrorContext context) {
                Object session = context.attributes().get(SESSION_KEY);
                if (session != null) {
                    recordRequest(session, (Integer) context.attributes().get(ESTIMATE_KEY), null);
                }
            }
        };
    }

    private Ledger ledger(Object sessionId) {
        return ledgers.computeIfAbsent(SessionIds.of(sessionId), id -> new Ledger(calibrationWindow));
    }

    private static final class Ledger {

        private final int window;
        private final Deque<Double> ratios = new ArrayDeque<>();
        private long requests;
        private long estimatedPromptTokens;
        private long reportedRequests;
        private long reportedPromptTokens;
        private long reportedOutputTokens;
        private long summarizerCalls;
        private long summarizerFailures;
        private long summarizerInputTokens;
        private long summarizerOutputTokens;

        Ledger(int window) {
            this.window = window;
        }

        synchronized void request(int estimated, TokenUsage reported) {
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
                ratios.addLast((double) input / estimated);
                if (ratios.size() > window) {
                    ratios.removeFirst();
                }
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
            if (ratios.isEmpty()) {
                return 1.0;
            }
            double sum = 0;
            for (double ratio : ratios) {
                sum += ratio;
            }
            return sum / ratios.size();
        }

        synchronized TokenReport report(String sessionId) {
            return new TokenReport(sessionId, requests, estimatedPromptTokens, reportedRequests, reportedPromptTokens,
                    reportedOutputTokens, summarizerCalls, summarizerFailures, summarizerInputTokens,
                    summarizerOutputTokens, factor());
        }
    }
}
