package io.github.memorypack.core.file;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.github.memorypack.core.EntryCodec;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.zip.CRC32C;

/**
 * The framing of one record line in the store's files (format 2):
 * <pre>
 * ~LLLLLLLL CCCCCCCC {payload}\n
 * </pre>
 * {@code L} is the payload's length in UTF-8 bytes and {@code C} its CRC32C ({@link EntryCodec#checksum}),
 * both as 8 lower-case hex digits; the payload is an {@link EntryCodec} form, which is one line of
 * JSON and never holds a line break. So a record is complete only with its length, its checksum and
 * its newline exactly where the header says: a torn write leaves a prefix of a record (or a run of
 * zero bytes where a file system extended the file without its data), which {@link #isTornPrefix}
 * recognises; anything else that does not check — a flipped bit, an edited letter, a merged or
 * split line — is damage, never a different record.
 *
 * <p>Format 1 (before checksums) is the bare payload line, starting with <code>{</code>; it is still
 * read, but once a file holds a format 2 line no format 1 line may follow it.
 */
final class RecordLines {

    static final int HEADER = 19; // '~', 8 hex digits, ' ', 8 hex digits, ' '
    private static final byte MARK = '~';

    private RecordLines() {
    }

    /** The line for {@code payload} (an {@link EntryCodec} form), newline included. */
    static byte[] encode(String payload) {
        byte[] body = payload.getBytes(UTF_8);
        String header = "~" + hex8(body.length) + " " + EntryCodec.checksum(payload) + " ";
        byte[] line = new byte[HEADER + body.length + 1];
        System.arraycopy(header.getBytes(UTF_8), 0, line, 0, HEADER);
        System.arraycopy(body, 0, line, HEADER, body.length);
        line[line.length - 1] = '\n';
        return line;
    }

    /** A decoded line: its payload and whether it was a format 1 line (no checksum). */
    static final class Line {
        final String payload;
        final boolean legacy;

        Line(String payload, boolean legacy) {
            this.payload = payload;
            this.legacy = legacy;
        }
    }

    /**
     * Checks and decodes the line {@code bytes[from, to)} (without its newline).
     *
     * @throws IllegalArgumentException saying what does not check
     */
    static Line decode(byte[] bytes, int from, int to) {
        int length = to - from;
        if (length > 0 && bytes[from] == '{') {
            return new Line(utf8(bytes, from, length), true);
        }
        if (length < HEADER || bytes[from] != MARK || bytes[from + 9] != ' ' || bytes[from + 18] != ' ') {
            throw new IllegalArgumentException("not a record line (expected '~<length> <crc32c> <json>')");
        }
        long declared = hex(bytes, from + 1);
        long crc = hex(bytes, from + 10);
        if (declared < 0 || crc < 0) {
            throw new IllegalArgumentException("record header is not hexadecimal");
        }
        if (declared != length - HEADER) {
            throw new IllegalArgumentException("record length is " + (length - HEADER) + " bytes, its header says "
                    + declared);
        }
        CRC32C actual = new CRC32C();
        actual.update(bytes, from + HEADER, length - HEADER);
        if (actual.getValue() != crc) {
            throw new IllegalArgumentException("checksum mismatch (CRC32C " + hex8(actual.getValue())
                    + ", header says " + hex8(crc) + ")");
        }
        return new Line(utf8(bytes, from + HEADER, length - HEADER), false);
    }

    /**
     * True if {@code bytes[from, to)}, the unterminated end of a file, is what an interrupted write
     * leaves: a prefix of a record line (its newline at most missing), zero bytes only, or — while
     * {@code legacyAllowed} — the start of a format 1 line, which has no length to check.
     */
    static boolean isTornPrefix(byte[] bytes, int from, int to, boolean legacyAllowed) {
        if (allZero(bytes, from, to)) {
            return true;
        }
        if (bytes[from] == '{') {
            return legacyAllowed;
        }
        if (bytes[from] != MARK) {
            return false;
        }
        int length = to - from;
        for (int i = 1; i < Math.min(length, HEADER); i++) {
            byte b = bytes[from + i];
            boolean ok = i == 9 || i == 18 ? b == ' ' : isHex(b);
            if (!ok) {
                return false;
            }
        }
        // with the whole header there, the payload must be shorter than declared or just lack its newline
        return length < HEADER || length - HEADER <= hex(bytes, from + 1);
    }

    static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static String utf8(byte[] bytes, int from, int length) {
        try {
            return UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, from, length)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("not valid UTF-8", e);
        }
    }

    private static boolean isHex(byte b) {
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f');
    }

    /** The 8 lower-case hex digits at {@code at}, or -1. */
    private static long hex(byte[] bytes, int at) {
        long value = 0;
        for (int i = at; i < at + 8; i++) {
            byte b = bytes[i];
            if (!isHex(b)) {
                return -1;
            }
            value = value << 4 | (b <= '9' ? b - '0' : b - 'a' + 10);
        }
        return value;
    }

    private static String hex8(long value) {
        String hex = Long.toHexString(value);
        return "00000000".substring(hex.length()) + hex;
    }
}
