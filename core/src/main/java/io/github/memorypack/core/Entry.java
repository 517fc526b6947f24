package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One message in a session log, with what was learned about it once, at append time: its index
 * in the log (0, 1, 2, … — never reused, stable across trims), a stable id, the append timestamp,
 * its token count and its metadata. Immutable.
 */
public final class Entry {

    /** Token count of an entry whose count was not computed at append time. */
    public static final int UNKNOWN_TOKENS = -1;

    private final long index;
    // either given, or formatted on first use from idHigh/idLow (see the package-private constructor)
    private String id;
    private final long idHigh;
    private final long idLow;
    private final Instant timestamp;
    private final int tokenCount;
    private final ChatMessage message;
    private final Map<String, String> metadata;
    private final String idempotencyKey;

    /**
     * Creates an entry. Stores call this when they append or decode; applications normally only
     * read entries.
     *
     * @param index the position in the session log (at least 0)
     * @param id the entry's stable, unique id
     * @param timestamp when the entry was appended
     * @param tokenCount the token count (at least 0), or {@link #UNKNOWN_TOKENS}
     * @param message the message
     * @param metadata the metadata, copied; {@code null} or empty for none
     * @param idempotencyKey the idempotency key of the append that stored it, or {@code null}
     */
    public Entry(long index, String id, Instant timestamp, int tokenCount, ChatMessage message,
                 Map<String, String> metadata, String idempotencyKey) {
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, was " + index);
        }
        if (tokenCount < UNKNOWN_TOKENS) {
            throw new IllegalArgumentException("tokenCount must be >= 0 or UNKNOWN_TOKENS, was " + tokenCount);
        }
        this.index = index;
        this.id = Objects.requireNonNull(id, "id");
        this.idHigh = 0;
        this.idLow = 0;
        this.timestamp = Objects.requireNonNull(timestamp, "timestamp");
        this.tokenCount = tokenCount;
        this.message = Objects.requireNonNull(message, "message");
        this.metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
        this.idempotencyKey = idempotencyKey;
    }

    /**
     * An entry whose id is the random UUID with bits {@code idHigh} and {@code idLow}, formatted only
     * when {@link #id()} is first called: an in-memory store appends far more entries than anyone
     * asks the id of. {@code tokenCount} and {@code metadata} come from a {@link NewEntry}, which
     * already checked and copied them.
     */
    Entry(long index, long idHigh, long idLow, Instant timestamp, NewEntry entry, String idempotencyKey) {
        this.index = index;
        this.idHigh = idHigh;
        this.idLow = idLow;
        this.timestamp = timestamp;
        this.tokenCount = entry.tokenCount();
        this.message = entry.message();
        this.metadata = entry.metadata();
        this.idempotencyKey = idempotencyKey;
    }

    /**
     * A new random entry id (a version-4 UUID in its usual text form), for stores that create
     * entries on append.
     *
     * @return a new id
     */
    public static String newId() {
        return Ids.newId();
    }

    /**
     * Position in the session log, starting at 0.
     *
     * @return position in the session log, starting at 0
     */
    public long index() {
        return index;
    }

    /**
     * Stable, unique id assigned at append time.
     *
     * @return stable, unique id assigned at append time
     */
    public String id() {
        String formatted = id;
        if (formatted == null) {
            // a race formats the same text twice, harmlessly: Strings are safely published
            formatted = Ids.uuid(idHigh, idLow);
            id = formatted;
        }
        return formatted;
    }

    /**
     * When the entry was appended (the store's clock).
     *
     * @return when the entry was appended (the store's clock)
     */
    public Instant timestamp() {
        return timestamp;
    }

    /**
     * Token count computed at append time, or {@link #UNKNOWN_TOKENS}.
     *
     * @return token count computed at append time, or {@link #UNKNOWN_TOKENS}
     */
    public int tokenCount() {
        return tokenCount;
    }

    /**
     * True if {@link #tokenCount()} is known.
     *
     * @return true if {@link #tokenCount()} is known
     */
    public boolean hasTokenCount() {
        return tokenCount != UNKNOWN_TOKENS;
    }

    /**
     * The message, exactly as it was appended.
     *
     * @return the message
     */
    public ChatMessage message() {
        return message;
    }

    /**
     * Immutable metadata; empty when none.
     *
     * @return immutable metadata; empty when none
     */
    public Map<String, String> metadata() {
        return metadata;
    }

    /**
     * The idempotency key of the append that stored this entry, if it had one.
     *
     * @return the idempotency key of the append that stored this entry, if it had one
     */
    public Optional<String> idempotencyKey() {
        return Optional.ofNullable(idempotencyKey);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Entry)) {
            return false;
        }
        Entry other = (Entry) o;
        return index == other.index && tokenCount == other.tokenCount && id().equals(other.id())
                && timestamp.equals(other.timestamp) && message.equals(other.message)
                && metadata.equals(other.metadata) && Objects.equals(idempotencyKey, other.idempotencyKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, id(), timestamp, tokenCount, message, metadata, idempotencyKey);
    }

    @Override
    public String toString() {
        return "Entry{index=" + index + ", id=" + id() + ", timestamp=" + timestamp + ", tokens=" + tokenCount
                + ", message=" + message + (metadata.isEmpty() ? "" : ", metadata=" + metadata)
                + (idempotencyKey == null ? "" : ", key=" + idempotencyKey) + '}';
    }
}
