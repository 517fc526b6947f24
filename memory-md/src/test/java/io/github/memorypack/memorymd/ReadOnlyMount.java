package io.github.memorypack.memorymd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A tmpfs of its own for one test, which the test can remount read-only: the real thing a read-only
 * folder is. Needs root and a system that lets it mount; otherwise the test is skipped (an
 * assumption) with the reason.
 */
final class ReadOnlyMount implements AutoCloseable {

    private final Path mountPoint;

    private ReadOnlyMount(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    static ReadOnlyMount tmpfs(Path mountPoint) throws IOException, InterruptedException {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "skipped: mounting a tmpfs to test a read-only folder needs root, running as "
                        + System.getProperty("user.name"));
        Files.createDirectories(mountPoint);
        String failure = run("mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", mountPoint.toString());
        Assumptions.assumeTrue(failure == null, () -> "skipped: mount is not permitted here (" + failure + ")");
        return new ReadOnlyMount(mountPoint);
    }

    void remountReadOnly() throws IOException, InterruptedException {
        String failure = run("mount", "-o", "remount,ro", mountPoint.toString());
        if (failure != null) {
            throw new IOException("could not remount " + mountPoint + " read-only: " + failure);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        String failure = run("umount", mountPoint.toString());
        if (failure != null) {
            throw new IOException("could not unmount " + mountPoint + ": " + failure);
        }
    }

    /** Runs a command; null on success, else what it said. */
    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return "timed out";
        }
        return process.exitValue() == 0 ? null : output + " (exit " + process.exitValue() + ")";
    }
}
