package io.github.memorypack.core;

/**
 * A store could not do what was asked (I/O error, unreachable server, unreadable data). When this
 * is thrown from an append, the append did not happen: nothing of it is visible to readers.
 */
public class StoreException extends MemoryPackException {

    private static final long serialVersionUID = 1L;

    /**
     * An exception without a cause.
     *
     * @param message what the store could not do
     */
    public StoreException(String message) {
        super(message);
    }

    /**
     * An exception with its cause.
     *
     * @param message what the store could not do
     * @param cause   the underlying cause (an {@code IOException}, a driver's exception…), or {@code null}
     */
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
