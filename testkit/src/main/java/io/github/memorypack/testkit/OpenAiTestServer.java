package io.github.memorypack.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.net.ServerSocketFactory;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;

/**
 * A local OpenAI-compatible chat-completions endpoint for end-to-end tests with the real LangChain4j
 * OpenAI clients ({@link #model()}, {@link #streamingModel()}).
 *
 * <ul>
 *   <li><b>Answers.</b> Each request gets the next queued {@link Reply} ({@link #enqueue},
 *       {@link #enqueueText}, {@link #enqueueToolCall}); when none is queued, the function set with
 *       {@link #answerWith} computes the reply from the {@link Request} (so concurrent or retried
 *       requests are answered from what they carry, not from their arrival order); with neither,
 *       the request fails with HTTP 500 and a message naming it.</li>
 *   <li><b>Streaming.</b> A request with {@code "stream": true} (what {@link OpenAiStreamingChatModel}
 *       sends) gets the same reply as server-sent events: text in a few chunks, tool calls with their
 *       arguments split in two, a finish reason, then a usage chunk and {@code [DONE]}.</li>
 *   <li><b>Usage.</b> Every reply reports its {@link Reply#promptTokens()} and
 *       {@link Reply#completionTokens()}: 10 and 5 unless {@link Reply#withUsage} says otherwise.</li>
 *   <li><b>Recording.</b> Every request is recorded, in arrival order, with its message history as
 *       readable lines ({@code "user: hi"}, {@code "assistant: tool_calls[call_1 stock {...}]"},
 *       {@code "tool call_1: 12"}) and the reply it got: {@link #requests()}, or one at a time with
 *       {@link #takeHistory()}.</li>
 * </ul>
 * Thread-safe: requests are answered concurrently, each on a server thread.
 *
 * <p>Needs {@code com.squareup.okhttp3:mockwebserver} and {@code dev.langchain4j:langchain4j-open-ai}
 * on the test classpath (optional dependencies of testkit).
 */
