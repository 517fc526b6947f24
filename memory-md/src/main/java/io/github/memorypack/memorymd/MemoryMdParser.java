package io.github.memorypack.memorymd;

import static io.github.memorypack.memorymd.MemoryMdFormat.COMMENT_END;
import static io.github.memorypack.memorymd.MemoryMdFormat.CRC;
import static io.github.memorypack.memorymd.MemoryMdFormat.CRC_TAIL;
import static io.github.memorypack.memorymd.MemoryMdFormat.DASH;
import static io.github.memorypack.memorymd.MemoryMdFormat.ENTRY_COMMENT;
import static io.github.memorypack.memorymd.MemoryMdFormat.FORMAT;
import static io.github.memorypack.memorymd.MemoryMdFormat.HEADER_COMMENT;
import static io.github.memorypack.memorymd.MemoryMdFormat.LOG_HEADING;
import static io.github.memorypack.memorymd.MemoryMdFormat.MAPPER;
import static io.github.memorypack.memorymd.MemoryMdFormat.SIDECAR;
import static io.github.memorypack.memorymd.MemoryMdFormat.SIDECAR_NOTE;
import static io.github.memorypack.memorymd.MemoryMdFormat.SUMMARY_COMMENT;
import static io.github.memorypack.memorymd.MemoryMdFormat.role;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.memorymd.MemoryMdFormat.Block;
import io.github.memorypack.memorymd.MemoryMdFormat.Parsed;
import io.github.memorypack.memorymd.MemoryMdFormat.SummaryBlock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The reader of the {@code MEMORY.md} format (written by {@link MemoryMdFormat}): one pass over the
 * file's bytes, line by line, that reads format 2 blocks by their sealed length and checksum, format 1
 * and hand-written blocks by their fences and headings, sets damaged blocks aside (lenient) or
 * throws (strict), and reports a torn tail. One algorithm with its line reader and its three
 * outcomes of a block (damage, torn, not sealed), which is why it is longer than most files.
 */
final class MemoryMdParser {

    /** The index an entry marker claims, checksum or not (at most 15 digits: far from overflow). */
    private static final Pattern CLAIMED_INDEX = Pattern.compile("<!-- entry \\{\"index\":(\\d{1,15})[,}]");

    private MemoryMdParser() {
    }

    /**
     * One line of the file: its text without LF (and without one trailing CR), where it starts, where
     * its text ends ({@code textEnd}, before any CR) and where it ends; {@code valid} is false when its
     * bytes are not UTF-8.
     */
    private record Line(String text, int number, long start, long textEnd, long end, boolean terminated,
                        boolean valid) {
    }

    /** Reads lines off the bytes. */
    private static final class Lines {
        private final byte[] bytes;
        private int pos;
        private int number;
        private Line peeked;
        private Line lastConsumed;

        Lines(byte[] bytes) {
            this.bytes = bytes;
        }

