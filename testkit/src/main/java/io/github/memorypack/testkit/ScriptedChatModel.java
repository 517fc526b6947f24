package io.github.memorypack.testkit;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link ChatModel} test double that answers from a script, so memories, summarizers and
 * {@code AiServices} can be tested offline and deterministically.
 *
 * <ul>
 *   <li>Replies are used in order, one per request: plain text, tool calls (finish reason
 *       {@link FinishReason#TOOL_EXECUTION}), any {@link AiMessage}, with optional
 *       {@link TokenUsage}, or a reply computed from the request. A request after the last reply
 *       fails with an {@link IllegalStateException} that says which request ran out and what it
 *       asked.</li>
 *   <li>{@link #answering(Function)} instead computes every reply from its request and never runs
 *       out.</li>
 *   <li>Every {@link ChatRequest} the model receives is recorded (as LangChain4j hands it over, after
 *       default parameters are applied), in order, for assertions on what a memory sent.</li>
 * </ul>
 * Thread-safe: concurrent requests take replies one at a time.
 *
 * <pre>{@code
 * ScriptedChatModel model = ScriptedChatModel.builder()
 *         .replyWithToolCall("weather", "{\"city\":\"Paris\"}")
 *         .reply("Sunny in Paris.", new TokenUsage(120, 8))
 *         .build();
 * }</pre>
 */
public final class ScriptedChatModel implements ChatModel {

    private final List<Function<ChatRequest, ChatResponse>> script;
    private final boolean repeatLast;
    private final List<ChatRequest> requests = new ArrayList<>();

    private ScriptedChatModel(List<Function<ChatRequest, ChatResponse>> script, boolean repeatLast) {
        this.script = List.copyOf(script);
        this.repeatLast = repeatLast;
    }

    /** A model that answers with these texts, in order, one per request. */
    public static ScriptedChatModel replying(String... texts) {
        Builder builder = builder();
        Arrays.stream(texts).forEach(builder::reply);
        return builder.build();
    }

    /** A model that computes every reply from its request; it never runs out. */
    public static ScriptedChatModel answering(Function<ChatRequest, ChatResponse> answer) {
        Objects.requireNonNull(answer, "answer");
        return new ScriptedChatModel(List.of(answer), true);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public synchronized ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        int n = requests.size();
        if (n > script.size() && !repeatLast) {
            List<ChatMessage> messages = request.messages();
            throw new IllegalStateException("ScriptedChatModel has no reply for request #" + n + ": the script has "
                    + script.size() + " replies. The request's last message was: "
                    + (messages.isEmpty() ? "(none)" : messages.get(messages.size() - 1)));
        }
        ChatResponse response = script.get(Math.min(n, script.size()) - 1).apply(request);
        if (response == null) {
            throw new IllegalStateException("ScriptedChatModel reply #" + n + " computed no response");
        }
        return response;
    }

    /** Every request received so far, oldest first (a copy). */
    public synchronized List<ChatRequest> requests() {
        return List.copyOf(requests);
    }

    /** The {@code i}-th request received (0-based). */
    public synchronized ChatRequest request(int i) {
        return requests.get(i);
    }

    /** The latest request. @throws IllegalStateException if there was none */
    public synchronized ChatRequest lastRequest() {
        if (requests.isEmpty()) {
            throw new IllegalStateException("ScriptedChatModel has received no request");
        }
        return requests.get(requests.size() - 1);
    }

    /** Scripted replies not used yet ({@link Integer#MAX_VALUE} for {@link #answering}). */
    public synchronized int remainingReplies() {
        return repeatLast ? Integer.MAX_VALUE : script.size() - requests.size();
    }

    /** Builds a script of replies, used in the order they are added. */
    public static final class Builder {

        private final List<Function<ChatRequest, ChatResponse>> script = new ArrayList<>();
        private int toolCalls;

        private Builder() {
        }

        /** Answers with {@code text}. */
        public Builder reply(String text) {
            return reply(AiMessage.from(Objects.requireNonNull(text, "text")), null);
        }

        /** Answers with {@code text} and reports {@code usage}. */
        public Builder reply(String text, TokenUsage usage) {
            return reply(AiMessage.from(Objects.requireNonNull(text, "text")), usage);
        }

        /**
         * Answers with {@code message} (for example with thinking or attributes) and reports
         * {@code usage} ({@code null}: none). The finish reason is {@link FinishReason#TOOL_EXECUTION}
         * when it requests tools, otherwise {@link FinishReason#STOP}.
         */
        public Builder reply(AiMessage message, TokenUsage usage) {
            ChatResponse response = ChatResponse.builder()
                    .aiMessage(Objects.requireNonNull(message, "message"))
                    .tokenUsage(usage)
                    .finishReason(message.hasToolExecutionRequests() ? FinishReason.TOOL_EXECUTION : FinishReason.STOP)
                    .modelName("scripted")
                    .build();
            return reply(response);
        }

        /** Answers with exactly this response. */
        public Builder reply(ChatResponse response) {
            Objects.requireNonNull(response, "response");
            script.add(request -> response);
            return this;
        }

        /** Answers with whatever {@code answer} computes from the request (used for one request). */
        public Builder replyWith(Function<ChatRequest, ChatResponse> answer) {
            script.add(Objects.requireNonNull(answer, "answer"));
            return this;
        }

        /** Requests one tool call; its id is {@code call_1}, {@code call_2}, … in script order. */
        public Builder replyWithToolCall(String toolName, String argumentsJson) {
            return replyWithToolCalls(ToolExecutionRequest.builder()
                    .id("call_" + (toolCalls + 1)).name(toolName).arguments(argumentsJson).build());
        }

        /** Requests these tool calls in one message. */
        public Builder replyWithToolCalls(ToolExecutionRequest... requests) {
            if (requests.length == 0) {
                throw new IllegalArgumentException("at least one tool execution request is needed");
            }
            toolCalls += requests.length;
            return reply(AiMessage.from(requests), null);
        }

        /** @throws IllegalStateException if no reply was scripted */
        public ScriptedChatModel build() {
            if (script.isEmpty()) {
                throw new IllegalStateException("script at least one reply, or use ScriptedChatModel.answering(...)");
            }
            return new ScriptedChatModel(script, false);
        }
    }
}
