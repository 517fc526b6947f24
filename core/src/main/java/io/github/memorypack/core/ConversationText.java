package io.github.memorypack.core;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Messages as plain text for people, logs and prompts: {@code [timestamp] Role: content}, one line per
 * message (line breaks inside a message are escaped, see {@link #line}). Roles are
 * {@code System}, {@code User}, {@code Assistant}, {@code Tool} and {@code Custom}; non-text contents
 * appear as {@code [image]}, {@code [audio]}…; tool calls as {@code [tool call name(arguments)]}.
 */
final class ConversationText {

    private ConversationText() {
    }

    /** The role word for a message type. */
    static String role(ChatMessageType type) {
        switch (type) {
            case SYSTEM: return "System";
            case USER: return "User";
            case AI: return "Assistant";
            case TOOL_EXECUTION_RESULT: return "Tool";
            default: return "Custom";
        }
    }

    /** The readable text of a message (every text part, tool calls and results, custom attributes). */
    static String text(ChatMessage message) {
        if (message instanceof SystemMessage) {
            return ((SystemMessage) message).text();
        }
        if (message instanceof UserMessage) {
            UserMessage user = (UserMessage) message;
            List<String> parts = new ArrayList<>();
            for (Content content : user.contents()) {
                parts.add(content instanceof TextContent ? ((TextContent) content).text()
                        : "[" + content.type().name().toLowerCase(Locale.ROOT) + "]");
            }
            String text = String.join("\n", parts);
            return user.name() == null ? text : user.name() + ": " + text;
        }
        if (message instanceof AiMessage) {
            AiMessage ai = (AiMessage) message;
            List<String> parts = new ArrayList<>();
            if (ai.text() != null) {
                parts.add(ai.text());
            }
            for (ToolExecutionRequest request : ai.toolExecutionRequests()) {
                parts.add("[tool call " + request.name() + "(" + request.arguments() + ")]");
            }
            return String.join("\n", parts);
        }
        if (message instanceof ToolExecutionResultMessage) {
            ToolExecutionResultMessage result = (ToolExecutionResultMessage) message;
            return "[" + result.toolName() + "] " + result.text();
        }
        if (message instanceof CustomMessage) {
            return String.valueOf(((CustomMessage) message).attributes());
        }
        return String.valueOf(message);
    }

    /**
     * {@code [timestamp] Role: content} on exactly one line: in the content a backslash is written
     * {@code \\}, a line feed {@code \n}, a carriage return {@code \r}, and the other line breaks
     * (U+000B, U+000C, U+0085, U+2028, U+2029) as a backslash, {@code u} and four hex digits, so no
     * message text can start a line of its own — a user message cannot forge a
     * {@code [timestamp] System:} line.
     */
    static String line(Entry entry) {
        return "[" + entry.timestamp() + "] " + role(entry.message().type()) + ": " + oneLine(text(entry.message()));
    }

    /** {@code text} with its backslashes and line breaks escaped (see {@link #line}). */
    static String oneLine(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String escape;
            switch (c) {
                case '\\': escape = "\\\\"; break;
                case '\n': escape = "\\n"; break;
                case '\r': escape = "\\r"; break;
                case '\u000B': case '\u000C': case '\u0085': case '\u2028': case '\u2029':
                    escape = String.format("\\u%04x", (int) c);
                    break;
                default: escape = null;
            }
            if (escape != null && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                out.append(escape != null ? escape : String.valueOf(c));
            }
        }
        return out == null ? text : out.toString();
    }

    /** One {@link #line} per entry, separated by line feeds: exactly one line per entry. */
    static String history(List<Entry> entries) {
        StringBuilder out = new StringBuilder();
        for (Entry e : entries) {
            if (out.length() > 0) {
                out.append('\n');
            }
            out.append(line(e));
        }
        return out.toString();
    }
}
