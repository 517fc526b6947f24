package io.github.memorypack.core;

/**
 * A store could not do what was asked (I/O error, unreachable server, unreadable data). When this
 * is thrown from an append, the append did not happen: nothing of it is visible to readers.
 */
public class StoreException extends MemoryPackException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message) {
        super(message);
    }

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
