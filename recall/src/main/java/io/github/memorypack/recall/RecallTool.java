package io.github.memorypack.recall;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolMemoryId;
import dev.langchain4j.rag.content.Content;
import io.github.memorypack.core.Experimental;
import java.util.List;
import java.util.Objects;

/**
 * Recall as a tool, for agents that decide themselves when to look back: register it with
 * {@code AiServices.builder(…).tools(recall.tool())} next to a chat memory. The model calls
 * {@code search_earlier_conversation} with a few words; LangChain4j passes the request's memory id.
 *
 * <p>It searches the same session as {@link RecallContentRetriever#retrieve} does, with the same
 * budget and minimum score, over every turn before the newest one (the turn the agent is answering).
 * A tool is not told the memory's view, so turns the view still shows can be returned too.
 *
 * <p>{@link Experimental}, as {@link RecallContentRetriever}: the tool's name, description and answer
 * text may still change.
 *
 * <p>Thread-safe, as its retriever.
 */
@Experimental
public final class RecallTool {

    /** What the tool answers when nothing relevant is found. */
    public static final String NOTHING_FOUND = "Nothing relevant was found in the earlier conversation.";

    private final RecallContentRetriever retriever;

    RecallTool(RecallContentRetriever retriever) {
        this.retriever = Objects.requireNonNull(retriever, "retriever");
    }

    /**
     * Searches the earlier turns of the conversation.
     *
     * @param memoryId the request's memory id (LangChain4j fills it in)
     * @param query    what to look for
     * @return the relevant earlier turns, oldest first, each with its date; or {@link #NOTHING_FOUND}
     */
    @Tool(name = "search_earlier_conversation", value = {
            "Searches the earlier part of this conversation, which you may no longer see, for what the user or",
            "you said about something. Use it when the user refers to something said before that is not in",
            "view. Returns the matching earlier turns with their dates; the newest version of a fact wins."})
    public String searchEarlierConversation(@ToolMemoryId Object memoryId,
                                            @P("what to look for, in a few words") String query) {
        List<Content> found = retriever.searchBeforeNewestTurn(memoryId, query);
        if (found.isEmpty()) {
            return NOTHING_FOUND;
        }
        StringBuilder text = new StringBuilder();
        for (Content content : found) {
            if (text.length() > 0) {
                text.append("\n\n");
            }
            text.append(content.textSegment().text());
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return "RecallTool{" + retriever + '}';
    }
}