public final class OpenAiTestServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final MockWebServer server = new MockWebServer();
    private final ConcurrentLinkedDeque<Reply> queued = new ConcurrentLinkedDeque<>();
    private final List<Request> requests = new ArrayList<>();
    private final AtomicInteger responses = new AtomicInteger();
    private volatile Function<Request, Reply> answerer;

    /**
     * Starts the server on the loopback address and a free port.
     *
     * @throws IOException if the server cannot start
     */
    public OpenAiTestServer() throws IOException {
        // MockWebServer writes a response's headers and body separately: with Nagle's algorithm on,
        // the body waits for the client's delayed ACK, about 40 ms per request on Linux
        server.setServerSocketFactory(new NoDelayServerSocketFactory());
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest recorded) {
                return respond(recorded);
            }
        });
        // a literal loopback address: MockWebServer's host name lookup can take seconds in sandboxes
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    /**
     * The OpenAI-style base URL of this server, {@code http://127.0.0.1:<port>/v1}.
     *
     * @return the OpenAI-style base URL of this server, {@code http://127.0.0.1:<port>/v1}
     */
    public String baseUrl() {
        return "http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" + server.getPort() + "/v1";
    }

    /**
     * A real LangChain4j OpenAI client pointed at this server (no retries).
     *
     * @return a real LangChain4j OpenAI client pointed at this server (no retries)
     */
    public OpenAiChatModel model() {
        return OpenAiChatModel.builder().baseUrl(baseUrl()).apiKey("test-key").modelName("gpt-4o-mini").maxRetries(0)
                .build();
    }

    /**
     * A real LangChain4j streaming OpenAI client pointed at this server. Its callbacks run on the HTTP
     * client's threads, not on the thread that started the request.
     *
     * @return a real LangChain4j streaming OpenAI client pointed at this server
     */
    public OpenAiStreamingChatModel streamingModel() {
        return OpenAiStreamingChatModel.builder().baseUrl(baseUrl()).apiKey("test-key").modelName("gpt-4o-mini")
                .build();
    }

    /**
     * Queues an assistant answer with this text.
     *
     * @param text the text
     */
    public void enqueueText(String text) {
        enqueue(Reply.text(text));
    }

    /**
     * Queues an assistant answer that calls one tool with these JSON arguments.
     *
     * @param id        the tool call's id
     * @param name      the tool's name
     * @param arguments the arguments, as JSON
     */
    public void enqueueToolCall(String id, String name, String arguments) {
        enqueue(Reply.toolCalls(ToolExecutionRequest.builder().id(id).name(name).arguments(arguments).build()));
    }

    /**
     * Queues a reply; queued replies are used first, in order, one per request.
     *
     * @param reply the reply
     */
    public void enqueue(Reply reply) {
        queued.addLast(Objects.requireNonNull(reply, "reply"));
    }

    /**
     * Answers every request that finds no queued reply with {@code answerer}, called on a server
     * thread (concurrently for concurrent requests). An exception it throws becomes an HTTP 500.
     *
     * @param answerer gives the reply to each request
     */
    public void answerWith(Function<Request, Reply> answerer) {
        this.answerer = Objects.requireNonNull(answerer, "answerer");
    }

    /**
     * The message history the next recorded request carried, one readable line per message. Waits
     * up to 10 seconds for a request.
     *
     * @return the history, one line per message, oldest first
     * @throws AssertionError       if no request arrives within 10 seconds
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws Exception            if the request's body is not valid JSON
     */
    public List<String> takeHistory() throws Exception {
        RecordedRequest request = server.takeRequest(10, TimeUnit.SECONDS);
        if (request == null) {
            throw new AssertionError("no request reached the server");
        }
        return history(JSON.readTree(request.getBody().readUtf8()));
    }

    /**
     * Requests received so far.
     *
     * @return the number of requests received so far
     */
    public int requestCount() {
        return server.getRequestCount();
    }

    /**
     * Every request received so far, in arrival order (a copy).
     *
     * @return every request received so far, in arrival order (a copy)
     */
    public List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    private MockResponse respond(RecordedRequest recorded) {
        Request request;
        try {
            // a copy of the body: takeHistory() reads the recorded one later
            JsonNode body = JSON.readTree(recorded.getBody().clone().readUtf8());
            synchronized (requests) {
                request = new Request(requests.size() + 1, history(body), body.path("stream").asBoolean(false));
                requests.add(request);
            }
        } catch (IOException | RuntimeException e) {
            return error("unreadable request: " + e);
        }
        Reply reply = queued.pollFirst();
        Function<Request, Reply> computed = answerer;
        if (reply == null && computed != null) {
            try {
                reply = computed.apply(request);
            } catch (RuntimeException e) {
                return error("the answerer failed on request #" + request.number() + ": " + e);
            }
        }
        if (reply == null) {
            return error("no reply for request #" + request.number() + " (nothing queued, no answerer); its last message: "
                    + (request.history().isEmpty() ? "(none)" : request.lastLine()));
        }
        request.reply = reply;
        String id = "chatcmpl-" + responses.incrementAndGet();
        if (request.streaming()) {
            return new MockResponse().setHeader("Content-Type", "text/event-stream").setBody(events(id, reply));
        }
        return new MockResponse().setHeader("Content-Type", "application/json").setBody(completion(id, reply));
    }

    private static MockResponse error(String message) {
        ObjectNode body = JSON.createObjectNode();
        body.putObject("error").put("message", message).put("type", "server_error");
        return new MockResponse().setResponseCode(500).setHeader("Content-Type", "application/json")
                .setBody(body.toString());
    }

    private static String completion(String id, Reply reply) {
        ObjectNode message = JSON.createObjectNode().put("role", "assistant");
        if (reply.text == null) {
            message.putNull("content");
        } else {
            message.put("content", reply.text);
        }
        if (!reply.toolCalls.isEmpty()) {
            ArrayNode calls = message.putArray("tool_calls");
            for (ToolExecutionRequest call : reply.toolCalls) {
                ObjectNode node = calls.addObject().put("id", call.id()).put("type", "function");
                node.putObject("function").put("name", call.name()).put("arguments", call.arguments());
            }
        }
        ObjectNode body = header(id, "chat.completion");
        body.putArray("choices").addObject().put("index", 0).put("finish_reason", reply.finishReason())
                .set("message", message);
        usage(body, reply);
        return body.toString();
    }

    private static String events(String id, Reply reply) {
        List<ObjectNode> chunks = new ArrayList<>();
        if (reply.text != null) {
            String text = reply.text;
            int third = Math.max(1, text.length() / 3);
            for (int from = 0; from < text.length(); from += third) {
                ObjectNode delta = JSON.createObjectNode();
                if (from == 0) {
                    delta.put("role", "assistant");
                }
                delta.put("content", text.substring(from, Math.min(text.length(), from + third)));
                chunks.add(delta);
            }
        }
        for (int i = 0; i < reply.toolCalls.size(); i++) {
            ToolExecutionRequest call = reply.toolCalls.get(i);
            String arguments = call.arguments();
            int half = arguments.length() / 2;
            ObjectNode first = JSON.createObjectNode();
            ObjectNode firstCall = first.putArray("tool_calls").addObject().put("index", i).put("id", call.id())
                    .put("type", "function");
            firstCall.putObject("function").put("name", call.name()).put("arguments", arguments.substring(0, half));
            chunks.add(first);
            ObjectNode second = JSON.createObjectNode();
            second.putArray("tool_calls").addObject().put("index", i).putObject("function")
                    .put("arguments", arguments.substring(half));
            chunks.add(second);
        }
        StringBuilder events = new StringBuilder();
        for (ObjectNode delta : chunks) {
            ObjectNode chunk = header(id, "chat.completion.chunk");
            chunk.putArray("choices").addObject().put("index", 0).putNull("finish_reason").set("delta", delta);
            events.append("data: ").append(chunk).append("\n\n");
        }
        ObjectNode finish = header(id, "chat.completion.chunk");
        finish.putArray("choices").addObject().put("index", 0).put("finish_reason", reply.finishReason())
                .putObject("delta");
        events.append("data: ").append(finish).append("\n\n");
        ObjectNode usage = header(id, "chat.completion.chunk");
        usage.putArray("choices");
        usage(usage, reply);
        events.append("data: ").append(usage).append("\n\n");
        events.append("data: [DONE]\n\n");
        return events.toString();
    }

    private static ObjectNode header(String id, String object) {
        return JSON.createObjectNode().put("id", id).put("object", object).put("created", 1_700_000_000L)
                .put("model", "gpt-4o-mini");
    }

    private static void usage(ObjectNode body, Reply reply) {
        body.putObject("usage").put("prompt_tokens", reply.promptTokens)
                .put("completion_tokens", reply.completionTokens)
                .put("total_tokens", reply.promptTokens + reply.completionTokens);
    }

    private static List<String> history(JsonNode body) {
        List<String> lines = new ArrayList<>();
        for (JsonNode message : body.path("messages")) {
            lines.add(line(message));
        }
        return lines;
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

    /** Server sockets whose accepted connections send small writes at once (TCP_NODELAY). */
    private static final class NoDelayServerSocketFactory extends ServerSocketFactory {

        @Override
        public ServerSocket createServerSocket() throws IOException {
            return new ServerSocket() {
                @Override
                public Socket accept() throws IOException {
                    Socket socket = super.accept();
                    socket.setTcpNoDelay(true);
                    return socket;
                }
            };
        }

        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            throw new UnsupportedOperationException("MockWebServer binds the unbound socket itself");
        }

        @Override
        public ServerSocket createServerSocket(int port, int backlog) throws IOException {
            throw new UnsupportedOperationException("MockWebServer binds the unbound socket itself");
        }

        @Override
        public ServerSocket createServerSocket(int port, int backlog, InetAddress address) throws IOException {
            throw new UnsupportedOperationException("MockWebServer binds the unbound socket itself");
        }
    }

    /** One request as the server received it. */
    public static final class Request {

        private final int number;
        private final List<String> history;
        private final boolean streaming;
        private volatile Reply reply;

        private Request(int number, List<String> history, boolean streaming) {
            this.number = number;
            this.history = List.copyOf(history);
            this.streaming = streaming;
        }

        /**
         * 1 for the first request this server received, then 2, 3, … in arrival order.
         *
         * @return the request's number, from 1
         */
        public int number() {
            return number;
        }

        /**
         * The messages the request carried, one readable line each (see {@link OpenAiTestServer}).
         *
         * @return the messages the request carried, one readable line each (see {@link OpenAiTestServer})
         */
        public List<String> history() {
            return history;
        }

        /**
         * The last line of {@link #history()}.
         *
         * @return the last line
         * @throws IllegalStateException if the request carried no message
         */
        public String lastLine() {
            if (history.isEmpty()) {
                throw new IllegalStateException("request #" + number + " carried no message");
            }
            return history.get(history.size() - 1);
        }

        /**
         * True if the client asked for server-sent events ({@code "stream": true}).
         *
         * @return true if the client asked for server-sent events ({@code "stream": true})
         */
        public boolean streaming() {
            return streaming;
        }

        /**
         * The reply the server sent, or {@code null} while it is being computed or when it answered with an
         * error.
         *
         * @return the reply the server sent, or {@code null} while it is being computed or when it answered
         *             with an error
         */
        public Reply reply() {
            return reply;
        }

        @Override
        public String toString() {
            return "Request#" + number + (streaming ? " (streaming)" : "") + history;
        }
    }

    /** An assistant answer: text, or tool calls, with the usage to report. Immutable. */
    public static final class Reply {

        private final String text;
        private final List<ToolExecutionRequest> toolCalls;
        private final int promptTokens;
        private final int completionTokens;
        private final String finishReason;

        private Reply(String text, List<ToolExecutionRequest> toolCalls, int promptTokens, int completionTokens) {
            this(text, toolCalls, promptTokens, completionTokens, null);
        }

        private Reply(String text, List<ToolExecutionRequest> toolCalls, int promptTokens, int completionTokens,
                      String finishReason) {
            this.text = text;
            this.toolCalls = toolCalls;
            this.promptTokens = promptTokens;
            this.completionTokens = completionTokens;
            this.finishReason = finishReason;
        }

        /**
         * An answer with this text (finish reason {@code stop}).
         *
         * @param text the text
         * @return an answer with this text (finish reason {@code stop})
         */
        public static Reply text(String text) {
            return new Reply(Objects.requireNonNull(text, "text"), List.of(), 10, 5);
        }

        /**
         * An answer that calls these tools (finish reason {@code tool_calls}); each request needs an
         * id, a name and JSON arguments.
         *
         * @param calls the tool calls, in order
         * @return an answer that calls these tools (finish reason {@code tool_calls}); each request needs an
         *            id, a name and JSON arguments
         * @throws IllegalArgumentException if there is no call or a call lacks its id, name or arguments
         */
        public static Reply toolCalls(ToolExecutionRequest... calls) {
            if (calls.length == 0) {
                throw new IllegalArgumentException("at least one tool call is needed");
            }
            for (ToolExecutionRequest call : calls) {
                if (call.id() == null || call.name() == null || call.arguments() == null) {
                    throw new IllegalArgumentException("a tool call needs an id, a name and arguments: " + call);
                }
            }
            return new Reply(null, List.of(calls), 10, 5);
        }

        /**
         * This reply reporting this usage instead of 10 prompt and 5 completion tokens.
         *
         * @param promptTokens     the prompt tokens to report
         * @param completionTokens the completion tokens to report
         * @return this reply reporting this usage instead of 10 prompt and 5 completion tokens
         * @throws IllegalArgumentException if a count is negative
         */
        public Reply withUsage(int promptTokens, int completionTokens) {
            if (promptTokens < 0 || completionTokens < 0) {
                throw new IllegalArgumentException("token counts must be >= 0");
            }
            return new Reply(text, toolCalls, promptTokens, completionTokens, finishReason);
        }

        /**
         * This reply with another OpenAI finish reason: {@code "length"} (cut off at the output limit),
         * {@code "content_filter"} (stopped by the provider's filter), or any other value the protocol
         * allows. By default {@code "stop"} for text and {@code "tool_calls"} for tool calls.
         *
         * @param finishReason the finish reason to send
         * @return this reply with that finish reason
         * @throws IllegalArgumentException if {@code finishReason} is null or blank
         */
        public Reply withFinishReason(String finishReason) {
            if (finishReason == null || finishReason.isBlank()) {
                throw new IllegalArgumentException("finishReason must not be blank");
            }
            return new Reply(text, toolCalls, promptTokens, completionTokens, finishReason);
        }

        /**
         * The text, or {@code null} for a tool-call answer.
         *
         * @return the text, or {@code null} for a tool-call answer
         */
        public String text() {
            return text;
        }

        /**
         * The tool calls; empty for a text answer.
         *
         * @return the tool calls; empty for a text answer
         */
        public List<ToolExecutionRequest> toolCalls() {
            return toolCalls;
        }

        /**
         * Prompt tokens this reply reports.
         *
         * @return the prompt tokens reported
         */
        public int promptTokens() {
            return promptTokens;
        }

        /**
         * Completion tokens this reply reports.
         *
         * @return the completion tokens reported
         */
        public int completionTokens() {
            return completionTokens;
        }

        private String finishReason() {
            return finishReason != null ? finishReason : toolCalls.isEmpty() ? "stop" : "tool_calls";
        }

        @Override
        public String toString() {
            return toolCalls.isEmpty() ? "Reply{text=" + text + '}' : "Reply{toolCalls=" + toolCalls + '}';
        }
    }
}
