package io.github.memorypack.core;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.PdfFileContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.data.message.VideoContent;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders messages as a compact, labelled transcript for summarizers: one line per message (or per
 * tool call), tool arguments and results shortened, media named instead of inlined.
 */
final class Transcript {

    /** Longest tool argument or result text kept, in characters; longer text is cut with "…". */
    static final int MAX_TOOL_TEXT = 300;

    /** One transcript line: who spoke, and the compacted text. */
    record Line(String speaker, String text) {
        @Override
        public String toString() {
            return speaker + ": " + text;
        }
    }

    private Transcript() {
    }

    /** The transcript as text, one line per {@link Line}. */
    static String render(List<ChatMessage> messages) {
        StringBuilder out = new StringBuilder();
        for (Line line : lines(messages)) {
            out.append(line).append('\n');
        }
        return out.toString().stripTrailing();
    }

    /** The transcript lines, in message order. */
    static List<Line> lines(List<ChatMessage> messages) {
        List<Line> lines = new ArrayList<>();
        for (ChatMessage message : messages) {
            if (message instanceof UserMessage user) {
                String speaker = user.name() == null ? "User" : "User (" + user.name() + ")";
                lines.add(new Line(speaker, contents(user.contents())));
            } else if (message instanceof AiMessage ai) {
                if (ai.text() != null && !ai.text().isBlank()) {
                    lines.add(new Line("Assistant", ai.text().strip()));
                }
                for (ToolExecutionRequest request : ai.toolExecutionRequests()) {
                    lines.add(new Line("Assistant called tool",
                            request.name() + "(" + shorten(request.arguments()) + ")"));
                }
            } else if (message instanceof ToolExecutionResultMessage result) {
                lines.add(new Line("Tool " + result.toolName() + " returned", shorten(contents(result.contents()))));
            } else if (message instanceof SystemMessage system) {
                lines.add(new Line("System", system.text().strip()));
            } else if (message instanceof CustomMessage custom) {
                lines.add(new Line("Custom", String.valueOf(custom.attributes())));
            }
        }
        return lines;
    }

    private static String contents(List<Content> contents) {
        StringBuilder text = new StringBuilder();
        for (Content content : contents) {
            String part;
            if (content instanceof TextContent t) {
                part = t.text().strip();
            } else if (content instanceof ImageContent) {
                part = "[image]";
            } else if (content instanceof AudioContent) {
                part = "[audio]";
            } else if (content instanceof VideoContent) {
                part = "[video]";
            } else if (content instanceof PdfFileContent) {
                part = "[pdf]";
            } else {
                part = "[" + content.type() + "]";
            }
            if (!part.isEmpty()) {
                text.append(text.length() == 0 ? "" : " ").append(part);
            }
        }
        return text.toString();
    }

    private static String shorten(String text) {
        if (text == null) {
            return "";
        }
        String flat = text.strip().replaceAll("\\s+", " ");
        return flat.length() <= MAX_TOOL_TEXT ? flat : flat.substring(0, MAX_TOOL_TEXT) + "…";
    }
}
