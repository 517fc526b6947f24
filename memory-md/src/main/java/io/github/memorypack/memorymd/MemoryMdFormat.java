package io.github.memorypack.memorymd;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageType;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.Summary;
import io.github.memorypack.core.EntryCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
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

/**
 * The {@code MEMORY.md} file format: render entries to Markdown and parse them back exactly.
 *
 * <pre>
 * # Agent Memory
 *
 * Created: 2026-11-29T14:23:54Z
 *
 * &lt;!-- memory-pack {"format":1,"next":0} --&gt;
 *
 * ## Interaction Log
 *
 * ### user — 2026-11-29T14:24:00.123Z
 * &lt;!-- entry {"index":0,"id":"…","tokens":7} --&gt;
 * ```text
 * Hello
 * ```
 * </pre>
 *
 * <p>Rules that make the file safe to parse whatever the messages say:
 * <ul>
 *   <li>Every body sits in a code fence longer than any backtick run in the body, so no body line
 *       can close the fence, and no text can start, end or change a block.</li>
 *   <li>A plain user, assistant or system text is written as it is ({@code text} fence). Anything
 *       else — tool calls and results, names, attributes, images, thinking, custom messages, and text
 *       containing carriage returns, control characters or unpaired surrogates — is written as
 *       LangChain4j's own message JSON ({@code json} fence) with those characters escaped.</li>
 *   <li>Entry facts (index, id, tokens, idempotency key, metadata, batch size) live in a one-line
 *       HTML comment whose JSON escapes {@code < > &}, so it can never end early.</li>
 *   <li>Lines are split on LF only; one trailing CR per line is ignored, so a file converted to
 *       CRLF by an editor still parses to the same messages.</li>
 *   <li>A block a person wrote by hand ({@code ### user — <timestamp>} followed by plain lines, no
 *       comment, no fence) is accepted: it gets the next index and the id {@code hand-<index>}.</li>
 * </ul>
 */
public final class MemoryMdFormat {

    /** First line of a new file. */
    public static final String TITLE = "# Agent Memory";
    /** The heading after which blocks start. */
    public static final String LOG_HEADING = "## Interaction Log";
    /** Separator between role and timestamp in a block heading (an em dash between spaces). */
    public static final String DASH = " \u2014 ";
    /** Body of a system-message block whose message is kept in {@code system.jsonl}. */
    static final String SIDECAR_NOTE = "_System message kept out of this file (see system.jsonl)._";
    static final String SIDECAR = "system.jsonl";

    private static final String HEADER_COMMENT = "<!-- memory-pack ";
    private static final String ENTRY_COMMENT = "<!-- entry ";
    private static final String SUMMARY_COMMENT = "<!-- summary ";
    private static final String COMMENT_END = " -->";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    static {
        MAPPER.getFactory().setCharacterEscapes(new SafeEscapes());
        PRETTY.getFactory().setCharacterEscapes(new SafeEscapes());
    }

    private MemoryMdFormat() {
    }

    // ---------------------------------------------------------------- rendering

    /**
     * A whole file: header plus one block per entry, system messages inline. {@code created} goes
     * into the header; {@code nextIndex} is the index the next appended entry will get.
     */
    public static String render(Instant created, long nextIndex, List<Entry> entries) {
        StringBuilder out = new StringBuilder(header(created, nextIndex));
        for (Entry e : entries) {
            out.append(block(e, 1, true));
        }
        return out.toString();
    }

    /**
     * Parses a whole file written by {@link #render} (or by {@link MemoryMdSessionStore}) back into
     * its entries. Strict: any damage throws. System-message blocks whose message is kept in the
     * store's {@code system.jsonl} cannot be resolved from the file alone and throw as well.
     *
     * @throws MemoryMdFormatException naming the line that does not parse
     */
    public static List<Entry> parse(String text) {
        Parsed parsed = parse(text.getBytes(StandardCharsets.UTF_8), "MEMORY.md", false);
        if (parsed.tornAt() >= 0) {
            throw new MemoryMdFormatException("MEMORY.md", parsed.tornLine(), "incomplete block at end of file");
        }
        List<Entry> entries = new ArrayList<>();
        for (Block b : parsed.blocks()) {
            if (b.message() == null) {
                throw new MemoryMdFormatException("MEMORY.md", b.line(), "system message is kept in " + SIDECAR);
            }
            entries.add(b.toEntry(b.message()));
        }
        return entries;
    }

