package io.github.memorypack.core;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A message on its way into a session log, with what the caller already knows about it: its token
 * count (or {@link Entry#UNKNOWN_TOKENS}) and optional key/value metadata. The store adds the
 * index, the id and the timestamp when it appends.
 *
 * <p>A {@link CustomMessage} is refused here, before any store sees it, when one of its attributes
 * could not come back from a store as it went in (stores keep messages as JSON).
 *
 * <p>Immutable, so thread-safe.
 */
public final class NewEntry {

    private final ChatMessage message;
    private final int tokenCount;
    private final Map<String, String> metadata;

    private NewEntry(ChatMessage message, int tokenCount, Map<String, String> metadata) {
        this.message = Objects.requireNonNull(message, "message");
        if (message instanceof CustomMessage) {
            checkAttributes(((CustomMessage) message).attributes(), "");
        }
        if (tokenCount < Entry.UNKNOWN_TOKENS) {
            throw new IllegalArgumentException("tokenCount must be >= 0 or UNKNOWN_TOKENS, was " + tokenCount);
        }
        this.tokenCount = tokenCount;
        // a map no one can change needs no copy (a copy would cost a hashed map per append)
        this.metadata = metadata instanceof ImmutableMetadata ? metadata
                : Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
    }

    /**
     * Refuses a {@link CustomMessage} attribute that a store could not give back as it was: stores keep
     * messages as JSON, which reads numbers back as {@code Integer} or {@code Double}, characters and
     * byte arrays as text, and cannot write other objects at all.
     */
    private static void checkAttributes(Object value, String path) {
        if (value == null || value instanceof String || value instanceof Boolean || value instanceof Integer) {
            return;
        }
        if (value instanceof Double) {
            if (((Double) value).isInfinite() || ((Double) value).isNaN()) {
                throw new IllegalArgumentException("CustomMessage attribute " + path + " is " + value
                        + ", which JSON cannot hold; a store could not give it back");
            }
            return;
        }
        if (value instanceof Map) {
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                if (!(entry.getKey() instanceof String)) {
                    throw new IllegalArgumentException("CustomMessage attribute " + path + " has a key of type "
                            + (entry.getKey() == null ? "null" : entry.getKey().getClass().getName())
                            + "; only String keys round-trip through a store");
                }
                checkAttributes(entry.getValue(), path.isEmpty() ? "'" + entry.getKey() + "'"
                        : path + "['" + entry.getKey() + "']");
            }
            return;
        }
        if (value instanceof List) {
            int i = 0;
            for (Object element : (List<?>) value) {
                checkAttributes(element, path + "[" + i++ + "]");
            }
            return;
        }
        throw new IllegalArgumentException("CustomMessage attribute " + path + " is a " + value.getClass().getName()
                + "; a store keeps attributes as JSON and gives back only String, Boolean, Integer, finite Double,"
                + " List, Map with String keys and null exactly (use one of those, e.g. a String or an Integer)");
    }

    /**
     * A message whose token count is not known.
     *
     * @param message the message
     * @throws IllegalArgumentException if the message is a {@link CustomMessage} with an attribute no
     *         store could give back as it is (anything but String, Boolean, Integer, finite Double, List,
     *         Map with String keys and null)
     * @return a message whose token count is not known
     */
    public static NewEntry of(ChatMessage message) {
        return new NewEntry(message, Entry.UNKNOWN_TOKENS, Map.of());
    }

    /**
     * A message with its token count.
     *
     * @param message the message
     * @throws IllegalArgumentException if the message is a {@link CustomMessage} with an attribute no
     *         store could give back as it is (anything but String, Boolean, Integer, finite Double, List,
     *         Map with String keys and null)
     * @param tokenCount the token count, or {@link Entry#UNKNOWN_TOKENS}
     * @return a message with its token count
     */
    public static NewEntry of(ChatMessage message, int tokenCount) {
        return new NewEntry(message, tokenCount, Map.of());
    }

    /**
     * A message with its token count and metadata (copied; a map that cannot change may be kept as it is).
     *
     * @param message the message
     * @throws IllegalArgumentException if the message is a {@link CustomMessage} with an attribute no
     *         store could give back as it is (anything but String, Boolean, Integer, finite Double, List,
     *         Map with String keys and null)
     * @param tokenCount the token count, or {@link Entry#UNKNOWN_TOKENS}
     * @param metadata the metadata, copied (an immutable map of the JDK's or of Memory Pack's own may be kept
     *        as it is); empty for none
     * @return a message with its token count and metadata
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
