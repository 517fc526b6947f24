package io.github.memorypack.memorymd;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.BiPredicate;

/**
 * The real file layer, except that chosen operations on chosen files fail like a full disk would, or
 * (after {@link #readOnly()}) every write fails like it does on a read-only mount.
 */
final class FailingFileLayer extends ForwardingFileLayer {

    private static final java.util.Set<String> WRITES = java.util.Set.of("createDirectories", "writeAt", "truncate",
            "writeAtomically", "createNew", "lock", "deleteTree");

    FailingFileLayer() {
        super(FileLayer.system());
    }

    private volatile BiPredicate<String, Path> failWhen = (op, path) -> false;
    private volatile boolean readOnly;

    /** From now on, operation {@code op} ("writeAt", "writeAtomically", "createNew", ...) fails on matching files. */
    void fail(String op, String fileNameStart) {
        failWhen = (o, p) -> o.equals(op) && p.getFileName().toString().startsWith(fileNameStart);
    }

    void heal() {
        failWhen = (op, path) -> false;
    }

    /** From now on every write fails as on a read-only mount (opening the lock file for writing too). */
    FailingFileLayer readOnly() {
        readOnly = true;
        return this;
    }

    private void check(String op, Path path) throws IOException {
        if (readOnly && WRITES.contains(op) && !(op.equals("createDirectories") && real.exists(path))) {
            throw new java.nio.file.FileSystemException(path.toString(), null, "Read-only file system");
        }
        if (failWhen.test(op, path)) {
            throw new IOException("No space left on device (simulated " + op + " of " + path.getFileName() + ")");
        }
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
        check("createDirectories", dir);
        real.createDirectories(dir);
    }

    @Override
    public byte[] read(Path file) throws IOException {
        check("read", file);
        return real.read(file);
    }

    @Override
    public void writeAt(Path file, long position, byte[] data, boolean force) throws IOException {
        if (readOnly) {
            check("writeAt", file);
        }
        if (failWhen.test("writeAt", file)) {
            // a full disk takes part of the write, then fails
            real.writeAt(file, position, java.util.Arrays.copyOf(data, data.length / 2), false);
            check("writeAt", file);
        }
        real.writeAt(file, position, data, force);
    }

    @Override
    public void truncate(Path file, long size) throws IOException {
        check("truncate", file);
        real.truncate(file, size);
    }

    @Override
    public void writeAtomically(Path target, byte[] data) throws IOException {
        check("writeAtomically", target);
        real.writeAtomically(target, data);
    }

    @Override
    public void createNew(Path target, byte[] data) throws IOException {
        check("createNew", target);
        real.createNew(target, data);
    }

    @Override
    public AutoCloseable lock(Path lockFile) throws IOException {
        check("lock", lockFile);
        return real.lock(lockFile);
    }

    @Override
    public void deleteTree(Path dir) throws IOException {
        check("deleteTree", dir);
        real.deleteTree(dir);
    }
}
