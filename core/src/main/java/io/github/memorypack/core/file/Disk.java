package io.github.memorypack.core.file;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.EOFException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Set;

/**
 * File operations with the store's durability and permission rules: files are created 0600 and
 * folders 0700 on POSIX file systems; every write that must survive a crash is forced; files are
 * replaced by temp file + force + atomic rename + directory force.
 */
final class Disk {

    private static final FileAttribute<?>[] NONE = new FileAttribute<?>[0];

    private final boolean posix;
    private final FileAttribute<?>[] fileAttributes;
    private final FileAttribute<?>[] directoryAttributes;

    Disk(boolean posix) {
        this.posix = posix;
        this.fileAttributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : NONE;
        this.directoryAttributes = posix
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
                : NONE;
    }

    static Disk of(Path directory) {
        return new Disk(directory.getFileSystem().supportedFileAttributeViews().contains("posix"));
    }

    void createDirectories(Path directory) throws IOException {
        Files.createDirectories(directory, directoryAttributes);
    }

    /** Opens (creating with owner-only permissions if needed) a file for reading and writing. */
    FileChannel openOrCreate(Path file) throws IOException {
        return FileChannel.open(file, Set.of(CREATE, READ, WRITE), fileAttributes);
    }

    /** Creates a new file with owner-only permissions. */
    FileChannel createNew(Path file) throws IOException {
        return FileChannel.open(file, Set.of(CREATE_NEW, WRITE), fileAttributes);
    }

    /** Makes renames and creations in {@code directory} durable (a no-op where folders cannot be forced). */
    void forceDirectory(Path directory) throws IOException {
        if (posix) {
            try (FileChannel channel = FileChannel.open(directory, READ)) {
                channel.force(true);
            }
        }
    }

    /**
     * Writes {@code bytes} at {@code position} of {@code file} (created when {@code create}) and
     * forces them to disk. On any failure the file is put back as it was (truncated to
     * {@code position}, or removed when it was created here) before the exception is rethrown.
     */
    void appendDurably(Path file, long position, ByteBuffer bytes, boolean create) throws IOException {
        try {
            Set<OpenOption> options = create ? Set.of(CREATE_NEW, WRITE) : Set.of(WRITE);
            try (FileChannel channel = FileChannel.open(file, options, fileAttributes)) {
                writeFully(channel, bytes, position);
                channel.force(false);
            }
            if (create) {
                forceDirectory(file.getParent());
            }
        } catch (IOException | RuntimeException | Error e) {
            try {
                if (create) {
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
        } catch (IOException | RuntimeException | Error e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException | RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
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

    /**
     * Truncates and forces through {@link RandomAccessFile}, which, unlike a {@code FileChannel}, is
     * not closed by an interrupt: a rollback must finish even on an interrupted thread.
     */
    static void truncate(Path file, long length) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(length);
            raf.getFD().sync();
        }
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
}
