package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What the memories write into a log besides the conversation itself, so that a log alone says
 * what every view shows:
 *
 * <ul>
 *   <li>entry metadata {@link #TURN} (the turn an entry belongs to, so interleaved requests keep
 *       their turns apart), {@link #REQUEST} and {@link #ATTEMPT} (a {@link RequestScope} request
 *       and the attempt that stored the entry: the latest attempt of a request wins);</li>
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

    static final String TURN = "turn";
    static final String REQUEST = "request";
    static final String ATTEMPT = "attempt";
    /** On a user message: the turn its thread had open before, which it ends (a thread runs one request at a time). */
    static final String AFTER = "after";

    static final String RECORD = "memory-pack-record";
    static final String CLEAR = "clear";
    static final String SET = "set";
    static final String NO_SYSTEM = "no-system";
    static final String END = "end";
    static final String SUPERSEDES = "supersedes";
    static final String ENDED_TURN = "turn";

    static final String CLEARED_AT = "memory-pack.cleared-at";
    static final String SYSTEM_INDEX = "memory-pack.system-index";

    private static final char[] ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz".toCharArray();

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

    static String turn(Entry entry) {
        return entry.metadata().get(TURN);
    }

    static String request(Entry entry) {
        return entry.metadata().get(REQUEST);
    }

    static String attempt(Entry entry) {
        return entry.metadata().get(ATTEMPT);
    }

    /**
     * An entry's tags as its metadata: {@link #AFTER}, {@link #TURN}, {@link #REQUEST} and, with a
     * request, {@link #ATTEMPT}; a null value leaves its key out (an empty map when nothing is left).
     */
    static Map<String, String> tags(String after, String turn, String request, String attempt) {
        if (after == null && turn == null && request == null) {
            return Map.of();
        }
        return new Tags(after, turn, request, request == null ? null : attempt);
    }

    /** True if {@code metadata} was made by {@link #tags} (so it is immutable). */
    static boolean isTags(Map<String, String> metadata) {
        return metadata instanceof Tags;
    }

    /**
     * The tags a memory puts on every entry it appends, as an immutable map of at most four fixed keys
     * held in fields: every append makes one and every view reads it, so it is built without hashing
     * and read without probing. Equal to (and hashed like) any map with the same entries; iterates in
     * the order after, turn, request, attempt.
     */
    private static final class Tags extends AbstractMap<String, String> {
        private static final String[] KEYS = {AFTER, TURN, REQUEST, ATTEMPT};

        private final String after;
        private final String turn;
        private final String request;
        private final String attempt;

        Tags(String after, String turn, String request, String attempt) {
            this.after = after;
            this.turn = turn;
            this.request = request;
            this.attempt = attempt;
        }

        /** The value of {@code KEYS[i]}, or null. */
        private String value(int i) {
            switch (i) {
                case 0:
                    return after;
                case 1:
                    return turn;
                case 2:
                    return request;
                default:
                    return attempt;
            }
        }

        @Override
        public String get(Object key) {
            for (int i = 0; i < KEYS.length; i++) {
                if (KEYS[i].equals(key)) {
                    return value(i);
                }
            }
            return null;
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;
        }

        @Override
        public String remove(Object key) {
            throw new UnsupportedOperationException("tags are immutable");
        }

        @Override
        public void clear() {
            throw new UnsupportedOperationException("tags are immutable");
        }

        @Override
        public int size() {
            int size = 0;
            for (int i = 0; i < KEYS.length; i++) {
                if (value(i) != null) {
                    size++;
                }
            }
            return size;
        }

        @Override
        public Set<Map.Entry<String, String>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<String, String>> iterator() {
                    return new Iterator<>() {
                        private int next = skipNulls(0);

                        @Override
                        public boolean hasNext() {
                            return next < KEYS.length;
                        }

                        @Override
                        public Map.Entry<String, String> next() {
                            if (next >= KEYS.length) {
                                throw new NoSuchElementException();
                            }
                            Map.Entry<String, String> entry = new SimpleImmutableEntry<>(KEYS[next], value(next));
                            next = skipNulls(next + 1);
                            return entry;
                        }
                    };
                }

                @Override
                public int size() {
                    return Tags.this.size();
                }
            };
        }

        private int skipNulls(int from) {
            int i = from;
            while (i < KEYS.length && value(i) == null) {
                i++;
            }
            return i;
        }
    }

    /** A short random id for a turn or an attempt (10 base-36 characters, about 51 bits). */
    static String newId() {
        long bits = ThreadLocalRandom.current().nextLong() >>> 13;
        char[] out = new char[10];
        for (int i = out.length - 1; i >= 0; i--) {
            out[i] = ALPHABET[(int) (bits % 36)];
            bits /= 36;
        }
        return new String(out);
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
