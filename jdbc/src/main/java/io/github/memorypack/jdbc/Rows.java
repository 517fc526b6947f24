package io.github.memorypack.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.github.memorypack.core.CorruptRecordException;
import io.github.memorypack.core.Entry;
import io.github.memorypack.core.EntryCodec;
import io.github.memorypack.core.NewEntry;
import java.io.UncheckedIOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The text forms of the columns the store writes, and the checksum that covers them.
 *
 * <p>Every column of an entry row that is read back is covered by the row's checksum: the CRC32C
 * ({@link EntryCodec#checksum}) of the columns' exact stored texts joined by line breaks, in a fixed
 * order, the idempotency key last (only it can hold a line break; the JSON columns never do). A row
 * edited by hand, moved to another session or index, or damaged on disk no longer matches.
 *
 * <p>Text must reach the database exactly: PostgreSQL's {@code text} cannot hold NUL, and no UTF-8
 * column can hold a lone surrogate (a driver would silently turn it into {@code ?}). The message
 * comes from {@link EntryCodec}, which already escapes both inside its JSON; metadata is written as
 * JSON with every non-ASCII character escaped; an idempotency key is escaped with
 * {@link #escapeKey} when (rarely) it needs to be.
 */
final class Rows {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    // ASCII only: lone surrogates become u-escapes, NUL and line breaks are escaped by JSON itself
    private static final ObjectWriter METADATA_WRITER = MAPPER.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
    private static final TypeReference<Map<String, String>> STRING_MAP = new TypeReference<>() {
    };

    private Rows() {
    }

    /**
     * Decodes the entry row at the result set's cursor (columns in {@link Sql#ENTRY_COLUMNS} order),
     * after checking its checksum.
     *
     * @throws CorruptRecordException if the checksum does not match or the row cannot be decoded
     */
    static Entry decodeEntry(ResultSet rs, String sessionId, String table) throws SQLException {
        long index = rs.getLong(1);
        String location = "table " + table + ", session '" + sessionId + "', index " + index;
        UUID id = rs.getObject(2, UUID.class);
        OffsetDateTime created = rs.getObject(3, OffsetDateTime.class);
        int tokenCount = rs.getInt(4);
        String storedKey = rs.getString(5);
        String metadata = rs.getString(6);
        String message = rs.getString(7);
        String checksum = rs.getString(8);
        if (id == null || created == null || message == null) {
            throw new CorruptRecordException(location, "a required column is null", null);
        }
        Instant timestamp = created.toInstant();
        String computed = entryChecksum(sessionId, index, id.toString(), timestamp.toString(), tokenCount, metadata,
                message, storedKey);
        if (!computed.equals(checksum)) {
            throw new CorruptRecordException(location,
                    "checksum mismatch (stored " + checksum + ", computed " + computed + ")", null);
        }
        try {
            return new Entry(index, id.toString(), timestamp, tokenCount, EntryCodec.decodeMessage(message),
                    decodeMetadata(metadata), unescapeKey(storedKey));
        } catch (RuntimeException e) {
            throw new CorruptRecordException(location, "undecodable row: " + e.getMessage(), e);
        }
    }

    /**
     * The new entries of one append or replace, encoded once, outside the transaction; only the
     * indices (and so the checksums) wait for the transaction to reserve them.
     */
    static final class Batch {
        private final String sessionId;
        private final List<NewEntry> entries;
        private final Instant timestamp;
        private final String timestampText;
        private final OffsetDateTime timestampValue;
        private final String key;
        private final String storedKey;
        private final String[] ids;
        private final String[] metadata;
        private final String[] messages;

        Batch(String sessionId, List<NewEntry> entries, Instant timestamp, String key) {
            this.sessionId = sessionId;
            this.entries = entries;
            this.timestamp = timestamp;
            this.timestampText = timestamp.toString();
            this.timestampValue = OffsetDateTime.ofInstant(timestamp, java.time.ZoneOffset.UTC);
            this.key = key;
            this.storedKey = escapeKey(key);
            int n = entries.size();
            ids = new String[n];
            metadata = new String[n];
            messages = new String[n];
            for (int i = 0; i < n; i++) {
                NewEntry e = entries.get(i);
                ids[i] = Entry.newId();
                metadata[i] = encodeMetadata(e.metadata());
                messages[i] = EntryCodec.encodeMessage(e.message());
            }
        }

        int size() {
            return entries.size();
        }

        String sessionId() {
            return sessionId;
        }

        String storedKey() {
            return storedKey;
        }

        /** The id of the batch's first entry: random, so it tells whether this very batch was stored. */
        String firstId() {
            return ids[0];
        }

        /** Binds entry {@code i} at {@code index} to parameters 1–9; returns the next parameter number. */
        int bind(PreparedStatement ps, int i, long index) throws SQLException {
            ps.setString(1, sessionId);
            ps.setLong(2, index);
            ps.setObject(3, UUID.fromString(ids[i]));
            ps.setObject(4, timestampValue);
            ps.setInt(5, entries.get(i).tokenCount());
            ps.setString(6, storedKey);
            ps.setString(7, metadata[i]);
            ps.setString(8, messages[i]);
            ps.setString(9, entryChecksum(sessionId, index, ids[i], timestampText, entries.get(i).tokenCount(),
                    metadata[i], messages[i], storedKey));
            return 10;
        }

        /** The entries as stored at indices {@code first…}. */
        List<Entry> entries(long first) {
            List<Entry> stored = new ArrayList<>(entries.size());
            for (int i = 0; i < entries.size(); i++) {
                NewEntry e = entries.get(i);
                stored.add(new Entry(first + i, ids[i], timestamp, e.tokenCount(), e.message(), e.metadata(), key));
            }
            return Collections.unmodifiableList(stored);
        }
    }

    /** The checksum of an entry row's columns, in their stored text forms. */
    static String entryChecksum(String sessionId, long index, String id, String timestamp, int tokenCount,
                                String metadata, String message, String storedKey) {
        StringBuilder text = new StringBuilder(message.length() + 128)
                .append(sessionId).append('\n')
                .append(index).append('\n')
                .append(id).append('\n')
                .append(timestamp).append('\n')
                .append(tokenCount).append('\n')
                .append(metadata == null ? "" : metadata).append('\n')
                .append(message);
        if (storedKey != null) {
            text.append('\n').append(storedKey);
        }
        return EntryCodec.checksum(text.toString());
    }

    /** The checksum of a session's state columns. */
    static String stateChecksum(String sessionId, long version, String state) {
        return EntryCodec.checksum(sessionId + '\n' + version + '\n' + state);
    }

    /** Metadata as a one-line, ASCII-only JSON object; {@code null} when there is none. */
    static String encodeMetadata(Map<String, String> metadata) {
        if (metadata.isEmpty()) {
            return null;
        }
        try {
            return METADATA_WRITER.writeValueAsString(metadata);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Decodes what {@link #encodeMetadata} wrote.
     *
     * @throws IllegalArgumentException if it is not a JSON object of strings
     */
    static Map<String, String> decodeMetadata(String json) {
        if (json == null) {
            return Map.of();
        }
        try {
            Map<String, String> map = MAPPER.readValue(json, STRING_MAP);
            if (map == null) {
                throw new IllegalArgumentException("metadata is JSON null");
            }
            return map;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("invalid metadata: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * The key as stored: the key itself unless it holds a backslash, NUL or a lone surrogate; then
     * backslashes are doubled and NUL and lone surrogates become backslash-u escapes, so the stored
     * text is valid in any text column and {@link #unescapeKey} gives the key back exactly.
     */
    static String escapeKey(String key) {
        if (key == null || !needsEscape(key)) {
            return key;
        }
        StringBuilder out = new StringBuilder(key.length() + 16);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == 0 || isLoneSurrogate(key, i)) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * The key {@link #escapeKey} was given.
     *
     * @throws IllegalArgumentException if the text is not something {@code escapeKey} writes
     */
    static String unescapeKey(String stored) {
        if (stored == null || stored.indexOf('\\') < 0) {
            return stored;
        }
        StringBuilder out = new StringBuilder(stored.length());
        for (int i = 0; i < stored.length(); i++) {
            char c = stored.charAt(i);
            if (c != '\\') {
                out.append(c);
            } else if (i + 1 < stored.length() && stored.charAt(i + 1) == '\\') {
                out.append('\\');
                i++;
            } else if (i + 5 < stored.length() && stored.charAt(i + 1) == 'u') {
                out.append((char) Integer.parseInt(stored.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                throw new IllegalArgumentException("bad escape in stored idempotency key at position " + i);
            }
        }
        return out.toString();
    }

    private static boolean needsEscape(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '\\' || c == 0 || isLoneSurrogate(key, i)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLoneSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }
}
