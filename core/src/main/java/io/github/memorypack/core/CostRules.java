package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The cost rules a view applies to closed turns (a turn the model has answered), off unless set:
 * a tool result over a token size is shown as a preview of its first
 * {@value #TOOL_RESULT_PREVIEW_CHARS} characters, and an image outside the newest messages as a
 * note. They rewrite only what a view shows; the log keeps everything, and {@code set()} maps a
 * rewritten message back to its full entry. Immutable, so thread-safe.
 */
final class CostRules {

    /** Suggested size above which a tool result is previewed, when previews are enabled. */
    static final int DEFAULT_TOOL_RESULT_PREVIEW_TOKENS = 2_000;
    /** How many characters of a large tool result a preview shows. */
    static final int TOOL_RESULT_PREVIEW_CHARS = 400;
    /** What replaces an image outside the newest messages. */
    static final String IMAGE_NOTE = "[image omitted: it was shown earlier in the conversation]";

    private final int toolResultPreviewTokens;
    private final int keepImagesInNewest;

    /** Previews over {@code toolResultPreviewTokens} (0: none), images kept in the newest {@code keepImagesInNewest} messages (-1: all). */
    CostRules(int toolResultPreviewTokens, int keepImagesInNewest) {
        this.toolResultPreviewTokens = toolResultPreviewTokens;
        this.keepImagesInNewest = keepImagesInNewest;
    }

    boolean previews() {
        return toolResultPreviewTokens > 0;
    }

    boolean dropsImages() {
        return keepImagesInNewest >= 0;
    }

    /** True if a view may show a message other than its entry's (so it cannot be extended as is). */
    boolean rewrites() {
        return previews() || dropsImages();
    }

    /** The preview a closed turn shows for tool result {@code result}, or null when it is shown whole. */
    ToolExecutionResultMessage previewOf(Entry result, TokenCounts counts) {
        if (toolResultPreviewTokens <= 0) {
            return null;
        }
        int tokens = counts.storedTokens(result);
        return tokens > toolResultPreviewTokens ? preview((ToolExecutionResultMessage) result.message(), tokens) : null;
    }

    /** Replaces images outside the newest {@code keepImagesInNewest} messages, in closed turns only. */
    void dropOldImages(List<ChatMessage> messages, List<Entry> sources, int pinned, List<DialogueTurn> turns,
                       boolean[] selected) {
        Set<Entry> open = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int t = 0; t < turns.size(); t++) {
            if (selected[t] && !turns.get(t).done()) {
                open.addAll(turns.get(t).entries());
            }
        }
        for (int i = pinned; i < messages.size() - keepImagesInNewest; i++) {
            Entry source = sources.get(i);
            if (source != null && !open.contains(source)) {
                messages.set(i, withoutImages(messages.get(i)));
            }
        }
    }

    private static ToolExecutionResultMessage preview(ToolExecutionResultMessage result, int tokens) {
        StringBuilder text = new StringBuilder();
        for (Content content : result.contents()) {
            if (content instanceof TextContent) {
                text.append(((TextContent) content).text());
            }
        }
        String head = text.length() > TOOL_RESULT_PREVIEW_CHARS ? text.substring(0, TOOL_RESULT_PREVIEW_CHARS) : text.toString();
        String shown = head + "\n[tool result shortened to a preview: the full result, about " + tokens
                + " tokens, was shown when the tool ran and is kept in the conversation log]";
        return result.toBuilder().contents(List.of(TextContent.from(shown))).build();
    }

    private static ChatMessage withoutImages(ChatMessage message) {
        if (message instanceof UserMessage) {
            UserMessage user = (UserMessage) message;
            List<Content> contents = replaceImages(user.contents());
            return contents == null ? message : user.toBuilder().contents(contents).build();
        }
        if (message instanceof ToolExecutionResultMessage) {
            ToolExecutionResultMessage result = (ToolExecutionResultMessage) message;
            List<Content> contents = replaceImages(result.contents());
            return contents == null ? message : result.toBuilder().contents(contents).build();
        }
        return message;
    }

    /** The contents with every image replaced by a note, or null when there is no image. */
    private static List<Content> replaceImages(List<Content> contents) {
        List<Content> replaced = null;
        for (int i = 0; i < contents.size(); i++) {
            if (contents.get(i) instanceof ImageContent) {
                if (replaced == null) {
                    replaced = new ArrayList<>(contents);
                }
                replaced.set(i, TextContent.from(IMAGE_NOTE));
            }
        }
        return replaced;
    }

    @Override
    public String toString() {
        return "CostRules{toolResultPreviewTokens=" + toolResultPreviewTokens + ", keepImagesInNewest="
                + keepImagesInNewest + '}';
    }
}
