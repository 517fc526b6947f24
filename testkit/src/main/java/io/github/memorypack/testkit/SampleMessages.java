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
import java.util.List;
import java.util.Map;

/**
 * One message of every LangChain4j 1.19 message type and shape a store must keep exactly: system;
 * user (plain, and with a name plus text and image contents by URL and base64); AI (text, thinking,
 * tool execution requests, attributes; and tool calls without text); tool results (normal and
 * {@code isError}); custom. Texts include line breaks, quotes and non-ASCII characters so that
 * escaping bugs show up. Every message survives LangChain4j's own JSON round trip.
 *
 * <p>Stateless and thread-safe; every call returns a new list.
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
}
