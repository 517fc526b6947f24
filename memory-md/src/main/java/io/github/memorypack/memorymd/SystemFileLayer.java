package io.github.memorypack.memorymd;

import io.github.memorypack.core.file.DurableFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@link FileLayer#system()}: the disk layer the file store uses too ({@link DurableFiles}: permissions,
 * forced writes, atomic replacement, file locks), plus the reads and listings this store needs.
 */
final class SystemFileLayer implements FileLayer {

    static final SystemFileLayer INSTANCE = new SystemFileLayer();

    private static final AutoCloseable NO_LOCK = () -> { };

    private final DurableFiles disk = DurableFiles.of(Path.of(""));

    private SystemFileLayer() {
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        disk.createDirectories(dir);
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
        disk.writeAt(file, position, data, force);
    }

    @Override
    public void truncate(Path file, long size) throws IOException {
        disk.truncate(file, size);
    }

    @Override
    public void writeAtomically(Path target, byte[] data) throws IOException {
        disk.replaceAtomically(target, data);
    }

    @Override
    public void createNew(Path target, byte[] data) throws IOException {
        disk.createAtomically(target, data);
    }

    @Override
    public AutoCloseable lock(Path lockFile) throws IOException {
        return disk.lockFile(lockFile, true).orElseThrow();
    }

    @Override
    public AutoCloseable readLock(Path lockFile) throws IOException {
        Optional<FileChannel> held = disk.lockFile(lockFile, false);
        return held.isPresent() ? held.get() : NO_LOCK;
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
        disk.forceDirectory(dir.getParent());
    }
}
