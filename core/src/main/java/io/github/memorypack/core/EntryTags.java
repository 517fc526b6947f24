package io.github.memorypack.core;

import java.nio.charset.StandardCharsets;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The tags a memory puts on every entry it appends, as entry metadata: {@link #TURN} (the turn an
 * entry belongs to, so interleaved requests keep their turns apart), {@link #AFTER} (on a user
 * message, the turn its thread had open before), {@link #REQUEST} and {@link #ATTEMPT} (a
 * {@link RequestScope} request and the attempt that stored the entry: the latest attempt of a
 * request wins), {@link #PROCESS} (on a user message, the {@link SessionStore#processId} of the process that
 * started the turn, when the store has one); and the random ids turns and attempts get. Part of the log format: a log alone
 * says which turn each entry belongs to.
 */
final class EntryTags {

    static final String TURN = "turn";
    static final String REQUEST = "request";
    static final String ATTEMPT = "attempt";
    /** On a user message: the turn its thread had open before, which it ends (a thread runs one request at a time). */
    static final String AFTER = "after";
    /** On a user message: the store's id of the process that started the turn ({@link SessionStore#processId}). */
    static final String PROCESS = "process";

    private static final byte[] ALPHABET = "0123456789abcdefghijklmnopqrstuv".getBytes(StandardCharsets.ISO_8859_1);

    private EntryTags() {
    }

    static String turn(Entry entry) {
        Map<String, String> tags = entry.metadata();
        return tags instanceof Tags ? ((Tags) tags).turn : tags.get(TURN); // an entry this process appended: a field
    }

    static String request(Entry entry) {
        Map<String, String> tags = entry.metadata();
        return tags instanceof Tags ? ((Tags) tags).request : tags.get(REQUEST);
    }

    static String attempt(Entry entry) {
        return entry.metadata().get(ATTEMPT);
    }

    static String process(Entry entry) {
        Map<String, String> tags = entry.metadata();
        return tags instanceof Tags ? ((Tags) tags).process : tags.get(PROCESS);
    }

    /**
     * An entry's tags as its metadata: {@link #AFTER}, {@link #TURN}, {@link #REQUEST} and, with a
     * request, {@link #ATTEMPT}; a null value leaves its key out (an empty map when nothing is left).
     */
    static Map<String, String> tags(String after, String turn, String request, String attempt) {
        return tags(after, turn, request, attempt, null);
    }

    /** The same, with the {@link #PROCESS} that starts the turn (null: none). */
    static Map<String, String> tags(String after, String turn, String request, String attempt, String process) {
        if (after == null && turn == null && request == null && process == null) {
            return Map.of();
        }
        return new Tags(after, turn, request, request == null ? null : attempt, process);
    }

    /**
     * The tags a memory puts on every entry it appends, as an immutable map of at most five fixed keys
     * held in fields: every append makes one and every view reads it, so it is built without hashing
     * and read without probing. Equal to (and hashed like) any map with the same entries; iterates in
     * the order after, turn, request, attempt, process. An {@link ImmutableMetadata}, so a {@link NewEntry}
     * keeps it without a copy.
     */
    private static final class Tags extends ImmutableMetadata {
        private static final String[] KEYS = {AFTER, TURN, REQUEST, ATTEMPT, PROCESS};

        private final String after;
        private final String turn;
        private final String request;
        private final String attempt;
        private final String process;

        Tags(String after, String turn, String request, String attempt, String process) {
            this.after = after;
            this.turn = turn;
            this.request = request;
            this.attempt = attempt;
            this.process = process;
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
                case 3:
                    return attempt;
                default:
                    return process;
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

    /**
     * A short random id for a turn or an attempt: 10 characters of {@code [0-9a-v]}, 50 random bits
     * (5 a character: shifts, where base 36 took ten long divisions on every turn).
     */
    static String newId() {
        long bits = ThreadLocalRandom.current().nextLong();
        byte[] out = new byte[10];
        for (int i = 0; i < out.length; i++) {
            out[i] = ALPHABET[(int) (bits & 31)];
            bits >>>= 5;
        }
        return new String(out, StandardCharsets.ISO_8859_1);
    }
}
