package io.github.memorypack.core.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.time.Clock;
import java.util.List;

/**
 * What a store call holds while it has a session's lock (in-process lock + OS file lock on
 * {@code <id>.lock}): the session's two change counters, kept in the lock file, and the recoveries
 * to report once the lock is released.
 *
 * <p>Why counters: a cached view of a file is checked against the file's identity and size, but
 * a rewritten file may get a recycled inode with the same size. Every rewrite of the log and every
 * state write bumps its counter first, under the lock, so another process (or store instance)
 * notices the change whatever the file system reuses. Appends need no bump: they only grow the log.
 */
final class Lease {

    private static final int SIZE = 2 * Long.BYTES;

    private final FileChannel lockFile;
    private final Clock clock;
    private final List<Recovery> recoveries;
    private long logGeneration;
    private long stateGeneration;

    private Lease(FileChannel lockFile, Clock clock, List<Recovery> recoveries, long logGeneration,
                  long stateGeneration) {
        this.lockFile = lockFile;
        this.clock = clock;
        this.recoveries = recoveries;
        this.logGeneration = logGeneration;
        this.stateGeneration = stateGeneration;
    }

    /** Reads the counters from a locked lock file (a new, empty one reads as zeros). */
    static Lease of(FileChannel lockedFile, Clock clock, List<Recovery> recoveries) throws IOException {
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
            return new Lease(lockedFile, clock, recoveries, 0, 0);
        }
        buffer.flip();
        return new Lease(lockedFile, clock, recoveries, buffer.getLong(), buffer.getLong());
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
        ByteBuffer buffer = ByteBuffer.allocate(SIZE).putLong(logGeneration).putLong(stateGeneration);
        buffer.flip();
        Disk.writeFully(lockFile, buffer, 0);
    }
}
