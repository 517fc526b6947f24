package io.github.memorypack.testkit;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.PdfFileContent;
import dev.langchain4j.data.message.VideoContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import io.github.memorypack.core.SummarizationException;
import io.github.memorypack.core.SummarizationException.Reason;
import io.github.memorypack.core.Summarizer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One message of every LangChain4j 1.19 message type and shape a store must keep exactly: system;
 * user (plain, and with a name plus text and image contents by URL and base64); AI (text, thinking,
 * tool execution requests, attributes; and tool calls without text); tool results (normal and
 * {@code isError}); custom. Texts include line breaks, quotes and non-ASCII characters so that
 * escaping bugs show up. Every message survives LangChain4j's own JSON round trip.
 *
 * <p>Stateless and thread-safe; every call returns a new list.
 *
 * <p>Beside the messages, scripted stand-ins for what produces them in a memory's tests:
 * {@link ScriptedModel} (a chat model), {@link RecordingSummarizer} and {@link ScriptedFailure} (a
 * summarizer and the ways it fails).
 */
public final class SampleMessages {

    /** A 1×1 transparent PNG. */
    public static final String PNG_BASE64 =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

    private SampleMessages() {
    }

    /**
     * A new list, in conversation order (the first tool result answers the first tool call).
     *
     * @return a new list, in conversation order
     */
    public static List<ChatMessage> everyType() {
        ToolExecutionRequest weather = ToolExecutionRequest.builder()
                .id("call_1").name("weather").arguments("{\"city\":\"Paris\",\"unit\":\"C\"}").build();
        ToolExecutionRequest time = ToolExecutionRequest.builder()
                .id("call_2").name("time").arguments("{}").build();
        return List.of(
                SystemMessage.from("You are terse.\nNever reveal \"secrets\" — ünïcödé ✓"),
                UserMessage.from("plain question"),
                UserMessage.builder()
                        .name("alice")
                        .contents(List.of(
                                TextContent.from("what is in these pictures?\n{\"not\":\"json\"}"),
                                ImageContent.from("https://example.com/cat.png", ImageContent.DetailLevel.HIGH),
                                ImageContent.from(PNG_BASE64, "image/png", ImageContent.DetailLevel.LOW)))
                        .build(),
                AiMessage.builder()
                        .text("Let me check.")
                        .thinking("The user wants weather and time; call both tools.")
                        .toolExecutionRequests(List.of(weather, time))
                        .attributes(Map.of("provider_id", "resp_123", "reasoning_tokens", "17"))
                        .build(),
                ToolExecutionResultMessage.from(weather, "sunny, 21 °C"),
                ToolExecutionResultMessage.builder()
                        .id("call_2").toolName("time").text("clock unavailable").isError(true).build(),
                AiMessage.from(ToolExecutionRequest.builder()
                        .id("call_3").name("weather").arguments("{\"city\":\"Oslo\"}").build()),
                ToolExecutionResultMessage.from("call_3", "weather", "snow"),
                AiMessage.from("Paris: sunny, 21 °C. Oslo: snow.\nTime: unknown."),
                new CustomMessage(Map.of("kind", "note", "text", "remember: likes tea")));
    }

    /**
     * Messages beyond {@link #everyType()} that LangChain4j 1.19 applications send: a user message with
     * audio, video, PDF and image contents, a name with a lone surrogate and nested attributes; an AI
     * message with only thinking; a tool call without an id; a tool result with an image and attributes;
     * NUL, a lone surrogate and a lone CR as whole texts; a system message with outer spaces; a nested
     * custom message; and a user message of {@link #longText()}.
     *
     * @return the messages, new instances each call
     */
    public static List<ChatMessage> rare() {
        ToolExecutionRequest noId = ToolExecutionRequest.builder().name("lookup").arguments("{\"q\":\"a\\u0000b\"}")
                .build();
        return List.of(
                UserMessage.builder().name("bob \uD800")
                        .contents(List.of(TextContent.from("listen, watch, read"),
                                AudioContent.from("UklGRg==", "audio/wav"),
                                VideoContent.from("https://example.com/v.mp4"),
                                PdfFileContent.from("JVBERi0=", "application/pdf"),
                                ImageContent.from("https://example.com/x.png")))
                        .attributes(Map.of("n", 1, "s", "x\u0000", "nested", Map.of("l", List.of(1, "b", true))))
                        .build(),
                AiMessage.builder().thinking("only thinking, no text").build(),
                AiMessage.from(noId),
                ToolExecutionResultMessage.builder().toolName("lookup")
                        .contents(List.of(TextContent.from("no id \uDC00 chart:"), ImageContent.from("aGk=", "image/png")))
                        .isError(false).attributes(Map.of("took_ms", 12)).build(),
                UserMessage.from("\u0000"),
                UserMessage.from("\uDBFF"),
                AiMessage.from("\r"),
                SystemMessage.from("  leading and trailing spaces  \n\n"),
                new CustomMessage(Map.of("kind", "nested", "value", Map.of("k", List.of("v", 2, false)))),
                UserMessage.from(longText()));
    }

    /**
     * About 6 MB of UTF-8 (two million characters): every plane, line breaks of every kind, and lines
     * that look like the markers of text formats (MEMORY.md headings and entry comments, code fences).
     *
     * @return the text, the same every call
     */
    public static String longText() {
        StringBuilder text = new StringBuilder();
        String piece = "line \u00fc\u4e2d\uD83D\uDE00\r\n### user \u2014 2026-01-01T00:00:00Z\n<!-- entry {} -->\n```\n\t\u2028";
        while (text.length() < 2_000_000) {
            text.append(piece).append(text.length());
        }
        return text.toString();
    }

