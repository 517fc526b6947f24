package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import java.util.Map;
import java.util.Objects;

/**
 * A message on its way into a session log, with what the caller already knows about it: its token
 * count (or {@link Entry#UNKNOWN_TOKENS}) and optional key/value metadata. The store adds the
 * index, the id and the timestamp when it appends.
 *
 * <p>Immutable, so thread-safe.
 */
public final class NewEntry {

    private final ChatMessage message;
    private final int tokenCount;
    private final Map<String, String> metadata;

    private NewEntry(ChatMessage message, int tokenCount, Map<String, String> metadata) {
        this.message = Objects.requireNonNull(message, "message");
        if (tokenCount < Entry.UNKNOWN_TOKENS) {
            throw new IllegalArgumentException("tokenCount must be >= 0 or UNKNOWN_TOKENS, was " + tokenCount);
        }
        this.tokenCount = tokenCount;
        // a memory's own tags are immutable already (Records.tags): copied, they would cost a hashed map per append
        this.metadata = Records.isTags(metadata) ? metadata : Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
    }

    /**
     * A message whose token count is not known.
     *
     * @param message the message
     * @return a message whose token count is not known
     */
    public static NewEntry of(ChatMessage message) {
        return new NewEntry(message, Entry.UNKNOWN_TOKENS, Map.of());
    }

    /**
     * A message with its token count.
     *
     * @param message the message
     * @param tokenCount the token count, or {@link Entry#UNKNOWN_TOKENS}
     * @return a message with its token count
     */
    public static NewEntry of(ChatMessage message, int tokenCount) {
        return new NewEntry(message, tokenCount, Map.of());
    }

    /**
     * A message with its token count and metadata (copied).
     *
     * @param message the message
     * @param tokenCount the token count, or {@link Entry#UNKNOWN_TOKENS}
     * @param metadata the metadata, copied; empty for none
     * @return a message with its token count and metadata (copied)
     */
    public static NewEntry of(ChatMessage message, int tokenCount, Map<String, String> metadata) {
        return new NewEntry(message, tokenCount, metadata);
    }

    /**
     * The message to append.
     *
     * @return the message
     */
    public ChatMessage message() {
        return message;
    }

    /**
     * Token count, or {@link Entry#UNKNOWN_TOKENS}.
     *
     * @return token count, or {@link Entry#UNKNOWN_TOKENS}
     */
    public int tokenCount() {
        return tokenCount;
    }

    /**
     * Immutable metadata; empty when none.
     *
     * @return immutable metadata; empty when none
     */
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public String toString() {
        return "NewEntry{" + message.type() + ", tokens=" + tokenCount + ", metadata=" + metadata + '}';
    }
}
