package io.github.memorypack.memorymd;

import io.github.memorypack.core.StoreException;

/**
 * A {@code MEMORY.md} file that does not parse: the message names the file and the 1-based line
 * where parsing stopped. The file is left exactly as it is.
 */
public final class MemoryMdFormatException extends StoreException {

    private static final long serialVersionUID = 1L;

    private final int line;

    public MemoryMdFormatException(String source, int line, String problem) {
        super(source + ", line " + line + ": " + problem);
        this.line = line;
    }

    /** The 1-based line where the problem was found. */
    public int line() {
        return line;
    }
}
