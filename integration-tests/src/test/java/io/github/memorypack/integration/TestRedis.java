package io.github.memorypack.integration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import redis.embedded.RedisServer;

/**
 * The one Redis server of this test JVM: {@code REDIS_URL} when set, otherwise the
 * {@code redis-server} packaged in {@code com.github.codemonstur:embedded-redis}, started on first use
 * on a free loopback port without persistence and stopped when the JVM exits. Tests isolate
 * themselves with a fresh key prefix per store, never by flushing.
 */
final class TestRedis {

    private static String uri;

    private TestRedis() {
    }

    static synchronized String uri() {
        if (uri == null) {
            String env = System.getenv("REDIS_URL");
            uri = env != null && !env.isBlank() ? env : start();
        }
        return uri;
    }

    private static String start() {
        try {
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            Path dir = Files.createTempDirectory("integration-redis");
            RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
                    .setting("save \"\"").setting("appendonly no").setting("dir " + dir)
                    .onShutdownForceStop(true).build();
            server.start(); // returns once the server logs that it accepts connections
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (IOException e) {
                    // the JVM is exiting: the forced stop above is best effort
                }
            }));
            return "redis://127.0.0.1:" + port;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the packaged redis-server (or set REDIS_URL)", e);
        }
    }
}
