package io.github.memorypack.core;

/**
 * Root of every exception Memory Pack throws. Unchecked; the underlying cause, when there is one,
 * is always chained.
 */
public class MemoryPackException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * An exception without a cause.
     *
     * @param message what went wrong
     */
    public MemoryPackException(String message) {
        super(message);
    }

    /**
     * An exception with its cause.
     *
     * @param message what went wrong
     * @param cause   the underlying cause, or {@code null}
     */
    public MemoryPackException(String message, Throwable cause) {
        super(message, cause);
    }
}
