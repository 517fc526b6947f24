package io.github.memorypack.recall;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.SessionStore;
import java.util.ArrayList;
import java.util.List;

/**
 * Where in the log a query's search stops: where the memory's view starts (recall returns nothing the
 * view shows), or, for the tool, the newest turn (the one the agent is answering).
 */
final class ViewStart {

    private ViewStart() {
    }

    /**
     * The log index where the view starts: the newest entry equal to the view's first conversation
     * message with at least as many entries after it as the view shows (tool results can be
     * synthesised by a view, so they are not counted). When the first messages were rewritten by the
     * view (an image note), the next ones are tried; when nothing matches, the view is taken to be the
     * last entries of its size. {@code Long.MAX_VALUE} (nothing excluded) for no view.
     */
    static long viewStart(SessionStore store, String sessionId, List<ChatMessage> view) {
        if (view == null) {
            return Long.MAX_VALUE;
        }
        List<ChatMessage> shown = new ArrayList<>();
        for (ChatMessage message : view) {
            if (!(message instanceof SystemMessage)) {
                shown.add(message);
            }
        }
        if (shown.isEmpty()) {
            return Long.MAX_VALUE;
        }
        int[] atLeast = new int[shown.size() + 1];
        for (int i = shown.size() - 1; i >= 0; i--) {
            atLeast[i] = atLeast[i + 1] + (shown.get(i) instanceof ToolExecutionResultMessage ? 0 : 1);
        }
        int read = shown.size() * 2 + 16;
        while (true) {
            List<Entry> tail = store.readLast(sessionId, read);
            for (int j = 0; j < Math.min(4, shown.size()); j++) {
                ChatMessage wanted = shown.get(j);
                for (int i = tail.size() - atLeast[j]; i >= 0; i--) {
                    if (tail.get(i).message().equals(wanted)) {
                        return tail.get(i).index();
                    }
                }
            }
            if (tail.size() < read || read == Integer.MAX_VALUE) {
                break;
            }
            read = read > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : read * 2;
        }
        List<Entry> tail = store.readLast(sessionId, shown.size());
        return tail.isEmpty() ? Long.MAX_VALUE : tail.get(0).index();
    }

    /** The index of the newest user message (the turn a tool call belongs to), or MAX_VALUE. */
    static long newestTurn(SessionStore store, String sessionId) {
        int read = 32;
        while (true) {
            List<Entry> tail = store.readLast(sessionId, read);
            for (int i = tail.size() - 1; i >= 0; i--) {
                if (tail.get(i).message() instanceof UserMessage) {
                    return tail.get(i).index();
                }
            }
            if (tail.size() < read || read >= Turns.MAX_TURN_ENTRIES) {
                return Long.MAX_VALUE;
            }
            read *= 2;
        }
    }
}
