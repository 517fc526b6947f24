package io.github.memorypack.core.file;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.SessionState;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Optional;

/**
 * One session's state file ({@code <id>.state.json}) and this store instance's cached copy, checked
 * against the lease's state counter and the file's identity before every use. Written by
 * compare-and-set, replaced atomically (temp file, force, rename, folder force).
 */
final class StateFile {

    private final SessionFiles files;
    private final DurableFiles disk;
    private long generation = -1;
    private boolean exists;
    private Object key;
    private SessionState state = SessionState.EMPTY;

    StateFile(SessionFiles files, DurableFiles disk) {
        this.files = files;
        this.disk = disk;
    }

    /** Forgets the cached state; the next call reads the file again. */
    void invalidate() {
        generation = -1;
    }

    SessionState read(Lease lease) throws IOException {
        BasicFileAttributes attributes = LogTail.attributes(files.state);
        boolean present = attributes != null;
        Object fileKey = present ? attributes.fileKey() : null;
        if (generation == lease.stateGeneration() && exists == present && Objects.equals(key, fileKey)) {
            return state;
        }
        SessionState read = SessionState.EMPTY;
        if (present) {
            read = decode(Files.readAllBytes(files.state));
        }
        state = read;
        exists = present;
        key = fileKey;
        generation = lease.stateGeneration();
        return state;
    }

    /** The state file: one record line (format 2) or bare JSON (format 1). */
    private SessionState decode(byte[] bytes) {
        try {
            int end = bytes.length;
            if (end > 0 && bytes[0] != '{') {
                if (bytes[end - 1] != '\n') {
                    throw new IllegalArgumentException("the record has no newline");
                }
                end--;
            }
            return EntryCodec.decodeState(RecordLines.decode(bytes, 0, end).payload);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordException(files.state + ", line 1", "unreadable state (" + e.getMessage() + ")", e);
        }
    }

    Optional<SessionState> compareAndSet(Lease lease, long expectedVersion, SessionState newState) throws IOException {
        if (read(lease).version() != expectedVersion) {
            return Optional.empty();
        }
        SessionState stored = newState.withVersion(expectedVersion + 1);
        byte[] line = RecordLines.encode(EntryCodec.encodeState(stored));
        disk.replaceAtomically(files.state, files.stateTemp,
                channel -> DurableFiles.writeFully(channel, ByteBuffer.wrap(line), 0), lease::bumpState);
        state = stored;
        exists = true;
        generation = lease.stateGeneration();
        try {
            key = Files.readAttributes(files.state, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            generation = -1; // stored and durable; only the cache check is lost, so re-read next time
        }
        return Optional.of(stored);
    }

    /** The cache after the session's files were deleted (by this lease). */
    void deleted(Lease lease) {
        state = SessionState.EMPTY;
        exists = false;
        key = null;
        generation = lease.stateGeneration();
    }
}
