package io.github.memorypack.core;

import java.time.Instant;
import java.util.Objects;

/**
 * A running summary of a session: its text, and the log range it covers — every entry with
 * {@code index < coveredUntil}. Entries at or after {@code coveredUntil} are not in the summary and
 * are shown verbatim. Immutable.
 */
public final class Summary {

    private final String text;
    private final long coveredUntil;
    private final int tokenCount;
    private final Instant createdAt;

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
    public Summary(String text, long coveredUntil, int tokenCount, Instant createdAt) {
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
        this.text = text;
        this.coveredUntil = coveredUntil;
        this.tokenCount = tokenCount;
        this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
    }

    /**
     * The summary text.
     *
     * @return the text, never blank
     */
    public String text() {
        return text;
    }

    /**
     * Exclusive end of the covered log range: entries with a smaller index are summarized.
     *
     * @return exclusive end of the covered log range: entries with a smaller index are summarized
     */
    public long coveredUntil() {
        return coveredUntil;
    }

    /**
     * Token count of the text, or {@link Entry#UNKNOWN_TOKENS}.
     *
     * @return token count of the text, or {@link Entry#UNKNOWN_TOKENS}
     */
    public int tokenCount() {
        return tokenCount;
    }

    /**
     * When the summary was made (the memory's clock).
     *
     * @return the creation time
     */
    public Instant createdAt() {
        return createdAt;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Summary)) {
            return false;
        }
        Summary other = (Summary) o;
        return coveredUntil == other.coveredUntil && tokenCount == other.tokenCount && text.equals(other.text)
                && createdAt.equals(other.createdAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(text, coveredUntil, tokenCount, createdAt);
    }

    @Override
    public String toString() {
        return "Summary{coveredUntil=" + coveredUntil + ", tokens=" + tokenCount + ", createdAt=" + createdAt
                + ", text=" + text + '}';
    }
}
