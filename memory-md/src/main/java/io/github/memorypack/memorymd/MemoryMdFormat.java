package io.github.memorypack.memorymd;

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
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.Summary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The {@code MEMORY.md} file format: renders entries to Markdown, and names what a parse finds
 * ({@link Block}, {@link SummaryBlock}, {@link Parsed}); {@link MemoryMdParser} reads them back exactly.
 *
 * <pre>
 * # Agent Memory
 *
 * Created: 2026-11-29T14:23:54Z
 *
 * &lt;!-- memory-pack {"format":2,"next":0} crc32c=5d1c0e0a --&gt;
 *
 * ## Interaction Log
 *
 * ### user — 2026-11-29T14:24:00.123Z
 * &lt;!-- entry {"index":0,"id":"…","tokens":7,"len":19} crc32c=0b6e39d2 --&gt;
 * ```text
 * Hello
 * ```
 * </pre>
 *
 * <p>Rules that make the file safe to parse whatever the messages say (format 2):
 * <ul>
 *   <li>Each block's marker comment gives the length of its body (in UTF-8 bytes, lines ending in
 *       LF) and a CRC32C of the whole block: heading, marker (without the checksum itself) and body.
 *       The body is read by its length, never searched for the next heading, so no message text can
 *       start, end or change a block; a block whose checksum does not match is damage — reported and
 *       set aside, never read as a different message or role. A block cut short by an interrupted
 *       write (the file ends before the length) is a torn tail.</li>
 *   <li>Every body sits in a code fence longer than any backtick run in it, and a line of a plain
 *       text body that starts with {@code #}, {@code <!--} or a backslash gets a backslash in front
 *       (removed on reading), so no line inside a body looks like a block heading or a marker even to
 *       a person or a Markdown renderer.</li>
 *   <li>A plain user, assistant or system text is written as it is ({@code text} fence). Anything
 *       else — tool calls and results, names, attributes, images, thinking, custom messages, and text
 *       containing carriage returns, control characters or unpaired surrogates — is written as
 *       LangChain4j's own message JSON ({@code json} fence) with those characters escaped, so every
 *       text round-trips exactly.</li>
 *   <li>Entry facts (index, id, tokens, idempotency key, metadata, batch size, body length) live in a
 *       one-line HTML comment whose JSON escapes {@code < > &}, so it can never end early.</li>
 *   <li>Lines are split on LF only; one trailing CR per line is ignored (also by the checksum), so a
 *       file converted to CRLF by an editor still parses to the same messages.</li>
 * </ul>
 *
 * <p>Files of format 1 (before checksums) and files written by hand are still read: there a block
 * {@code ### user — <timestamp>} followed by plain lines (no comment, no fence) is a hand-written
 * message that gets the next index and the id {@code hand-<index>}. {@link MemoryMdSessionStore}
 * rewrites such a file in format 2 before it first writes to it. A format 2 file holds only
 * checksummed blocks.
 */
final class MemoryMdFormat {

    /** First line of a new file. */
    static final String TITLE = "# Agent Memory";
    /** The heading after which blocks start. */
    static final String LOG_HEADING = "## Interaction Log";
    /** Separator between role and timestamp in a block heading (an em dash between spaces). */
    static final String DASH = " \u2014 ";
    /** Body of a system-message block whose message is kept in {@code system.jsonl}. */
    static final String SIDECAR_NOTE = "_System message kept out of this file (see system.jsonl)._";
    static final String SIDECAR = "system.jsonl";
    /** The format this class writes. */
    static final int FORMAT = 2;

    static final String HEADER_COMMENT = "<!-- memory-pack ";
    static final String ENTRY_COMMENT = "<!-- entry ";
    static final String SUMMARY_COMMENT = "<!-- summary ";
    static final String COMMENT_END = " -->";
    static final String CRC = " crc32c=";
    static final int CRC_TAIL = CRC.length() + 8 + COMMENT_END.length(); // " crc32c=xxxxxxxx -->"
    static final ObjectMapper MAPPER = new ObjectMapper();
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
    static String render(Instant created, long nextIndex, List<Entry> entries) {
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
    static List<Entry> parse(String text) {
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
        ObjectNode meta = MAPPER.createObjectNode().put("format", FORMAT).put("next", nextIndex);
        return TITLE + "\n\nCreated: " + created + "\n\n" + sealed(HEADER_COMMENT + json(meta) + COMMENT_END, "")
                + "\n\n" + LOG_HEADING + "\n\n";
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
        String body;
        if (sidecar) {
            meta.put("body", SIDECAR);
            body = SIDECAR_NOTE + "\n";
        } else {
            String text = plainText(message);
            body = text != null ? fence("text", escapeLines(text)) : fence("json", prettyJson(EntryCodec.encodeMessage(message)));
        }
        return sealedBlock("### " + role(message.type()) + DASH + e.timestamp(), ENTRY_COMMENT, meta, body);
    }

    /** The block that opens a compacted file: the summary, with the log range it covers. */
    static String summaryBlock(Summary s) {
        ObjectNode meta = MAPPER.createObjectNode().put("covers", s.coveredUntil()).put("tokens", s.tokenCount());
        String body = isSafeText(s.text()) ? fence("text", escapeLines(s.text()))
                : fence("json", prettyJson(json(MAPPER.getNodeFactory().textNode(s.text()))));
        return sealedBlock("### summary" + DASH + s.createdAt(), SUMMARY_COMMENT, meta, body);
    }

    /** Heading, marker (with the body's length and the block's checksum), body, blank line. */
    private static String sealedBlock(String heading, String comment, ObjectNode meta, String body) {
        meta.put("len", body.getBytes(StandardCharsets.UTF_8).length);
        String marker = comment + json(meta) + COMMENT_END;
        return heading + "\n" + sealed(marker, heading + "\n", body) + "\n" + body + "\n";
    }

    /**
     * {@code comment} (ending in {@code " -->"}) with the CRC32C of {@code before + comment + "\n" + after}
     * put in front of its end.
     */
    private static String sealed(String comment, String before, String... after) {
        StringBuilder covered = new StringBuilder(before).append(comment).append('\n');
        for (String a : after) {
            covered.append(a);
        }
        return comment.substring(0, comment.length() - COMMENT_END.length()) + CRC + EntryCodec.checksum(covered.toString())
                + COMMENT_END;
    }

    /** The role word used in block headings for a message type. */
    static String role(ChatMessageType type) {
        switch (type) {
            case SYSTEM: return "system";
            case USER: return "user";
            case AI: return "assistant";
            case TOOL_EXECUTION_RESULT: return "tool";
            default: return "custom";
        }
    }

    /** {@code body} in a fence longer than any backtick run in it, each line ending in LF. */
    private static String fence(String info, String body) {
        int longest = 0;
        int run = 0;
        for (int i = 0; i < body.length(); i++) {
            run = body.charAt(i) == '`' ? run + 1 : 0;
            longest = Math.max(longest, run);
        }
        String fence = "`".repeat(Math.max(3, longest + 1));
        return fence + info + "\n" + body + "\n" + fence + "\n";
    }

    /** A backslash in front of every line that starts with {@code #}, {@code <!--} or a backslash. */
    static String escapeLines(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        int start = 0;
        while (true) {
            int end = text.indexOf('\n', start);
            String line = end < 0 ? text.substring(start) : text.substring(start, end);
            if (line.startsWith("#") || line.startsWith("<!--") || line.startsWith("\\")) {
                out.append('\\');
            }
            out.append(line);
            if (end < 0) {
                return out.toString();
            }
            out.append('\n');
            start = end + 1;
        }
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

    // ---------------------------------------------------------------- what a parse finds

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
     * interrupted write, or -1; {@code endsWithNewline} says whether {@code validEnd} is at a line start;
     * {@code format} is the header's format (1 for a file without a format 2 header).
     */
    record Parsed(Instant created, long headerNext, List<Block> blocks, List<SummaryBlock> summaries,
                  long validEnd, long tornAt, int tornLine, boolean endsWithNewline, List<String> warnings, int format,
                  long setAsideNext) {

        /**
         * The index the next appended entry will get: past the header's counter, the last block, and
         * every index a block set aside claims (unverified, so it may only raise the counter: an index
         * is never given twice, also once the user repairs the block).
         */
        long nextIndex() {
            long next = Math.max(headerNext, setAsideNext);
            if (!blocks.isEmpty()) {
                next = Math.max(next, blocks.get(blocks.size() - 1).index() + 1);
            }
            return next;
        }
    }

    /**
     * Parses a file. Lenient: a damaged block is skipped with a warning naming its line and parsing
     * goes on at the next block heading; strict: it throws. In both modes an incomplete block (or
     * batch) at the very end is reported through {@code tornAt}, not as damage. See {@link MemoryMdParser}.
     */
    static Parsed parse(byte[] bytes, String source, boolean lenient) {
        return MemoryMdParser.parse(bytes, source, lenient);
    }
}
