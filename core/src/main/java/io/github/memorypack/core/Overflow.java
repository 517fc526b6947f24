package io.github.memorypack.core;

import java.util.Objects;

/**
 * A view that exceeds its limit: which session, the limit, and the view's actual size, both in
 * {@link #unit()}. Immutable.
 */
public final class Overflow {

    /** What a limit counts. */
    public enum Unit {
        /** Messages sent, the pinned system message included. */
        MESSAGES,
        /** Turns: a user message and what belongs to it. */
        TURNS,
        /** Tokens of the whole request, as the memory's tokenizer counts them. */
        TOKENS
    }

    private final String sessionId;
    private final Unit unit;
    private final int limit;
    private final int size;

    public Overflow(String sessionId, Unit unit, int limit, int size) {
        this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
        this.unit = Objects.requireNonNull(unit, "unit");
        this.limit = limit;
        this.size = size;
    }

    public String sessionId() {
        return sessionId;
    }

    public Unit unit() {
        return unit;
    }

    public int limit() {
        return limit;
    }

    public int size() {
        return size;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Overflow)) {
            return false;
        }
        Overflow other = (Overflow) o;
        return limit == other.limit && size == other.size && unit == other.unit && sessionId.equals(other.sessionId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessionId, unit, limit, size);
    }

    @Override
    public String toString() {
        return "Overflow{session=" + sessionId + ", " + size + " " + unit.name().toLowerCase(java.util.Locale.ROOT)
                + " > limit " + limit + '}';
    }
}
