package io.github.memorypack.core.conversation;

/** Text formats a session can be exported to and imported from with {@link Conversations}. */
public enum TranscriptFormat {
    /** Pretty-printed JSON. */
    JSON,
    /** YAML (the same document as {@link #JSON}). */
    YAML
}
