package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

    /** The messages of an {@code add(Iterable)} or {@code set} call, copied; throws if null, holding null, or (when {@code nonEmpty}) empty. */
    static List<ChatMessage> messages(Iterable<ChatMessage> messages, boolean nonEmpty) {
        if (messages == null) {
            throw new IllegalArgumentException("messages must not be null");
        }
        List<ChatMessage> list = new ArrayList<>();
        for (ChatMessage message : messages) {
            if (message == null) {
                throw new IllegalArgumentException("messages must not contain null");
            }
            list.add(message);
        }
        if (nonEmpty && list.isEmpty()) {
            throw new IllegalArgumentException("messages must not be empty");
        }
        return list;
    }
}
