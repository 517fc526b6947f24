package io.github.memorypack.core;

/**
 * Root of every exception Memory Pack throws. Unchecked; the underlying cause, when there is one,
 * is always chained.
 */
public class MemoryPackException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MemoryPackException(String message) {
        super(message);
    }

    public MemoryPackException(String message, Throwable cause) {
        super(message, cause);
    }
}
