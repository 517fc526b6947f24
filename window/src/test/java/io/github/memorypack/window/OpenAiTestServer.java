package io.github.memorypack.window;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;

/**
 * A local OpenAI-compatible chat-completions endpoint for end-to-end tests: it answers with queued
 * responses and records each request's message history as readable lines
 * ({@code "user: hi"}, {@code "assistant: tool_calls[call_1 stock {...}]"}, {@code "tool call_1: 12"}).
 */
final class OpenAiTestServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MockWebServer server = new MockWebServer();
    private int responses;

    OpenAiTestServer() throws IOException {
        // a literal loopback address: MockWebServer's host name lookup can take seconds in sandboxes
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    /** A real LangChain4j OpenAI client pointed at this server. */
    OpenAiChatModel model() {
        return OpenAiChatModel.builder()
                .baseUrl("http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + server.getPort() + "/v1").apiKey("test-key")
                .modelName("gpt-4o-mini").maxRetries(0).build();
    }

    void enqueueText(String text) {
        ObjectNode message = JSON.createObjectNode().put("role", "assistant").put("content", text);
        enqueue(message, "stop");
    }

    void enqueueToolCall(String id, String name, String arguments) {
        ObjectNode message = JSON.createObjectNode().put("role", "assistant");
        message.putNull("content");
        ObjectNode call = message.putArray("tool_calls").addObject().put("id", id).put("type", "function");
        call.putObject("function").put("name", name).put("arguments", arguments);
        enqueue(message, "tool_calls");
    }

    private void enqueue(ObjectNode message, String finishReason) {
        ObjectNode body = JSON.createObjectNode().put("id", "chatcmpl-" + (++responses))
                .put("object", "chat.completion").put("created", 1_700_000_000L).put("model", "gpt-4o-mini");
        body.putArray("choices").addObject().put("index", 0).put("finish_reason", finishReason).set("message", message);
        body.putObject("usage").put("prompt_tokens", 10).put("completion_tokens", 5).put("total_tokens", 15);
        server.enqueue(new MockResponse().setHeader("Content-Type", "application/json").setBody(body.toString()));
    }

    /** The message history the next recorded request carried, one readable line per message. */
    List<String> takeHistory() throws Exception {
        RecordedRequest request = server.takeRequest(10, TimeUnit.SECONDS);
        if (request == null) {
            throw new AssertionError("no request reached the server");
        }
        JsonNode body = JSON.readTree(request.getBody().readUtf8());
        List<String> lines = new ArrayList<>();
        for (JsonNode message : body.get("messages")) {
            lines.add(line(message));
        }
        return lines;
    }

    int requestCount() {
        return server.getRequestCount();
    }

    private static String line(JsonNode message) {
        String role = message.get("role").asText();
        if (role.equals("tool")) {
            return "tool " + message.get("tool_call_id").asText() + ": " + text(message.get("content"));
        }
        if (message.has("tool_calls")) {
            StringBuilder calls = new StringBuilder();
            for (JsonNode call : (ArrayNode) message.get("tool_calls")) {
                calls.append(calls.length() == 0 ? "" : ", ").append(call.get("id").asText()).append(' ')
                        .append(call.get("function").get("name").asText()).append(' ')
                        .append(call.get("function").get("arguments").asText());
            }
            return role + ": tool_calls[" + calls + "]";
        }
        return role + ": " + text(message.get("content"));
    }

    private static String text(JsonNode content) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode part : content) {
                text.append(part.path("text").asText());
            }
            return text.toString();
        }
        return content.asText();
    }

    @Override
    public void close() throws IOException {
        server.shutdown();
    }
}
