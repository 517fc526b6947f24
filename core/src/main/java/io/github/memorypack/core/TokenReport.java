package io.github.memorypack.core;

/**
 * What one session has cost so far, as recorded by {@link TokenAccounting}. Estimated figures come
 * from our tokenizer; reported ones from the provider's {@code ChatResponse.tokenUsage()}, for the
 * requests that had it.
 *
 * @param sessionId                 the session
 * @param requests                  chat requests recorded
 * @param estimatedPromptTokens     our estimate of the prompt tokens of all recorded requests
 * @param reportedRequests          requests whose provider usage was reported
 * @param reportedPromptTokens      provider-reported input tokens of those requests
 * @param reportedOutputTokens      provider-reported output tokens of those requests
 * @param summarizerCalls           successful summarizer calls
 * @param summarizerFailures        summarizer calls that produced no usable summary
 * @param summarizerInputTokens     estimated tokens sent to the summarizer (previous summary + folded messages)
 * @param summarizerOutputTokens    estimated tokens of the summaries it returned
 * @param calibrationFactor         moving average of reported / estimated prompt tokens; 1.0 without data
 */
public record TokenReport(
        String sessionId,
        long requests,
        long estimatedPromptTokens,
        long reportedRequests,
        long reportedPromptTokens,
        long reportedOutputTokens,
        long summarizerCalls,
        long summarizerFailures,
        long summarizerInputTokens,
        long summarizerOutputTokens,
        double calibrationFactor) {

    /** Chat prompt tokens plus summarizer input and output tokens, all estimated. */
    public long estimatedTotalTokens() {
        return estimatedPromptTokens + summarizerInputTokens + summarizerOutputTokens;
    }
}