        Line peek() {
            if (peeked == null && pos < bytes.length) {
                int start = pos;
                int end = start;
                while (end < bytes.length && bytes[end] != '\n') {
                    end++;
                }
                boolean terminated = end < bytes.length;
                int textEnd = end > start && bytes[end - 1] == '\r' ? end - 1 : end;
                number++;
                String text;
                boolean valid = true;
                try {
                    text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes, start, textEnd - start)).toString();
                } catch (CharacterCodingException e) {
                    // damage, or the last line cut inside a character by an interrupted write
                    text = new String(bytes, start, textEnd - start, StandardCharsets.UTF_8);
                    valid = false;
                }
                pos = terminated ? end + 1 : end;
                peeked = new Line(text, number, start, textEnd, pos, terminated, valid);
            }
            return peeked;
        }

        Line next() {
            Line line = peek();
            peeked = null;
            if (line != null) {
                lastConsumed = line;
            }
            return line;
        }

        /** Goes back so that {@code line} is the next line read. */
        void resetTo(Line line) {
            pos = (int) line.start();
            number = line.number() - 1;
            peeked = null;
        }

        /** Adds the line's text bytes (without CR and LF) and an LF: the line as it was written. */
        void checksum(CRC32C crc, Line line, int dropAtEnd, String insteadAtEnd) {
            crc.update(bytes, (int) line.start(), (int) (line.textEnd() - line.start()) - dropAtEnd);
            byte[] extra = (insteadAtEnd + "\n").getBytes(StandardCharsets.UTF_8);
            crc.update(extra, 0, extra.length);
        }
    }

    /** A block that does not parse; carries the line for the error and warning. */
    private static final class Damage extends Exception {
        private static final long serialVersionUID = 1L;
        final int line;
        final Line resumeAt; // where a lenient parse goes on, or null: after the damaged block

        Damage(int line, String message) {
            this(line, message, null);
        }

        Damage(int line, String message, Line resumeAt) {
            super(message, null, false, false);
            this.line = line;
            this.resumeAt = resumeAt;
        }
    }

    /** The block ran into the end of the file: an interrupted write. */
    private static final class Torn extends Exception {
        private static final long serialVersionUID = 1L;

        Torn() {
            super(null, null, false, false);
        }
    }

    /** A block without a format 2 marker, in a file that may hold format 1 or hand-written blocks. */
    private static final class NotSealed extends Exception {
        private static final long serialVersionUID = 1L;

        NotSealed() {
            super(null, null, false, false);
        }
    }

    /**
     * Parses a file. Lenient: a damaged block is skipped with a warning naming its line and parsing
     * goes on at the next block heading; strict: it throws. In both modes an incomplete block (or
     * batch) at the very end is reported through {@code tornAt}, not as damage.
     */
    static Parsed parse(byte[] bytes, String source, boolean lenient) {
        Lines lines = new Lines(bytes);
        List<String> warnings = new ArrayList<>();
        Instant created = null;
        long headerNext = 0;
        int format = 1;
        boolean sawHeading = false;
        Line line;
        while ((line = lines.next()) != null) {
            String t = line.text();
            if (t.equals(LOG_HEADING)) {
                sawHeading = true;
                break;
            }
            if (t.startsWith("Created: ")) {
                try {
                    created = Instant.parse(t.substring("Created: ".length()).trim());
                } catch (DateTimeParseException e) {
                    created = null; // a hand-written date: keep the file, lose only the header date
                }
            } else if (t.startsWith(HEADER_COMMENT) || t.contains(CRC)) {
                boolean sealed = t.contains(CRC);
                try {
                    JsonNode meta = headerComment(lines, line);
                    headerNext = meta.path("next").asLong(0);
                    format = meta.path("format").asInt(1);
                    if (format > FORMAT) {
                        throw new Damage(line.number(), "format " + format + " is newer than this version reads");
                    }
                } catch (Damage damage) {
                    if (!lenient) {
                        throw new MemoryMdFormatException(source, damage.line, damage.getMessage());
                    }
                    warnings.add(source + ", line " + damage.line + ": " + damage.getMessage() + " (header ignored)");
                    format = sealed ? FORMAT : 1;
                }
            }
        }
        if (!sawHeading) {
            throw new MemoryMdFormatException(source, Math.max(1, lines.number),
                    "no '" + LOG_HEADING + "' heading (is this a MEMORY.md file?)");
        }
        boolean sealedOnly = format >= FORMAT;
        List<Block> blocks = new ArrayList<>();
        List<SummaryBlock> summaries = new ArrayList<>();
        long validEnd = line.end();
        boolean endsWithNewline = line.terminated();
        long tornAt = -1;
        int tornLine = -1;
        List<Block> batch = new ArrayList<>();
        int batchSize = 0;
        long batchStart = -1;
        int batchLine = -1;
        long lastIndex = -1;
        long setAsideNext = 0;
        while ((line = lines.peek()) != null) {
            if (line.text().isBlank()) {
                lines.next();
                if (batch.isEmpty() && line.terminated()) {
                    validEnd = line.end();
                    endsWithNewline = true;
                }
                continue;
            }
            Line start = line;
            try {
                Object parsed = parseBlock(lines, lastIndex, sealedOnly);
                if (parsed instanceof SummaryBlock) {
                    summaries.add((SummaryBlock) parsed);
                } else {
                    Block block = (Block) parsed;
                    lastIndex = block.index();
                    int size = Math.max(1, block.batch());
                    if (batch.isEmpty()) {
                        batchSize = size;
                        batchStart = start.start();
                        batchLine = start.number();
                    }
                    batch.add(block);
                    if (batch.size() >= batchSize) {
                        blocks.addAll(batch);
                        batch.clear();
                    }
                }
                if (batch.isEmpty()) {
                    Line last = lines.lastConsumed;
                    validEnd = last.end();
                    endsWithNewline = last.terminated();
                }
            } catch (Torn torn) {
                tornAt = batch.isEmpty() ? start.start() : batchStart;
                tornLine = batch.isEmpty() ? start.number() : batchLine;
                batch.clear();
                break;
            } catch (Damage damage) {
                if (!lenient) {
                    throw new MemoryMdFormatException(source, damage.line, damage.getMessage());
                }
                warnings.add(source + ", line " + damage.line + ": " + damage.getMessage()
                        + " (block set aside: left in the file, not loaded)");
                skipDamagedBlock(lines, start, damage, sealedOnly);
                // a damaged block inside a batch breaks the batch: keep the complete blocks read so far
                blocks.addAll(batch);
                batch.clear();
                Line next = lines.peek();
                validEnd = next == null ? bytes.length : next.start();
                setAsideNext = Math.max(setAsideNext, claimedNext(bytes, start.start(), validEnd));
                endsWithNewline = validEnd == 0 || bytes[(int) validEnd - 1] == '\n';
            }
        }
        if (!batch.isEmpty()) {
            tornAt = batchStart;
            tornLine = batchLine;
        }
        return new Parsed(created == null ? Instant.EPOCH : created, headerNext, blocks, summaries, validEnd,
                tornAt, tornLine, endsWithNewline, warnings, format, setAsideNext);
    }

    /** The JSON of a header comment; a sealed one (format 2) must match its checksum. */
    private static JsonNode headerComment(Lines lines, Line line) throws Damage {
        String t = line.text();
        if (!t.startsWith(HEADER_COMMENT) || !t.endsWith(COMMENT_END) || (t.contains(CRC) && !isSealed(t))) {
            throw new Damage(line.number(), "damaged memory-pack header comment");
        }
        int end = t.length() - COMMENT_END.length();
        if (t.contains(CRC)) {
            checkSeal(lines, line, null, List.of());
            end = t.length() - CRC_TAIL;
        }
        try {
            return MAPPER.readTree(t.substring(HEADER_COMMENT.length(), end));
        } catch (IOException e) {
            throw new Damage(line.number(), "unreadable memory-pack header comment");
        }
    }

    /**
     * Skips a damaged block: from its heading to the next line that starts with {@code ### }. In a
     * format 2 file no line inside a body starts with {@code #} (see {@link #escapeLines}), so that is
     * the next block; in an older file fenced regions are skipped whole, so a heading inside a message
     * is never taken for a block.
     */
    /** One past the largest index an entry marker line in {@code bytes[from, to)} claims, or 0. */
    private static long claimedNext(byte[] bytes, long from, long to) {
        long next = 0;
        for (String line : new String(bytes, (int) from, (int) (to - from), StandardCharsets.UTF_8).split("\n")) {
            Matcher m = CLAIMED_INDEX.matcher(line);
            if (m.lookingAt()) {
                next = Math.max(next, Long.parseLong(m.group(1)) + 1);
            }
        }
        return next;
    }

    private static void skipDamagedBlock(Lines lines, Line heading, Damage damage, boolean sealedOnly) {
        if (damage.resumeAt != null) {
            lines.resetTo(damage.resumeAt);
            return;
        }
        // from the damaged block's own heading: reading its body by a wrong length may have gone past the next one
        lines.resetTo(heading);
        lines.next();
        String fence = null;
        Line line;
        while ((line = lines.peek()) != null) {
            String t = line.text();
            if (fence == null && t.startsWith("### ")) {
                return;
            }
            lines.next();
            if (sealedOnly) {
                continue;
            }
            if (fence == null) {
                String info = fenceInfo(t);
                fence = info == null ? null : t.substring(0, t.length() - info.length());
            } else if (t.equals(fence)) {
                fence = null;
            }
        }
    }

    /**
     * One block. In a format 2 file it must be sealed (marker with length and checksum); in an older
     * file a block without a sealed marker is read the old way.
     */
    private static Object parseBlock(Lines lines, long lastIndex, boolean sealedOnly) throws Damage, Torn {
        Line first = lines.peek();
        try {
            return sealedBlock(lines, lastIndex, sealedOnly);
        } catch (NotSealed notSealed) {
            lines.resetTo(first);
            return legacyBlock(lines, lastIndex);
        }
    }

    /** The role and timestamp of a block heading. */
    private record Heading(String role, Instant timestamp) {
    }

    private static Heading heading(Line heading) throws Damage, Torn {
        String h = heading.text();
        if (!heading.terminated()) {
            if ("### ".startsWith(h) || h.startsWith("### ")) {
                throw new Torn();
            }
            throw new Damage(heading.number(), "expected a block heading '### <role>" + DASH + "<timestamp>'");
        }
        int dash = h.indexOf(DASH);
        if (!h.startsWith("### ") || dash < 0 || !heading.valid()) {
            throw new Damage(heading.number(), "expected a block heading '### <role>" + DASH + "<timestamp>'");
        }
        try {
            return new Heading(h.substring(4, dash).trim().toLowerCase(Locale.ROOT),
                    Instant.parse(h.substring(dash + DASH.length()).trim()));
        } catch (DateTimeParseException e) {
            throw new Damage(heading.number(), "timestamp is not ISO-8601: '" + h.substring(dash + DASH.length()) + "'");
        }
    }

    /** A format 2 block: heading, sealed marker, body read by its length and checked against the seal. */
    private static Object sealedBlock(Lines lines, long lastIndex, boolean sealedOnly) throws Damage, Torn, NotSealed {
        Line headingLine = lines.next();
        Heading heading = heading(headingLine);
        Line marker = lines.next();
        if (marker == null) {
            throw new Torn();
        }
        String m = marker.text();
        boolean summary = m.startsWith(SUMMARY_COMMENT);
        String prefix = summary ? SUMMARY_COMMENT : ENTRY_COMMENT;
        if (!marker.terminated()) {
            if (ENTRY_COMMENT.startsWith(m) || SUMMARY_COMMENT.startsWith(m) || m.startsWith(prefix)) {
                throw new Torn();
            }
        } else if (isSealed(m) && (summary || m.startsWith(ENTRY_COMMENT)) && marker.valid()) {
            return sealedBody(lines, lastIndex, headingLine, heading, marker, summary, prefix);
        }
        if (!sealedOnly) {
            throw new NotSealed();
        }
        throw new Damage(marker.number(), "expected a marker '" + ENTRY_COMMENT + "{…}" + CRC + "…" + COMMENT_END + "'");
    }

    private static Object sealedBody(Lines lines, long lastIndex, Line headingLine, Heading heading, Line marker,
                                     boolean summary, String prefix) throws Damage, Torn {
        String m = marker.text();
        JsonNode meta;
        try {
            meta = MAPPER.readTree(m.substring(prefix.length(), m.length() - CRC_TAIL));
        } catch (IOException e) {
            throw new Damage(marker.number(), "marker is not valid JSON");
        }
        if (meta == null || !meta.path("len").canConvertToInt() || meta.path("len").asInt() < 0) {
            throw new Damage(marker.number(), "marker needs the body length \"len\"");
        }
        long length = meta.path("len").asLong();
        List<Line> body = new ArrayList<>();
        long read = 0;
        while (read < length) {
            Line line = lines.next();
            if (line != null) {
                body.add(line);
            }
            if (line != null && !line.terminated() && read + (line.textEnd() - line.start()) + 1 == length) {
                // the last line of the file, complete but for its line end (a file saved without a final
                // newline): the body is whole, and the seal below checks it
                read = length;
                break;
            }
            if (line == null || !line.terminated()) {
                // the file ends inside the body: an interrupted write, unless the body is already complete
                if (isComplete(body)) {
                    throw new Damage(marker.number(), "the block ends before the length its marker gives");
                }
                throw new Torn();
            }
            read += line.textEnd() - line.start() + 1;
        }
        if (read != length) {
            throw new Damage(marker.number(), "the block is longer than the length its marker gives");
        }
        checkSeal(lines, marker, headingLine, body);
        return block(meta, headingLine, heading, marker, summary, lastIndex, new Body() {
            @Override
            public Fenced fenced() throws Damage {
                return MemoryMdParser.fenced(body, marker);
            }

            @Override
            public void note() throws Damage {
                if (body.size() != 1 || !body.get(0).text().equals(SIDECAR_NOTE)) {
                    throw new Damage(marker.number() + 1, "expected '" + SIDECAR_NOTE + "'");
                }
            }
        });
    }

    /** How a block's body is read: sealed (already read by length) or format 1 (up to its closing fence). */
    private interface Body {
        Fenced fenced() throws Damage, Torn;

        /** Checks the note of a system block whose message is kept in {@value #SIDECAR}. */
        void note() throws Damage, Torn;
    }

    /** A summary or entry block from its marker's facts and its body. */
    private static Object block(JsonNode meta, Line headingLine, Heading heading, Line marker, boolean summary,
                                long lastIndex, Body body) throws Damage, Torn {
        if (summary) {
            if (!heading.role().equals("summary")) {
                throw new Damage(headingLine.number(), "summary marker under a '" + heading.role() + "' heading");
            }
            Fenced fenced = body.fenced();
            String text = "json".equals(fenced.info) ? jsonString(fenced.text, marker) : fenced.text;
            return new SummaryBlock(text, meta.path("covers").asLong(0), heading.timestamp(), headingLine.number());
        }
        ChatMessage message = null;
        if (SIDECAR.equals(meta.path("body").asText(null))) {
            if (!heading.role().equals("system")) {
                throw new Damage(headingLine.number(), "only system messages are kept in " + SIDECAR);
            }
            body.note();
        } else {
            Fenced fenced = body.fenced();
            message = message(heading.role(), fenced.info, fenced.text, marker.number() + 1);
        }
        return entryBlock(meta, headingLine, marker, message, lastIndex, heading);
    }

    private static boolean isSealed(String marker) {
        int at = marker.length() - CRC_TAIL;
        if (at < 0 || !marker.endsWith(COMMENT_END) || !marker.startsWith(CRC, at)) {
            return false;
        }
        for (int i = at + CRC.length(); i < at + CRC.length() + 8; i++) {
            char c = marker.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /**
     * Compares the checksum in {@code marker} with the CRC32C of what it seals: {@code heading} (if
     * any), the marker without its checksum, and {@code body}.
     */
    private static void checkSeal(Lines lines, Line marker, Line heading, List<Line> body) throws Damage {
        CRC32C crc = new CRC32C();
        if (heading != null) {
            lines.checksum(crc, heading, 0, "");
        }
        lines.checksum(crc, marker, CRC_TAIL, COMMENT_END);
        for (Line line : body) {
            lines.checksum(crc, line, 0, "");
        }
        String t = marker.text();
        String expected = t.substring(t.length() - CRC_TAIL + CRC.length(), t.length() - COMMENT_END.length());
        String actual = String.format("%08x", crc.getValue());
        if (!actual.equals(expected)) {
            throw new Damage(marker.number(), "checksum mismatch (the block's CRC32C is " + actual + ", its marker says "
                    + expected + "): the block was changed after it was written");
        }
    }

    /** True if the lines read hold a whole body: a closed fence, or the sidecar note. */
    private static boolean isComplete(List<Line> body) {
        if (body.isEmpty() || !body.get(0).terminated()) {
            return false;
        }
        String first = body.get(0).text();
        if (first.equals(SIDECAR_NOTE)) {
            return true;
        }
        String info = fenceInfo(first);
        if (info == null) {
            return false;
        }
        String fence = first.substring(0, first.length() - info.length());
        for (int i = 1; i < body.size(); i++) {
            if (body.get(i).terminated() && body.get(i).text().equals(fence)) {
                return true;
            }
        }
        return false;
    }

    /** A fenced body's info word and text (unescaped for {@code text}). */
    private record Fenced(String info, String text) {
    }

    private static Fenced fenced(List<Line> body, Line marker) throws Damage {
        String open = body.isEmpty() ? "" : body.get(0).text();
        String info = fenceInfo(open);
        if (info == null || !(info.equals("text") || info.equals("json")) || body.size() < 2
                || !body.get(body.size() - 1).text().equals(open.substring(0, open.length() - info.length()))) {
            throw new Damage(marker.number() + 1, "expected a body fenced with ```text or ```json");
        }
        StringBuilder text = new StringBuilder();
        for (int i = 1; i < body.size() - 1; i++) {
            if (i > 1) {
                text.append('\n');
            }
            String line = body.get(i).text();
            text.append("text".equals(info) && line.startsWith("\\") ? line.substring(1) : line);
        }
        return new Fenced(info, text.toString());
    }

    private static Block entryBlock(JsonNode meta, Line headingLine, Line marker, ChatMessage message, long lastIndex,
                                    Heading heading) throws Damage {
        JsonNode index = meta.get("index");
        JsonNode id = meta.get("id");
        if (index == null || !index.canConvertToLong() || id == null || !id.isTextual()) {
            throw new Damage(marker.number(), "entry comment needs \"index\" and \"id\"");
        }
        if (index.asLong() <= lastIndex) {
            throw new Damage(marker.number(), "index " + index.asLong() + " is not after the previous index "
                    + lastIndex);
        }
        int tokens = meta.path("tokens").asInt(Entry.UNKNOWN_TOKENS);
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = meta.path("meta").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            metadata.put(f.getKey(), f.getValue().asText());
        }
        JsonNode key = meta.get("key");
        return new Block(index.asLong(), id.asText(), heading.timestamp(), tokens, metadata,
                key == null || key.isNull() ? null : key.asText(), message, headingLine.number(),
                meta.path("batch").asInt(1));
    }

    /** The message of a body: a plain text of the heading's role, or LangChain4j JSON of that role. */
    private static ChatMessage message(String role, String info, String body, int line) throws Damage {
        ChatMessage message;
        if ("text".equals(info)) {
            switch (role) {
                case "user": message = UserMessage.from(body); break;
                case "assistant": message = AiMessage.from(body); break;
                case "system":
                    if (body.trim().isEmpty()) {
                        throw new Damage(line, "system message is blank");
                    }
                    message = SystemMessage.from(body);
                    break;
                default: throw new Damage(line, "a '" + role + "' message must be a json block");
            }
        } else {
            try {
                message = EntryCodec.decodeMessage(body);
            } catch (RuntimeException e) {
                throw new Damage(line + 1, "message JSON does not parse: " + e.getMessage());
            }
            if (message == null || !role(message.type()).equals(role)) {
                throw new Damage(line, "message type does not match the heading role '" + role + "'");
            }
        }
        return message;
    }

    // ---------------------------------------------------------------- format 1 and hand-written blocks

    /** A block of a format 1 file: unsealed marker and a fenced body found by its closing fence, or hand-written. */
    private static Object legacyBlock(Lines lines, long lastIndex) throws Damage, Torn {
        Line headingLine = lines.next();
        Heading heading = heading(headingLine);
        Line commentLine = lines.peek();
        if (commentLine == null) {
            throw new Torn();
        }
        String c = commentLine.text();
        if (!commentLine.terminated() && (c.startsWith("<!--") || "<!--".startsWith(c))) {
            throw new Torn();
        }
        if (c.startsWith("<!--") || c.startsWith("```") || !commentLine.valid()) {
            // not text a person wrote: a marker (or a fence) that must parse, never a hand-written message
            lines.next();
            boolean summary = c.startsWith(SUMMARY_COMMENT);
            if (!(summary || c.startsWith(ENTRY_COMMENT)) || !c.endsWith(COMMENT_END) || !commentLine.valid()) {
                throw new Damage(commentLine.number(), "expected a marker '" + ENTRY_COMMENT + "{…}" + COMMENT_END + "'");
            }
            JsonNode meta;
            try {
                meta = MAPPER.readTree(c.substring((summary ? SUMMARY_COMMENT : ENTRY_COMMENT).length(),
                        c.length() - COMMENT_END.length()));
            } catch (IOException e) {
                throw new Damage(commentLine.number(), "comment is not valid JSON");
            }
            return block(meta, headingLine, heading, commentLine, summary, lastIndex, new Body() {
                @Override
                public Fenced fenced() throws Damage, Torn {
                    return legacyFencedBody(lines, commentLine);
                }

                @Override
                public void note() throws Damage, Torn {
                    Line note = lines.next();
                    if (note == null || !note.terminated()) {
                        throw new Torn();
                    }
                    if (!note.text().equals(SIDECAR_NOTE)) {
                        throw new Damage(note.number(), "expected '" + SIDECAR_NOTE + "'");
                    }
                }
            });
        }
        return handWrittenBlock(lines, headingLine, heading, lastIndex);
    }

    private static Block handWrittenBlock(Lines lines, Line headingLine, Heading heading, long lastIndex)
            throws Damage, Torn {
        List<String> body = new ArrayList<>();
        Line line;
        while ((line = lines.peek()) != null && !line.text().startsWith("### ")) {
            String t = lines.next().text();
            if (!line.valid() || t.startsWith("```") || t.contains("-->") || t.startsWith("<!--")) {
                throw new Damage(line.number(), "a hand-written block holds markup of a written block"
                        + " (a fence or a comment): it is damage, not text");
            }
            body.add(t);
        }
        while (!body.isEmpty() && body.get(body.size() - 1).isBlank()) {
            body.remove(body.size() - 1);
        }
        while (!body.isEmpty() && body.get(0).isBlank()) {
            body.remove(0);
        }
        if (body.isEmpty()) {
            if (line == null) {
                throw new Torn();
            }
            throw new Damage(headingLine.number(), "block has no content");
        }
        String text = String.join("\n", body);
        ChatMessage message;
        switch (heading.role()) {
            case "user": case "human": message = UserMessage.from(text); break;
            case "assistant": case "ai": message = AiMessage.from(text); break;
            case "system": message = SystemMessage.from(text); break;
            default: throw new Damage(headingLine.number(), "unknown role '" + heading.role()
                    + "' (use user, assistant or system)");
        }
        long index = lastIndex + 1;
        return new Block(index, "hand-" + index, heading.timestamp(), Entry.UNKNOWN_TOKENS, Map.of(), null, message,
                headingLine.number(), 1);
    }

    private static String fenceInfo(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == '`') {
            n++;
        }
        return n >= 3 ? line.substring(n) : null;
    }

    /** Reads a format 1 fenced body (opening fence through closing fence). */
    private static Fenced legacyFencedBody(Lines lines, Line before) throws Damage, Torn {
        Line open = lines.next();
        if (open == null) {
            throw new Torn();
        }
        String info = fenceInfo(open.text());
        if (info == null || !(info.equals("text") || info.equals("json"))) {
            if (!open.terminated()) {
                throw new Torn();
            }
            throw new Damage(open.number(), "expected an opening fence ```text or ```json after line " + before.number());
        }
        String fence = open.text().substring(0, open.text().length() - info.length());
        StringBuilder body = new StringBuilder();
        boolean first = true;
        Line line;
        Line previous = null;
        Line resume = null;
        while ((line = lines.next()) != null) {
            if (line.terminated() && line.text().equals(fence)) {
                return new Fenced(info, body.toString());
            }
            if (!line.valid() && line.terminated()) {
                throw new Damage(line.number(), "not valid UTF-8");
            }
            if (!first) {
                body.append('\n');
            }
            body.append(line.text());
            first = false;
            if (resume == null && previous != null && previous.text().startsWith("### ")
                    && (line.text().startsWith(ENTRY_COMMENT) || line.text().startsWith(SUMMARY_COMMENT))) {
                resume = previous;
            }
            previous = line;
        }
        if (resume != null) {
            // Not an interrupted write: a later block follows, so this fence lost its closing line.
            lines.resetTo(resume);
            throw new Damage(open.number(), "code fence opened here is never closed", resume);
        }
        throw new Torn();
    }

    private static String jsonString(String json, Line at) throws Damage {
        try {
            JsonNode node = MAPPER.readTree(json);
            if (node == null || !node.isTextual()) {
                throw new Damage(at.number() + 1, "summary JSON is not a string");
            }
            return node.textValue();
        } catch (IOException e) {
            throw new Damage(at.number() + 1, "summary JSON does not parse");
        }
    }
}