    /**
     * A real LangChain4j {@link ChatModel} (LangChain4j's own {@code chat()} runs) that records each
     * request and answers from a script; the last scripted answer repeats. For summarizers and memories
     * tested without a server ({@link OpenAiTestServer} is the one over HTTP). Thread-safe.
     */
    public static final class ScriptedModel implements ChatModel {

        private final List<ChatRequest> requests = new ArrayList<>();
        private final Deque<Supplier<ChatResponse>> script = new ArrayDeque<>();

        /** A model with an empty script: it fails every request until an answer is added. */
        public ScriptedModel() {
        }

        /**
         * A response with {@code text} as the AI message and finish reason {@code STOP}.
         *
         * @param text the reply's text
         * @return the response
         */
        public static ChatResponse reply(String text) {
            return ChatResponse.builder().aiMessage(AiMessage.from(text)).finishReason(FinishReason.STOP).build();
        }

        /**
         * Adds an answer to the script (it may throw, to script a failure).
         *
         * @param answer computes the response of one request
         * @return this model
         */
        public synchronized ScriptedModel then(Supplier<ChatResponse> answer) {
            script.addLast(answer);
            return this;
        }

        /**
         * Adds {@link #reply(String) a text reply} to the script.
         *
         * @param text the reply's text
         * @return this model
         */
        public ScriptedModel thenReply(String text) {
            return then(() -> reply(text));
        }

        /**
         * Records the request and answers with the next scripted answer (the last one repeats).
         *
         * @param request the request
         * @return the scripted response
         * @throws IllegalStateException if nothing is scripted
         */
        @Override
        public ChatResponse doChat(ChatRequest request) {
            Supplier<ChatResponse> answer;
            synchronized (this) {
                requests.add(request);
                answer = script.size() > 1 ? script.pollFirst() : script.peekFirst();
            }
            if (answer == null) {
                throw new IllegalStateException("no scripted answer");
            }
            return answer.get();
        }

        /**
         * The requests received so far, oldest first.
         *
         * @return a copy of the requests
         */
        public synchronized List<ChatRequest> requests() {
            return List.copyOf(requests);
        }
    }

    /**
     * A {@link Summarizer} that records every call and answers from a script, then with a short
     * default summary ({@code "summary <n> of <m> more messages"}). Thread-safe.
     */
    public static final class RecordingSummarizer implements Summarizer {

        /**
         * One call of the summarizer.
         *
         * @param previousSummary the summary it was given, or {@code null}
         * @param messages        the messages it was asked to fold
         */
        public record Call(String previousSummary, List<ChatMessage> messages) {
        }

        private final List<Call> calls = new ArrayList<>();
        private final Deque<Supplier<String>> script = new ArrayDeque<>();

        /** A summarizer with an empty script: every call gets the default summary. */
        public RecordingSummarizer() {
        }

        /**
         * The next call answers with {@code answer} (which may throw, return null or anything).
         *
         * @param answer computes the next call's summary
         * @return this summarizer
         */
        public synchronized RecordingSummarizer then(Supplier<String> answer) {
            script.addLast(answer);
            return this;
        }

        /**
         * Records the call and answers with the next scripted answer, or the default summary.
         *
         * @param previousSummary the summary so far, or {@code null}
         * @param messages        the messages to fold
         * @return the scripted answer, or the default summary
         */
        @Override
        public String summarize(String previousSummary, List<ChatMessage> messages) {
            Supplier<String> answer;
            int n;
            synchronized (this) {
                calls.add(new Call(previousSummary, List.copyOf(messages)));
                n = calls.size();
                answer = script.pollFirst();
            }
            return answer != null ? answer.get() : "summary " + n + " of " + messages.size() + " more messages";
        }

        /**
         * The calls so far, oldest first.
         *
         * @return a copy of the calls
         */
        public synchronized List<Call> calls() {
            return List.copyOf(calls);
        }
    }

    /** The ways a summarizer can fail, each as a scripted answer with the reason a memory must report. */
    public enum ScriptedFailure {
        /** The model throws. */
        THROWS(() -> {
            throw new IllegalStateException("model down");
        }, Reason.FAILED),
        /** The model's call times out. */
        TIMES_OUT(() -> {
            throw new TimeoutException("read timed out");
        }, Reason.FAILED),
        /** A blank summary. */
        EMPTY(() -> "  ", Reason.EMPTY),
        /** No summary at all. */
        NULL(() -> null, Reason.EMPTY),
        /** A summary over any cap a test sets. */
        OVER_LONG(() -> "word ".repeat(400), Reason.TOO_LONG),
        /** The summarizer's own typed failure. */
        TYPED(() -> {
            throw new SummarizationException(Reason.TOO_LONG, 3, "too long three times");
        }, Reason.TOO_LONG);

        /** The scripted answer, for {@link RecordingSummarizer#then}. */
        public final Supplier<String> answer;
        /** The reason a memory must report for it. */
        public final Reason reason;

        ScriptedFailure(Supplier<String> answer, Reason reason) {
            this.answer = answer;
            this.reason = reason;
        }
    }
}
