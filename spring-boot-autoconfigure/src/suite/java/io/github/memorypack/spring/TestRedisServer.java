package io.github.memorypack.spring;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.embedded.core.ExecutableProvider;

/**
 * A real {@code redis-server} on a free loopback port, from the binary packaged in
 * {@code com.github.codemonstur:embedded-redis} (as the redis module's tests start it), or
 * {@code redis-server} from the PATH.
 */
final class TestRedisServer implements AutoCloseable {

    private final Process process;
    private final int port;

    private TestRedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static TestRedisServer start() {
        try {
            File binary = binary();
            Path dir = Files.createTempDirectory("starter-redis");
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Process process = new ProcessBuilder(List.of(binary.getAbsolutePath(), "--port", Integer.toString(port),
                    "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", "", "--protected-mode", "no",
                    "--loglevel", "warning")).redirectErrorStream(true).redirectOutput(dir.resolve("out.log").toFile())
                    .start();
            TestRedisServer server = new TestRedisServer(process, port);
            server.awaitPing();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static File binary() throws IOException {
        try {
            File file = ExecutableProvider.newJarResourceProvider().get();
            if (file.setExecutable(true) && file.canExecute()) {
                return file;
            }
        } catch (IOException | RuntimeException e) {
            // no packaged binary for this platform: try the PATH
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(dir, "redis-server");
            if (candidate.canExecute()) {
                return candidate;
            }
        }
        throw new IllegalStateException("no redis-server binary for this platform and none on the PATH");
    }

    private void awaitPing() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.ping();
                return;
            } catch (JedisException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("redis-server did not start on port " + port, e);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
