package io.github.memorypack.core;

import java.util.Objects;

/**
 * A stored record failed its checksum or could not be decoded, and is not a torn tail that the
 * store could set aside: a bit flip, a hand edit, a truncated or reordered record. Stores never read
 * such a record as different content or as a message of another role; they throw this (or set the
 * record aside visibly, where their documentation says so). {@link #location()} says where to look.
 */
public class CorruptRecordException extends StoreException {

    private static final long serialVersionUID = 1L;

    /** Where the damaged record is, in the store's terms. */
    private final String location;

    /**
     * An exception for a damaged record.
     *
     * @param location where the damaged record is, in the store's terms (a file and line, a key and
     *                 position, a table row)
     * @param problem  what is wrong with it
     * @param cause    the decoding error, or {@code null}
     * @throws NullPointerException if {@code location} is null
     */
    public CorruptRecordException(String location, String problem, Throwable cause) {
        super("corrupt record at " + Objects.requireNonNull(location, "location") + ": " + problem, cause);
        this.location = location;
    }

    /**
     * Where the damaged record is, in the store's terms.
     *
     * @return where the damaged record is, in the store's terms
     */
    public String location() {
        return location;
    }
}
