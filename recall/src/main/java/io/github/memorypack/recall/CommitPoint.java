package io.github.memorypack.recall;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How far a session's recall index had read the log at a commit, as the commit's user data records it:
 * the next log index to read and the id of the entry before it, the turn the next entries belong to,
 * the first entry still in the log, and the lowest entry whose embeddings were not yet in the index
 * (the next entry when none).
 */
record CommitPoint(long next, String lastId, long turn, String turnId, long first, long vectors) {

    private static final String KEY_FORMAT = "format";
    private static final String KEY_MODEL = "model";
    private static final String KEY_NEXT = "next";
    private static final String KEY_LAST_ID = "lastId";
    private static final String KEY_TURN = "turn";
    private static final String KEY_TURN_ID = "turnId";
    private static final String KEY_FIRST = "first";
    private static final String KEY_VECTORS = "vectors";

    /** True if {@code data} was committed by an index of this {@code format} and embedding model. */
    static boolean current(Map<String, String> data, String format, String modelKey) {
        return format.equals(data.get(KEY_FORMAT)) && modelKey.equals(data.get(KEY_MODEL));
    }

    /** The position a commit's user data records. */
    static CommitPoint of(Map<String, String> data) {
        long next = Long.parseLong(data.getOrDefault(KEY_NEXT, "0"));
        return new CommitPoint(next, data.get(KEY_LAST_ID), Long.parseLong(data.getOrDefault(KEY_TURN, "-1")),
                data.get(KEY_TURN_ID), Long.parseLong(data.getOrDefault(KEY_FIRST, "0")),
                Long.parseLong(data.getOrDefault(KEY_VECTORS, Long.toString(next))));
    }

    /** The commit's user data for this position, of an index of {@code format} and embedding model. */
    Map<String, String> data(String format, String modelKey) {
        Map<String, String> data = new LinkedHashMap<>();
        data.put(KEY_FORMAT, format);
        data.put(KEY_MODEL, modelKey);
        data.put(KEY_NEXT, Long.toString(next));
        if (lastId != null) {
            data.put(KEY_LAST_ID, lastId);
        }
        data.put(KEY_TURN, Long.toString(turn));
        if (turnId != null) {
            data.put(KEY_TURN_ID, turnId);
        }
        data.put(KEY_FIRST, Long.toString(first));
        data.put(KEY_VECTORS, Long.toString(vectors));
        return data;
    }
}
