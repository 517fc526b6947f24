package io.github.memorypack.memorymd;

import io.github.memorypack.core.CorruptRecordException;

/**
 * A {@code MEMORY.md} file that does not parse: the location names the file and the 1-based line
 * where parsing stopped. The file is left exactly as it is. Users see it as a
 * {@link CorruptRecordException}, the error every store throws for damaged records.
 */
final class MemoryMdFormatException extends CorruptRecordException {

    private static final long serialVersionUID = 1L;

    MemoryMdFormatException(String source, int line, String problem) {
        super(source + ", line " + line, problem, null);
    }
}
