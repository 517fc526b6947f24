package io.github.memorypack.core;

import java.util.Objects;

/**
 * The size bound of one view. Sizes count what is sent: for {@link MemoryListener.Overflow.Unit#MESSAGES} every message
 * including the pinned system message and summary; for {@link MemoryListener.Overflow.Unit#TOKENS} every message's tokens
 * plus the reply priming, as the estimator counts a request; for {@link MemoryListener.Overflow.Unit#TURNS} the turns
 * (user message and everything up to the next one) besides the pinned messages.
 */
final class ViewLimit {


    private static final ViewLimit NONE = new ViewLimit(null, Integer.MAX_VALUE, false, Integer.MAX_VALUE);

    private final MemoryListener.Overflow.Unit unit;
    private final int value;
    private final boolean cuts;
    // chunked eviction: when the view would pass value, it drops to low; otherwise low == value
    private final int low;
    // the state attribute of a chunked window's start, made once: views read it on every render
    private final String anchorKey;

    private ViewLimit(MemoryListener.Overflow.Unit unit, int value, boolean cuts, int low) {
        this.unit = unit;
        this.value = value;
        this.cuts = cuts;
        this.low = low;
        this.anchorKey = low < value && unit != null
                ? "memory-pack.window-start." + unit.name().toLowerCase(java.util.Locale.ROOT) + "." + value + "." + low
                : null;
    }

    private ViewLimit(MemoryListener.Overflow.Unit unit, int value, boolean cuts) {
        this(unit, value, cuts, value);
    }

    /**
     * This cutting limit with chunked eviction: the view keeps its start (it grows by appending) until
     * it would pass the limit, then drops to at most {@code low} (at least the newest turn and open
     * turns), so consecutive requests share their prefix.
     */
    ViewLimit chunked(int low) {
        return new ViewLimit(unit, value, cuts, Math.max(0, Math.min(low, value)));
    }

    /** True if this limit evicts in chunks (see {@link #chunked}). */
    boolean isChunked() {
        return low < value;
    }

    /** What a chunked eviction drops to; the limit itself when eviction is not chunked. */
    int low() {
        return low;
    }

    /** The state attribute holding where a chunked window of this limit starts. */
    String anchorKey() {
        return anchorKey;
    }

    /** No limit: every turn is shown. */
    public static ViewLimit none() {
        return NONE;
    }

    /** At most {@code max} messages. */
    public static ViewLimit messages(int max) {
        return new ViewLimit(MemoryListener.Overflow.Unit.MESSAGES, positive(max, "maxMessages"), true);
    }

    /** At most {@code max} turns. */
    public static ViewLimit turns(int max) {
        return new ViewLimit(MemoryListener.Overflow.Unit.TURNS, positive(max, "maxTurns"), true);
    }

    /** At most {@code max} tokens. */
    public static ViewLimit tokens(int max) {
        return new ViewLimit(MemoryListener.Overflow.Unit.TOKENS, positive(max, "maxTokens"), true);
    }

    /** A cutting limit of {@code max} in {@code unit}. */
    public static ViewLimit of(MemoryListener.Overflow.Unit unit, int max) {
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
        return new ViewLimit(MemoryListener.Overflow.Unit.TOKENS, positive(contextTokens, "contextTokens"), false);
    }

    private static int positive(int value, String name) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be >= 1, was " + value);
        }
        return value;
    }

    /** The unit, or {@code null} for {@link #none()}. */
    public MemoryListener.Overflow.Unit unit() {
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
        return unit == MemoryListener.Overflow.Unit.TOKENS;
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
        return value == other.value && cuts == other.cuts && unit == other.unit && low == other.low;
    }

    @Override
    public int hashCode() {
        return Objects.hash(unit, value, cuts, low);
    }

    @Override
    public String toString() {
        return unit == null ? "ViewLimit.none()" : "ViewLimit{" + (cuts ? "" : "report ") + unit + " " + value
                + (isChunked() ? ", chunks down to " + low : "") + '}';
    }
}
