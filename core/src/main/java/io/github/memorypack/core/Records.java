package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the memories write into a log besides the conversation itself, so that a log alone says
 * what every view shows (the record entries are here, the entry tags in {@link EntryTags}):
 *
 * <ul>
 *   <li>entry metadata, the tags of {@link EntryTags} (turn, request, attempt);</li>
 *   <li>record entries, LangChain4j {@link CustomMessage}s with the attribute {@link #RECORD}, which
 *       views read but never show: {@link #CLEAR} (the conversation starts over after it),
 *       {@link #SET} (the entries it names were replaced by {@code set()} and are no longer shown; a set
 *       record that a later one names, as an undone {@code set()}'s, names nothing), {@link #NO_SYSTEM}
 *       (the system message was removed by {@code set()}) and {@link #END} (the request of the turn it
 *       names ended without an answer: the turn no longer runs).</li>
 * </ul>
 *
 * <p>State attributes {@link #CLEARED_AT} and {@link #SYSTEM_INDEX} say which log record the state's
 * fields reflect, so a crash between an append and the state update that follows it never leaves a
 * view with the wrong system message or summary: a newer record in the log wins.
 */
final class Records {

    static final String RECORD = "memory-pack-record";
    static final String CLEAR = "clear";
    static final String SET = "set";
    static final String NO_SYSTEM = "no-system";
    static final String END = "end";
    static final String SUPERSEDES = "supersedes";
    static final String ENDED_TURN = "turn";

    static final String CLEARED_AT = "memory-pack.cleared-at";
    static final String SYSTEM_INDEX = "memory-pack.system-index";

    private Records() {
    }

    /** A record after which the conversation starts over. */
    static CustomMessage clear() {
        return CustomMessage.from(Map.of(RECORD, CLEAR));
    }

    /** A record after which the session has no system message, until one is added again ({@code set()} without one). */
    static CustomMessage noSystem() {
        return CustomMessage.from(Map.of(RECORD, NO_SYSTEM));
    }

    /** A record saying that the request of {@code turn} ended without closing it (failed, or returned a tool result). */
    static CustomMessage end(String turn) {
        return CustomMessage.from(Map.of(RECORD, END, ENDED_TURN, turn));
    }

    /** The turn an {@link #END} record names. */
    static String endedTurn(ChatMessage record) {
        Object turn = ((CustomMessage) record).attributes().get(ENDED_TURN);
        return turn instanceof String ? (String) turn : null;
    }

    /** A record saying that the entries with these indices were replaced and are no longer shown. */
    static CustomMessage set(Collection<Long> superseded) {
        Map<String, Object> attributes = new HashMap<>();
        attributes.put(RECORD, SET);
        attributes.put(SUPERSEDES, ranges(superseded));
        return CustomMessage.from(attributes);
    }

    /** The record kind ({@link #CLEAR}, {@link #SET}) of a message, or null when it is not one of ours. */
    static String kind(ChatMessage message) {
        if (!(message instanceof CustomMessage)) {
            return null;
        }
        Object kind = ((CustomMessage) message).attributes().get(RECORD);
        return kind instanceof String ? (String) kind : null;
    }

    /** The indices a {@link #SET} record supersedes. */
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

    /** Indices as sorted, comma-separated ranges: {@code 3-7,9,12-13}. */
    static String ranges(Collection<Long> indices) {
        long[] sorted = indices.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < sorted.length; ) {
            int j = i;
            while (j + 1 < sorted.length && sorted[j + 1] == sorted[j] + 1) {
                j++;
            }
            if (out.length() > 0) {
                out.append(',');
            }
            out.append(sorted[i]);
            if (j > i) {
                out.append('-').append(sorted[j]);
            }
            i = j + 1;
        }
        return out.toString();
    }

    /** A hex SHA-256 digest of {@code text}'s UTF-16 code units, lone surrogates included (for keys made from content). */
    static String digest(String text) {
        try {
            java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
            byte[] units = new byte[text.length() * 2];
            for (int i = 0; i < text.length(); i++) {
                units[2 * i] = (byte) (text.charAt(i) >> 8);
                units[2 * i + 1] = (byte) text.charAt(i);
            }
            return java.util.HexFormat.of().formatHex(digest.digest(units));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** A long state attribute, or {@code fallback}. */
    static long longAttribute(SessionState state, String name, long fallback) {
        String value = state.attributes().get(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