    static String header(Instant created, long nextIndex) {
        ObjectNode meta = MAPPER.createObjectNode().put("format", 1).put("next", nextIndex);
        return TITLE + "\n\nCreated: " + created + "\n\n" + HEADER_COMMENT + json(meta) + COMMENT_END + "\n\n"
                + LOG_HEADING + "\n\n";
    }

    /**
     * One block and its trailing blank line. {@code batchSize > 1} marks the first block of an
     * append batch, so a batch cut short by a crash is recognised and dropped as a whole.
     */
    static String block(Entry e, int batchSize, boolean systemInline) {
        ObjectNode meta = MAPPER.createObjectNode().put("index", e.index()).put("id", e.id()).put("tokens", e.tokenCount());
        e.idempotencyKey().ifPresent(k -> meta.put("key", k));
        if (!e.metadata().isEmpty()) {
            ObjectNode m = meta.putObject("meta");
            e.metadata().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(x -> m.put(x.getKey(), x.getValue()));
        }
        if (batchSize > 1) {
            meta.put("batch", batchSize);
        }
        ChatMessage message = e.message();
        boolean sidecar = message instanceof SystemMessage && !systemInline;
        if (sidecar) {
            meta.put("body", SIDECAR);
        }
        StringBuilder out = new StringBuilder(256);
        out.append("### ").append(role(message.type())).append(DASH).append(e.timestamp()).append('\n');
        out.append(ENTRY_COMMENT).append(json(meta)).append(COMMENT_END).append('\n');
        if (sidecar) {
            out.append(SIDECAR_NOTE).append('\n');
        } else {
            String text = plainText(message);
            if (text != null) {
                fence(out, "text", text);
            } else {
                fence(out, "json", prettyJson(EntryCodec.encodeMessage(message)));
            }
        }
        return out.append('\n').toString();
    }

    /** The block that opens a compacted file: the summary, with the log range it covers. */
    static String summaryBlock(Summary s) {
        ObjectNode meta = MAPPER.createObjectNode().put("covers", s.coveredUntil()).put("tokens", s.tokenCount());
        StringBuilder out = new StringBuilder(256);
        out.append("### summary").append(DASH).append(s.createdAt()).append('\n');
        out.append(SUMMARY_COMMENT).append(json(meta)).append(COMMENT_END).append('\n');
        String text = isSafeText(s.text()) ? s.text() : null;
        if (text != null) {
            fence(out, "text", text);
        } else {
            fence(out, "json", prettyJson(json(MAPPER.getNodeFactory().textNode(s.text()))));
        }
        return out.append('\n').toString();
    }

    /** The role word used in block headings for a message type. */
    public static String role(ChatMessageType type) {
        switch (type) {
            case SYSTEM: return "system";
            case USER: return "user";
            case AI: return "assistant";
            case TOOL_EXECUTION_RESULT: return "tool";
            default: return "custom";
        }
    }

