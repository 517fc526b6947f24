package io.github.memorypack.core;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits the unsummarized part of a log into turns — a user message and everything up to the next
 * one — to choose where a fold may end. A fold always ends at a turn boundary, so the verbatim part
 * of a view starts with a user message, exactly as the shared view rules show it.
 */
public final class Turns {

    /**
     * One turn: log range {@code [start, end)}, its stored token count (system-message entries,
     * which views never show, excluded) and whether it may be folded.
     */
    public record Span(long start, long end, int tokens, boolean foldable) {
    }

    /** Turns at least this far from the newest one fold even with an unanswered tool call. */
    static final int INTERRUPTED_AFTER_TURNS = 2;

    private Turns() {
    }

    /**
     * The turns of {@code entries} (a contiguous run ending at the newest entry), oldest first;
     * entries stored without a token count are counted with {@code tokenizer}.
     * Entries before the first user message belong to the first turn. A turn is foldable when it is
     * finished and its tool calls are answered:
     * <ul>
     *   <li>a turn followed by another is finished; the newest turn is finished once its last
     *       message is an AI message without tool requests;</li>
     *   <li>a tool call whose result is not in the turn keeps the turn (and every later one) from
     *       folding — unless the turn is {@value #INTERRUPTED_AFTER_TURNS} or more turns old, when the
     *       call is taken as interrupted (the view rules repair it the same way).</li>
     * </ul>
     */
    public static List<Span> of(List<Entry> entries, TokenCountEstimator tokenizer) {
        List<Integer> starts = new ArrayList<>();
        starts.add(0);
        boolean seenUser = false;
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).message() instanceof UserMessage) {
                if (seenUser) {
                    starts.add(i);
                }
                seenUser = true;
            }
        }
        List<Span> spans = new ArrayList<>();
        if (entries.isEmpty()) {
            return spans;
        }
        for (int t = 0; t < starts.size(); t++) {
            int from = starts.get(t);
            int to = t + 1 < starts.size() ? starts.get(t + 1) : entries.size();
            boolean newest = t == starts.size() - 1;
            int tokens = 0;
            Map<String, Integer> open = new HashMap<>();
            ChatMessage last = null;
            for (int i = from; i < to; i++) {
                ChatMessage message = entries.get(i).message();
                if (message instanceof SystemMessage) {
                    continue;
                }
                last = message;
                Entry entry = entries.get(i);
                tokens += entry.hasTokenCount() ? entry.tokenCount() : tokenizer.estimateTokenCountInMessage(message);
                if (message instanceof AiMessage ai) {
                    for (ToolExecutionRequest request : ai.toolExecutionRequests()) {
                        open.merge(key(request.id(), request.name()), 1, Integer::sum);
                    }
                } else if (message instanceof ToolExecutionResultMessage result) {
                    open.computeIfPresent(key(result.id(), result.toolName()), (k, n) -> n == 1 ? null : n - 1);
                }
            }
            boolean finished = !newest || (last instanceof AiMessage ai && !ai.hasToolExecutionRequests());
            boolean answered = open.isEmpty() || starts.size() - 1 - t >= INTERRUPTED_AFTER_TURNS;
            long start = entries.get(from).index();
            long end = newest ? entries.get(to - 1).index() + 1 : entries.get(to).index();
            spans.add(new Span(start, end, tokens, finished && answered));
        }
        return spans;
    }

    private static String key(String id, String toolName) {
        return id != null ? "id:" + id : "name:" + toolName;
    }
}
