package io.github.memorypack.memorymd;

import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.file.DurableFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * How a {@link MemoryMdSessionStore} runs an operation on one session: under the JVM-wide lock of
 * its lock file and the session's monitor, then the OS file lock (shared for reads, so a read-only
 * folder works; exclusive for writes), after bringing the {@link CachedSession} up to date with the
 * files. Failures other than the store's own become a {@link StoreException} naming the session.
 */
final class SessionLocks {

    /** The lock file in each session folder. */
    static final String LOCK = ".lock";

    private final Path directory;
    private final FileLayer files;
    private final SessionFiles sessionFiles;
    private final ConcurrentHashMap<String, CachedSession> sessions = new ConcurrentHashMap<>();

    SessionLocks(Path directory, FileLayer files, SessionFiles sessionFiles) {
        this.directory = directory;
        this.files = files;
        this.sessionFiles = sessionFiles;
    }

    /**
     * The sessions of the folder (a valid id with a MEMORY.md or a state file) and those this process
     * holds only in memory (persistence switched off), sorted.
     */
    List<String> sessions() {
        try {
            List<String> ids = new ArrayList<>();
            for (String name : files.list(directory)) {
                Path dir = directory.resolve(name);
                if (SessionIds.isValid(name) && (files.exists(dir.resolve(MemoryMdSessionStore.MEMORY_MD))
                        || files.exists(dir.resolve(MemoryMdSessionStore.STATE_JSON)))) {
                    ids.add(name);
                }
            }
            sessions.forEach((id, s) -> {
                if ((!s.overlay.isEmpty() || s.overlayState != null) && !ids.contains(id)) {
                    ids.add(id);
                }
            });
            Collections.sort(ids);
            return ids;
        } catch (IOException e) {
            throw new StoreException("cannot list sessions in " + directory + ": " + e.getMessage(), e);
        }
    }

    @FunctionalInterface
    interface SessionOp<T> {
        T apply(CachedSession session) throws IOException;
    }

    Path sessionDir(String sessionId) {
        return directory.resolve(SessionIds.validate(sessionId));
    }

    /** {@link #locked} for a call that changes no file: a shared lock, so it works on a read-only folder. */
    <T> T reading(String sessionId, SessionOp<T> op) {
        return locked(sessionId, false, false, true, op);
    }

    /** {@link #locked} for a call that may write: the exclusive lock. */
    <T> T writing(String sessionId, boolean create, SessionOp<T> op) {
        return locked(sessionId, create, true, true, op);
    }

    /**
     * Runs {@code op} on the session under the in-process lock and the file lock (exclusive when
     * {@code write}, else shared), after bringing the cached copy up to date with the files ({@code load};
     * delete skips it). When the session folder does not exist and {@code create} is false, runs on an
     * empty session without creating anything.
     */
    <T> T locked(String sessionId, boolean create, boolean write, boolean load, SessionOp<T> op) {
        Path dir = sessionDir(sessionId);
        CachedSession session = sessions.computeIfAbsent(sessionId, id -> new CachedSession(dir));
        Path lockFile = dir.resolve(LOCK);
        // one lock per lock file for the whole JVM (file locks are per process), forgotten when unused
        DurableFiles.Held jvmLock = DurableFiles.lockThreads(lockFile);
        try {
            synchronized (session) {
                if (!files.exists(dir)) {
                    if (!create) {
                        session.noFiles();
                        return op.apply(session);
                    }
                    files.createDirectories(dir);
                }
                try (AutoCloseable ignored = write ? files.lock(lockFile) : files.readLock(lockFile)) {
                    if (load) {
                        sessionFiles.refresh(session);
                    }
                    return op.apply(session);
                }
            }
        } catch (StoreException | IllegalArgumentException | IllegalStateException e) {
            throw e;
        } catch (IOException e) {
            throw new StoreException("session '" + sessionId + "' in " + dir + ": " + e, e);
        } catch (Exception e) {
            throw new StoreException("session '" + sessionId + "' in " + dir + ": " + e, e);
        } finally {
            jvmLock.close();
        }
    }
}
