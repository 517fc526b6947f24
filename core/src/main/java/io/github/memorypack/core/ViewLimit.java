package io.github.memorypack.core;

import java.util.Objects;

/**
 * The size bound of one view. Sizes count what is sent: for {@link Overflow.Unit#MESSAGES} every message
 * including the pinned system message and summary; for {@link Overflow.Unit#TOKENS} every message's tokens
 * plus the reply priming, as the estimator counts a request; for {@link Overflow.Unit#TURNS} the turns
 * (user message and everything up to the next one) besides the pinned messages.
 */
final class ViewLimit {


    private static final ViewLimit NONE = new ViewLimit(null, Integer.MAX_VALUE, false);

    private final Overflow.Unit unit;
    private final int value;
    private final boolean cuts;

    private ViewLimit(Overflow.Unit unit, int value, boolean cuts) {
        this.unit = unit;
        this.value = value;
        this.cuts = cuts;
    }

    /** No limit: every turn is shown. */
    public static ViewLimit none() {
        return NONE;
    }

    /** At most {@code max} messages. */
    public static ViewLimit messages(int max) {
        return new ViewLimit(Overflow.Unit.MESSAGES, positive(max, "maxMessages"), true);
    }

    /** At most {@code max} turns. */
    public static ViewLimit turns(int max) {
        return new ViewLimit(Overflow.Unit.TURNS, positive(max, "maxTurns"), true);
    }

    /** At most {@code max} tokens. */
    public static ViewLimit tokens(int max) {
        return new ViewLimit(Overflow.Unit.TOKENS, positive(max, "maxTokens"), true);
    }

    /** A cutting limit of {@code max} in {@code unit}. */
    public static ViewLimit of(Overflow.Unit unit, int max) {
        switch (Objects.requireNonNull(unit, "unit")) {
            case MESSAGES:
                return messages(max);
            case TURNS:
                return turns(max);
            default:
                return tokens(max);
        }
    }

    /**
     * Every turn is shown, and a view of more than {@code contextTokens} tokens is reported as an
     * {@link Overflow} (used by the keep-everything buffer).
     */
    public static ViewLimit reportTokensOver(int contextTokens) {
        return new ViewLimit(Overflow.Unit.TOKENS, positive(contextTokens, "contextTokens"), false);
    }

    private static int positive(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value);
        }
        return value;
    }

    /** The unit, or {@code null} for {@link #none()}. */
    public Overflow.Unit unit() {
        return unit;
    }

    /** The bound; {@link Integer#MAX_VALUE} for {@link #none()}. */
    public int value() {
        return value;
    }

    /** True if older turns are cut to stay within the bound; false if the bound is only reported. */
    public boolean cuts() {
        return cuts;
    }

    /** True if sizes are counted in tokens. */
    public boolean countsTokens() {
        return unit == Overflow.Unit.TOKENS;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ViewLimit)) {
            return false;
        }
        ViewLimit other = (ViewLimit) o;
        return value == other.value && cuts == other.cuts && unit == other.unit;
    }

    @Override
    public int hashCode() {
        return Objects.hash(unit, value, cuts);
    }

    @Override
    public String toString() {
        return unit == null ? "ViewLimit.none()" : "ViewLimit{" + (cuts ? "" : "report ") + unit + " " + value + '}';
    }
}
