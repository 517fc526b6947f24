package io.github.memorypack.core;

import io.github.memorypack.core.SummarizationException.Reason;
import java.util.Objects;

/**
 * A fold that changed nothing: the summarizer threw, returned nothing, or returned more than the
 * summary cap — or the store or the executor failed around it. The session's messages are all still there (verbatim, or in the previous summary);
 * the fold is tried again on a later turn.
 *
 * @param sessionId           the session
 * @param reason              why the summary was rejected
 * @param fromIndex           first log index the fold tried to cover; -1 when the fold failed before
 *                            choosing a range (the store failed, or the executor refused the task)
 * @param toIndex             exclusive end of the range it tried to cover; -1 likewise
 * @param consecutiveFailures failures in a row for this memory, this one included
 * @param cause               what the summarizer threw, or {@code null} when it returned an unusable text
 */
public record SummaryFailure(String sessionId, Reason reason, long fromIndex, long toIndex,
                             int consecutiveFailures, Throwable cause) {

    public SummaryFailure {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(reason, "reason");
    }
}
