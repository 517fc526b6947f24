package io.github.memorypack.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.embedded.core.ExecutableProvider;

/**
 * A real {@code redis-server} started by the tests on a free loopback port: the binary packaged in
 * {@code com.github.codemonstur:embedded-redis} for this OS/architecture, or else {@code redis-server}
 * from the PATH. Can be frozen (SIGSTOP) and resumed, killed with SIGKILL, and restarted on the same
 * port and data directory.
 */
final class RedisProcess implements AutoCloseable {

    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final File binary;
    private final Path dir;
    private final int port;
    private final List<String> options;
    private Process process;
    private volatile boolean paused;

    private RedisProcess(File binary, Path dir, int port, List<String> options) {
        this.binary = binary;
        this.dir = dir;
        this.port = port;
        this.options = List.copyOf(options);
    }

    /** Starts a server with extra config options such as {@code "--appendonly", "yes"}. */
    static RedisProcess start(String... options) {
        return start(false, options);
    }

    /**
     * Starts a server; a cluster node also needs its bus port (port + 10000 in Redis 6) free, so
     * its port is probed below 55536 together with that one. A port taken by someone else between
     * the probe and the start is retried with another.
     */
    static RedisProcess start(boolean clusterBus, String... options) {
        IllegalStateException failure = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            RedisProcess server;
            try {
                server = new RedisProcess(binary(), Files.createTempDirectory("redis-test"),
                        clusterBus ? freePortWithBus() : freePort(), List.of(options));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                server.startProcess();
                return server;
            } catch (IllegalStateException e) {
                server.close();
                failure = e;
            }
        }
        throw failure;
    }

    private static File extracted;

    /** The server binary, extracted once per JVM (embedded-redis writes a fresh copy on every call). */
    static synchronized File binary() {
        if (extracted == null) {
            extracted = findBinary();
        }
        return extracted;
    }

    private static File findBinary() {
        try {
            File file = ExecutableProvider.newJarResourceProvider().get();
            if (file.setExecutable(true) && file.canExecute()) {
                return file;
            }
        } catch (IOException | RuntimeException e) {
            // no packaged binary for this platform: fall through to the PATH
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File candidate = new File(dir, "redis-server");
            if (candidate.canExecute()) {
                return candidate;
            }
        }
        throw new IllegalStateException("no redis-server: embedded-redis has no binary for this platform and "
                + "none is on the PATH (install Debian's redis-server, or set REDIS_URL)");
    }

    int port() {
        return port;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The server's process id, for signals. */
    long pid() {
        return process.pid();
    }

    /** True while the process runs (also while it is stopped by {@link #pause()}). */
    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** SIGSTOP: the server freezes; clients' connections stay open and their commands queue up unanswered. */
    void pause() {
        signal("-STOP");
        paused = true;
    }

    /** SIGCONT after {@link #pause()}: the server runs every command that queued up meanwhile. */
    void resume() {
        signal("-CONT");
        paused = false;
    }

    /** Alive and not paused: it answers. */
    boolean isRunning() {
        return isAlive() && !paused;
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "redis-server on port " + port;
    }

    /** SIGKILL: no shutdown save, no goodbye to clients. */
    void kill() {
        process.destroyForcibly();
        waitForExit();
    }

    /** Starts the server again on the same port and data directory. */
    void restart() {
        startProcess();
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            resume(); // a stopped process dies of SIGKILL too, but say so in case of doubt
            process.destroyForcibly();
            waitForExit();
        }
    }

    private void startProcess() {
        List<String> command = new ArrayList<>(List.of(binary.getAbsolutePath(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(),
                "--save", "", "--daemonize", "no", "--protected-mode", "no", "--loglevel", "warning",
                "--logfile", dir.resolve("redis.log").toString()));
        command.addAll(options);
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        while (true) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                jedis.ping();
                return;
            } catch (JedisDataException e) {
                // up, but NOAUTH (requirepass) is an answer too; LOADING (AOF replay) is not ready yet
                if (e.getMessage() == null || !e.getMessage().startsWith("LOADING")) {
                    return;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            } catch (JedisException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("redis-server did not start: " + command + " log in " + dir, e);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
    }

    private void waitForExit() {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static int freePortWithBus() {
        for (int i = 0; i < 100; i++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 55_536);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress());
                 ServerSocket bus = new ServerSocket(port + 10_000, 1, InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IllegalStateException("no free port pair (port, port + 10000) found");
    }
}
