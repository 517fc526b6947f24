package io.github.memorypack.core;

/**
 * A session id (memory id) that is not 1–128 characters of {@code [A-Za-z0-9._-]}, or is
 * {@code .} or {@code ..}. Thrown before any I/O, so a rejected id never creates a file or a key.
 */
public final class InvalidSessionIdException extends MemoryPackException {

    private static final long serialVersionUID = 1L;

    public InvalidSessionIdException(String message) {
        super(message);
    }
}
