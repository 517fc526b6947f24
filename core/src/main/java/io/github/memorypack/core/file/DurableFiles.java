package io.github.memorypack.core.file;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;

import io.github.memorypack.core.Experimental;
import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The disk layer of Memory Pack's file-backed stores ({@link FileSessionStore} and memory-md's
 * {@code MemoryMdSessionStore}), for a store implementer who keeps sessions in files: creation with
 * owner-only permissions, forced writes, atomic replacement and session locks, each with the rules
 * below. Thread-safe; it keeps no file open between calls.
 *
 * <ul>
 *   <li><b>Permissions.</b> On POSIX file systems, folders it creates are {@code 0700} and files
 *       {@code 0600}.</li>
 *   <li><b>Durability.</b> A write that must survive a crash is forced ({@link FileChannel#force}) before the
 *       call returns; a file it creates or renames also gets its folder forced, so the new name is
 *       durable too (a no-op where folders cannot be forced).</li>
 *   <li><b>All or nothing.</b> A call that throws has put the file back as it was: a failed
 *       {@link #writeAt} cuts the file back to where it wrote (or removes the file it created); a failed
 *       {@link #replaceAtomically} or {@link #createAtomically} leaves the target untouched and no temp
 *       file behind. Cutting back goes through {@link RandomAccessFile}, which an interrupt does not close,
 *       so it finishes on the interrupted thread of a cancelled request too.</li>
 *   <li><b>Locks.</b> A session lock has two halves: {@link #lockThreads} for the threads of this JVM
 *       (one per lock file, shared by every store instance, since a JVM may hold only one OS lock per file;
 *       removed again when no thread holds or waits for it, so the JVM keeps as many as calls are running,
 *       whatever the number of sessions) and {@link #lockFile} for other processes. A writer locks the
 *       file exclusively; a reader shares the lock, opening the lock file read-only, or takes none when
 *       there is no lock file (no writer ever used the session), so reads work on a read-only folder.</li>
 * </ul>
 *
 * <p>{@link Experimental}: added for the stores of this project; its methods may still change.
 */
@Experimental
public final class DurableFiles {

    private static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];
    // made once: an open with varargs options builds a set per call, and the stores open files per call
    private static final Set<OpenOption> WRITE_ONLY = Set.of(WRITE);
    private static final Set<OpenOption> NEW_FILE = Set.of(CREATE_NEW, WRITE);
    private static final Set<OpenOption> LOCK_FILE = Set.of(CREATE, READ, WRITE);
    private static final Set<OpenOption> READ_ONLY = Set.of(READ);
    private static final ConcurrentHashMap<Path, ThreadLock> THREAD_LOCKS = new ConcurrentHashMap<>();

    private final boolean posix;
    private final FileAttribute<?>[] fileAttributes;
    private final FileAttribute<?>[] directoryAttributes;

    private DurableFiles(boolean posix) {
        this.posix = posix;
        this.fileAttributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : NONE;
        this.directoryAttributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
                : NONE;
    }

    /**
     * The disk layer for files on {@code directory}'s file system (POSIX permissions where it has them).
     *
     * @param directory a folder of the file system the files are on (it need not exist)
     * @return the disk layer for that file system
     */
    public static DurableFiles of(Path directory) {
        return new DurableFiles(directory.getFileSystem().supportedFileAttributeViews().contains("posix"));
    }

    /**
     * Creates a folder and its missing parents ({@code 0700}); nothing if it exists.
     *
     * @param directory the folder
     * @throws IOException if it cannot be created (or exists and is not a folder)
     */
    public void createDirectories(Path directory) throws IOException {
        Files.createDirectories(directory, directoryAttributes);
    }

    /**
     * Makes renames and creations in {@code directory} durable (a no-op where folders cannot be forced).
     *
     * @param directory the folder
     * @throws IOException if it cannot be forced
     */
    public void forceDirectory(Path directory) throws IOException {
        if (posix && directory != null) {
            try (FileChannel channel = FileChannel.open(directory, READ)) {
                channel.force(true);
            }
        }
    }

    /**
     * Writes {@code bytes} at {@code position} of {@code file}, first cutting off whatever follows
     * {@code position}; creates the file ({@code 0600}) when it is missing. With {@code force}, the bytes
     * (and, for a new file, its folder) reach the device before the call returns. On any failure the
     * file is put back: cut to {@code position}, or removed when this call created it.
     *
     * @param file     the file
     * @param position where to write, at most the file's size (0 for a file that may be missing)
     * @param bytes    what to write
     * @param force    whether to force the write to the device
     * @throws IOException if the write fails (the file is then as it was up to {@code position}), or
     *                     {@link NoSuchFileException} if the file is missing and {@code position} is not 0
     */
    public void writeAt(Path file, long position, byte[] bytes, boolean force) throws IOException {
        boolean created = false;
        FileChannel channel;
        try {
            channel = FileChannel.open(file, WRITE_ONLY, NONE);
        } catch (NoSuchFileException missing) {
            if (position != 0) {
                throw missing; // nothing to write after: the file it extends is gone
            }
            channel = FileChannel.open(file, NEW_FILE, fileAttributes);
            created = true;
        }
        // opened: from here on a failure puts the file back
        try {
            try (FileChannel open = channel) {
                if (!created && open.size() > position) {
                    open.truncate(position);
                }
                writeFully(open, ByteBuffer.wrap(bytes), position);
                if (force) {
                    open.force(false);
                }
            }
            if (created && force) {
                forceDirectory(file.getParent());
            }
        } catch (IOException | RuntimeException | Error e) {
            try {
                if (created) {
                    Files.deleteIfExists(file);
                } else {
                    truncate(file, position);
                }
            } catch (IOException | RuntimeException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        }
    }

    /**
     * Cuts {@code file} to {@code length} bytes and forces it, also on an interrupted thread.
     *
     * @param file   the file
     * @param length its new length
     * @throws IOException if it cannot be cut (or does not exist)
     */
    public void truncate(Path file, long length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
            raf.getFD().sync();
        }
    }

    /**
     * Replaces (or creates) {@code target} with {@code content} atomically: a temp file next to it,
     * forced, renamed over it, and the folder forced. Readers see the old content or the new one, never
     * a mix, also after a crash.
     *
     * @param target  the file
     * @param content its new content
     * @throws IOException if it fails ({@code target} is then untouched)
     */
    public void replaceAtomically(Path target, byte[] content) throws IOException {
        replaceAtomically(target, temp(target), channel -> writeFully(channel, ByteBuffer.wrap(content), 0), () -> { });
    }

    /**
     * Creates {@code target} with {@code content}, never replacing an existing file: a temp file next
     * to it, forced, then linked to the new name (where links are not supported: renamed after a check,
     * which another process could race), and the folder forced.
     *
     * @param target  the file to create
     * @param content its content
     * @throws FileAlreadyExistsException if {@code target} exists (nothing is written)
     * @throws IOException                if it fails otherwise ({@code target} is then not created)
     */
    public void createAtomically(Path target, byte[] content) throws IOException {
        Path temp = temp(target);
        try {
            try (FileChannel channel = FileChannel.open(temp, Set.of(CREATE_NEW, WRITE), fileAttributes)) {
                writeFully(channel, ByteBuffer.wrap(content), 0);
                channel.force(true);
            }
            try {
                Files.createLink(target, temp); // a hard link never replaces a name: the no-clobber rename POSIX lacks
            } catch (UnsupportedOperationException e) {
                if (Files.exists(target)) {
                    throw new FileAlreadyExistsException(target.toString());
                }
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
        forceDirectory(target.getParent());
    }

    /**
     * Takes the half of a session lock that excludes the other threads of this JVM: one lock per lock
     * file, whichever store instance asks, blocking until it is free. Reentrant. The JVM forgets the
     * lock when it is closed by the last thread that held or waited for it.
     *
     * <p>The lock is found by the path's absolute form, so every caller must name one file by one path
     * (both stores name it inside their folder's absolute, normalized path). Two names for one file
     * would give two locks here; the OS lock then refuses the second
     * ({@link java.nio.channels.OverlappingFileLockException}) rather than let both in.
     *
     * @param lockFile the session's lock file (it need not exist)
     * @return the held lock; {@link Held#close()} releases it
     */
    public static Held lockThreads(Path lockFile) {
        Path key = lockFile.isAbsolute() ? lockFile : lockFile.toAbsolutePath();
        ThreadLock lock = THREAD_LOCKS.compute(key, (k, existing) -> {
            ThreadLock held = existing == null ? new ThreadLock(k) : existing;
            held.users++;
            return held;
        });
        lock.lock.lock();
        return lock;
    }

    /**
     * How many lock files this JVM's threads hold or wait for right now through {@link #lockThreads}
     * (0 while no store call runs): what the JVM keeps for locks, whatever the number of sessions.
     *
     * @return the number of lock files in use
     */
    public static int threadLocksInUse() {
        return THREAD_LOCKS.size();
    }

    /**
     * Takes the half of a session lock that excludes other processes: for a writer ({@code exclusive}),
     * opens {@code lockFile} for writing (creating it, {@code 0600}) and locks it exclusively; for a
     * reader, opens it read-only and takes a shared lock, or takes none and returns empty when it does
     * not exist (no writer ever used the session). Blocks until the lock is granted. Call it
     * holding {@link #lockThreads} for the same file: a JVM may hold only one lock per file.
     *
     * @param lockFile  the session's lock file
     * @param exclusive {@code true} for a writer, {@code false} for a reader
     * @return the open lock file, locked until it is closed; empty for a reader when there is no lock file
     * @throws IOException if the file cannot be opened or locked (the channel is then closed)
     */
    public Optional<FileChannel> lockFile(Path lockFile, boolean exclusive) throws IOException {
        FileChannel channel;
        if (exclusive) {
            channel = FileChannel.open(lockFile, LOCK_FILE, fileAttributes);
        } else {
            try {
                channel = FileChannel.open(lockFile, READ_ONLY, NONE);
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        }
        try {
            channel.lock(0, Long.MAX_VALUE, !exclusive); // held until the channel closes
            return Optional.of(channel);
        } catch (IOException | RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    /** A held {@link #lockThreads} lock. */
    public interface Held extends AutoCloseable {

        /** Releases the lock; call it once, on the thread that took it. */
        @Override
        void close();
    }

    private static final class ThreadLock implements Held {
        private final Path key;
        private final ReentrantLock lock = new ReentrantLock();
        private int users; // holders and waiters, changed only inside THREAD_LOCKS.compute

        ThreadLock(Path key) {
            this.key = key;
        }

        @Override
        public void close() {
            lock.unlock();
            THREAD_LOCKS.compute(key, (k, existing) -> --existing.users == 0 ? null : existing);
        }
    }

    // ------------------------------------------------------------------ the file store's own steps

    /** Creates a new file with owner-only permissions, for writing. */
    FileChannel createNew(Path file) throws IOException {
        return FileChannel.open(file, Set.of(CREATE_NEW, WRITE), fileAttributes);
    }

    /**
     * Replaces {@code target} with what {@code body} writes: into {@code temp}, forced, then
     * {@code beforeRename} runs, then an atomic rename and a directory force. On a failure before the
     * rename the temp file is removed and {@code target} is untouched.
     */
    void replaceAtomically(Path target, Path temp, Body body, IoAction beforeRename) throws IOException {
        try {
            try (FileChannel channel = FileChannel.open(temp, Set.of(CREATE, TRUNCATE_EXISTING, WRITE), fileAttributes)) {
                body.writeTo(channel);
                channel.force(true);
            }
            beforeRename.run();
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException | Error e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException | RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        forceDirectory(target.getParent());
    }

    /**
     * Moves the bytes of {@code file} from {@code from} to its end into a new side file next to it
     * (named after {@code at}), forced, and then truncates {@code file} to {@code from}.
     *
     * @return the side file
     */
    Path setAside(Path file, long from, Instant at) throws IOException {
        byte[] tail;
        try (FileChannel channel = FileChannel.open(file, READ)) {
            tail = read(channel, from, channel.size());
        }
        Path side;
        for (int attempt = 0; ; attempt++) {
            side = SessionFiles.tornFile(file, at, attempt);
            try (FileChannel channel = createNew(side)) {
                writeFully(channel, ByteBuffer.wrap(tail), 0);
                channel.force(true);
                break;
            } catch (FileAlreadyExistsException clash) {
                // several recoveries within one millisecond: take the next free name
            }
        }
        forceDirectory(file.getParent());
        truncate(file, from);
        return side;
    }

    /** A temp file next to {@code target}, hidden, unique. */
    private static Path temp(Path target) {
        return target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
    }

    static void writeFully(FileChannel channel, ByteBuffer bytes, long position) throws IOException {
        long at = position;
        while (bytes.hasRemaining()) {
            at += channel.write(bytes, at);
        }
    }

    static byte[] read(FileChannel channel, long from, long to) throws IOException {
        long length = to - from;
        if (length > Integer.MAX_VALUE - 16) {
            throw new IOException("cannot read " + length + " bytes at once");
        }
        ByteBuffer buffer = ByteBuffer.allocate((int) length);
        long at = from;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
                throw new EOFException("file ended at " + at + ", expected " + to + " bytes");
            }
            at += n;
        }
        return buffer.array();
    }

    /** Writes a file's content. */
    @FunctionalInterface
    interface Body {
        void writeTo(FileChannel channel) throws IOException;
    }

    /** A step that may fail with an {@link IOException}. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    /**
     * The processes that use {@code folder} (its real path), for a store's
     * {@link io.github.memorypack.core.SessionStore#processId} and
     * {@link io.github.memorypack.core.SessionStore#processEnded}: a store keeps the returned object in a
     * field (no I/O until asked). This JVM's mark is the file {@code .processes/<id>.lock} in the folder, made
     * on the first {@link Processes#id()} and OS-locked while an object that asked for it is reachable (a
     * memory holds its store, so a turn that may still go on keeps the mark); every store instance on the
     * folder shares it meanwhile.
     *
     * @param folder the store's folder, as a real path
     * @return the processes of that folder, as seen from this JVM
     */
    public static Processes processes(Path folder) {
        return new Processes(folder);
    }

    /** The processes that use one store folder ({@link #processes}). Thread-safe. */
    public static final class Processes {
        private final Path folder;
        private volatile ProcessMarks.Mark mark; // held here: the JVM-wide table holds it weakly

        Processes(Path folder) {
            this.folder = folder;
        }

        /**
         * This JVM's id on the folder, made on the first call.
         *
         * @return the id, or null when the folder cannot hold a mark (read-only)
         */
        public String id() {
            ProcessMarks.Mark held = mark;
            if (held == null) {
                held = ProcessMarks.own(folder);
                mark = held;
            }
            return held.id();
        }

        /**
         * True if the process whose id on the folder was {@code processId} has ended: its mark is gone, or no
         * process holds its lock (the mark is then removed). False for this JVM's own id, for an id that is no
         * mark's name, and when the mark cannot be checked.
         *
         * @param processId an id found on a turn in the log
         * @return true if that process has ended for certain
         */
        public boolean ended(String processId) {
            return ProcessMarks.ended(folder, processId);
        }
    }
}
