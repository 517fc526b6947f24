package io.github.memorypack.redis;

import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.SessionState;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The stored forms of entries and states, and their checks on read.
 *
 * <p>An entry is one list element: {@code {"index":N,"crc":"hhhhhhhh"} followed by the rest of the
 * entry's JSON line from {@link EntryCodec#encodeEntry} (everything after its {@code {"index":N}),
 * called the <em>body</em> here; {@code hhhhhhhh} is {@link EntryCodec#checksum} of the body. Why
 * this covers every byte of the record: the body is covered by the CRC32C (which catches every
 * burst of up to 32 flipped bits); the head is parsed strictly (exactly these characters, digits
 * and eight lower-case hex digits), and its index must equal the position the record was read from
 * (base + list position). The index is written by the append script, which alone knows it, so it
 * is outside the checksum; the position check protects it instead. A record written before
 * checksums existed ({@code {"index":N,"id":…}) is still read, without that protection.
 *
 * <p>A Redis list element is written whole by one script and carries its length in Redis' own
 * encoding, so there are no torn records to set aside: any record that fails a check is damage
 * (memory or disk corruption, a hand edit, another writer) and is reported as
 * {@link CorruptRecordException}, never read as different content or another role.
 *
 * <p>A state is stored as {@code version}, {@code json} ({@link EntryCodec#encodeState}) and
 * {@code crc} (its checksum); the JSON's version must equal the {@code version} field, which the
 * compare-and-set script compares. A state without {@code crc} predates checksums and is read
 * without that check.
 */
final class RedisRecords {

    private static final String INDEX_HEAD = "{\"index\":";
    /** What {@link EntryCodec#encodeEntry} writes first for index 0. */
    private static final String INDEX_ZERO_HEAD = INDEX_HEAD + "0";
    private static final String CRC_HEAD = ",\"crc\":\"";
    private static final String BODY_HEAD = ",\"id\":";
    private static final int CRC_LENGTH = 8;
    /** Longest index we accept: no log gets near 10^16 entries. */
    private static final int MAX_INDEX_DIGITS = 16;

    private RedisRecords() {
    }

    /** What the append script stores after {@code {"index":N}: the checksum field and the body. */
    static String tail(Entry draft) {
        String line = EntryCodec.encodeEntry(draft);
        if (draft.index() != 0 || !line.startsWith(INDEX_ZERO_HEAD + BODY_HEAD)) {
            throw new IllegalStateException("entry codec no longer writes the index first, then the id: " + line);
        }
        String body = line.substring(INDEX_ZERO_HEAD.length());
        return CRC_HEAD + EntryCodec.checksum(body) + '"' + body;
    }

    /**
     * Checks and decodes one stored record.
     *
     * @param expectedIndex the index its position in the list gives it
     * @param list          the list it is in, for the error (which names the list and the index)
     * @throws CorruptRecordException if any check fails
     */
    static Entry decodeEntry(byte[] record, long expectedIndex, String list) {
        String text;
        try {
            text = strictUtf8(record);
        } catch (CharacterCodingException e) {
            throw new CorruptRecordException(at(list, expectedIndex), "not valid UTF-8", e);
        }
        int digits = INDEX_HEAD.length();
        if (!text.startsWith(INDEX_HEAD)) {
            throw new CorruptRecordException(at(list, expectedIndex), "does not start with " + INDEX_HEAD, null);
        }
        int end = digits;
        while (end < text.length() && end - digits <= MAX_INDEX_DIGITS && isDigit(text.charAt(end))) {
            end++;
        }
        if (end == digits || end - digits > MAX_INDEX_DIGITS || (text.charAt(digits) == '0' && end - digits > 1)) {
            throw new CorruptRecordException(at(list, expectedIndex), "malformed index", null);
        }
        long index = Long.parseLong(text.substring(digits, end));
        if (index != expectedIndex) {
            throw new CorruptRecordException(at(list, expectedIndex), "holds index " + index + " where " + expectedIndex
                    + " belongs", null);
        }
        if (text.startsWith(CRC_HEAD, end)) {
            int crcStart = end + CRC_HEAD.length();
            int bodyStart = crcStart + CRC_LENGTH + 1;
            if (text.length() < bodyStart || text.charAt(bodyStart - 1) != '"'
                    || !isLowerHex(text, crcStart, crcStart + CRC_LENGTH) || !text.startsWith(BODY_HEAD, bodyStart)) {
                throw new CorruptRecordException(at(list, expectedIndex), "malformed checksum field", null);
            }
            String body = text.substring(bodyStart);
            String expected = text.substring(crcStart, crcStart + CRC_LENGTH);
            String actual = EntryCodec.checksum(body);
            if (!actual.equals(expected)) {
                throw new CorruptRecordException(at(list, expectedIndex), "checksum " + actual
                        + " does not match the stored " + expected, null);
            }
        } else if (!text.startsWith(BODY_HEAD, end)) {
            throw new CorruptRecordException(at(list, expectedIndex),
                    "neither a checksum nor an id follows the index", null);
        }
        Entry entry;
        try {
            entry = EntryCodec.decodeEntry(text);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordException(at(list, expectedIndex), "not a valid entry: " + e.getMessage(), e);
        }
        if (entry.index() != index) {
            throw new CorruptRecordException(at(list, expectedIndex), "decodes to index " + entry.index(), null);
        }
        return entry;
    }

    /**
     * Checks and decodes a stored state; {@code json == null} means none is stored.
     *
     * @throws CorruptRecordException if a check fails
     */
    static SessionState decodeState(byte[] version, byte[] json, byte[] crc, String location) {
        if (json == null) {
            if (version != null) {
                throw new CorruptRecordException(location, "has a version but no JSON", null);
            }
            return SessionState.EMPTY;
        }
        String text = utf8(json, location);
        if (crc != null) {
            String expected = utf8(crc, location);
            String actual = EntryCodec.checksum(text);
            if (!actual.equals(expected)) {
                throw new CorruptRecordException(location, "checksum " + actual + " does not match the stored "
                        + expected, null);
            }
        }
        SessionState state;
        try {
            state = EntryCodec.decodeState(text);
        } catch (IllegalArgumentException e) {
            throw new CorruptRecordException(location, "not a valid state: " + e.getMessage(), e);
        }
        String versionText = version == null ? null : utf8(version, location);
        if (!String.valueOf(state.version()).equals(versionText)) {
            throw new CorruptRecordException(location, "JSON version " + state.version()
                    + " differs from the version field " + versionText, null);
        }
        return state;
    }

    /** Strict UTF-8: a byte sequence that is not valid UTF-8 is damage, not text to patch up. */
    static String utf8(byte[] bytes, String location) {
        try {
            return strictUtf8(bytes);
        } catch (CharacterCodingException e) {
            throw new CorruptRecordException(location, "not valid UTF-8", e);
        }
    }

    private static String strictUtf8(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    }

    /** An entry's location, built only for an error: a read decodes many records and most are sound. */
    private static String at(String list, long index) {
        return list + ", entry " + index;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLowerHex(String text, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!isDigit(c) && (c < 'a' || c > 'f')) {
                return false;
            }
        }
        return true;
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static List<byte[]> bytes(List<String> texts) {
        List<byte[]> out = new ArrayList<>(texts.size());
        for (String text : texts) {
            out.add(bytes(text));
        }
        return out;
    }

    /**
     * The field of an idempotency key in the session's key hash, one per key: its UTF-8 bytes (as
     * always), or, for a key that holds a lone surrogate, {@code 0xFF} followed by its UTF-16 code
     * units. UTF-8 turns a lone surrogate into {@code ?}, which would make such a key and the same
     * key with a {@code ?} one key; {@code 0xFF} never occurs in UTF-8.
     */
    static byte[] keyField(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean paired = Character.isHighSurrogate(c) ? i + 1 < key.length()
                    && Character.isLowSurrogate(key.charAt(++i)) : !Character.isLowSurrogate(c);
            if (!paired) { // by hand: every charset encoder replaces a lone surrogate
                byte[] field = new byte[1 + 2 * key.length()];
                field[0] = (byte) 0xFF;
                for (int j = 0; j < key.length(); j++) {
                    field[1 + 2 * j] = (byte) (key.charAt(j) >> 8);
                    field[2 + 2 * j] = (byte) key.charAt(j);
                }
                return field;
            }
        }
        return bytes(key);
    }

    /** A reply (bulk string or other) as text. */
    static String text(Object reply) {
        return reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : String.valueOf(reply);
    }
}
