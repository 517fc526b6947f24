package io.github.memorypack.benchmarks.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.embedded.core.ExecutableProvider;

/**
 * The Redis server a benchmark fork talks to: {@code REDIS_URL} when set (use a server nobody else
 * is using, or the byte counts include their traffic), otherwise the {@code redis-server} binary
 * packaged in {@code com.github.codemonstur:embedded-redis} (or, failing that, the one on the PATH),
 * started on a free loopback port without persistence and stopped when the fork ends.
 */
public final class BenchmarkRedis implements AutoCloseable {

    private final String uri;
    private final Process process;

    private BenchmarkRedis(String uri, Process process) {
        this.uri = uri;
        this.process = process;
    }

    public static BenchmarkRedis start() {
        String env = System.getenv("REDIS_URL");
        if (env != null && !env.isBlank()) {
            return new BenchmarkRedis(env, null);
        }
        try {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Path dir = Files.createTempDirectory("redis-bench");
            Process process = new ProcessBuilder(binary(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--dir", dir.toString(), "--save", "", "--appendonly", "no", "--loglevel", "warning")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                    jedis.ping();
                    return new BenchmarkRedis("redis://127.0.0.1:" + port, process);
                } catch (JedisException e) {
                    if (!process.isAlive() || System.nanoTime() > deadline) {
                        throw new IllegalStateException("redis-server did not start; log in " + dir, e);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String uri() {
        return uri;
    }

    @Override
    public void close() {
        if (process != null) {
            process.destroy();
        }
    }

    private static String binary() {
        try {
            File file = ExecutableProvider.newJarResourceProvider().get();
            if (file.setExecutable(true)) {
                return file.getAbsolutePath();
            }
        } catch (IOException | RuntimeException e) {
            // no packaged binary for this platform
        }
        return "redis-server";
    }
}
