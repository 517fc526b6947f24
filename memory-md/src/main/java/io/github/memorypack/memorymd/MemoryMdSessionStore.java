package io.github.memorypack.memorymd;

import dev.langchain4j.model.TokenCountEstimator;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.NewEntry;
import io.github.memorypack.core.SessionIds;
import io.github.memorypack.core.file.DurableFiles;
import io.github.memorypack.core.SessionState;
import io.github.memorypack.core.SessionStore;
import io.github.memorypack.core.StoreException;
import io.github.memorypack.core.Summary;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SessionStore} that keeps each session as a human-readable Markdown file,
 * {@code <directory>/<sessionId>/MEMORY.md} (the format is described in the module README), following
 * the swarms {@code Conversation} behaviour without its weaknesses.
 *
 * <h2>Files of a session</h2>
 * <ul>
 *   <li>{@code MEMORY.md}: header ({@code # Agent Memory}, created timestamp, {@code ## Interaction Log})
 *       written when the session is first written to; an existing file is left as it is and
 *       parsed back into typed entries with their original roles. One block per message, appended
 *       as the message is added (write-through).</li>
 *   <li>{@code state.json}: the {@link SessionState} (the application's system message, summary,
 *       attributes), replaced atomically. The application's system message never enters MEMORY.md.</li>
 *   <li>{@code system.jsonl}: system messages appended to the log (for example by LangChain4j's own
 *       memories); MEMORY.md keeps a placeholder block for each, so the readable file holds only the
 *       conversation.</li>
 *   <li>{@code archive/history_<timestamp>.md}: copies of MEMORY.md taken before it is rewritten by
 *       {@link #compact}, {@link #trim} or {@link #replace}; names never collide (a suffix is added).</li>
 *   <li>{@code .lock}: the cross-process lock file.</li>
 * </ul>
 * Folders are created 0700 and files 0600 where the file system has POSIX permissions. Session ids
 * are validated by {@link SessionIds}, so a folder is always a direct child of the base folder.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Every operation on a session holds an in-process lock and a
 *       {@link java.nio.channels.FileChannel#lock() file lock} on {@code .lock}: exclusive for calls
 *       that write, so threads and processes sharing the folder are serialized; shared for reads,
 *       which open nothing for writing and so work on a read-only folder
 *       (writes there fail with a {@link StoreException}). The file is re-read only when its size, time
 *       or identity changed. Locks, forced writes and atomic replacement are the file store's own
 *       ({@link DurableFiles}); the JVM keeps an in-process lock only while a call on that session
 *       runs, and none for a session at rest.</li>
 *   <li>{@link Durability#SYNC} (default): an append returns after its bytes are forced to the
 *       device. {@link Durability#OS_BUFFERED}: an append returns after the write; a process crash
 *       loses nothing, a power loss or kernel crash can lose the appends of the last seconds. Archives,
 *       rewrites and state are always forced.</li>
 *   <li>A batch is written with one write; a batch cut short by a crash (at any byte) is recognised
 *       on the next read, ignored, copied to {@code archive/torn_<timestamp>.md} and cut off before the
 *       next append. A failed append (disk full…) is cut off again before the exception is thrown.</li>
 *   <li>Every block is sealed with its body length and a CRC32C; a file of an
 *       older format (or written by hand) is read, and rewritten in the current format by the first
 *       write (the old file is kept in the archive).</li>
 *   <li>Rewrites (compaction, trim, replace) first write the archive (temporary file, force,
 *       no-replace link, folder force), then the new MEMORY.md (temporary file, force, atomic rename,
 *       folder force). If any step fails the old MEMORY.md is intact; it is never deleted.</li>
 *   <li>A damaged block (its checksum or structure does not check) throws
 *       {@link io.github.memorypack.core.CorruptRecordException CorruptRecordException} naming the file and
 *       line ({@link DamagePolicy#FAIL}, default), or with
 *       {@link DamagePolicy#SKIP_DAMAGED_BLOCKS} it is set aside — left in the file, not loaded, and
 *       reported to the warning listener with its line — and every good block is loaded. A damaged block
 *       is never read as a different message, a different role or a hand-written block.</li>
 *   <li>MEMORY.md never grows past {@link Builder#maxPreloadBytes}: an append, replace, trim or
 *       compaction that would take it over is refused with {@link TooLargeException} before anything is
 *       written, so the session stays readable; a file already over the limit is refused the same way
 *       instead of being loaded into memory.</li>
 *   <li>Indices are never reused: the header records the next index, so numbering continues after
 *       a compaction.</li>
 *   <li>{@link #persistence(boolean) Persistence can be switched off} at runtime: later appends and
 *       state updates stay in this store object's memory and the files are not touched; they are not
 *       written when persistence is switched on again. Meant for one process (another process does
 *       not see them).</li>
 * </ul>
 */
public final class MemoryMdSessionStore implements SessionStore {

    /** Default {@link Builder#maxPreloadBytes}: 16 MiB. */
    public static final long DEFAULT_MAX_PRELOAD_BYTES = 16L * 1024 * 1024;

    private static final Logger LOG = LoggerFactory.getLogger(MemoryMdSessionStore.class);

    static final String MEMORY_MD = "MEMORY.md";
    static final String STATE_JSON = "state.json";
    static final String ARCHIVE = "archive";

    /** How hard an append works to survive a crash. */
    public enum Durability {
        /** Each append is forced to the device before it returns. */
        SYNC,
        /** Appends are left to the OS; survives a process crash, may lose the last appends on power loss. */
        OS_BUFFERED
    }

    /** What to do with a MEMORY.md that holds a damaged block. */
    public enum DamagePolicy {
        /**
         * Throw {@link io.github.memorypack.core.CorruptRecordException CorruptRecordException} naming
         * the file and line; touch nothing.
         */
        FAIL,
        /**
         * Load every block that checks; set each damaged block aside — leave it in the file, do not load
         * it — and report it, with its line, as a warning.
         */
        SKIP_DAMAGED_BLOCKS
    }

    /**
     * A MEMORY.md over {@link Builder#maxPreloadBytes}. An append, replace, trim or compaction that
     * would make the file larger than the limit is refused with this before anything is written, so a
     * session always stays readable; a file that is already larger (written by hand, or by a version
     * that did not check) is not loaded. Compact or trim the session, or raise the limit.
     */
    public static final class TooLargeException extends StoreException {

        private static final long serialVersionUID = 1L;

        /** The size in bytes the file has, or would have had. */
        private final long size;
        /** The limit, in bytes. */
        private final long limit;

        TooLargeException(Path file, long size, long limit, String verb) {
            super(file + " " + verb + " " + size + " bytes, over the limit of " + limit + " bytes (maxPreloadBytes);"
                    + " compact or trim the session, or raise the limit");
            this.size = size;
            this.limit = limit;
        }

        /**
         * The size in bytes the file has, or would have had.
         *
         * @return the size in bytes the file has, or would have had
         */
        public long size() {
            return size;
        }

        /**
         * The limit, {@link Builder#maxPreloadBytes}.
         *
         * @return the limit, {@link Builder#maxPreloadBytes}
         */
        public long limit() {
            return limit;
        }
    }

    private final Path directory;
    private final FileLayer files;
    /** The processes that use the folder; holds this process's mark while this store is reachable. */
    private final DurableFiles.Processes processes;
    private final Clock clock;
    private final Durability durability;
    private final DamagePolicy damagePolicy;
    private final Consumer<String> warnings;
    private final TokenCountEstimator tokenizer;
    private final SessionFiles sessionFiles;
    private final SessionLocks locks;
    private volatile boolean persistent = true;

    private MemoryMdSessionStore(Builder b) {
        this.directory = b.directory.toAbsolutePath().normalize();
        this.processes = DurableFiles.processes(directory);
        this.files = b.files;
        this.clock = b.clock;
        this.durability = b.durability;
        this.damagePolicy = b.damagePolicy;
        this.warnings = b.warnings;
        this.tokenizer = b.tokenizer;
        this.sessionFiles = new SessionFiles(b.files, b.clock, b.durability, b.damagePolicy, b.warnings,
                b.maxPreloadBytes);
        this.locks = new SessionLocks(directory, files, sessionFiles);
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
     * A store with default settings on {@code directory}.
     *
     * @param directory the base folder
     * @return a store with default settings on {@code directory}
     */
    public static MemoryMdSessionStore of(Path directory) {
        return builder().directory(directory).build();
    }

    /**
     * The base folder.
     *
     * @return the base folder
     */
    public Path directory() {
        return directory;
    }

    /**
     * The MEMORY.md of a session (it may not exist yet).
     *
     * @param sessionId the session id
     * @return the MEMORY.md of a session (it may not exist yet)
     */
    public Path memoryFile(String sessionId) {
        return locks.sessionDir(sessionId).resolve(MEMORY_MD);
    }

    /**
     * The archive folder of a session (it may not exist yet).
     *
     * @param sessionId the session id
     * @return the archive folder of a session (it may not exist yet)
     */
    public Path archiveDirectory(String sessionId) {
        return locks.sessionDir(sessionId).resolve(ARCHIVE);
    }

    /**
     * Switches persistence on or off for this store object. While off, appends and state updates
     * stay in memory and no file is written; {@link #replace}, {@link #trim}, {@link #compact} and
     * {@link #delete} throw {@link IllegalStateException}.
     *
     * @param enabled whether appends and state updates are written to the files
     */
    public void persistence(boolean enabled) {
        this.persistent = enabled;
    }

    /**
     * True while appends are written to the files.
     *
     * @return true while appends are written to the files
     */
    public boolean isPersistent() {
        return persistent;
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here, as on the {@code FileSessionStore}: one id per JVM and folder, the mark
     * {@code .processes/<id>.lock} that this JVM holds an OS lock on while a store instance that asked for
     * it is reachable.
     */
    @Override
    public String processId() {
        return processes.id();
    }

    /** {@inheritDoc} (Here: the process's mark is gone or unlocked, as on the {@code FileSessionStore}.) */
    @Override
    public boolean processEnded(String processId) {
        return processes.ended(processId);
    }

    /**
     * The base folder, the durability and the damage policy.
     *
     * @return for example {@code MemoryMdSessionStore{/var/lib/app/memory, SYNC, FAIL}}
     */
    @Override
    public String toString() {
        return "MemoryMdSessionStore{" + directory + ", " + durability + ", " + damagePolicy + '}';
    }

    // ------------------------------------------------------------------------------ SessionStore

    @Override
    public List<Entry> append(String sessionId, List<NewEntry> entries, String idempotencyKey) {
        SessionIds.validate(sessionId);
        SessionIds.checkIdempotencyKey(idempotencyKey);
        List<NewEntry> batch = List.copyOf(entries);
        SessionLocks.SessionOp<List<Entry>> op = s -> {
            if (idempotencyKey != null) {
                List<Entry> earlier = s.byKey.get(idempotencyKey);
                if (earlier != null) {
                    return earlier;
                }
            }
            if (batch.isEmpty()) {
                return List.of();
            }
            List<Entry> stored = stamp(batch, s.nextIndex(), idempotencyKey);
            if (!persistent) {
                s.overlay.addAll(stored);
            } else {
                sessionFiles.writeEntries(s, stored);
                s.entries.addAll(stored);
            }
            List<Entry> result = Collections.unmodifiableList(stored);
            if (idempotencyKey != null) {
                s.byKey.put(idempotencyKey, result);
            }
            return result;
        };
        return persistent ? locks.writing(sessionId, true, op) : locks.reading(sessionId, op);
    }

    @Override
    public List<Entry> read(String sessionId, long fromIndex, int maxCount) {
        SessionIds.checkReadRange(fromIndex, maxCount);
        return locks.reading(sessionId, s -> {
            List<Entry> out = new ArrayList<>();
            for (Entry e : s.all()) {
                if (out.size() >= maxCount) {
                    break;
                }
                if (e.index() >= fromIndex) {
                    out.add(e);
                }
            }
            return List.copyOf(out);
        });
    }

    @Override
    public List<Entry> readLast(String sessionId, int count) {
        SessionIds.checkReadCount(count);
        return locks.reading(sessionId, s -> {
            List<Entry> all = s.all();
            return List.copyOf(all.subList(Math.max(0, all.size() - count), all.size()));
        });
    }

    @Override
    public long nextIndex(String sessionId) {
        return locks.reading(sessionId, CachedSession::nextIndex);
    }

    @Override
    public SessionState state(String sessionId) {
        return locks.reading(sessionId, CachedSession::state);
    }

    @Override
    public Optional<SessionState> compareAndSetState(String sessionId, long expectedVersion, SessionState newState) {
        Objects.requireNonNull(newState, "newState");
        SessionLocks.SessionOp<Optional<SessionState>> op = s -> {
            if (s.state().version() != expectedVersion) {
                return Optional.empty();
            }
            SessionState stored = newState.withVersion(expectedVersion + 1);
            if (persistent) {
                sessionFiles.writeState(s, stored);
            } else {
                s.overlayState = stored;
            }
            return Optional.of(stored);
        };
        // only version 0 can match an unknown session: any other compare fails without creating its folder
        return persistent ? locks.writing(sessionId, expectedVersion == 0, op) : locks.reading(sessionId, op);
    }

    @Override
    public void replace(String sessionId, List<NewEntry> entries) {
        List<NewEntry> batch = List.copyOf(entries);
        requirePersistence("replace");
        locks.writing(sessionId, true, s -> {
            List<Entry> stored = stamp(batch, s.nextIndex(), null);
            sessionFiles.rewrite(s, stored, s.nextIndex() + stored.size());
            return null;
        });
    }

    @Override
    public void trim(String sessionId, long beforeIndex) {
        requirePersistence("trim");
        locks.writing(sessionId, false, s -> {
            if (s.entries.isEmpty() || s.entries.get(0).index() >= beforeIndex) {
                return null;
            }
            List<Entry> kept = new ArrayList<>();
            for (Entry e : s.entries) {
                if (e.index() >= beforeIndex) {
                    kept.add(e); // idempotency keys of dropped entries are forgotten when the file is re-read
                }
            }
            sessionFiles.rewrite(s, kept, s.nextIndex());
            return null;
        });
    }

    /**
     * The swarms {@code compact(summary)}: stores {@code summaryText} as the session's
     * {@link SessionState#summary() summary} covering every entry so far, copies MEMORY.md to
     * {@code archive/history_<timestamp>.md} (durably), then restarts MEMORY.md with a fresh header
     * and the summary as its first block. Numbering continues: the next entry gets
     * {@link #nextIndex} as before. Summary strategies can call it as their compaction step.
     *
     * @param sessionId the session id
     * @param summaryText the summary of everything so far, not blank
     * @return the archive written, or empty if MEMORY.md did not exist
     * @throws StoreException if a step failed; MEMORY.md is then intact (the summary may already be in
     *                        the state, which is consistent: it covers entries that are still in the log)
     */
    public Optional<Path> compact(String sessionId, String summaryText) {
        Objects.requireNonNull(summaryText, "summaryText");
        if (summaryText.isBlank()) {
            throw new IllegalArgumentException("summary text must not be blank");
        }
        requirePersistence("compact");
        return locks.writing(sessionId, true, s -> {
            long next = s.nextIndex();
            int tokens = tokenizer == null ? Entry.UNKNOWN_TOKENS : tokenizer.estimateTokenCountInText(summaryText);
            SessionState state = s.state();
            sessionFiles.writeState(s, state.withSummary(new Summary(summaryText, next, tokens, clock.instant()))
                    .withVersion(state.version() + 1));
            return sessionFiles.rewrite(s, List.of(), next);
        });
    }

    /**
     * Warnings collected while reading the session's file (skipped blocks, interrupted writes).
     *
     * @param sessionId the session id
     * @return the warnings, oldest first; empty when there are none
     */
    public List<String> warnings(String sessionId) {
        return locks.reading(sessionId, s -> List.copyOf(s.warnings));
    }

    @Override
    public List<String> sessions() {
        return locks.sessions();
    }

    @Override
    public void delete(String sessionId) {
        requirePersistence("delete");
        locks.locked(sessionId, false, true, false, s -> { // no parse first: a damaged session can still be deleted
            Path dir = locks.sessionDir(sessionId);
            for (String name : files.list(dir)) {
                if (!name.equals(SessionLocks.LOCK)) {
                    files.deleteTree(dir.resolve(name));
                }
            }
            s.reset();
            return null;
        });
    }

    // ------------------------------------------------------------------------------ internals

    /** The entries of {@code batch}, numbered from {@code next}, stamped now by the store's clock. */
    private List<Entry> stamp(List<NewEntry> batch, long next, String idempotencyKey) {
        Instant now = clock.instant();
        List<Entry> stored = new ArrayList<>(batch.size());
        for (NewEntry e : batch) {
            stored.add(new Entry(next++, Entry.newId(), now, e.tokenCount(), e.message(), e.metadata(), idempotencyKey));
        }
        return stored;
    }

    private void requirePersistence(String operation) {
        if (!persistent) {
            throw new IllegalStateException("persistence is switched off: cannot " + operation
                    + " (the files are left untouched)");
        }
    }

    /** Builder for {@link MemoryMdSessionStore}; {@link #directory} is required. */
    public static final class Builder {

        private Path directory;
        private FileLayer files = FileLayer.system();
        private Clock clock = Clock.systemUTC();
        private Durability durability = Durability.SYNC;
        private DamagePolicy damagePolicy = DamagePolicy.FAIL;
        private Consumer<String> warnings = message -> LOG.warn("{}", message);
        private long maxPreloadBytes = DEFAULT_MAX_PRELOAD_BYTES;
        private TokenCountEstimator tokenizer;

        private Builder() {
        }

        /**
         * The base folder; created (0700) on the first write. Required.
         *
         * @param directory the base folder
         * @return this builder
         */
        public Builder directory(Path directory) {
            this.directory = directory;
            return this;
        }

        /** The file operations; {@link FileLayer#system()} by default (tests substitute failing ones). */
        Builder fileLayer(FileLayer files) {
            this.files = files;
            return this;
        }

        /**
         * Timestamps of entries, headers and archive names; the system UTC clock by default.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /**
         * {@link Durability#SYNC} by default.
         *
         * @param durability how an append is made durable
         * @return this builder
         */
        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        /**
         * {@link DamagePolicy#FAIL} by default.
         *
         * @param damagePolicy what to do with a damaged block
         * @return this builder
         */
        public Builder damagePolicy(DamagePolicy damagePolicy) {
            this.damagePolicy = damagePolicy;
            return this;
        }

        /**
         * Receives each warning (skipped block, interrupted write); an SLF4J warning by default.
         *
         * @param warnings receives each warning's text
         * @return this builder
         */
        public Builder warningListener(Consumer<String> warnings) {
            this.warnings = warnings;
            return this;
        }

        /**
         * Largest MEMORY.md: writes that would make it larger and files that are larger are refused with
         * {@link TooLargeException}. {@value #DEFAULT_MAX_PRELOAD_BYTES} by default.
         *
         * @param maxPreloadBytes the largest MEMORY.md, in bytes (at least 1)
         * @return this builder
         */
        public Builder maxPreloadBytes(long maxPreloadBytes) {
            this.maxPreloadBytes = maxPreloadBytes;
            return this;
        }

        /**
         * Counts the tokens of compaction summaries; without one their count is unknown.
         *
         * @param tokenizer counts the tokens of compaction summaries
         * @return this builder
         */
        public Builder tokenizer(TokenCountEstimator tokenizer) {
            this.tokenizer = tokenizer;
            return this;
        }

        /**
         * @return the store
         * @throws IllegalArgumentException if the directory is missing, a setting is null, or the
         *                                  preload limit is not positive
         */
        public MemoryMdSessionStore build() {
            if (directory == null) {
                throw new IllegalArgumentException("directory is required");
            }
            if (files == null || clock == null || durability == null || damagePolicy == null || warnings == null) {
                throw new IllegalArgumentException("fileLayer, clock, durability, damagePolicy and warningListener"
                        + " must not be null");
            }
            if (maxPreloadBytes <= 0) {
                throw new IllegalArgumentException("maxPreloadBytes must be > 0, was " + maxPreloadBytes);
            }
            return new MemoryMdSessionStore(this);
        }
    }
}
