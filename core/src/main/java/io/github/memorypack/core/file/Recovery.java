package io.github.memorypack.core.file;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link FileSessionStore} did when it found a torn tail: the bytes after the last complete
 * append of a session file (a partial line, an unparsable last line, or the lines of an append
 * that was cut short — left by a crash or a full disk in the middle of a write) were moved to a side
 * file and the file was truncated to its last complete append. Nothing is deleted: the side file
 * holds the exact bytes. Immutable.
 */
public final class Recovery {

    private final String sessionId;
    private final Path file;
    private final Path setAsideTo;
    private final long offset;
    private final long length;
    private final long lineNumber;
    private final Instant detectedAt;

    Recovery(String sessionId, Path file, Path setAsideTo, long offset, long length, long lineNumber,
             Instant detectedAt) {
        this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
        this.file = Objects.requireNonNull(file, "file");
        this.setAsideTo = Objects.requireNonNull(setAsideTo, "setAsideTo");
        this.offset = offset;
        this.length = length;
        this.lineNumber = lineNumber;
        this.detectedAt = Objects.requireNonNull(detectedAt, "detectedAt");
    }

    /** The session whose file was repaired. */
    public String sessionId() {
        return sessionId;
    }

    /** The repaired file: the session's log ({@code <id>.jsonl}) or its archive of trimmed entries. */
    public Path file() {
        return file;
    }

    /** The side file next to {@link #file()} that now holds the torn bytes. */
    public Path setAsideTo() {
        return setAsideTo;
    }

    /** Byte offset in {@link #file()} where the torn tail started; the file's new length. */
    public long offset() {
        return offset;
    }

    /** Number of bytes set aside. */
    public long length() {
        return length;
    }

    /** 1-based line number in {@link #file()} of the first torn line. */
    public long lineNumber() {
        return lineNumber;
    }

    /** When the store found the tail (the store's clock). */
    public Instant detectedAt() {
        return detectedAt;
    }

    @Override
    public String toString() {
        return "Recovery{session=" + sessionId + ", file=" + file + ", line=" + lineNumber + ", offset=" + offset
                + ", bytes=" + length + ", setAsideTo=" + setAsideTo + ", at=" + detectedAt + '}';
    }
}
