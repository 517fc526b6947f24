package io.github.memorypack.memorymd;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

/** {@link FileLayer#system()}: java.nio with POSIX permissions where the file system has them. */
final class SystemFileLayer implements FileLayer {

    static final SystemFileLayer INSTANCE = new SystemFileLayer();

    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static final FileAttribute<?>[] DIR_ATTRS = POSIX
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
            : new FileAttribute<?>[0];
    private static final FileAttribute<?>[] FILE_ATTRS = POSIX
            ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
            : new FileAttribute<?>[0];

    private SystemFileLayer() {
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            return;
        }
        Path parent = dir.getParent();
        if (parent != null) {
            createDirectories(parent);
        }
        try {
            Files.createDirectory(dir, DIR_ATTRS);
        } catch (FileAlreadyExistsException e) {
            if (!Files.isDirectory(dir)) {
                throw e;
            }
        }
    }

    @Override
    public boolean exists(Path path) {
        return Files.exists(path);
    }

    @Override
    public FileStamp stamp(Path file) throws IOException {
        try {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            return new FileStamp(attrs.size(), attrs.lastModifiedTime(), attrs.fileKey());
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    @Override
    public byte[] read(Path file) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    @Override
    public void writeAt(Path file, long position, byte[] data, boolean force) throws IOException {
        try (FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE),
                FILE_ATTRS)) {
            if (channel.size() > position) {
                channel.truncate(position);
            }
            ByteBuffer buffer = ByteBuffer.wrap(data);
            long at = position;
            while (buffer.hasRemaining()) {
                at += channel.write(buffer, at);
            }
            if (force) {
                channel.force(false);
            }
        }
    }

    /**
     * Through {@link RandomAccessFile}, which, unlike a {@code FileChannel}, is not closed by an
     * interrupt: cutting off a failed append must finish on the interrupted thread of a cancelled
     * request too, or the append's complete blocks would be read as stored.
     */
    @Override
    public void truncate(Path file, long size) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size);
            raf.getFD().sync();
        }
    }

    @Override
    public void writeAtomically(Path target, byte[] data) throws IOException {
        Path temp = writeTemp(target, data);
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        forceDirectory(target.getParent());
    }

    @Override
    public void createNew(Path target, byte[] data) throws IOException {
        Path temp = writeTemp(target, data);
        try {
            // A hard link never replaces an existing name: the no-clobber rename POSIX lacks.
            Files.createLink(target, temp);
        } catch (UnsupportedOperationException e) {
            if (Files.exists(target)) {
                throw new FileAlreadyExistsException(target.toString());
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        forceDirectory(target.getParent());
    }

    private static Path writeTemp(Path target, byte[] data) throws IOException {
        Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try (FileChannel channel = FileChannel.open(temp,
                Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW), FILE_ATTRS)) {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return temp;
    }

    /** Makes a rename durable. Folders cannot be opened on every platform; there it is a no-op. */
    static void forceDirectory(Path dir) throws IOException {
        if (!POSIX || dir == null) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    @Override
    public AutoCloseable lock(Path lockFile) throws IOException {
        return hold(FileChannel.open(lockFile, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE), FILE_ATTRS),
                false);
    }

    @Override
    public AutoCloseable readLock(Path lockFile) throws IOException {
        try {
            return hold(FileChannel.open(lockFile, StandardOpenOption.READ), true);
        } catch (NoSuchFileException e) {
            return () -> { };
        }
    }

    /** Locks the whole file through {@code channel}; closing the result releases the lock and the channel. */
    private static AutoCloseable hold(FileChannel channel, boolean shared) throws IOException {
        try {
            var lock = channel.lock(0, Long.MAX_VALUE, shared);
            return () -> {
                try {
                    lock.release();
                } finally {
                    channel.close();
                }
            };
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public List<String> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                names.add(p.getFileName().toString());
            }
        }
        Collections.sort(names);
        return names;
    }

    @Override
    public void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            List<Path> paths = new ArrayList<>(walk.sorted(Comparator.reverseOrder()).toList());
            for (Path p : paths) {
                Files.deleteIfExists(p);
            }
        }
        forceDirectory(dir.getParent());
    }
}
