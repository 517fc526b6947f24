package io.github.memorypack.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.SystemMessage;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The JSON forms of entries, states and messages that Memory Pack's persistent stores write, for
 * anyone implementing a {@link SessionStore}. A message is embedded as the JSON object LangChain4j's
 * {@link ChatMessageSerializer} writes, so stored data stays readable by LangChain4j's own tools.
 *
 * <p>Rules: every encoded form is a single line (JSON escapes every line break) and round-trips its
 * text exactly, whatever it holds: NUL, CR, characters of every Unicode plane and even lone
 * surrogates, which are written as JSON u-escapes (backslash, u, four hex digits) so that the form
 * is always well-formed UTF-16 and survives conversion to UTF-8. {@link #checksum} gives the CRC32C that stores keep with
 * each record so damage is detected instead of read as different content.
 *
 * <p>Stateless and thread-safe.
 */
public final class EntryCodec {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory FACTORY = MAPPER.getFactory();

    private EntryCodec() {
    }

    /**
     * One line of JSON, no line break at the end.
     *
     * @param entry the entry
     * @return one line of JSON, no line break at the end
     */
    public static String encodeEntry(Entry entry) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("index", entry.index());
            g.writeStringField("id", entry.id());
            g.writeStringField("ts", entry.timestamp().toString());
            g.writeNumberField("tokens", entry.tokenCount());
            if (entry.idempotencyKey().isPresent()) {
                g.writeStringField("key", entry.idempotencyKey().get());
            }
            if (!entry.metadata().isEmpty()) {
                g.writeObjectFieldStart("meta");
                for (Map.Entry<String, String> m : entry.metadata().entrySet()) {
                    g.writeStringField(m.getKey(), m.getValue());
                }
                g.writeEndObject();
            }
            g.writeFieldName("message");
            g.writeRawValue(ChatMessageSerializer.messageToJson(entry.message()));
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return exact(out.toString());
    }

    /**
     * Decodes a line written by {@link #encodeEntry}.
     *
     * @param json a line written by {@link #encodeEntry}
     * @return the entry
     * @throws IllegalArgumentException if the text is not a complete, valid entry
     */
    public static Entry decodeEntry(String json) {
        try {
            JsonNode node = MAPPER.readTree(json);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("not a JSON object");
            }
            JsonNode key = node.get("key");
            return new Entry(
                    required(node, "index").asLong(),
                    required(node, "id").asText(),
                    Instant.parse(required(node, "ts").asText()),
                    required(node, "tokens").asInt(),
                    decodeMessage(required(node, "message")),
                    stringMap(node.get("meta")),
                    key == null || key.isNull() ? null : key.asText());
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("invalid entry: " + e.getMessage(), e);
        }
    }

    /**
     * The state as one line of JSON, no line break at the end.
     *
     * @param state the state
     * @return the state as one line of JSON, no line break at the end
     */
    public static String encodeState(SessionState state) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("version", state.version());
            if (state.systemMessage().isPresent()) {
                g.writeFieldName("system");
                g.writeRawValue(ChatMessageSerializer.messageToJson(state.systemMessage().get()));
            }
            if (state.summary().isPresent()) {
                Summary s = state.summary().get();
                g.writeObjectFieldStart("summary");
                g.writeStringField("text", s.text());
                g.writeNumberField("coveredUntil", s.coveredUntil());
                g.writeNumberField("tokens", s.tokenCount());
                g.writeStringField("createdAt", s.createdAt().toString());
                g.writeEndObject();
            }
            if (!state.attributes().isEmpty()) {
                g.writeObjectFieldStart("attributes");
                for (Map.Entry<String, String> a : state.attributes().entrySet()) {
                    g.writeStringField(a.getKey(), a.getValue());
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return exact(out.toString());
    }

    /**
     * Decodes a state written by {@link #encodeState}.
     *
     * @param json a line written by {@link #encodeState}
     * @return the state
     * @throws IllegalArgumentException if the text is not a valid state
     */
    public static SessionState decodeState(String json) {
        try {
            JsonNode node = MAPPER.readTree(json);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("not a JSON object");
            }
            JsonNode system = node.get("system");
            JsonNode summary = node.get("summary");
            return new SessionState(
                    required(node, "version").asLong(),
                    system == null ? null : (SystemMessage) decodeMessage(system),
                    summary == null ? null : new Summary(
                            required(summary, "text").asText(),
                            required(summary, "coveredUntil").asLong(),
                            required(summary, "tokens").asInt(),
                            Instant.parse(required(summary, "createdAt").asText())),
                    stringMap(node.get("attributes")));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("invalid state: " + e.getMessage(), e);
        }
    }

    /**
     * LangChain4j's JSON for one message, on one line, with lone surrogates escaped.
     *
     * @param message the message
     * @return the JSON, on one line
     */
    public static String encodeMessage(ChatMessage message) {
        return exact(ChatMessageSerializer.messageToJson(message));
    }

    /**
     * The CRC32C of the UTF-8 bytes of {@code text}, as 8 lower-case hex digits. Stores keep it with
     * each record and compare it on read. {@code text} should be an encoded form from this class, so
     * that it holds no lone surrogate (which UTF-8 cannot carry).
     *
     * @param text the exact text of a record
     * @return the CRC32C of the UTF-8 bytes of {@code text}, as 8 lower-case hex digits
     */
    public static String checksum(String text) {
        CRC32C crc = new CRC32C();
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        crc.update(bytes, 0, bytes.length);
        String hex = Long.toHexString(crc.getValue());
        return "00000000".substring(hex.length()) + hex;
    }

    /**
     * {@code json} with every lone surrogate written as a JSON u-escape. A surrogate can only
     * stand inside a JSON string here, where the escape means the same character; a JSON parser
     * gives it back as it was. Returns {@code json} itself when it has none (the usual case).
     */
    static String exact(String json) {
        int length = json.length();
        StringBuilder out = null;
        for (int i = 0; i < length; i++) {
            char c = json.charAt(i);
            if (!Character.isSurrogate(c)) {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(json.charAt(i + 1))) {
                if (out != null) {
                    out.append(c).append(json.charAt(i + 1));
                }
                i++;
                continue;
            }
            if (out == null) {
                out = new StringBuilder(length + 16).append(json, 0, i);
            }
            out.append(String.format("\\u%04x", (int) c));
        }
        return out == null ? json : out.toString();
    }

    /**
     * Decodes LangChain4j's JSON for one message.
     *
     * @param json LangChain4j's JSON for one message
     * @return the message
     */
    public static ChatMessage decodeMessage(String json) {
        return ChatMessageDeserializer.messageFromJson(json);
    }

    private static ChatMessage decodeMessage(JsonNode node) {
        return ChatMessageDeserializer.messageFromJson(node.toString());
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("missing field '" + field + "'");
        }
        return value;
    }

    private static Map<String, String> stringMap(JsonNode node) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            map.put(field.getKey(), field.getValue().asText());
        }
        return map;
    }
}
