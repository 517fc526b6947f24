package io.github.memorypack.core.file;

import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded, persistent {@link SessionStore}: plain files in one folder, safe for many threads
 * and for several processes sharing the folder.
 *
 * <pre>{@code
 * SessionStore store = FileSessionStore.of(Path.of("memory"));
 * }</pre>
 *
 * <h2>Layout on disk</h2>
 * Per session id (ids are checked by {@link SessionIds} before any I/O, so they are safe file names):
 * <ul>
 *   <li>{@code <id>.jsonl} — the log, append-only, one record line per entry:
 *       {@code ~<length> <crc32c> <json>} (8 hex digits each: the JSON's length in UTF-8 bytes and its
 *       CRC32C), the JSON being the entry with the message in LangChain4j's own JSON (see
 *       {@link io.github.memorypack.core.EntryCodec EntryCodec}). Every entry of a multi-entry append but
 *       the last carries a {@code "more":n} field that marks where the append ends. Lines written before
 *       checksums (bare JSON) are still read; none may follow a checksummed line.</li>
 *   <li>{@code <id>.state.json} — the state ({@link SessionState}: system message, summary,
 *       attributes, version) as one record line.</li>
 *   <li>{@code <id>.jsonl.trimmed} — every entry {@link #trim} or {@link #replace} removed, in
 *       order, so nothing is ever lost.</li>
 *   <li>{@code <id>.lock} — the cross-process lock, also holding two change counters. It stays after
 *       {@link #delete}: removing a lock file that another process may be waiting on would let two
 *       processes lock "the same" file at once.</li>
 *   <li>{@code <id>.jsonl.torn-<UTC time>} — a torn tail that was set aside (see {@link Recovery}).</li>
 * </ul>
 * No suffix is the end of another, so two ids never share a file. Folders the store creates are
 * {@code 0700} and its files {@code 0600} on POSIX file systems.
 *
 * <h2>Durability</h2>
 * {@link #append} encodes the whole batch into one buffer, writes it with one write at the end of the
 * log and forces it to disk ({@link FileChannel#force}) before it returns; a new log also gets its
 * folder forced. So an acknowledged append survives a process crash and a power loss. Its I/O is
 * proportional to the new entries only. Appends that queue up on a session while another one is
 * being written go out together, with one write and one force (group commit), each still a
 * contiguous, all-or-nothing run of lines. State updates, {@link #trim} and {@link #replace} write a
 * temp file, force it, rename it atomically over the old file and force the folder; trim and replace
 * first append the removed entries to the archive and force it. A call that throws
 * {@link StoreException} changed nothing visible (an append that failed is truncated away again).
 *
 * <h2>Locking</h2>
 * Every call on a session holds that session's lock: an in-process lock (shared by all stores of
 * this JVM on the same folder, since a JVM may hold only one OS lock per file) plus an OS file lock
 * on {@code <id>.lock} — exclusive for calls that write, shared for reads ({@code read},
 * {@code readLast}, {@code nextIndex}, {@code state}, an append of no entries). Index assignment,
 * idempotency checks and state compare-and-set happen under the exclusive lock, so concurrent appends
 * from threads or processes never lose or interleave each other's batches. Reads open the lock file
 * read-only (without one they take no OS lock) and never write, so they work on a read-only folder,
 * where writes fail with a {@link StoreException}. Sessions never wait for each other. The disk
 * operations and both halves of the lock are {@link DurableFiles}, which the MEMORY.md store shares.
 *
 * <h2>Reading from the tail, caching and other writers</h2>
 * Opening a session reads only the end of its log, backwards from the end until it holds a complete
 * append, so reopening a session and reading its last entries costs the same at a thousand entries
 * and at a million. Older entries are read when a call needs them (a read from an earlier index, a
 * larger {@code readLast}, an idempotency key lookup, trim, replace), backwards again, doubling the
 * bytes read each time. The store caches what it read for up to {@link Builder#maxCachedSessions}
 * sessions (least recently used first out), and keeps no file open between calls: each call opens
 * what it needs and closes it before it returns, so a server that has seen 100,000 sessions holds at
 * most that many sessions' tails in heap and no file handle for any of them. Under the lock it checks the log's identity and size and
 * the change counters: when another process appended, only the new bytes are parsed; when the log was
 * rewritten, its tail is read again. Reads therefore cost O(entries returned) when nothing changed.
 *
 * <h2>Damage and recovery</h2>
 * Every line is checked (length, checksum, index order, append structure) when it is first read. A
 * crash in the middle of an append can only leave a torn tail: an unterminated beginning of a record,
 * zero bytes where a file system extended the file without its data, or the first lines of a
 * multi-entry append. Reads ignore it; the next write moves those bytes to
 * {@code <id>.jsonl.torn-<time>}, truncates the log to its last complete append, logs an SLF4J warning
 * and tells the {@linkplain Builder#onRecovery recovery listener} (see {@link Recovery}). A torn append never
 * returned, so nothing acknowledged is
 * lost. Anything else that does not check — a bit flip or an edited letter in any line, the last one
 * included, a damaged newline, a line without a checksum after checksummed ones — is damage: every
 * call that reads that line fails with {@link io.github.memorypack.core.CorruptRecordException
 * CorruptRecordException} naming the file and line, and nothing is skipped, changed or read as other
 * content until the file is repaired by hand.
 */
public final class FileSessionStore implements SessionStore {

    /** Default of {@link Builder#maxCachedSessions(int)}. */
    public static final int DEFAULT_MAX_CACHED_SESSIONS = 1_000;

    private static final Logger LOG = LoggerFactory.getLogger(FileSessionStore.class);
    private static final boolean READ = false;
    private static final boolean WRITE = true;

    private final Path directory;
    private final Clock clock;
    private final Consumer<Recovery> recoveryListener;
    private final DurableFiles disk;
    private final Map<String, Session> cache;
    /** The processes that use the folder; holds this process's mark while this store is reachable. */
    private final DurableFiles.Processes processes;

    private FileSessionStore(Builder builder, Path directory, DurableFiles disk) {
        this.directory = directory;
        this.processes = DurableFiles.processes(directory);
        this.clock = builder.clock;
        this.recoveryListener = builder.recoveryListener;
        this.disk = disk;
        int maxCached = builder.maxCachedSessions;
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Session> eldest) {
                return size() > maxCached;
            }
        };
    }

    /**
     * A store in {@code directory} (created if missing) with the system UTC clock.
     *
     * @param directory the folder (created if missing)
     * @return a store in {@code directory} (created if missing) with the system UTC clock
     */
    public static FileSessionStore of(Path directory) {
        return builder().directory(directory).build();
    }

    /**
     * A builder; only {@link Builder#directory(Path)} is required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The folder holding the session files (its real path).
     *
     * @return the folder holding the session files (its real path)
     */
    public Path directory() {
        return directory;
    }

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        SessionIds.validate(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        List<NewEntry> batch = List.copyOf(entries);
        if (batch.isEmpty()) {
            return ifExists(sessionId, "append to", READ, List.of(), (s, lease) -> s.appendedWith(lease, idempotencyKey));
        }
        PendingAppend mine = new PendingAppend(batch, idempotencyKey);
        Session session = session(sessionId);
        session.enqueue(mine);
        List<Recovery> recoveries = new ArrayList<>(0);
        // the in-process half of the session lock: a JVM may hold one OS lock per file, whichever store asks
        DurableFiles.Held threads = DurableFiles.lockThreads(session.files.lock);
        try {
            // a thread that held the lock before us may have written our append with its own
            if (!mine.isDone()) {
                try {
                    withFileLock(sessionId, "append to", WRITE, session, recoveries, (s, lease) -> {
                        s.appendQueued(lease);
                        return null;
                    });
                } finally {
                    // failed before the queue was taken: withdraw it, so no later call writes it
                    session.dequeue(mine);
                }
            }
        } finally {
            threads.close();
            report(recoveries);
        }
        try {
            return mine.result();
        } catch (IOException e) {
            throw failure("append to", sessionId, e);
        }
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadRange(fromIndex, maxCount);
        return ifExists(sessionId, "read", READ, List.of(), (s, lease) -> s.read(lease, fromIndex, maxCount));
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        SessionIds.validate(sessionId);
        SessionIds.checkReadCount(count);
        return ifExists(sessionId, "read", READ, List.of(), (s, lease) -> s.readLast(lease, count));
    }

    @Override
    public long nextIndex(String sessionId) {
        SessionIds.validate(sessionId);
        return ifExists(sessionId, "read", READ, 0L, Session::nextIndex);
    }

    @Override
    public SessionState state(String sessionId) {
        SessionIds.validate(sessionId);
        return ifExists(sessionId, "read the state of", READ, SessionState.EMPTY, Session::state);
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        SessionIds.validate(sessionId);
        Objects.requireNonNull(newState, "newState");
        Operation<Optional<SessionState>> cas = (s, lease) -> s.compareAndSetState(lease, expectedVersion, newState);
        // an unknown session is at version 0: any other expected version fails without creating anything
        return expectedVersion == 0
                ? locked(sessionId, "update the state of", WRITE, cas)
                : ifExists(sessionId, "update the state of", WRITE, Optional.empty(), cas);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        SessionIds.validate(sessionId);
        List<NewEntry> batch = List.copyOf(entries);
        locked(sessionId, "replace the log of", WRITE, (s, lease) -> {
            s.replace(lease, batch);
            return null;
        });
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        SessionIds.validate(sessionId);
        ifExists(sessionId, "trim", WRITE, null, (s, lease) -> {
            s.trim(lease, beforeIndex);
            return null;
        });
    }

    @Override
    public List<String> sessions() {
        TreeSet<String> ids = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String id = SessionFiles.sessionIdOf(file.getFileName().toString());
                if (id != null && SessionIds.isValid(id)) {
                    ids.add(id);
                }
            }
        } catch (IOException e) {
            throw new StoreException("could not list the sessions in " + directory + ": " + e, e);
        }
        return new ArrayList<>(ids);
    }

    @Override
    public void delete(String sessionId) {
        SessionIds.validate(sessionId);
        ifExists(sessionId, "delete", WRITE, null, (s, lease) -> {
            s.delete(lease);
            return null;
        });
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: the sub-folder {@code kind} of the store's folder. No session file is ever named like it
     * (every one has a suffix with a dot), and {@link #sessions()} lists only session files.
     */
    @Override
    public Optional<Path> derivedDataDirectory(String kind) {
        SessionStore.super.derivedDataDirectory(kind); // checks the name
        return Optional.of(directory.resolve(kind));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: one id per JVM and folder, whose mark {@code .processes/<id>.lock} in the store's folder
     * this JVM holds an OS lock on while a store instance that asked for it is reachable (made on the first
     * call; removed when no store instance holds it; null when the folder is read-only).
     */
    @Override
    public String processId() {
        return processes.id();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here: the process's mark is gone, or no process holds its lock (the OS released it when the
     * process ended); the mark is then removed.
     */
    @Override
    public boolean processEnded(String processId) {
        return processes.ended(processId);
    }

    @Override
    public String toString() {
        return "FileSessionStore{" + directory + '}';
    }

    // ------------------------------------------------------------------ locking

    /** A call on one session, made while its lock is held. */
    @FunctionalInterface
    private interface Operation<T> {
        T apply(Session session, Lease lease) throws IOException;
    }

    /**
     * Runs {@code operation} under the session's lock if the session has a log or state file;
     * otherwise returns {@code absent} without creating anything (not even the lock file).
     */
    private <T> T ifExists(String sessionId, String action, boolean write, T absent, Operation<T> operation) {
        if (!Files.exists(directory.resolve(sessionId + SessionFiles.LOG))
                && !Files.exists(directory.resolve(sessionId + SessionFiles.STATE))) {
            return absent;
        }
        return locked(sessionId, action, write, operation);
    }

    private <T> T locked(String sessionId, String action, boolean write, Operation<T> operation) {
        List<Recovery> recoveries = new ArrayList<>(0);
        // the lock is the lock file's, so any cached instance names it (no path built per call)
        DurableFiles.Held threads = DurableFiles.lockThreads(session(sessionId).files.lock);
        try {
            // looked up under the lock: whichever instance the cache hands out, one thread uses it at a time
            return withFileLock(sessionId, action, write, session(sessionId), recoveries, operation);
        } finally {
            threads.close();
            report(recoveries);
        }
    }

    /**
     * Runs {@code operation} holding the OS lock, exclusive for a write (creating the lock file) and
     * shared for a read (opening the lock file read-only, so reads work on a read-only folder; without
     * a lock file there is no writer to wait for). The caller holds the session's in-process lock.
     */
    private <T> T withFileLock(String sessionId, String action, boolean write, Session session,
                               List<Recovery> recoveries, Operation<T> operation) {
        try (FileChannel lock = disk.lockFile(session.files.lock, write).orElse(null)) {
            if (lock == null) {
                return operation.apply(session, Lease.unlocked(clock, recoveries));
            }
            return operation.apply(session, Lease.of(lock, write, clock, recoveries));
        } catch (IOException | OverlappingFileLockException e) {
            session.invalidate();
            throw failure(action, sessionId, e);
        } catch (RuntimeException | Error e) {
            session.invalidate();
            throw e;
        }
    }

    private StoreException failure(String action, String sessionId, Exception cause) {
        return new StoreException("could not " + action + " session '" + sessionId + "' in " + directory + ": "
                + cause, cause);
    }

    /** How many sessions the store keeps parsed (for tests). */
    int cachedSessions() {
        synchronized (cache) {
            return cache.size();
        }
    }

    private Session session(String sessionId) {
        synchronized (cache) {
            return cache.computeIfAbsent(sessionId, id -> new Session(new SessionFiles(directory, id), disk));
        }
    }

    private void report(List<Recovery> recoveries) {
        for (Recovery recovery : recoveries) {
            try {
                recoveryListener.accept(recovery);
            } catch (RuntimeException e) {
                LOG.warn("Recovery listener failed for {}", recovery, e);
            }
        }
    }

    /**
     * What the store did when it found a torn tail: the bytes after the last complete
     * append of a session file (a partial line, an unparsable last line, or the lines of an append
     * that was cut short — left by a crash or a full disk in the middle of a write) were moved to a side
     * file and the file was truncated to its last complete append. Nothing is deleted: the side file
     * holds the exact bytes.
     *
     * @param sessionId  the session whose file was repaired
     * @param file       the repaired file: the session's log ({@code <id>.jsonl}) or its archive of trimmed
     *                   entries
     * @param setAsideTo the side file next to {@code file} that now holds the torn bytes
     * @param offset     byte offset in {@code file} where the torn tail started: the file's new length
     * @param length     number of bytes set aside
     * @param lineNumber 1-based line number in {@code file} of the first torn line
     * @param detectedAt when the store found the tail (the store's clock)
     */
    public record Recovery(String sessionId, Path file, Path setAsideTo, long offset, long length, long lineNumber,
                           Instant detectedAt) {

        /**
         * A recovery report; the store creates them.
         *
         * @param sessionId  the session whose file was repaired
         * @param file       the repaired file
         * @param setAsideTo the side file that now holds the torn bytes
         * @param offset     byte offset in {@code file} where the torn tail started
         * @param length     number of bytes set aside
         * @param lineNumber 1-based line number in {@code file} of the first torn line
         * @param detectedAt when the store found the tail
         * @throws NullPointerException if {@code sessionId}, a path or {@code detectedAt} is null
         */
        public Recovery {
            Objects.requireNonNull(sessionId, "sessionId");
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(setAsideTo, "setAsideTo");
            Objects.requireNonNull(detectedAt, "detectedAt");
        }

        @Override
        public String toString() {
            return "Recovery{session=" + sessionId + ", file=" + file + ", line=" + lineNumber + ", offset=" + offset
                    + ", bytes=" + length + ", setAsideTo=" + setAsideTo + ", at=" + detectedAt + '}';
        }
    }

    /**
     * Builds a {@link FileSessionStore}. Only {@link #directory(Path)} is required.
     */
    public static final class Builder {

        private Path directory;
        private Clock clock = Clock.systemUTC();
        private Consumer<Recovery> recoveryListener = recovery -> { };
        private int maxCachedSessions = DEFAULT_MAX_CACHED_SESSIONS;

        private Builder() {
        }

        /**
         * The folder for the session files; created (0700 on POSIX) if missing. Required.
         *
         * @param directory the folder
         * @return this builder
         */
        public Builder directory(Path directory) {
            this.directory = directory;
            return this;
        }

        /**
         * Where entry timestamps and recovery times come from; default the system UTC clock.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * Told about every torn tail the store sets aside (see {@link Recovery}), after the repair and
         * after the session's lock is released, on the thread whose store call found it. The store
         * also logs each recovery as an SLF4J warning. An exception thrown by the listener is logged
         * and does not fail the store call. Default: nothing besides the warning.
         *
         * @param listener called with each recovery
         * @return this builder
         */
        public Builder onRecovery(Consumer<Recovery> listener) {
            this.recoveryListener = listener;
            return this;
        }

        /**
         * How many sessions keep their parsed entries in memory; least recently used ones beyond it are
         * dropped and re-read from disk when used again. This bounds the store's heap whatever number of
         * sessions it has seen (it keeps no file open between calls). Default
         * {@value #DEFAULT_MAX_CACHED_SESSIONS}.
         *
         * @param maxCachedSessions the number of sessions, at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code maxCachedSessions < 1}
         */
        public Builder maxCachedSessions(int maxCachedSessions) {
            if (maxCachedSessions < 1) {
                throw new IllegalArgumentException("maxCachedSessions must be >= 1, was " + maxCachedSessions);
            }
            this.maxCachedSessions = maxCachedSessions;
            return this;
        }

        /**
         * Creates the folder if needed and returns the store.
         *
         * @return the store
         * @throws IllegalArgumentException if the folder is missing or not a folder, a value is
         *                                  {@code null}, or {@code maxCachedSessions < 1}
         * @throws StoreException           if the folder cannot be created or resolved
         */
        public FileSessionStore build() {
            if (directory == null) {
                throw new IllegalArgumentException("directory is required");
            }
            if (clock == null) {
                throw new IllegalArgumentException("clock must not be null");
            }
            if (recoveryListener == null) {
                throw new IllegalArgumentException("recovery listener must not be null");
            }
            if (maxCachedSessions < 1) {
                throw new IllegalArgumentException("maxCachedSessions must be >= 1, was " + maxCachedSessions);
            }
            if (Files.exists(directory) && !Files.isDirectory(directory)) {
                throw new IllegalArgumentException("not a directory: " + directory);
            }
            DurableFiles disk = DurableFiles.of(directory);
            try {
                if (!Files.isDirectory(directory)) { // an existing folder may be on a read-only mount
                    disk.createDirectories(directory);
                }
                return new FileSessionStore(this, directory.toRealPath(), disk);
            } catch (IOException e) {
                throw new StoreException("could not open the session folder " + directory + ": " + e, e);
            }
        }
    }
}