    private static void fence(StringBuilder out, String info, String body) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < body.length(); i++) {
            run = body.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(Math.max(3, longest + 1));
        out.append(fence).append(info).append('\n').append(body).append('\n').append(fence).append('\n');
    }

    /** The text of a message that is exactly a plain text message of its role and safe verbatim, else null. */
    private static String plainText(ChatMessage message) {
        String text;
        ChatMessage plain;
        try {
            if (message instanceof UserMessage && ((UserMessage) message).hasSingleText()) {
                text = ((UserMessage) message).singleText();
                plain = UserMessage.from(text);
            } else if (message instanceof AiMessage && ((AiMessage) message).text() != null) {
                text = ((AiMessage) message).text();
                plain = AiMessage.from(text);
            } else if (message instanceof SystemMessage) {
                text = ((SystemMessage) message).text();
                plain = SystemMessage.from(text);
            } else {
                return null;
            }
        } catch (RuntimeException e) {
            return null;
        }
        return plain.equals(message) && isSafeText(text) ? text : null;
    }

    /** Text that survives a trip through a UTF-8, LF-split Markdown file unchanged. */
    static boolean isSafeText(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
                return false;
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    private static String json(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String prettyJson(String json) {
        try {
            return PRETTY.writeValueAsString(MAPPER.readTree(json));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Escapes {@code < > &} (so a comment never ends early) and every surrogate (so UTF-8 never mangles one). */
    private static final class SafeEscapes extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] ascii = standardAsciiEscapesForJSON();

        SafeEscapes() {
            ascii['<'] = ESCAPE_STANDARD;
            ascii['>'] = ESCAPE_STANDARD;
            ascii['&'] = ESCAPE_STANDARD;
            ascii[0x7F] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return ascii;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            if (ch >= 0xD800 && ch <= 0xDFFF) {
                return new SerializedString(String.format("\\u%04X", ch));
            }
            return null;
        }
    }

    // ---------------------------------------------------------------- parsing

    /** One parsed block; {@code message} is null for a system block kept in the sidecar. */
    record Block(long index, String id, Instant timestamp, int tokens, Map<String, String> metadata, String key,
                 ChatMessage message, int line, int batch) {
        Entry toEntry(ChatMessage resolved) {
            return new Entry(index, id, timestamp, tokens, resolved, metadata, key);
        }
    }

    /** A summary block found in the file. */
    record SummaryBlock(String text, long covers, Instant createdAt, int line) {
    }

    /**
     * What a parse found. {@code validEnd} is the byte offset just after the last complete block
     * (where the next append goes); {@code tornAt} is the offset of an incomplete tail left by an
     * interrupted write, or -1; {@code endsWithNewline} says whether {@code validEnd} is at a line start.
     */
    record Parsed(Instant created, long headerNext, List<Block> blocks, List<SummaryBlock> summaries,
                  long validEnd, long tornAt, int tornLine, boolean endsWithNewline, List<String> warnings) {

        long nextIndex() {
            long next = headerNext;
            if (!blocks.isEmpty()) {
                next = Math.max(next, blocks.get(blocks.size() - 1).index() + 1);
            }
            return next;
        }
    }

    /** One line of the file: its text without LF (and without one trailing CR), where it starts and ends. */
    private record Line(String text, int number, long start, long end, boolean terminated) {
    }

    /** Reads lines off the bytes; a line that is not valid UTF-8 is reported as damage. */
    private static final class Lines {
        private final byte[] bytes;
        private final String source;
        private int pos;
        private int number;
        private Line peeked;
        private Line lastConsumed;

        Lines(byte[] bytes, String source) {
            this.bytes = bytes;
            this.source = source;
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
                try {
                    text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT)
                            .decode(ByteBuffer.wrap(bytes, start, textEnd - start)).toString();
                } catch (CharacterCodingException e) {
                    if (terminated) {
                        throw new MemoryMdFormatException(source, number, "not valid UTF-8");
                    }
                    // the last line, cut inside a character by an interrupted write
                    text = new String(bytes, start, textEnd - start, StandardCharsets.UTF_8);
                }
                pos = terminated ? end + 1 : end;
                peeked = new Line(text, number, start, pos, terminated);
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


    }

    /** A block that does not parse; carries the line for the error and warning. */
    private static final class Damage extends Exception {
        private static final long serialVersionUID = 1L;
        final int line;

        Damage(int line, String message) {
            super(message, null, false, false);
            this.line = line;
        }
    }

    /** The block ran into the end of the file: an interrupted write. */
    private static final class Torn extends Exception {
        private static final long serialVersionUID = 1L;

        Torn() {
            super(null, null, false, false);
        }
    }

    /**
     * Parses a file. Lenient: a damaged block is skipped with a warning naming its line and parsing
     * goes on at the next block heading; strict: it throws. In both modes an incomplete block (or
     * batch) at the very end is reported through {@code tornAt}, not as damage.
     */
    static Parsed parse(byte[] bytes, String source, boolean lenient) {
        Lines lines = new Lines(bytes, source);
        Instant created = null;
        long headerNext = 0;
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
            } else if (t.startsWith(HEADER_COMMENT) && t.endsWith(COMMENT_END)) {
                try {
                    JsonNode meta = MAPPER.readTree(t.substring(HEADER_COMMENT.length(), t.length() - COMMENT_END.length()));
                    headerNext = meta.path("next").asLong(0);
                } catch (IOException e) {
                    throw new MemoryMdFormatException(source, line.number(), "unreadable memory-pack header comment");
                }
            }
        }
        if (!sawHeading) {
            throw new MemoryMdFormatException(source, Math.max(1, lines.number),
                    "no '" + LOG_HEADING + "' heading (is this a MEMORY.md file?)");
        }
        List<Block> blocks = new ArrayList<>();
        List<SummaryBlock> summaries = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        long validEnd = line.end();
        boolean endsWithNewline = line.terminated();
        long tornAt = -1;
        int tornLine = -1;
        List<Block> batch = new ArrayList<>();
        int batchSize = 0;
        long batchStart = -1;
        int batchLine = -1;
        long lastIndex = -1;
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
                Object parsed = parseBlock(lines, lastIndex);
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
                warnings.add(source + ", line " + damage.line + ": " + damage.getMessage() + " (block skipped)");
                skipToNextHeading(lines);
                // a damaged block inside a batch breaks the batch: keep the complete blocks read so far
                blocks.addAll(batch);
                batch.clear();
                Line next = lines.peek();
                validEnd = next == null ? bytes.length : next.start();
                endsWithNewline = validEnd == 0 || bytes[(int) validEnd - 1] == '\n';
            }
        }
        if (!batch.isEmpty()) {
            tornAt = batchStart;
            tornLine = batchLine;
        }
        return new Parsed(created == null ? Instant.EPOCH : created, headerNext, blocks, summaries, validEnd,
                tornAt, tornLine, endsWithNewline, warnings);
    }

    private static void skipToNextHeading(Lines lines) {
        Line line;
        while ((line = lines.peek()) != null && !line.text().startsWith("### ")) {
            lines.next();
        }
    }

    private static Object parseBlock(Lines lines, long lastIndex) throws Damage, Torn {
        Line heading = lines.next();
        if (!heading.terminated()) {
            throw new Torn();
        }
        String h = heading.text();
        int dash = h.indexOf(DASH);
        if (!h.startsWith("### ") || dash < 0) {
            throw new Damage(heading.number(), "expected a block heading '### <role>" + DASH + "<timestamp>'");
        }
        String role = h.substring(4, dash).trim().toLowerCase(Locale.ROOT);
        Instant timestamp;
        try {
            timestamp = Instant.parse(h.substring(dash + DASH.length()).trim());
        } catch (DateTimeParseException e) {
            if (!heading.terminated()) {
                throw new Torn();
            }
            throw new Damage(heading.number(), "timestamp is not ISO-8601: '" + h.substring(dash + DASH.length()) + "'");
        }
        Line commentLine = lines.peek();
        if (commentLine == null) {
            throw new Torn();
        }
        String c = commentLine.text();
        if (!commentLine.terminated() && (c.startsWith("<!--") || "<!--".startsWith(c))) {
            throw new Torn();
        }
        if (c.startsWith(ENTRY_COMMENT) || c.startsWith(SUMMARY_COMMENT)) {
            lines.next();
            boolean summary = c.startsWith(SUMMARY_COMMENT);
            if (!c.endsWith(COMMENT_END) || !commentLine.terminated()) {
                if (!commentLine.terminated()) {
                    throw new Torn();
                }
                throw new Damage(commentLine.number(), "comment does not end with '-->'");
            }
            JsonNode meta;
            try {
                meta = MAPPER.readTree(c.substring((summary ? SUMMARY_COMMENT : ENTRY_COMMENT).length(),
                        c.length() - COMMENT_END.length()));
            } catch (IOException e) {
                throw new Damage(commentLine.number(), "comment is not valid JSON");
            }
            if (summary) {
                if (!role.equals("summary")) {
                    throw new Damage(heading.number(), "summary comment under a '" + role + "' heading");
                }
                String body = fencedBody(lines, commentLine);
                return new SummaryBlock(body, meta.path("covers").asLong(0), timestamp, heading.number());
            }
            return entryBlock(lines, heading, commentLine, role, timestamp, meta, lastIndex);
        }
        return handWrittenBlock(lines, heading, role, timestamp, lastIndex);
    }

    private static Block entryBlock(Lines lines, Line heading, Line commentLine, String role, Instant timestamp,
                                    JsonNode meta, long lastIndex) throws Damage, Torn {
        JsonNode index = meta.get("index");
        JsonNode id = meta.get("id");
        if (index == null || !index.canConvertToLong() || id == null || !id.isTextual()) {
            throw new Damage(commentLine.number(), "entry comment needs \"index\" and \"id\"");
        }
        if (index.asLong() <= lastIndex) {
            throw new Damage(commentLine.number(), "index " + index.asLong() + " is not after the previous index "
                    + lastIndex);
        }
        int tokens = meta.path("tokens").asInt(Entry.UNKNOWN_TOKENS);
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = meta.path("meta").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            metadata.put(f.getKey(), f.getValue().asText());
        }
        JsonNode key = meta.get("key");
        ChatMessage message = null;
        if (SIDECAR.equals(meta.path("body").asText(null))) {
            if (!role.equals("system")) {
                throw new Damage(heading.number(), "only system messages are kept in " + SIDECAR);
            }
            Line note = lines.next();
            if (note == null || !note.terminated()) {
                throw new Torn();
            }
            if (!note.text().equals(SIDECAR_NOTE)) {
                throw new Damage(note.number(), "expected '" + SIDECAR_NOTE + "'");
            }
        } else {
            message = bodyMessage(lines, commentLine, role);
        }
        return new Block(index.asLong(), id.asText(), timestamp, tokens, metadata,
                key == null || key.isNull() ? null : key.asText(), message, heading.number(),
                meta.path("batch").asInt(1));
    }

    private static Block handWrittenBlock(Lines lines, Line heading, String role, Instant timestamp, long lastIndex)
            throws Damage, Torn {
        List<String> body = new ArrayList<>();
        Line line;
        while ((line = lines.peek()) != null && !line.text().startsWith("### ")) {
            body.add(lines.next().text());
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
            throw new Damage(heading.number(), "block has no content");
        }
        String text = String.join("\n", body);
        ChatMessage message;
        switch (role) {
            case "user": case "human": message = UserMessage.from(text); break;
            case "assistant": case "ai": message = AiMessage.from(text); break;
            case "system": message = SystemMessage.from(text); break;
            default: throw new Damage(heading.number(), "unknown role '" + role + "' (use user, assistant or system)");
        }
        long index = lastIndex + 1;
        return new Block(index, "hand-" + index, timestamp, Entry.UNKNOWN_TOKENS, Map.of(), null, message,
                heading.number(), 1);
    }

    private static ChatMessage bodyMessage(Lines lines, Line commentLine, String role) throws Damage, Torn {
        Line open = lines.peek();
        if (open == null) {
            throw new Torn();
        }
        String info = fenceInfo(open.text());
        String body = fencedBody(lines, commentLine);
        ChatMessage message;
        if ("text".equals(info)) {
            switch (role) {
                case "user": message = UserMessage.from(body); break;
                case "assistant": message = AiMessage.from(body); break;
                case "system":
                    if (body.trim().isEmpty()) {
                        throw new Damage(open.number(), "system message is blank");
                    }
                    message = SystemMessage.from(body);
                    break;
                default: throw new Damage(open.number(), "a '" + role + "' message must be a json block");
            }
        } else {
            try {
                message = EntryCodec.decodeMessage(body);
            } catch (RuntimeException e) {
                throw new Damage(open.number() + 1, "message JSON does not parse: " + e.getMessage());
            }
            if (message == null || !role(message.type()).equals(role)) {
                throw new Damage(open.number(), "message type does not match the heading role '" + role + "'");
            }
        }
        return message;
    }

    private static String fenceInfo(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == '`') {
            n++;
        }
        return n >= 3 ? line.substring(n) : null;
    }

    /** Reads a fenced body (opening fence through closing fence) and returns its text. */
    private static String fencedBody(Lines lines, Line before) throws Damage, Torn {
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
            if (line.text().equals(fence)) {
                String text = body.toString();
                return "json".equals(info) && before.text().startsWith(SUMMARY_COMMENT) ? jsonString(text, open) : text;
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
            throw new Damage(open.number(), "code fence opened here is never closed");
        }
        throw new Torn();
    }

    private static String jsonString(String json, Line open) throws Damage {
        try {
            return MAPPER.readTree(json).textValue();
        } catch (IOException e) {
            throw new Damage(open.number() + 1, "summary JSON does not parse");
        }
    }
}
