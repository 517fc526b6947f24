package io.github.memorypack.core.file;

import io.github.memorypack.core.file.FileSessionStore.Recovery;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.time.Clock;
import java.util.List;

/**
 * What a store call holds while it has a session's lock (in-process lock + OS file lock on
 * {@code <id>.lock}): the session's two change counters, kept in the lock file, and the recoveries
 * to report once the lock is released. A writing call holds the OS lock exclusively; a reading call
 * holds it shared (or, when the lock file does not exist, not at all) and must not change any file.
 *
 * <p>Why counters: a cached view of a file is checked against the file's identity and size, but
 * a rewritten file may get a recycled inode with the same size. Every rewrite of the log and every
 * state write bumps its counter first, under the lock, so another process (or store instance)
 * notices the change whatever the file system reuses. Appends need no bump: they only grow the log.
 */
final class Lease {

    private static final int SIZE = 2 * Long.BYTES;

    private final FileChannel lockFile;
    private final boolean exclusive;
    private final Clock clock;
    private final List<Recovery> recoveries;
    private long logGeneration;
    private long stateGeneration;

    private Lease(FileChannel lockFile, boolean exclusive, Clock clock, List<Recovery> recoveries,
                  long logGeneration, long stateGeneration) {
        this.lockFile = lockFile;
        this.exclusive = exclusive;
        this.clock = clock;
        this.recoveries = recoveries;
        this.logGeneration = logGeneration;
        this.stateGeneration = stateGeneration;
    }

    /**
     * Reads the counters from a locked lock file (a new, empty one reads as zeros); {@code exclusive}
     * says whether the lock is held exclusively (a writing call) or shared (a reading call).
     */
    static Lease of(FileChannel lockedFile, boolean exclusive, Clock clock, List<Recovery> recoveries)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SIZE);
        long at = 0;
        while (buffer.hasRemaining()) {
            int n = lockedFile.read(buffer, at);
            if (n < 0) {
                break;
            }
            at += n;
        }
        if (buffer.hasRemaining()) {
            return new Lease(lockedFile, exclusive, clock, recoveries, 0, 0);
        }
        buffer.flip();
        return new Lease(lockedFile, exclusive, clock, recoveries, buffer.getLong(), buffer.getLong());
    }

    /**
     * A reading call's lease when the session has no lock file (a folder copied without it, or one
     * only ever read): no writer of this store has touched the session, so there is nothing to wait for.
     */
    static Lease unlocked(Clock clock, List<Recovery> recoveries) {
        return new Lease(null, false, clock, recoveries, 0, 0);
    }

    /** True for a writing call: only then may files change. */
    boolean exclusive() {
        return exclusive;
    }

    long logGeneration() {
        return logGeneration;
    }

    long stateGeneration() {
        return stateGeneration;
    }

    Clock clock() {
        return clock;
    }

    void bumpLog() throws IOException {
        logGeneration++;
        write();
    }

    void bumpState() throws IOException {
        stateGeneration++;
        write();
    }

    void recovered(Recovery recovery) {
        recoveries.add(recovery);
    }

    private void write() throws IOException {
        if (!exclusive) {
            throw new IllegalStateException("a reading call must not change the session's files");
        }
        ByteBuffer buffer = ByteBuffer.allocate(SIZE).putLong(logGeneration).putLong(stateGeneration);
        buffer.flip();
        DurableFiles.writeFully(lockFile, buffer, 0);
    }
}
