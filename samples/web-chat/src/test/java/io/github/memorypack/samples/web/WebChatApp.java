package io.github.memorypack.samples.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;

/** The web chat started for a test: offline, loopback only, an ephemeral port, a fresh session folder. */
final class WebChatApp implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ConfigurableApplicationContext context;
    private final HttpClient http = HttpClient.newHttpClient();

    private final Path directory;

    /** On a new session folder. */
    WebChatApp() {
        this(newFolder());
    }

    /** On {@code directory}'s sessions: another run of the app on the same folder is the app restarted. */
    WebChatApp(Path directory) {
        this.directory = directory;
        context = WebChat.start(Map.of("server.port", "0", "server.address", "127.0.0.1",
                "webchat.offline", "true", "memory-pack.store.file.directory", directory.toString()));
    }

    private static Path newFolder() {
        try {
            return Files.createTempDirectory("web-chat-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The folder the sessions are kept in. */
    Path directory() {
        return directory;
    }

    /** {@code http://127.0.0.1:<port>} */
    String baseUrl() {
        return "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
    }

    JsonNode get(String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body());
    }

    HttpResponse<String> post(String path, Object body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(baseUrl() + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    JsonNode chat(String session, String strategy, String message) throws Exception {
        return JSON.readTree(post("/api/chat", Map.of("session", session, "strategy", strategy, "message", message))
                .body());
    }

    @Override
    public void close() {
        context.close();
    }
}
