package io.github.memorypack.core;

import java.time.Instant;
import java.util.Objects;

/**
 * A running summary of a session: its text, and the log range it covers — every entry with
 * {@code index < coveredUntil}. Entries at or after {@code coveredUntil} are not in the summary and
 * are shown verbatim. Immutable.
 *
 * @param text         the summary text, never blank
 * @param coveredUntil exclusive end of the covered log range: entries with a smaller index are
 *                     summarized (at least 0)
 * @param tokenCount   the text's token count (at least 0), or {@link Entry#UNKNOWN_TOKENS}
 * @param createdAt    when the summary was made (the memory's clock)
 */
public record Summary(String text, long coveredUntil, int tokenCount, Instant createdAt) {

    /**
     * A summary.
     *
     * @param text         the summary text, not blank
     * @param coveredUntil exclusive end of the covered log range (at least 0)
     * @param tokenCount   the text's token count (at least 0), or {@link Entry#UNKNOWN_TOKENS}
     * @param createdAt    when the summary was made
     * @throws NullPointerException     if {@code text} or {@code createdAt} is null
     * @throws IllegalArgumentException if {@code text} is blank or a number is out of range
     */
    public Summary {
        Objects.requireNonNull(text, "text");
        if (text.isBlank()) {
            throw new IllegalArgumentException("summary text must not be blank");
        }
        if (coveredUntil < 0) {
            throw new IllegalArgumentException("coveredUntil must be >= 0, was " + coveredUntil);
        }
        if (tokenCount < Entry.UNKNOWN_TOKENS) {
            throw new IllegalArgumentException("tokenCount must be >= 0 or UNKNOWN_TOKENS, was " + tokenCount);
        }
        Objects.requireNonNull(createdAt, "createdAt");
    }

    @Override
    public String toString() {
        return "Summary{coveredUntil=" + coveredUntil + ", tokens=" + tokenCount + ", createdAt=" + createdAt
                + ", text=" + text + '}';
    }
}
