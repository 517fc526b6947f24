package io.github.memorypack.core;

import java.time.Duration;

/** The argument checks of core's builders and factories, written once: each throws {@link IllegalArgumentException}. */
final class Checks {

    private Checks() {
    }

    /**
     * Returns {@code value}.
     *
     * @throws IllegalArgumentException if it is null (a builder setting is checked at the setter)
     */
    static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /** Returns {@code value}; throws unless it is at least {@code min}. */
    static int atLeast(int value, int min, String name) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    /** Returns {@code value}; throws unless it is a positive duration. */
    static Duration positive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }
}
