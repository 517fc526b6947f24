package io.github.memorypack.memorymd;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

/**
 * The file operations {@link MemoryMdSessionStore} performs, in one small interface so tests (and
 * unusual platforms) can substitute them — for example to simulate a full disk or a permission
 * error at an exact step. {@link #system()} is the real implementation: the disk layer the file
 * store uses too ({@link io.github.memorypack.core.file.DurableFiles DurableFiles}).
 *
 * <p>Rules every implementation keeps: a method that throws has either done nothing or left only
 * bytes the store repairs (a partial append beyond the known end of the file); the store never
 * relies on a half-done {@link #writeAtomically} or {@link #createNew} being visible.
 */
interface FileLayer {

    /** The real file layer ({@code DurableFiles}): folders 0700 and files 0600 where POSIX permissions exist. */
    static FileLayer system() {
        return SystemFileLayer.INSTANCE;
    }

    /** Creates the folder and missing parents (0700). */
    void createDirectories(Path dir) throws IOException;

    /** True if the file or folder exists. */
    boolean exists(Path path);

    /** Size, last-modified time and file key of a file, or {@code null} if it does not exist. */
    FileStamp stamp(Path file) throws IOException;

    /** Reads a whole file, or returns {@code null} if it does not exist. */
    byte[] read(Path file) throws IOException;

    /**
     * Cuts the file at {@code position} (dropping anything after it), writes {@code data} there and,
     * when {@code force} is set, forces content to the device before returning. Creates the file
     * (0600) when missing.
     */
    void writeAt(Path file, long position, byte[] data, boolean force) throws IOException;

    /** Cuts the file at {@code size} bytes and forces it. */
    void truncate(Path file, long size) throws IOException;

    /**
     * Replaces (or creates) {@code target} with {@code data} atomically: writes a temporary file in
     * the same folder, forces it, renames it over {@code target}, and forces the folder.
     */
    void writeAtomically(Path target, byte[] data) throws IOException;

    /**
     * Creates {@code target} with {@code data}, failing with
     * {@link java.nio.file.FileAlreadyExistsException} if it exists: temporary file, force, atomic
     * no-replace link/rename, folder force.
     */
    void createNew(Path target, byte[] data) throws IOException;

    /** Takes the cross-process exclusive lock on {@code lockFile} (created when missing), blocking. */
    AutoCloseable lock(Path lockFile) throws IOException;

    /**
     * Takes the lock a reading call holds: shared with other readers, excluding writers, and without
     * writing anything, so that reads work on a read-only folder. The system layer opens
     * {@code lockFile} read-only and takes a shared lock, or takes none when the file does not exist
     * (no writer has used the session). This default takes the exclusive {@link #lock}.
     */
    default AutoCloseable readLock(Path lockFile) throws IOException {
        return lock(lockFile);
    }

    /** Names of the entries of a folder; empty if it does not exist. */
    List<String> list(Path dir) throws IOException;

    /** Deletes a folder and everything in it; does nothing if it does not exist. */
    void deleteTree(Path dir) throws IOException;

    /** What {@link #stamp} reports: enough to tell whether a file changed since it was read. */
    record FileStamp(long size, FileTime modified, Object fileKey) {
    }
}
