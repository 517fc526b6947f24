package io.github.memorypack.recall;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import io.github.memorypack.core.SessionState;
import java.util.ArrayList;
import java.util.List;

/**
 * What the Memory Pack memories write into a log besides the conversation (core's {@code Records},
 * part of the log format): entry metadata tying an entry to its turn and to a request's attempt, and
 * the clear and set records, and the state attribute saying at which clear record the state was last
 * cleared. Recall reads them to index exactly the conversation the memories show;
 * {@code RecallContentRetrieverTest} runs each through the real memories ({@code UndoneChangeTest} the
 * cleared-at attribute), so a change of the format breaks a test here.
 */
final class LogFormat {

    static final String TURN = "turn";
    static final String REQUEST = "request";
    static final String ATTEMPT = "attempt";

    static final String CLEAR = "clear";
    static final String SET = "set";
    private static final String RECORD = "memory-pack-record";
    private static final String SUPERSEDES = "supersedes";
    private static final String CLEARED_AT = "memory-pack.cleared-at";

    private LogFormat() {
    }

    /** The record kind of a message ({@link #CLEAR}, {@link #SET}), or null when it is not a record. */
    static String record(ChatMessage message) {
        if (!(message instanceof CustomMessage)) {
            return null;
        }
        Object kind = ((CustomMessage) message).attributes().get(RECORD);
        return kind instanceof String ? (String) kind : null;
    }

    /** The index ranges (inclusive) a set record says were replaced. */
    static List<long[]> superseded(ChatMessage record) {
        Object value = ((CustomMessage) record).attributes().get(SUPERSEDES);
        List<long[]> ranges = new ArrayList<>();
        if (!(value instanceof String) || ((String) value).isEmpty()) {
            return ranges;
        }
        for (String part : ((String) value).split(",")) {
            int dash = part.indexOf('-');
            long from = Long.parseLong(dash < 0 ? part : part.substring(0, dash));
            long to = dash < 0 ? from : Long.parseLong(part.substring(dash + 1));
            ranges.add(new long[] {from, to});
        }
        return ranges;
    }

    /** The log index of the clear record the state was last cleared at ({@code clear()} wrote it), or -1. */
    static long clearedAt(SessionState state) {
        String value = state.attributes().get(CLEARED_AT);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
