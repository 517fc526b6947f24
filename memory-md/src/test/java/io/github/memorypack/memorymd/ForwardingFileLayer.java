package io.github.memorypack.memorymd;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** Every operation to {@code real}; tests override those they change. */
class ForwardingFileLayer implements FileLayer {
    protected final FileLayer real;

    ForwardingFileLayer(FileLayer real) {
        this.real = real;
    }

    @Override
    public void createDirectories(Path d) throws IOException {
        real.createDirectories(d);
    }

    @Override
    public boolean exists(Path path) {
        return real.exists(path);
    }

    @Override
    public FileStamp stamp(Path file) throws IOException {
        return real.stamp(file);
    }

    @Override
    public byte[] read(Path file) throws IOException {
        return real.read(file);
    }

    @Override
    public void writeAt(Path file, long position, byte[] data, boolean force) throws IOException {
        real.writeAt(file, position, data, force);
    }

    @Override
    public void truncate(Path file, long size) throws IOException {
        real.truncate(file, size);
    }

    @Override
    public void writeAtomically(Path target, byte[] data) throws IOException {
        real.writeAtomically(target, data);
    }

    @Override
    public void createNew(Path target, byte[] data) throws IOException {
        real.createNew(target, data);
    }

    @Override
    public AutoCloseable lock(Path lockFile) throws IOException {
        return real.lock(lockFile);
    }

    @Override
    public AutoCloseable readLock(Path lockFile) throws IOException {
        return real.readLock(lockFile);
    }

    @Override
    public List<String> list(Path d) throws IOException {
        return real.list(d);
    }

    @Override
    public void deleteTree(Path d) throws IOException {
        real.deleteTree(d);
    }
}
