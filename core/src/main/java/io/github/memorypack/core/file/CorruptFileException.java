package io.github.memorypack.core.file;

import io.github.memorypack.core.StoreException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A session file holds a line that cannot be read and is not a torn tail: a bad line with good
 * lines after it, entries out of order, or an unreadable state file. The store never skips such a
 * line (that would silently drop history); every call on the session fails with this exception until
 * the file is repaired by hand. {@link #file()} and {@link #lineNumber()} say where to look.
 */
public final class CorruptFileException extends StoreException {

    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long lineNumber;

    public CorruptFileException(Path file, long lineNumber, String problem, Throwable cause) {
        super("corrupt session file " + file + " at line " + lineNumber + ": " + problem, cause);
        this.file = Objects.requireNonNull(file, "file");
        this.lineNumber = lineNumber;
    }

    /** The corrupt file. */
    public Path file() {
        return file;
    }

    /** 1-based number of the first bad line in {@link #file()}. */
    public long lineNumber() {
        return lineNumber;
    }
}
