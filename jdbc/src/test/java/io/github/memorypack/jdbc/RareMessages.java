package io.github.memorypack.jdbc;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.PdfFileContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.message.VideoContent;
import java.util.List;
import java.util.Map;

/** Messages beyond testkit's samples that LangChain4j 1.19 applications send, and one very long text. */
final class RareMessages {

    private RareMessages() {
    }

    static List<ChatMessage> all() {
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

    /** About 6 MB of UTF-8: every plane, line breaks of every kind, marker-like lines. */
    static String longText() {
        StringBuilder text = new StringBuilder();
        String piece = "line \u00fc\u4e2d\uD83D\uDE00\r\n### user \u2014 2026-01-01T00:00:00Z\n<!-- entry {} -->\n```\n\t\u2028";
        while (text.length() < 2_000_000) {
            text.append(piece).append(text.length());
        }
        return text.toString();
    }
}
